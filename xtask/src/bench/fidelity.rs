//! The tables the benchmark report quotes from acceptance tests over the shared transcripts,
//! so the figures beside the timings come from the same commit: handoff fidelity (what a
//! `<resumption-context>` hands back of what the session was doing) and the auto-compaction
//! point against every real automatic compaction.

use std::path::Path;
use std::process::Command;

/// A table an acceptance test prints, quoted into the report.
struct Quoted {
    /// The test binary (`--test`).
    binary: &'static str,
    /// The test's exact name.
    test: &'static str,
    /// The heading the test prints before the table.
    heading: &'static str,
    /// The start of the table's last line.
    last_line: &'static str,
}

/// The handoff fidelity table (crates/ctxmon-cli/tests/handoff_fidelity.rs).
const FIDELITY: Quoted = Quoted {
    binary: "handoff_fidelity",
    test: "the_resumption_context_carries_what_a_resuming_agent_needs",
    heading: "### Handoff fidelity",
    last_line: "Largest context:",
};

/// The auto-compaction point against every real automatic compaction
/// (crates/ctxmon-cli/tests/compaction_points.rs).
const POINTS: Quoted = Quoted {
    binary: "compaction_points",
    test: "the_point_lies_at_or_below_every_real_automatic_compaction_and_within_4_percent",
    heading: "### Auto-compaction point",
    last_line: "Sources:",
};

/// Runs the fidelity test and returns its markdown table (heading to the largest-context
/// line), or why there is none (the test failed, `../shared` is absent, …).
pub fn measure(root: &Path) -> Result<String, String> {
    quote(root, &FIDELITY)
}

/// Runs the compaction-point test and returns its table, or why there is none.
pub fn measure_points(root: &Path) -> Result<String, String> {
    quote(root, &POINTS)
}

fn quote(root: &Path, q: &Quoted) -> Result<String, String> {
    let output = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["test", "-p", "ctxmon-cli", "--locked", "--test", q.binary])
        .args(["--", "--exact", q.test, "--nocapture"])
        .output()
        .map_err(|e| format!("could not run cargo test: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "the test failed ({}); run `cargo test -p ctxmon-cli --test {} -- --nocapture`",
            output.status, q.binary
        ));
    }
    extract(&stdout, q.heading, q.last_line)
        .ok_or_else(|| "the test printed no table (is ../shared beside the checkout?)".to_owned())
}

/// The table the test printed: from its heading to its last line, both included.
fn extract(stdout: &str, heading: &str, last_line: &str) -> Option<String> {
    let start = stdout.find(heading)?;
    let rest = &stdout[start..];
    let end = rest.find(last_line)?;
    let line_end = rest[end..].find('\n').map_or(rest.len(), |i| end + i);
    // The test's heading level sits under the report's own section heading.
    let body = rest[heading.len()..line_end].trim_start_matches(':').trim();
    Some(body.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_cut_from_the_tests_output() {
        let out = "running 6 tests\ntest a ... ok\n\n### Handoff fidelity: 43 replays\n\n| a | b |\n|---|---|\n| x | 1 |\n\nLargest context: 640 tokens.\n\nMisses within the targets:\n";
        let cut = |text: &str| extract(text, FIDELITY.heading, FIDELITY.last_line);
        assert_eq!(
            cut(out).as_deref(),
            Some("43 replays\n\n| a | b |\n|---|---|\n| x | 1 |\n\nLargest context: 640 tokens.")
        );
        assert_eq!(cut("no table here"), None);
        assert_eq!(cut("### Handoff fidelity\n| a |\n"), None);
        let points = "### Auto-compaction point: 13 automatic compactions\n\n| a |\n\nSources: history 9.\n\ntest x ... ok\n";
        assert_eq!(
            extract(points, POINTS.heading, POINTS.last_line).as_deref(),
            Some("13 automatic compactions\n\n| a |\n\nSources: history 9.")
        );
    }
}
