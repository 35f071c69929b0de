//! The measuring process: a fresh `xtask __bench-runner` that spawns the benchmarked command,
//! times it and reads its peak RSS, so that the RSS figures are ctxmon's and not xtask's.
//!
//! Why a separate process: Linux folds the *spawning* process's memory high-water mark into the
//! child's `ru_maxrss` at `exec` (std spawns with `posix_spawn`, whose child shares the parent's
//! memory until it execs; a forked child starts with the parent's RSS). Spawned straight from
//! `cargo xtask bench`, which has just generated gigabytes of transcripts, every run read 19.4 MiB
//! where `/usr/bin/time` showed ctxmon peaking below 4 MiB. The runner is small, resets its own
//! high-water mark before each spawn (`/proc/self/clear_refs`) and reports it as the *floor*: a
//! reading at the floor means "at most this much". (The kernel's RSS counters are per-CPU and
//! approximate, so a reading can land a little below the floor as well.)
//!
//! The runner measures all cases in rounds (every case once per round), so that a machine getting
//! busier or quieter during the benchmark shifts every row alike instead of skewing the ratios.
//!
//! Protocol: one JSON [`RunBatch`] on stdin; one JSON [`RunOutput`] line per run on stdout.

use std::fs::{self, File};
use std::io::{ErrorKind, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::wait::wait_with_rusage;

/// The hidden xtask verb that runs [`serve`].
pub const VERB: &str = "__bench-runner";

/// What to run, where, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Written to the child's stdin, which is then closed; empty means no stdin at all.
    pub stdin: String,
    /// The child's `HOME`.
    pub home: PathBuf,
    /// The child's working directory and `CLAUDE_PROJECT_DIR`.
    pub project: PathBuf,
    /// Where the child's stderr goes (truncated before each run).
    pub stderr_path: PathBuf,
}

/// Every case, run `rounds` times in round-robin order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunBatch {
    pub requests: Vec<RunRequest>,
    pub rounds: usize,
}

/// What one run produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOutput {
    /// Index of the request in [`RunBatch::requests`].
    pub case: usize,
    pub wall_ns: u64,
    /// The child's peak RSS in KiB (`ru_maxrss`); never below `floor_kib`.
    pub max_rss_kib: Option<u64>,
    /// The runner's own RSS high-water mark when it spawned the child, in KiB.
    pub floor_kib: Option<u64>,
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl RunOutput {
    pub fn wall(&self) -> Duration {
        Duration::from_nanos(self.wall_ns)
    }
}

/// Runs `batch` in a fresh runner process and returns every run's output, in run order.
pub fn run_in_runner(batch: &RunBatch) -> Result<Vec<RunOutput>> {
    let exe = std::env::current_exe().context("locating the xtask executable")?;
    let mut child = Command::new(&exe)
        .arg(VERB)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {} {VERB}", exe.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        serde_json::to_writer(&mut stdin, batch).context("sending the run batch")?;
    }
    let output = child.wait_with_output().context("waiting for the runner")?;
    if !output.status.success() {
        bail!(
            "the bench runner failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).with_context(|| format!("runner said {line:?}")))
        .collect()
}

/// The runner's main: reads a [`RunBatch`] from stdin and reports each run on stdout.
pub fn serve() -> Result<()> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("reading the run batch")?;
    let batch: RunBatch = serde_json::from_str(&input).context("parsing the run batch")?;
    let mut out = std::io::stdout().lock();
    for _ in 0..batch.rounds {
        for (case, request) in batch.requests.iter().enumerate() {
            let run = RunOutput {
                case,
                ..run_once(request)?
            };
            serde_json::to_writer(&mut out, &run)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// How many variables a hook's environment holds besides the ones set above. An agent starts
/// its hooks with the user's shell environment and its own variables: 80 is a modest session
/// (a login shell, a language toolchain or two, the agent's own). Every measured program gets
/// the same ones, the floor included: a hook that copies its environment pays for its size,
/// and a bench with an empty environment (as this one had) hid that cost.
pub const AGENT_ENVIRONMENT_VARS: usize = 80;

/// The variables of [`AGENT_ENVIRONMENT_VARS`]: names and values of the lengths real ones have.
pub fn agent_environment() -> Vec<(String, String)> {
    const REAL: [(&str, &str); 12] = [
        ("CLAUDECODE", "1"),
        ("CLAUDE_CODE_ENTRYPOINT", "cli"),
        ("LANG", "en_US.UTF-8"),
        ("TERM", "xterm-256color"),
        ("SHELL", "/bin/zsh"),
        ("USER", "dev"),
        ("LOGNAME", "dev"),
        ("EDITOR", "vim"),
        ("PAGER", "less"),
        ("COLORTERM", "truecolor"),
        ("SHLVL", "2"),
        ("TMPDIR", "/tmp"),
    ];
    let mut vars: Vec<(String, String)> = REAL
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let padding = AGENT_ENVIRONMENT_VARS.saturating_sub(vars.len());
    vars.extend((0..padding).map(|i| {
        (
            format!("BENCH_ENV_{i:02}"),
            format!("/home/dev/.local/share/toolchain-{i}/bin:/opt/tool/{i}"),
        )
    }));
    vars
}

/// Runs the request's command once: wall time from spawn until it is reaped, with its stdin
/// written and its stdout read in between (what Claude Code waits for).
fn run_once(req: &RunRequest) -> Result<RunOutput> {
    let stderr_file = File::create(&req.stderr_path)
        .with_context(|| format!("creating {}", req.stderr_path.display()))?;
    let mut command = Command::new(&req.program);
    command
        .args(&req.args)
        .env_clear()
        .env("HOME", &req.home)
        .env("CLAUDE_PROJECT_DIR", &req.project)
        .current_dir(&req.project)
        .stdin(if req.stdin.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(stderr_file);
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    command.envs(agent_environment());
    let floor_kib = reset_peak_rss();

    let started = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("starting {}", req.program.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        // The payloads are far below a pipe's buffer, so this cannot block on an unread pipe; a
        // child that exits without reading its input is its own business.
        match stdin.write_all(req.stdin.as_bytes()) {
            Err(e) if e.kind() != ErrorKind::BrokenPipe => {
                return Err(e).context("writing the child's stdin");
            }
            _ => {}
        }
    }
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut stdout)
            .context("reading the child's stdout")?;
    }
    let reaped = wait_with_rusage(&mut child).context("waiting for the child")?;
    let wall = started.elapsed();

    let stderr = fs::read(&req.stderr_path).unwrap_or_default();
    Ok(RunOutput {
        case: 0,
        wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
        max_rss_kib: reaped.max_rss_kib,
        floor_kib,
        exit_code: reaped.status.code(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

/// Resets this process's RSS high-water mark to its current RSS (Linux ≥ 4.0) and returns it in
/// KiB: the lowest `ru_maxrss` a child spawned now can report. `None` off Linux.
fn reset_peak_rss() -> Option<u64> {
    // "5" resets the peak RSS (proc(5), /proc/pid/clear_refs); failure leaves a higher floor,
    // which the returned value still states truthfully.
    let _ = fs::write("/proc/self/clear_refs", "5");
    let status = fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_run_reports_output_exit_code_environment_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        let (home, project) = (dir.path().join("home"), dir.path().join("project"));
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        let request = RunRequest {
            program: PathBuf::from("/bin/sh"),
            args: vec![
                "-c".into(),
                "cat; echo \"$HOME|$CLAUDE_PROJECT_DIR|${CTXMON_X:-unset}|$CLAUDECODE|$(env | grep -c '^BENCH_ENV_')\" >&2; exit 3".into(),
            ],
            stdin: "hello".into(),
            home: home.clone(),
            project: project.clone(),
            stderr_path: dir.path().join("stderr.txt"),
        };
        let out = run_once(&request).unwrap();
        assert_eq!(out.stdout, "hello");
        assert_eq!(out.exit_code, Some(3));
        // The agent-sized environment, and none of the bench's own variables.
        let padding = AGENT_ENVIRONMENT_VARS - 12;
        let expected = format!("{}|{}|unset|1|{padding}", home.display(), project.display());
        assert_eq!(out.stderr.trim_end(), expected);
        assert!(out.wall_ns > 0);
        assert!(out.max_rss_kib.unwrap() > 0);
        if cfg!(target_os = "linux") {
            assert!(out.floor_kib.unwrap() > 0);
        }
    }
}
