//! `cargo xtask fuzz [--seconds N] [--jobs N]`: runs every fuzz target for N seconds and prints,
//! per target, the executions and the time they took.
//!
//! The targets are ordinary `#[test]`s (the harness is `ctxmon_test_support::fuzz`, see
//! ARCHITECTURE.md), so this runs `cargo test` on the suites that hold them with
//! `CTXFUZZ_SECS` set, collects the report each target writes into
//! `CTXFUZZ_REPORT_DIR`, and fails when a target panicked or did not report at all (a target
//! renamed or filtered away must not pass silently). `cargo xtask ci` runs it for
//! [`CI_SECONDS`] per target.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// Seconds per target in `cargo xtask ci`: 27 targets on two cores stay under two minutes.
pub const CI_SECONDS: f64 = 8.0;

/// Seconds per target when `--seconds` is not given.
pub const DEFAULT_SECONDS: f64 = 10.0;

pub const USAGE: &str = "cargo xtask fuzz [--seconds N] [--jobs N]";

/// A test binary that holds fuzz targets, and the targets it must report.
#[derive(Debug)]
struct Suite {
    package: &'static str,
    /// Which test binary of the package (`--test fuzz`, `--bin ctxmon`).
    binary: [&'static str; 2],
    /// The test-name filter that selects the targets and nothing else.
    filter: &'static str,
    targets: &'static [&'static str],
}

const SUITES: &[Suite] = &[
    Suite {
        package: "ctxmon-infra-fs",
        binary: ["--test", "fuzz"],
        filter: "fuzz_",
        targets: &[
            "transcript_backward",
            "transcript_tail",
            "transcript_forward",
            "json_repair",
            "resumption_source_yaml",
            "resumption_source_json",
            "config_toml",
            "config_env",
            "checkpoint_file",
            "resume_log_file",
            "session_state_file",
            "git_head",
        ],
    },
    Suite {
        package: "ctxmon-cli",
        binary: ["--bin", "ctxmon"],
        filter: "commands::fuzz_targets::fuzz_",
        targets: &[
            "hook_prompt_submit",
            "hook_session_start",
            "hook_pre_compact",
            "hook_pre_tool_use",
            "hook_post_tool_use",
            "hook_post_compact",
            "hook_session_end",
            "hook_transcript",
            "hook_state",
            "hook_checkpoint",
            "hook_resumption_source",
            "statusline",
            "assemble_input",
            "resume_log_draft",
            "install_settings",
            "report",
        ],
    },
];

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub seconds: f64,
    /// Targets run at once (cargo test's `--test-threads`).
    pub jobs: usize,
}

impl Options {
    pub fn ci() -> Options {
        Options {
            seconds: CI_SECONDS,
            jobs: default_jobs(),
        }
    }

    pub fn parse(args: &[&str]) -> Result<Options> {
        let mut options = Options {
            seconds: DEFAULT_SECONDS,
            jobs: default_jobs(),
        };
        let mut it = args.iter();
        while let Some(&arg) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .copied()
                    .with_context(|| format!("{name} needs a value\nusage: {USAGE}"))
            };
            match arg {
                "--seconds" => {
                    let text = value("--seconds")?;
                    options.seconds = text
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .with_context(|| {
                            format!("--seconds {text:?} is not a number of seconds")
                        })?;
                }
                "--jobs" => {
                    let text = value("--jobs")?;
                    options.jobs = text
                        .parse::<usize>()
                        .ok()
                        .filter(|j| *j > 0)
                        .with_context(|| format!("--jobs {text:?} is not a positive number"))?;
                }
                other => bail!("unknown fuzz argument {other:?}\nusage: {USAGE}"),
            }
        }
        Ok(options)
    }
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// What one target wrote at the end of its run.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct TargetReport {
    pub target: String,
    pub seed: String,
    pub executions: u64,
    pub seconds: f64,
    pub corpus: usize,
    pub labels: usize,
    pub slowest_ms: f64,
}

/// Runs every suite, prints the table, and fails when any target failed or is missing.
pub fn run(root: &Path, options: &Options) -> Result<()> {
    let report_dir = root.join("target").join("fuzz-report");
    if report_dir.exists() {
        std::fs::remove_dir_all(&report_dir)
            .with_context(|| format!("clearing {}", report_dir.display()))?;
    }
    std::fs::create_dir_all(&report_dir)
        .with_context(|| format!("creating {}", report_dir.display()))?;
    let total = SUITES.iter().map(|s| s.targets.len()).sum::<usize>();
    println!(
        "fuzz: {total} targets, {} s each, {} at a time",
        options.seconds, options.jobs
    );
    let mut failures = Vec::new();
    for suite in SUITES {
        let status = Command::new(crate::cargo())
            .args(["test", "--locked", "-p", suite.package])
            .args(suite.binary)
            .args(["--", suite.filter])
            .arg(format!("--test-threads={}", options.jobs))
            .env("CTXFUZZ_SECS", options.seconds.to_string())
            .env("CTXFUZZ_REPORT_DIR", &report_dir)
            .current_dir(root)
            .status()
            .with_context(|| format!("starting cargo test -p {}", suite.package))?;
        if !status.success() {
            failures.push(format!("{} ({status})", suite.package));
        }
    }
    let reports = read_reports(&report_dir)?;
    println!("\n{}", table(&reports));
    let missing: Vec<&str> = SUITES
        .iter()
        .flat_map(|s| s.targets.iter().copied())
        .filter(|t| !reports.iter().any(|r| r.target == *t))
        .collect();
    if !failures.is_empty() {
        bail!(
            "fuzzing failed in {}; the panic, its seed and the saved input are in the output above (target/fuzz-crashes/)",
            failures.join(", ")
        );
    }
    if !missing.is_empty() {
        bail!(
            "these fuzz targets did not report: {} (renamed? update SUITES in xtask/src/fuzz.rs)",
            missing.join(", ")
        );
    }
    Ok(())
}

fn read_reports(dir: &Path) -> Result<Vec<TargetReport>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            serde_json::from_str(&text).with_context(|| format!("parsing {}", p.display()))
        })
        .collect()
}

/// The per-target table, in the order of `SUITES`, with a total line.
pub fn table(reports: &[TargetReport]) -> String {
    let order = |r: &TargetReport| {
        SUITES
            .iter()
            .flat_map(|s| s.targets.iter())
            .position(|t| *t == r.target)
            .unwrap_or(usize::MAX)
    };
    let mut sorted: Vec<&TargetReport> = reports.iter().collect();
    sorted.sort_by_key(|r| order(r));
    let mut out = format!(
        "{:<24} {:>12} {:>9} {:>9} {:>7} {:>12}\n",
        "target", "executions", "seconds", "exec/s", "corpus", "slowest ms"
    );
    for r in &sorted {
        out.push_str(&format!(
            "{:<24} {:>12} {:>9.2} {:>9.0} {:>7} {:>12.1}\n",
            r.target,
            r.executions,
            r.seconds,
            r.executions as f64 / r.seconds.max(1e-9),
            r.corpus,
            r.slowest_ms
        ));
    }
    let executions: u64 = sorted.iter().map(|r| r.executions).sum();
    let seconds: f64 = sorted.iter().map(|r| r.seconds).sum();
    out.push_str(&format!(
        "{:<24} {:>12} {:>9.2}\n",
        format!("total ({} targets)", sorted.len()),
        executions,
        seconds
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_seconds_and_jobs() {
        let o = Options::parse(&["--seconds", "2.5", "--jobs", "3"]).unwrap();
        assert_eq!((o.seconds, o.jobs), (2.5, 3));
        assert_eq!(Options::parse(&[]).unwrap().seconds, DEFAULT_SECONDS);
        assert!(Options::parse(&["--seconds", "-1"]).is_err());
        assert!(Options::parse(&["--seconds"]).is_err());
        assert!(Options::parse(&["--jobs", "0"]).is_err());
        assert!(Options::parse(&["--fast"]).is_err());
    }

    #[test]
    fn target_names_are_unique() {
        let mut names: Vec<&str> = SUITES
            .iter()
            .flat_map(|s| s.targets.iter().copied())
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    /// Every `Fuzz::new("<name>", …)` in the suites' sources is listed here, and nothing else.
    #[test]
    fn suites_list_exactly_the_targets_in_the_sources() {
        let root = crate::workspace_root();
        let mut found = Vec::new();
        for file in [
            "crates/ctxmon-infra-fs/tests/fuzz.rs",
            "crates/ctxmon-cli/src/commands/fuzz_targets.rs",
        ] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            for (i, _) in text.match_indices("\"") {
                let rest = &text[i + 1..];
                let Some(end) = rest.find('"') else { continue };
                let name = &rest[..end];
                // Target names are snake_case literals passed to Fuzz::new or to hook_target.
                let before = &text[..i];
                let before = before.trim_end();
                if before.ends_with("Fuzz::new(")
                    || before.ends_with("hook_target(")
                    || before.ends_with("resumption_target(")
                {
                    found.push(name.to_string());
                }
            }
        }
        found.sort();
        let mut listed: Vec<String> = SUITES
            .iter()
            .flat_map(|s| s.targets.iter().map(|t| t.to_string()))
            .collect();
        listed.sort();
        assert_eq!(found, listed);
    }

    #[test]
    fn the_table_has_one_row_per_target_and_a_total() {
        let report = |target: &str, executions| TargetReport {
            target: target.into(),
            seed: "1".into(),
            executions,
            seconds: 2.0,
            corpus: 3,
            labels: 2,
            slowest_ms: 1.5,
        };
        let text = table(&[report("report", 10), report("transcript_backward", 30)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[1].starts_with("transcript_backward"), "{text}");
        assert!(
            lines[3].contains("total (2 targets)") && lines[3].contains("40"),
            "{text}"
        );
    }
}
