//! Runs a command many times (through the `runner` process) and summarises the runs: wall time
//! from spawn until the child is reaped, and peak RSS from `wait4`'s rusage.
//!
//! Every run happens in a [`Sandbox`]: a fresh project directory (the working directory and
//! `CLAUDE_PROJECT_DIR`) and a fresh `HOME`, with the environment otherwise cleared except
//! `PATH`, so no user configuration or `CTXMON_*` variable leaks in. Every run's output is checked;
//! a wrong answer stops the benchmark.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::runner::{RunOutput, RunRequest, run_in_runner};
use super::stats::Summary;

/// A throw-away project and home directory for one case.
#[derive(Debug)]
pub struct Sandbox {
    pub project: PathBuf,
    pub home: PathBuf,
    stderr: PathBuf,
}

impl Sandbox {
    /// Creates (or empties and recreates) `dir` with `project/` and `home/` inside.
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

/// Checks one run's output; `Err` explains what is wrong with it.
pub type Check<'a> = &'a dyn Fn(&RunOutput) -> Result<(), String>;

/// A case's measurements.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub summary: Summary,
    /// The largest peak RSS of all measured runs, in KiB.
    pub max_rss_kib: Option<u64>,
    /// The largest RSS floor of the measuring process (see `runner`), in KiB.
    pub floor_kib: Option<u64>,
}

/// Runs `inv` `warmups` times unmeasured, then `runs` times measured, in a fresh runner
/// process; every run is checked, warm-ups included.
pub fn measure(
    sandbox: &Sandbox,
    inv: Invocation<'_>,
    warmups: usize,
    runs: usize,
    check: Check<'_>,
) -> Result<Measured> {
    let request = RunRequest {
        program: inv.program.to_path_buf(),
        args: inv.args.to_vec(),
        stdin: inv.stdin.to_owned(),
        home: sandbox.home.clone(),
        project: sandbox.project.clone(),
        stderr_path: sandbox.stderr.clone(),
        count: warmups + runs,
    };
    let outputs = run_in_runner(&request)?;
    if outputs.len() != warmups + runs {
        bail!(
            "the runner reported {} runs of {}",
            outputs.len(),
            warmups + runs
        );
    }
    for (i, out) in outputs.iter().enumerate() {
        if let Err(problem) = check(out) {
            bail!(
                "wrong answer on run {} of `{} {}`: {problem}\nstdout: {}\nstderr: {}",
                i + 1,
                inv.program.display(),
                inv.args.join(" "),
                out.stdout.trim_end(),
                out.stderr.trim_end()
            );
        }
    }
    let measured = &outputs[warmups..];
    let walls: Vec<_> = measured.iter().map(RunOutput::wall).collect();
    let summary = Summary::of(&walls).context("no measured runs (--runs 0?)")?;
    Ok(Measured {
        summary,
        max_rss_kib: measured.iter().filter_map(|o| o.max_rss_kib).max(),
        floor_kib: measured.iter().filter_map(|o| o.floor_kib).max(),
    })
}
