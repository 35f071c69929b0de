//! Process-level proof helpers for the checkpoint folder: start many writers at once, SIGKILL
//! them at random moments, and audit what is left on disk.
//!
//! The helpers only take `Command`s and a project folder, so the adapter's own test
//! (`crates/ctxmon-infra-fs/tests/checkpoint_processes.rs`) and the CLI's `hooks pre-compact`
//! tests prove the same properties, the latter through the real hook.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ctxmon_application::ports::CheckpointRepository;
use ctxmon_domain::{CheckpointData, CheckpointId};
use ctxmon_infra_fs::{FsCheckpointRepository, ProjectLayout};

/// A small xorshift generator: random kill delays without a dependency. The seed is printed and
/// can be pinned with `CTXMON_PROOF_SEED` to replay a failure.
#[derive(Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn from_env_or_clock() -> Rng {
        let seed = std::env::var("CTXMON_PROOF_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                let nanos = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64);
                nanos ^ u64::from(std::process::id()).rotate_left(32)
            });
        eprintln!("proof: CTXMON_PROOF_SEED={seed}");
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform enough in `[0, max)` for picking delays.
    pub fn below(&mut self, max: u64) -> u64 {
        if max == 0 { 0 } else { self.next_u64() % max }
    }

    pub fn delay_ms(&mut self, max_ms: u64) -> Duration {
        Duration::from_millis(self.below(max_ms))
    }
}

/// Builds an example of a workspace package with the cargo running the tests and returns its
/// executable (cargo reports the path, so a shared or custom target dir just works).
pub fn cargo_example(package: &str, name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = built.iter().find(|(n, _)| n == name) {
        return path.clone();
    }
    let out = Command::new(env!("CARGO"))
        .args(["build", "--example", name, "-p", package])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo build --example {name} failed");
    let exe = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "compiler-artifact" && v["target"]["name"] == name)
        .find_map(|v| v["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo did not report an executable for example {name}"));
    built.push((name.to_string(), exe.clone()));
    exe
}

/// Starts every command with piped stdout and stderr, as fast as possible, so they overlap.
pub fn spawn_all(commands: impl IntoIterator<Item = Command>) -> Vec<Child> {
    commands
        .into_iter()
        .map(|mut c| {
            c.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect()
}

pub fn wait_all(children: Vec<Child>) -> Vec<Output> {
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

/// SIGKILL (what `Child::kill` sends on unix): no destructor, no flush, no unlock by the
/// process itself. Returns whether the child was still running, i.e. whether a kill was injected.
pub fn sigkill(child: &mut Child) -> bool {
    matches!(child.try_wait(), Ok(None)) && child.kill().is_ok()
}

/// Reads the child's stdout until a line starting with `prefix` (the child keeps running).
pub fn wait_for_line(child: &mut Child, prefix: &str) -> String {
    let stdout = child.stdout.as_mut().unwrap();
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "no {prefix:?} line"
        );
        if line.starts_with(prefix) {
            return line.trim().to_string();
        }
    }
}

/// What the audit of a checkpoint folder found.
#[derive(Debug, Default, Clone)]
pub struct Audit {
    /// Visible `cx-NNN-checkpoint.json` files, each parsed completely.
    pub files: usize,
    pub bytes: u64,
    /// Their ids, ascending.
    pub ids: Vec<u32>,
    /// `.tmp-*` leftovers of killed writers (allowed, never listed).
    pub temps: usize,
}

/// Asserts the folder's invariants and returns its figures: every visible checkpoint file
/// parses completely as a checkpoint of the id its name claims (no torn file is ever visible),
/// and the repository lists exactly those files with no problems.
pub fn audit(project: &Path) -> Audit {
    let dir = ProjectLayout::new(project).checkpoints_dir();
    let mut audit = Audit::default();
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return audit,
        Err(e) => panic!("{}: {e}", dir.display()),
    };
    for entry in entries {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with(".tmp-") {
            audit.temps += 1;
            continue;
        }
        let Some(stem) = name.strip_suffix("-checkpoint.json") else {
            continue;
        };
        let id = CheckpointId::parse(stem).unwrap_or_else(|| panic!("bad name {name}"));
        let bytes = fs::read(dir.join(&name)).unwrap();
        let data: CheckpointData = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{name} is torn or corrupt ({} bytes): {e}", bytes.len()));
        assert_eq!(data.checkpoint_id, id, "{name}");
        audit.files += 1;
        audit.bytes += bytes.len() as u64;
        audit.ids.push(id.sequence());
    }
    audit.ids.sort_unstable();
    let listing = FsCheckpointRepository::new(ProjectLayout::new(project))
        .list()
        .unwrap();
    assert!(listing.problems.is_empty(), "{:#?}", listing.problems);
    let listed: Vec<u32> = listing
        .checkpoints
        .iter()
        .map(|c| c.data.checkpoint_id.sequence())
        .collect();
    assert_eq!(listed, audit.ids, "list() disagrees with the folder");
    audit
}

/// Asserts `ids` (ascending) are exactly `first, first + 1, …`: distinct and without gaps.
pub fn assert_gapless(ids: &[u32], first: u32) {
    let expected: Vec<u32> = (first..).take(ids.len()).collect();
    assert_eq!(ids, expected.as_slice(), "ids are not distinct and gapless");
}

/// The `saved cx-NNN` / ids a process printed, for cross-checking against the folder.
pub fn ids_in_output(stdout: &[u8], prefix: &str) -> Vec<u32> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|s| CheckpointId::parse(s.trim()))
        .map(CheckpointId::sequence)
        .collect()
}
