//! The handoff fidelity table in the benchmark report (what a `<resumption-context>` hands
//! back of what the session was doing): it is measured by an
//! end-to-end test over the shared Claude Code transcripts, and the report quotes that test's
//! own table so the figures beside the timings come from the same commit.

use std::path::Path;
use std::process::Command;

/// The acceptance test that prints the table (crates/ctxmon-cli/tests/handoff_fidelity.rs).
const TEST: &str = "the_resumption_context_carries_what_a_resuming_agent_needs";
const HEADING: &str = "### Handoff fidelity";
const LAST_LINE: &str = "Largest context:";

/// Runs the fidelity test and returns its markdown table (heading to the largest-context
/// line), or why there is none (the test failed, `../shared` is absent, …).
pub fn measure(root: &Path) -> Result<String, String> {
    let output = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "test",
            "-p",
            "ctxmon-cli",
            "--locked",
            "--test",
            "handoff_fidelity",
        ])
        .args(["--", "--exact", TEST, "--nocapture"])
        .output()
        .map_err(|e| format!("could not run cargo test: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "the fidelity test failed ({}); run `cargo test -p ctxmon-cli --test handoff_fidelity -- --nocapture`",
            output.status
        ));
    }
    extract(&stdout).ok_or_else(|| {
        "the fidelity test printed no table (is ../shared beside the checkout?)".to_owned()
    })
}

/// The table the test printed: from its heading to the largest-context line, both included.
fn extract(stdout: &str) -> Option<String> {
    let start = stdout.find(HEADING)?;
    let rest = &stdout[start..];
    let end = rest.find(LAST_LINE)?;
    let line_end = rest[end..].find('\n').map_or(rest.len(), |i| end + i);
    // The test's heading level sits under the report's own section heading.
    let body = rest[HEADING.len()..line_end].trim_start_matches(':').trim();
    Some(body.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_cut_from_the_tests_output() {
        let out = "running 6 tests\ntest a ... ok\n\n### Handoff fidelity: 43 replays\n\n| a | b |\n|---|---|\n| x | 1 |\n\nLargest context: 640 tokens.\n\nMisses within the targets:\n";
        assert_eq!(
            extract(out).as_deref(),
            Some("43 replays\n\n| a | b |\n|---|---|\n| x | 1 |\n\nLargest context: 640 tokens.")
        );
        assert_eq!(extract("no table here"), None);
        assert_eq!(extract("### Handoff fidelity\n| a |\n"), None);
    }
}
