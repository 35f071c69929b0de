//! The tidy rule for the pages that ship with a published crate: its README, shown on the
//! registry's page, and the contract, which its docs include. They are read away from the
//! repository, where a relative link leads nowhere, so every link on them is an anchor or has
//! a scheme.

use std::path::Path;

use anyhow::{Context, Result};

/// One message per relative link on a page that ships with a published crate: the README of
/// every crate whose manifest says `publish = true`, and the contract.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let mut pages = vec![root.join(super::citations::CONTRACT)];
    let crates = root.join("crates");
    if crates.is_dir() {
        for entry in
            std::fs::read_dir(&crates).with_context(|| format!("listing {}", crates.display()))?
        {
            let dir = entry
                .with_context(|| format!("listing {}", crates.display()))?
                .path();
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
            if manifest
                .lines()
                .any(|l| l.replace(' ', "") == "publish=true")
            {
                pages.push(dir.join("README.md"));
            }
        }
    }
    pages.sort();
    let mut out = Vec::new();
    for page in pages.iter().filter(|p| p.is_file()) {
        let text =
            std::fs::read_to_string(page).with_context(|| format!("reading {}", page.display()))?;
        let shown = page
            .strip_prefix(root)
            .unwrap_or(page)
            .display()
            .to_string();
        for (line, target) in super::links::links(&text) {
            let absolute = target.contains("://") || target.starts_with("mailto:");
            if !absolute && !target.starts_with('#') {
                out.push(format!(
                    "{shown}:{line}: link `{target}` is relative; this page ships with a published crate, where it leads nowhere: use an absolute address (https://docs.rs/…) or an anchor"
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_link_on_a_page_that_ships_with_a_crate_fails() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, text) in [
            ("crates/lib/Cargo.toml", "[package]\npublish = true\n"),
            (
                "crates/lib/README.md",
                "[docs](https://docs.rs/lib) [here](#here) [up](../../README.md)\n",
            ),
            ("crates/tool/Cargo.toml", "[package]\npublish = false\n"),
            ("crates/tool/README.md", "[up](../../README.md)\n"),
            ("docs/contract.md", "# C\n[C1](#c) [other](codex.md)\n"),
            ("docs/codex.md", "# Codex\n"),
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let found = check(root).unwrap();
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("crates/lib/README.md:1: link `../../README.md` is relative"),
            "{found:#?}"
        );
        assert!(
            found[1].starts_with("docs/contract.md:2: link `codex.md` is relative"),
            "{found:#?}"
        );
    }
}
