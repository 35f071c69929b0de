//! Runs the cases many times (through the `runner` process, in interleaved rounds) and summarises
//! the runs: wall time from spawn until the child is reaped, and peak RSS from `wait4`'s rusage.
//!
//! Every run happens in a [`Sandbox`]: a fresh project directory (the working directory and
//! `CLAUDE_PROJECT_DIR`) and a fresh `HOME`, with the environment otherwise cleared except
//! `PATH`, so no user configuration or `CTXMON_*` variable leaks in. Every run's output is checked;
//! a wrong answer stops the benchmark.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::cases::Check;
use super::runner::{RunBatch, RunOutput, RunRequest, run_in_runner};
use super::stats::Summary;

/// A throw-away project and home directory for one case.
#[derive(Debug)]
pub struct Sandbox {
    pub project: PathBuf,
    pub home: PathBuf,
    stderr: PathBuf,
}

impl Sandbox {
    /// Creates (or empties and recreates) `dir` with `project/` and `home/` inside; the project
    /// is a git repository of its own (`git init`), as most projects are. Without one, git
    /// would find whatever repository holds the build folder (ctxmon's own checkout), and the
    /// rows that ask git (PreCompact's uncommitted changes) would time `git status` of that.
    pub fn fresh(dir: &Path) -> Result<Sandbox> {
        if dir.exists() {
            fs::remove_dir_all(dir).with_context(|| format!("emptying {}", dir.display()))?;
        }
        let sandbox = Sandbox {
            project: dir.join("project"),
            home: dir.join("home"),
            stderr: dir.join("stderr.txt"),
        };
        for d in [&sandbox.project, &sandbox.home] {
            fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        let status = std::process::Command::new("git")
            .args(["init", "--quiet"])
            .current_dir(&sandbox.project)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .context("running git init in a benchmark project (the benchmark needs git)")?;
        if !status.success() {
            bail!(
                "git init in {} failed ({status})",
                sandbox.project.display()
            );
        }
        Ok(sandbox)
    }
}

/// One command line to measure.
#[derive(Debug, Clone, Copy)]
pub struct Invocation<'a> {
    pub program: &'a Path,
    pub args: &'a [String],
    /// Written to the child's stdin, which is then closed; empty means no stdin at all.
    pub stdin: &'a str,
}

/// A case's measurements.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub summary: Summary,
    /// The largest peak RSS of all measured runs, in KiB.
    pub max_rss_kib: Option<u64>,
    /// The largest RSS floor of the measuring process (see `runner`), in KiB.
    pub floor_kib: Option<u64>,
}

/// One case to measure: where, what, and how to check its answer.
#[derive(Debug)]
pub struct CaseRun<'a> {
    pub sandbox: Sandbox,
    pub inv: Invocation<'a>,
    pub check: &'a Check,
}

/// Runs every case `warmups` rounds unmeasured, then `runs` rounds measured, each round running
/// every case once, in one runner process. Every run is checked, warm-ups included. Returns one
/// measurement per case, in order.
pub fn measure_all(cases: &[CaseRun<'_>], warmups: usize, runs: usize) -> Result<Vec<Measured>> {
    let batch = RunBatch {
        requests: cases
            .iter()
            .map(|c| RunRequest {
                program: c.inv.program.to_path_buf(),
                args: c.inv.args.to_vec(),
                stdin: c.inv.stdin.to_owned(),
                home: c.sandbox.home.clone(),
                project: c.sandbox.project.clone(),
                stderr_path: c.sandbox.stderr.clone(),
            })
            .collect(),
        rounds: warmups + runs,
    };
    let outputs = run_in_runner(&batch)?;
    if outputs.len() != cases.len() * (warmups + runs) {
        bail!(
            "the runner reported {} runs, expected {}",
            outputs.len(),
            cases.len() * (warmups + runs)
        );
    }
    let mut measured = Vec::with_capacity(cases.len());
    for (index, case) in cases.iter().enumerate() {
        let own: Vec<&RunOutput> = outputs.iter().filter(|o| o.case == index).collect();
        for (round, out) in own.iter().enumerate() {
            if let Err(problem) = case.check.verify(out, round) {
                bail!(
                    "wrong answer in round {} of `{} {}`: {problem}\nstdout: {}\nstderr: {}",
                    round + 1,
                    case.inv.program.display(),
                    case.inv.args.join(" "),
                    out.stdout.trim_end(),
                    out.stderr.trim_end()
                );
            }
        }
        let kept = own.get(warmups..).unwrap_or_default();
        let walls: Vec<_> = kept.iter().map(|o| o.wall()).collect();
        let summary = Summary::of(&walls).context("no measured runs (--runs 0?)")?;
        measured.push(Measured {
            summary,
            max_rss_kib: kept.iter().filter_map(|o| o.max_rss_kib).max(),
            floor_kib: kept.iter().filter_map(|o| o.floor_kib).max(),
        });
    }
    Ok(measured)
}
