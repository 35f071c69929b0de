//! External benchmarks: a command (typically an in-process `cargo run --release --example`) that
//! prints one `BENCH {json}` line per measurement, which becomes a row of the table.
//!
//! The JSON carries `name`, `median_ms`, `p95_ms` and optionally `target_ms`; other keys are
//! ignored, other lines are passed through to the terminal. A case whose source file does not
//! exist yet is skipped and listed in the report, so a benchmark can be registered before the
//! code it measures lands.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// A command that prints `BENCH` lines.
#[derive(Debug, Clone)]
pub struct ExternalBench {
    /// What the report calls it when it is skipped.
    pub label: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Paths relative to the workspace root; the case is skipped while none of them exists.
    pub requires: Vec<PathBuf>,
}

/// One `BENCH` line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BenchLine {
    pub name: String,
    pub median_ms: f64,
    pub p95_ms: f64,
    #[serde(default)]
    pub target_ms: Option<f64>,
    /// A figure beside the timing that the report prints under the table (budget used, a
    /// growth ratio).
    #[serde(default)]
    pub note: Option<String>,
}

/// What running an external benchmark gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ExternalOutcome {
    Rows(Vec<BenchLine>),
    /// The required file is missing; the string says which.
    Skipped(String),
}

impl ExternalBench {
    /// Runs the command in `root` (stderr goes to the terminal) and collects its `BENCH` lines.
    pub fn run(&self, root: &Path) -> Result<ExternalOutcome> {
        if !self.requires.iter().any(|p| root.join(p).exists()) {
            let wanted: Vec<String> = self
                .requires
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect();
            return Ok(ExternalOutcome::Skipped(format!(
                "{}: {} does not exist yet",
                self.label,
                wanted.join(" or ")
            )));
        }
        let shown = format!("{} {}", self.program.display(), self.args.join(" "));
        println!("    running `{shown}`");
        let output = Command::new(&self.program)
            .args(&self.args)
            .current_dir(root)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("starting `{shown}`"))?;
        if !output.status.success() {
            bail!("`{shown}` failed ({})", output.status);
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let rows = parse_bench_lines(&stdout).with_context(|| format!("output of `{shown}`"))?;
        if rows.is_empty() {
            bail!("`{shown}` printed no `BENCH {{...}}` line");
        }
        Ok(ExternalOutcome::Rows(rows))
    }
}

/// The `BENCH` lines of `stdout`; any other line is ignored.
pub fn parse_bench_lines(stdout: &str) -> Result<Vec<BenchLine>> {
    stdout
        .lines()
        .filter_map(|line| line.trim().strip_prefix("BENCH "))
        .map(|json| {
            let row: BenchLine =
                serde_json::from_str(json).with_context(|| format!("bad BENCH line: {json}"))?;
            if !(row.median_ms.is_finite() && row.p95_ms.is_finite()) {
                bail!("BENCH line with a non-finite time: {json}");
            }
            Ok(row)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_are_parsed_and_other_lines_ignored() {
        let out = "warming up\nBENCH {\"name\":\"assembly 2000 files\",\"median_ms\":1.5,\"p95_ms\":2.25,\"target_ms\":5,\"extra\":1}\n  BENCH {\"name\":\"b\",\"median_ms\":0.1,\"p95_ms\":0.2}\n";
        let rows = parse_bench_lines(out).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].name, "assembly 2000 files");
        assert_eq!(rows[0].target_ms, Some(5.0));
        assert_eq!(rows[1].target_ms, None);
    }

    #[test]
    fn a_malformed_bench_line_is_an_error() {
        assert!(parse_bench_lines("BENCH {\"name\":\"x\"}").is_err());
        assert!(parse_bench_lines("BENCH not json").is_err());
        assert!(parse_bench_lines("nothing here").unwrap().is_empty());
    }

    #[test]
    fn a_missing_source_skips_the_case() {
        let dir = tempfile::tempdir().unwrap();
        let bench = ExternalBench {
            label: "assembly".into(),
            program: "false".into(),
            args: vec![],
            requires: vec!["examples/nope.rs".into(), "examples/nope".into()],
        };
        let outcome = bench.run(dir.path()).unwrap();
        assert!(matches!(outcome, ExternalOutcome::Skipped(s) if s.contains("examples/nope.rs")));
    }
}
