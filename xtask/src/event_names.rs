//! The event half of `check-arch`: an agent's hook event names (`UserPromptSubmit`,
//! `BeforeAgent`, `PreCompress`, …) are written in one place, the agents' descriptions in
//! `ctxmon-application/src/agents/`. Anywhere else the code asks a description for them, so
//! adding an agent or renaming an event is one change, and no use case can grow a branch on
//! one agent's event name.
//!
//! The names checked are the descriptions' own (`ctxmon_application::agents::AGENTS`), so a new
//! agent's events are covered the moment it is listed. A name counts as written when it is a
//! whole string literal (`"BeforeAgent"`) or a JSON key or value inside one
//! (`"hook_event_name":"BeforeAgent"`), outside comments. Test code may name events freely (it
//! plays the agent): files named `tests.rs` or `*_tests.rs`, what follows a file's first
//! `#[cfg(test)]`, and modules declared under `#[cfg(test)]` are not read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The crates whose sources are read, by source folder.
pub const CHECKED: &[&str] = &[
    "crates/ctxmon-domain/src",
    "crates/ctxmon-application/src",
    "crates/ctxmon-infra-fs/src",
    "crates/ctxmon-cli/src",
];

/// The one folder allowed to name events.
pub const DESCRIPTIONS: &str = "crates/ctxmon-application/src/agents";

/// Every event name of every agent description.
pub fn event_names() -> BTreeSet<&'static str> {
    ctxmon_application::agents::AGENTS
        .iter()
        .flat_map(|agent| agent.events.iter().map(|b| b.event))
        .collect()
}

/// One message per event name written outside the descriptions.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let names = event_names();
    let mut messages = Vec::new();
    for dir in CHECKED {
        let mut files = Vec::new();
        collect(&root.join(dir), &mut files)?;
        let test_only = test_modules(&files)?;
        for file in &files {
            if file.starts_with(root.join(DESCRIPTIONS)) || test_only.contains(file) {
                continue;
            }
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("reading {}", file.display()))?;
            let rel = file
                .strip_prefix(root)
                .unwrap_or(file)
                .display()
                .to_string();
            for (line, event) in findings(&text, &names) {
                messages.push(format!(
                    "{rel}:{line}: the event name \"{event}\" is written outside the agents' \
                     descriptions ({DESCRIPTIONS}); ask the agent's description for it \
                     (`description().event_of(hook)`)"
                ));
            }
        }
    }
    Ok(messages)
}

/// (line, event) for each event name written in `text`'s code before its first `#[cfg(test)]`.
pub fn findings(text: &str, names: &BTreeSet<&'static str>) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let code = line.split(" // ").next().unwrap_or(line);
        for name in names {
            if code.contains(&format!("\"{name}\"")) {
                out.push((k + 1, *name));
            }
        }
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("listing {}", dir.display()))?
            .path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

/// The files of modules declared right under a `#[cfg(test)]` (`#[cfg(test)] mod fuzz_targets;`),
/// and everything below them.
fn test_modules(files: &[PathBuf]) -> Result<BTreeSet<PathBuf>> {
    let mut dirs = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let parent = file.parent().unwrap_or(Path::new(""));
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let base = if matches!(stem, "mod" | "lib" | "main") {
            parent.to_path_buf()
        } else {
            parent.join(stem)
        };
        let mut lines = text.lines().map(str::trim);
        while let Some(line) = lines.next() {
            if line != "#[cfg(test)]" {
                continue;
            }
            let Some(next) = lines.next() else { break };
            if let Some(name) = next
                .strip_prefix("mod ")
                .or_else(|| next.strip_prefix("pub mod "))
                .or_else(|| next.strip_prefix("pub(crate) mod "))
                .and_then(|rest| rest.strip_suffix(';'))
            {
                dirs.push(base.join(name));
            }
        }
    }
    Ok(files
        .iter()
        .filter(|f| {
            dirs.iter()
                .any(|d| f.starts_with(d) || *f == &d.with_extension("rs"))
        })
        .cloned()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_descriptions_hold_every_agents_events() {
        let names = event_names();
        for name in [
            "UserPromptSubmit",
            "PreCompact",
            "BeforeAgent",
            "PreCompress",
        ] {
            assert!(names.contains(name), "{name}");
        }
    }

    #[test]
    fn an_event_name_in_code_is_found_and_in_comments_or_tests_is_not() {
        let names = event_names();
        let code = "fn f() -> &'static str {\n    \"BeforeAgent\"\n}\n";
        assert_eq!(findings(code, &names), vec![(2, "BeforeAgent")]);
        let json = "const X: &str = r#\"{\"hook_event_name\":\"PreCompress\"}\"#;\n";
        assert_eq!(findings(json, &names), vec![(1, "PreCompress")]);
        let comment = "// answers \"UserPromptSubmit\"\nlet a = 1; // \"PreCompact\"\n";
        assert!(findings(comment, &names).is_empty());
        let test = "fn f() {}\n#[cfg(test)]\nmod tests { const E: &str = \"AfterTool\"; }\n";
        assert!(findings(test, &names).is_empty());
        // A longer name that merely contains an event name is not that event.
        assert!(findings("let s = \"PreCompactish\";\n", &names).is_empty());
    }

    #[test]
    fn the_workspace_names_events_only_in_the_descriptions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace root");
        let messages = check(root).expect("the check runs");
        assert!(messages.is_empty(), "{}", messages.join("\n"));
    }
}
