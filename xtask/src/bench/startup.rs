//! The release binary's size and cold start: what a user downloads and what the
//! first hook after boot or a long idle costs, beside the warm rows of the main table.
//!
//! Cold means the page cache dropped before each run (`sync; echo 3 >
//! /proc/sys/vm/drop_caches`, root only): the binary and the libraries it maps are read from
//! disk again. Only full runs do it (a `--only` run only when it names `cold start`), a few
//! times: it slows every process on the machine for a moment, and CI's `--quick` run has no
//! use for it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::stats;

/// Cold runs per program in a full run.
const COLD_RUNS: usize = 10;

/// What [`measure`] found.
#[derive(Debug, Clone)]
pub struct Startup {
    pub binary_bytes: u64,
    /// Median and p95 in ms of a cold `/bin/true` and a cold `ctxmon --version`, or why not.
    pub cold: Result<[(f64, f64); 2], String>,
}

/// `cold` says whether to measure the cold start (it drops the page cache) or why not.
pub fn measure(binary: &Path, cold: Result<(), &str>) -> Startup {
    let binary_bytes = std::fs::metadata(binary).map_or(0, |m| m.len());
    let cold = match cold {
        Ok(()) => cold_runs(binary),
        Err(why) => Err(why.to_owned()),
    };
    Startup { binary_bytes, cold }
}

fn cold_runs(binary: &Path) -> Result<[(f64, f64); 2], String> {
    let mut out = [(0.0, 0.0); 2];
    for (slot, (program, args)) in out.iter_mut().zip([
        (Path::new("/bin/true"), &[][..]),
        (binary, &["--version"][..]),
    ]) {
        let mut times: Vec<Duration> = Vec::with_capacity(COLD_RUNS);
        for _ in 0..COLD_RUNS {
            drop_caches()?;
            let started = Instant::now();
            let status = Command::new(program)
                .args(args)
                .stdout(Stdio::null())
                .status()
                .map_err(|e| format!("running {}: {e}", program.display()))?;
            times.push(started.elapsed());
            if !status.success() {
                return Err(format!("{} failed ({status})", program.display()));
            }
        }
        let summary: Option<stats::Summary> = stats::Summary::of(&times);
        let summary = summary.ok_or("no cold runs")?;
        *slot = (summary.median_ms, summary.p95_ms);
    }
    Ok(out)
}

fn drop_caches() -> Result<(), String> {
    let _ = Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", "3")
        .map_err(|e| format!("cannot drop the page cache ({e}); cold start needs root on Linux"))
}

/// Measured by hand when the release profile changed, on this 2-CPU machine while
/// other builds ran: hyperfine medians, the before and after binaries alternating in one run.
/// Kept as measured; the commands are in docs/release.md and below.
const BY_HAND: &str = include_str!("startup_by_hand.md");

pub fn render(s: &mut String, startup: &Startup) {
    s.push_str("\n## Release binary and npm launcher\n\n");
    let _ = writeln!(
        s,
        "The measured release binary is {} bytes ({:.2} MiB; target ≤ 6 MiB: {}), built as \
         `cargo xtask dist` ships it: the release profile, statically linked on Linux, the \
         whole program optimised for size at link time, no symbol table \
         (`xtask/src/release_build.rs`).\n",
        startup.binary_bytes,
        startup.binary_bytes as f64 / (1024.0 * 1024.0),
        if startup.binary_bytes <= 6 * 1024 * 1024 {
            "met"
        } else {
            "**MISSED**"
        }
    );
    match &startup.cold {
        Ok([floor, ctxmon]) => {
            let _ = writeln!(
                s,
                "| cold start (page cache dropped before each of {COLD_RUNS} runs) | median | p95 |\n\
                 |---|---:|---:|\n\
                 | `/bin/true` (bare process floor) | {:.2} ms | {:.2} ms |\n\
                 | `ctxmon --version` | {:.2} ms | {:.2} ms |\n",
                floor.0, floor.1, ctxmon.0, ctxmon.1
            );
        }
        Err(why) => {
            let _ = writeln!(s, "Cold start: {why}.\n");
        }
    }
    s.push_str(BY_HAND);
}
