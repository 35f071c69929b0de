//! `cargo xtask inject-cost [--write]`: what each `context_monitor.inject` policy costs on the real
//! sessions in `../shared`, so the default is chosen on figures, not guesses. The replay is an
//! end-to-end test (crates/ctxmon-cli/tests/inject_cost.rs: the real hook, prompt by prompt) that
//! also asserts the default warns whenever it matters; this verb runs it and prints its table, and
//! with `--write` puts the table into docs/inject-policy.md, so the figures there come from a run.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

const TEST_FILE: &str = "inject_cost";
const TEST: &str = "the_default_policy_warns_whenever_it_matters_for_less_than_always";
const HEADING: &str = "### Inject cost";
const LAST_LINE: &str = "All replays:";
/// The generated part of docs/inject-policy.md sits between these lines.
const BEGIN: &str = "<!-- inject-cost:begin (cargo xtask inject-cost --write) -->";
const END: &str = "<!-- inject-cost:end -->";
pub const DOC: &str = "docs/inject-policy.md";

pub fn run(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let write = match args {
        [] => false,
        ["--write"] => true,
        other => bail!("unknown arguments {other:?}: expected nothing or --write"),
    };
    let table = measure(root)?;
    println!("{table}");
    if write {
        let path = root.join(DOC);
        let doc = std::fs::read_to_string(&path).with_context(|| format!("reading {DOC}"))?;
        let updated = splice(&doc, &table)
            .with_context(|| format!("{DOC} has no `{BEGIN}` … `{END}` block to replace"))?;
        std::fs::write(&path, updated).with_context(|| format!("writing {DOC}"))?;
        println!("\nwrote the table into {DOC}");
    }
    Ok(())
}

/// Runs the replay test and returns its table (heading to the summary line).
fn measure(root: &Path) -> anyhow::Result<String> {
    let output = Command::new(crate::cargo())
        .current_dir(root)
        .args(["test", "-p", "ctxmon-cli", "--locked", "--test", TEST_FILE])
        .args(["--", "--exact", TEST, "--nocapture"])
        .output()
        .context("could not run cargo test")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "the replay failed ({}); run `cargo test -p ctxmon-cli --test {TEST_FILE} -- --nocapture`\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    extract(&stdout).context("the replay printed no table (is ../shared beside the checkout?)")
}

/// The table the test printed: from its heading to the summary line, both included.
fn extract(stdout: &str) -> Option<String> {
    let start = stdout.find(HEADING)?;
    let rest = &stdout[start..];
    let end = rest.find(LAST_LINE)?;
    let line_end = rest[end..].find('\n').map_or(rest.len(), |i| end + i);
    Some(rest[..line_end].trim().to_owned())
}

/// `doc` with the text between [`BEGIN`] and [`END`] replaced by `table`.
fn splice(doc: &str, table: &str) -> Option<String> {
    let begin = doc.find(BEGIN)? + BEGIN.len();
    let end = begin + doc[begin..].find(END)?;
    Some(format!("{}\n\n{table}\n\n{}", &doc[..begin], &doc[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_cut_from_the_tests_output_and_spliced_into_the_doc() {
        let out = "running 1 test\n\n### Inject cost: x\n\n| a |\n|---|\n| 1 |\n\nAll replays: fewer.\n\ntest t ... ok\n";
        let table = extract(out).unwrap();
        assert_eq!(
            table,
            "### Inject cost: x\n\n| a |\n|---|\n| 1 |\n\nAll replays: fewer."
        );
        assert_eq!(extract("no table"), None);
        let doc = format!("# Doc\n\nbefore\n{BEGIN}\nold figures\n{END}\nafter\n");
        let spliced = splice(&doc, &table).unwrap();
        assert_eq!(
            spliced,
            format!("# Doc\n\nbefore\n{BEGIN}\n\n{table}\n\n{END}\nafter\n")
        );
        // Splicing again gives the same document.
        assert_eq!(splice(&spliced, &table).unwrap(), spliced);
        assert_eq!(splice("no markers", &table), None);
    }

    /// docs/inject-policy.md has the block `--write` replaces.
    #[test]
    fn the_doc_has_its_generated_block() {
        let doc = std::fs::read_to_string(crate::workspace_root().join(DOC)).unwrap();
        assert!(doc.contains(BEGIN) && doc.contains(END));
        let block = &doc[doc.find(BEGIN).unwrap()..doc.find(END).unwrap()];
        assert!(
            block.contains(HEADING) && block.contains(LAST_LINE),
            "{block}"
        );
    }
}
