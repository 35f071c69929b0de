//! The placement half of `check-arch`: the agents' formats are read in one place, the
//! application's `readers`, so an embedder gets the same rules as the binary from the one
//! library. The adapters and the binary open files and hand the bytes over; they never spell a
//! key of a transcript, rollout or settings file themselves.
//!
//! The check looks for the keys that only a reader of those formats has reason to write, as
//! they appear in a string literal (`"compact_boundary"`, or escaped inside a longer one), in
//! the production code of `ctxmon-infra-fs` and `ctxmon-cli`: comments, test modules (after
//! `#[cfg(test)]`) and test files are left out, since tests build transcripts.

use std::path::Path;

use anyhow::{Context, Result};

/// Where the production code that must not read the formats lives.
pub const OUTSIDE_READERS: &[&str] = &["crates/ctxmon-infra-fs/src", "crates/ctxmon-cli/src"];

/// Keys of the agents' formats: Claude Code's transcript lines and settings, Codex's rollout
/// lines and `config.toml`, and the variables that move Claude Code's auto-compaction.
pub const FORMAT_KEYS: &[&str] = &[
    "projectHash",
    "compressionThreshold",
    "compact_boundary",
    "compactMetadata",
    "isSidechain",
    "isApiErrorMessage",
    "isCompactSummary",
    "toolUseResult",
    "session_meta",
    "token_count",
    "turn_context",
    "last_token_usage",
    "model_context_window",
    "autoCompactWindow",
    "autoCompactEnabled",
    "model_auto_compact_token_limit",
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "DISABLE_AUTO_COMPACT",
];

/// One message per format key found outside the readers.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let mut messages = Vec::new();
    for dir in OUTSIDE_READERS {
        let mut files = Vec::new();
        collect(&root.join(dir), &mut files)?;
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let shown = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            for (line, key) in keys_in(&text) {
                messages.push(format!(
                    "{shown}:{line}: the format key {key:?} is read outside ctxmon-application's readers (the agents' formats are read there only, so an embedder gets the binary's rules; hand the bytes to a reader instead)"
                ));
            }
        }
    }
    Ok(messages)
}

/// The (1-based line, key) of every format key quoted in `text`'s production code.
pub fn keys_in(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        for key in FORMAT_KEYS {
            let quoted = format!("\"{key}\"");
            let escaped = format!("\\\"{key}\\\"");
            if code.contains(&quoted) || code.contains(&escaped) {
                found.push((index + 1, *key));
            }
        }
    }
    found
}

/// Every `.rs` file below `dir` that is not a test file (`tests.rs`, `*_tests.rs`,
/// `tests_*.rs`, anything under a `tests` folder).
fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    for entry in entries {
        let path = entry
            .with_context(|| format!("listing {}", dir.display()))?
            .path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "tests" {
                collect(&path, out)?;
            }
        } else if name.ends_with(".rs")
            && name != "tests.rs"
            && !name.ends_with("_tests.rs")
            && !name.starts_with("tests_")
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_key_in_production_code_is_found_and_comments_and_tests_are_not() {
        let text = concat!(
            "//! Reads `\"compact_boundary\"` lines.\n",
            "fn f(l: &str) -> bool { l.contains(\"\\\"isSidechain\\\":true\") }\n",
            "let m = \"the session_meta line\";\n",
            "let k = \"session_meta\";\n",
            "    // \"token_count\" in a comment\n",
            "#[cfg(test)]\n",
            "mod tests { const L: &str = \"token_count\"; }\n",
        );
        assert_eq!(keys_in(text), [(2, "isSidechain"), (4, "session_meta")]);
    }

    /// The rule holds for this very workspace.
    #[test]
    fn the_adapters_and_the_binary_read_no_format() {
        let messages = check(&crate::workspace_root()).unwrap();
        assert!(messages.is_empty(), "{}", messages.join("\n"));
    }
}
