//! A time-boxed fuzz harness on stable Rust: a deterministic, seeded mutator (bytes, lines and
//! JSON structure) drives one target function and checks that it never panics.
//!
//! cargo-fuzz needs nightly and libFuzzer; this harness needs neither. It has no coverage
//! feedback, so instead a target reports a short *label* of what happened (`Ok("usage")`,
//! `Err("not json")`) and an input that produces a label not seen before joins the corpus:
//! behaviour coverage as a cheap stand-in for code coverage.
//!
//! Shared by every crate's fuzz targets: the adapters' (`crates/ctxmon-infra-fs/tests/fuzz.rs`)
//! and the CLI's in-process ones (`crates/ctxmon-cli/src/commands/fuzz_targets.rs`), both
//! through this crate. It uses only `std`, `serde_json` and the domain's FNV-1a.
//!
//! Knobs (environment):
//! - `CTXFUZZ_SECS`: mutation time per target, in seconds (fractions allowed). Default 2;
//!   `0` replays the seeds and the committed regression inputs only. `cargo xtask fuzz` and
//!   `cargo xtask ci` set it.
//! - `CTXFUZZ_SEED`: the mutator's seed (printed by every run) to replay a run.
//! - `CTXFUZZ_REPORT_DIR`: when set, each target writes `<name>.json` there (executions,
//!   seconds, corpus size) for `cargo xtask fuzz` to tabulate.
//!
//! Not `CTXMON_*`: ctxmon reads every such variable as configuration, so the in-process hook
//! targets ran every hook with an unknown key, on the path that skips the tier and the tag.
//!
//! A panic is minimised (chunks deleted while it still panics), written to
//! `target/fuzz-crashes/<target>-<hash>.bin` and fails the test with the seed and the input.
//! Turn it into a regression input by copying the file to `fixtures/fuzz/<target>/`: every file
//! there is replayed first by every run, before any mutation.

pub mod mutate;
pub mod seeds;

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ctxmon_domain::hash::fnv1a64;

pub use mutate::{Format, Rng};

/// What one execution produced: a short label of the outcome, `Ok` or `Err`. Digits in a label
/// are ignored (`line 3` and `line 4` are one behaviour).
pub type Outcome = Result<String, String>;

/// The knobs' variables (see the module documentation).
pub const SECS_VAR: &str = "CTXFUZZ_SECS";
pub const SEED_VAR: &str = "CTXFUZZ_SEED";
pub const REPORT_DIR_VAR: &str = "CTXFUZZ_REPORT_DIR";

/// Mutation time per target when `CTXFUZZ_SECS` is not set: small enough that
/// `cargo test --workspace` stays quick, long enough to shake out a shallow bug.
pub const DEFAULT_SECS: f64 = 2.0;

/// Inputs kept for mutation at most; a new label beyond it replaces a random non-seed entry.
const MAX_CORPUS: usize = 2_000;

/// Minimisation stops after this many attempts or this long, whichever comes first.
const MINIMIZE_ATTEMPTS: usize = 4_000;
const MINIMIZE_TIME: Duration = Duration::from_secs(30);

/// An execution slower than this is written to `target/fuzz-crashes/slow-…` and reported (not
/// failed: timing in a debug build on a shared machine is not a verdict).
const SLOW: Duration = Duration::from_secs(1);

/// The workspace root: this crate lives in `crates/ctxmon-test-support`.
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The real Claude Code transcripts in `../shared`, or `None` with a printed notice.
pub fn shared_transcripts() -> Option<PathBuf> {
    let dir = workspace_root().join("../shared/fixtures/claude-code-transcripts");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "notice: ../shared is absent; fuzz seeds come from the repository's fixtures only"
        );
        None
    }
}

/// Every regular file directly in `dir` whose name ends with one of `exts` (all files for an
/// empty list), sorted by name; nothing when `dir` does not exist.
pub fn files_in(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            exts.is_empty() || exts.iter().any(|x| name.ends_with(x))
        })
        .collect();
    out.sort();
    out
}

/// The budget from `CTXFUZZ_SECS`; a value that is not a non-negative number fails loudly
/// rather than silently fuzzing for the default.
pub fn budget() -> Duration {
    match std::env::var(SECS_VAR) {
        Ok(text) => {
            let secs: f64 = text
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("CTXFUZZ_SECS={text:?} is not a number"));
            assert!(
                secs.is_finite() && secs >= 0.0,
                "CTXFUZZ_SECS={text:?} must be a non-negative number of seconds"
            );
            Duration::from_secs_f64(secs)
        }
        Err(_) => Duration::from_secs_f64(DEFAULT_SECS),
    }
}

fn base_seed() -> u64 {
    if let Ok(text) = std::env::var(SEED_VAR) {
        return text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("CTXFUZZ_SEED={text:?} is not a u64"));
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ u64::from(std::process::id()).rotate_left(32)
}

/// One target's run, as printed and as written for `cargo xtask fuzz`.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: &'static str,
    pub seed: u64,
    /// Every call of the target: seeds, regression inputs and mutants.
    pub executions: u64,
    /// Wall time from the first to the last execution (minimisation excluded).
    pub elapsed: Duration,
    pub seeds: usize,
    pub regressions: usize,
    pub corpus: usize,
    pub labels: usize,
    pub slowest: Duration,
}

impl Report {
    fn line(&self) -> String {
        format!(
            "fuzz {}: {} executions in {:.2} s ({:.0}/s; {} seeds, {} regression inputs, corpus {}, {} labels, slowest {:.1} ms, CTXFUZZ_SEED={})",
            self.target,
            self.executions,
            self.elapsed.as_secs_f64(),
            self.executions as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.seeds,
            self.regressions,
            self.corpus,
            self.labels,
            self.slowest.as_secs_f64() * 1e3,
            self.seed,
        )
    }

    fn json(&self) -> String {
        serde_json::json!({
            "target": self.target,
            "seed": self.seed.to_string(),
            "executions": self.executions,
            "seconds": self.elapsed.as_secs_f64(),
            "seeds": self.seeds,
            "regressions": self.regressions,
            "corpus": self.corpus,
            "labels": self.labels,
            "slowest_ms": self.slowest.as_secs_f64() * 1e3,
        })
        .to_string()
    }
}

/// A fuzz target's configuration: its seeds, its dictionary and the shape of its input.
#[derive(Debug)]
pub struct Fuzz {
    name: &'static str,
    format: Format,
    seeds: Vec<Vec<u8>>,
    dict: Vec<Vec<u8>>,
    max_len: usize,
}

impl Fuzz {
    /// `name` is also the folder of its regression inputs: `fixtures/fuzz/<name>/`.
    pub fn new(name: &'static str, format: Format) -> Fuzz {
        Fuzz {
            name,
            format,
            seeds: Vec::new(),
            dict: mutate::default_dictionary(format),
            max_len: 64 * 1024,
        }
    }

    pub fn seed(mut self, bytes: impl Into<Vec<u8>>) -> Fuzz {
        self.seeds.push(bytes.into());
        self
    }

    pub fn seeds<I: IntoIterator<Item = Vec<u8>>>(mut self, seeds: I) -> Fuzz {
        self.seeds.extend(seeds);
        self
    }

    /// Tokens the mutator inserts and overwrites with: key names, keywords, delimiters.
    pub fn dict(mut self, tokens: &[&str]) -> Fuzz {
        self.dict
            .extend(tokens.iter().map(|t| t.as_bytes().to_vec()));
        self
    }

    /// Mutants are cut to this length (seeds are kept whole).
    pub fn max_len(mut self, max_len: usize) -> Fuzz {
        self.max_len = max_len.max(1);
        self
    }

    /// Runs `target` on every seed, every regression input, then on mutants until the budget
    /// is spent. Panics (failing the test) when the target panics on any of them.
    pub fn run(self, mut target: impl FnMut(&[u8]) -> Outcome) -> Report {
        install_quiet_hook();
        let budget = budget();
        let seed = base_seed();
        let mut rng = Rng::new(seed);
        let regressions: Vec<Vec<u8>> =
            files_in(&workspace_root().join("fixtures/fuzz").join(self.name), &[])
                .iter()
                .filter_map(|p| std::fs::read(p).ok())
                .collect();
        let mut run = Run {
            name: self.name,
            seed,
            corpus: Vec::new(),
            pinned: 0,
            labels: HashSet::new(),
            executions: 0,
            slowest: Duration::ZERO,
        };
        let started = Instant::now();
        for input in regressions.iter().chain(&self.seeds) {
            run.execute(&mut target, input, true);
        }
        run.pinned = run.corpus.len();
        if run.corpus.is_empty() {
            run.corpus.push(Vec::new());
        }
        let deadline = started + budget;
        while Instant::now() < deadline {
            let parent = run.corpus[rng.below(run.corpus.len())].clone();
            let mut input = parent;
            mutate::havoc(
                &mut input,
                &mut rng,
                &run.corpus,
                &self.dict,
                self.format,
                self.max_len,
            );
            run.execute(&mut target, &input, false);
        }
        let report = Report {
            target: self.name,
            seed,
            executions: run.executions,
            elapsed: started.elapsed(),
            seeds: self.seeds.len(),
            regressions: regressions.len(),
            corpus: run.corpus.len(),
            labels: run.labels.len(),
            slowest: run.slowest,
        };
        eprintln!("{}", report.line());
        if let Ok(dir) = std::env::var(REPORT_DIR_VAR) {
            let dir = PathBuf::from(dir);
            std::fs::create_dir_all(&dir).expect("create the fuzz report folder");
            std::fs::write(dir.join(format!("{}.json", self.name)), report.json())
                .expect("write the fuzz report");
        }
        report
    }
}

struct Run {
    name: &'static str,
    seed: u64,
    corpus: Vec<Vec<u8>>,
    /// The first `pinned` corpus entries are seeds and regression inputs, never replaced.
    pinned: usize,
    labels: HashSet<(bool, String)>,
    executions: u64,
    slowest: Duration,
}

impl Run {
    fn execute(&mut self, target: &mut impl FnMut(&[u8]) -> Outcome, input: &[u8], seed: bool) {
        self.executions += 1;
        let started = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(|| target(input)));
        let took = started.elapsed();
        if took > self.slowest {
            self.slowest = took;
            if took > SLOW {
                let path = save(&format!("slow-{}", self.name), input);
                eprintln!(
                    "notice: fuzz {}: one execution took {:.2} s; input saved to {}",
                    self.name,
                    took.as_secs_f64(),
                    path.display()
                );
            }
        }
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(payload) => self.crash(target, input, &panic_message(&*payload)),
        };
        let key = match outcome {
            Ok(label) => (true, normalize(&label)),
            Err(label) => (false, normalize(&label)),
        };
        if self.labels.insert(key) || seed {
            if self.corpus.len() < MAX_CORPUS {
                self.corpus.push(input.to_vec());
            } else if self.corpus.len() > self.pinned {
                let slot = self.pinned
                    + (self.executions as usize) % (self.corpus.len() - self.pinned).max(1);
                self.corpus[slot] = input.to_vec();
            }
        }
    }

    fn crash(
        &mut self,
        target: &mut impl FnMut(&[u8]) -> Outcome,
        input: &[u8],
        message: &str,
    ) -> ! {
        let original = save(&format!("{}-original", self.name), input);
        let minimal = minimize(input, |candidate| {
            quietly(|| panic::catch_unwind(AssertUnwindSafe(|| target(candidate))).is_err())
        });
        let minimal_message =
            quietly(
                || match panic::catch_unwind(AssertUnwindSafe(|| target(&minimal))) {
                    Err(payload) => panic_message(&*payload),
                    Ok(_) => message.to_string(),
                },
            );
        let path = save(self.name, &minimal);
        panic!(
            "fuzz target `{name}` panicked: {minimal_message}\n\
             CTXFUZZ_SEED={seed} (execution {n}); first panic: {message}\n\
             minimal input ({len} bytes) saved to {path}\n  {shown}\n\
             original input saved to {original}\n\
             keep it as a regression input: cp {path} fixtures/fuzz/{name}/",
            name = self.name,
            seed = self.seed,
            n = self.executions,
            len = minimal.len(),
            path = path.display(),
            shown = show(&minimal),
            original = original.display(),
        );
    }
}

/// Labels are compared without digits and cut short, so a position or a size in an error
/// message does not make every input look new.
fn normalize(label: &str) -> String {
    let mut out = String::new();
    let mut last_digit = false;
    for c in label.chars().take(80) {
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('#');
            }
            last_digit = true;
        } else {
            out.push(c);
            last_digit = false;
        }
    }
    out
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

/// Deletes chunks of `input`, halving their size, for as long as `fails` still holds.
pub fn minimize(input: &[u8], mut fails: impl FnMut(&[u8]) -> bool) -> Vec<u8> {
    let started = Instant::now();
    let mut attempts = 0;
    let mut best = input.to_vec();
    let mut chunk = best.len().div_ceil(2).max(1);
    loop {
        let mut at = 0;
        while at < best.len() {
            if attempts >= MINIMIZE_ATTEMPTS || started.elapsed() > MINIMIZE_TIME {
                return best;
            }
            attempts += 1;
            let end = (at + chunk).min(best.len());
            let mut candidate = best[..at].to_vec();
            candidate.extend_from_slice(&best[end..]);
            if fails(&candidate) {
                best = candidate;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 {
            return best;
        }
        chunk = chunk.div_ceil(2);
    }
}

/// The input as a Rust byte-string literal body, cut for the terminal.
fn show(bytes: &[u8]) -> String {
    const SHOWN: usize = 2_000;
    let mut out = String::new();
    for &b in bytes.iter().take(SHOWN) {
        let _ = write!(out, "{}", std::ascii::escape_default(b));
    }
    if bytes.len() > SHOWN {
        let _ = write!(out, "… ({} more bytes in the file)", bytes.len() - SHOWN);
    }
    format!("b\"{out}\"")
}

/// Writes `bytes` to `<target dir>/fuzz-crashes/<stem>-<hash>.bin` and returns the path.
fn save(stem: &str, bytes: &[u8]) -> PathBuf {
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let dir = target_dir.join("fuzz-crashes");
    let path = dir.join(format!("{stem}-{:016x}.bin", fnv1a64(bytes)));
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, bytes)) {
        eprintln!("could not save {}: {e}", path.display());
    }
    path
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with panic messages of this thread suppressed (minimisation panics thousands of
/// times). Other threads, other tests included, keep the normal hook.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    QUIET.with(|q| q.set(true));
    let out = f();
    QUIET.with(|q| q.set(false));
    out
}

fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod harness_tests {
    use super::*;

    #[test]
    fn the_knobs_are_not_configuration_the_hooks_would_read() {
        // ctxmon reads every `CTXMON_*` variable as a configuration key: a knob named so put
        // every in-process hook target on the invalid-configuration path.
        for var in [SECS_VAR, SEED_VAR, REPORT_DIR_VAR] {
            assert!(!var.to_ascii_uppercase().starts_with("CTXMON_"), "{var}");
        }
    }

    #[test]
    fn minimize_keeps_only_what_makes_it_fail() {
        let input = b"aaaa{bad}bbbb";
        let out = minimize(input, |c| c.windows(3).any(|w| w == b"bad"));
        assert_eq!(out, b"bad");
    }

    #[test]
    fn labels_ignore_numbers() {
        assert_eq!(
            normalize("line 3, column 17"),
            normalize("line 40, column 2")
        );
        assert_ne!(normalize("not json"), normalize("empty"));
    }
}
