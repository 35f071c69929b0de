//! The tidy rule for the repository's markdown pages (`*.md` at the root and in `docs/`):
//! every relative link leads somewhere. A link's file must exist, and a `#anchor` (on its own,
//! or after a `.md` file) must be the anchor GitHub gives one of that page's headings. Text
//! moves between pages as they are reorganised, and a broken link is what such a move leaves
//! behind without anyone noticing.
//!
//! Links inside code blocks and code spans are text, not links, and are not checked; nor are
//! links with a scheme (`https://…`), which would need the network.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};

/// One message per link that leads nowhere, for every page of `root`.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for page in pages(root)? {
        let text = std::fs::read_to_string(&page)
            .with_context(|| format!("reading {}", page.display()))?;
        let shown = page
            .strip_prefix(root)
            .unwrap_or(&page)
            .display()
            .to_string();
        let dir = page.parent().unwrap_or(root);
        for (line, target) in links(&text) {
            if let Some(problem) = broken(&page, dir, &text, &target)? {
                out.push(format!("{shown}:{line}: link `{target}` {problem}"));
            }
        }
    }
    Ok(out)
}

/// The markdown pages: `*.md` at the root and in `docs/`, sorted.
fn pages(root: &Path) -> Result<Vec<PathBuf>> {
    let mut pages = Vec::new();
    for dir in [root.to_path_buf(), root.join("docs")] {
        if !dir.is_dir() {
            continue;
        }
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))?;
        for entry in entries {
            let path = entry
                .with_context(|| format!("listing {}", dir.display()))?
                .path();
            if path.extension().is_some_and(|e| e == "md") && path.is_file() {
                pages.push(path);
            }
        }
    }
    pages.sort();
    Ok(pages)
}

/// What is wrong with `target`, a link on `page` (in `dir`, with `text`), if anything.
fn broken(page: &Path, dir: &Path, text: &str, target: &str) -> Result<Option<String>> {
    if target.contains("://") || target.starts_with("mailto:") {
        return Ok(None);
    }
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        page.to_path_buf()
    } else {
        normalize(&dir.join(path))
    };
    if !file.exists() {
        return Ok(Some(format!("leads nowhere: there is no {path}")));
    }
    let is_page = file.extension().is_some_and(|e| e == "md") && file.is_file();
    if anchor.is_empty() || !is_page {
        return Ok(None);
    }
    let headings = if path.is_empty() {
        anchors(text)
    } else {
        let other = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        anchors(&other)
    };
    Ok((!headings.contains(anchor)).then(|| {
        let on = if path.is_empty() { "this page" } else { path };
        format!("leads nowhere: {on} has no heading with the anchor #{anchor}")
    }))
}

/// `path` with `.` and `..` folded away, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    text.lines().enumerate().filter_map(move |(index, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((index + 1, line))
    })
}

/// Every inline link's target with its line: `[text](target)`, outside code.
pub fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // A code span may run over a line break; a blank line ends the paragraph and any span.
    let mut in_code = false;
    for (line_number, line) in prose(text) {
        if line.trim().is_empty() {
            in_code = false;
            continue;
        }
        let mut plain = String::new();
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                plain.push(' ');
            } else {
                plain.push(if in_code { ' ' } else { c });
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            if !target.is_empty() {
                out.push((line_number, target.to_string()));
            }
            rest = &after[end..];
        }
    }
    out
}

/// The anchors GitHub gives `text`'s headings: each heading's slug, and `slug-N` for the Nth
/// repeat of a slug.
pub fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, line) in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let mut anchor = base.clone();
        let mut n = 0;
        while out.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        out.insert(anchor);
    }
    out
}

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_` kept, each space a
/// `-`, everything else (punctuation, backticks) dropped.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_githubs_anchors() {
        assert_eq!(
            slug(" How a session filled up: `ctxmon report`"),
            "how-a-session-filled-up-ctxmon-report"
        );
        assert_eq!(
            slug("Claude Code's own auto-compaction settings"),
            "claude-codes-own-auto-compaction-settings"
        );
        assert_eq!(
            slug("Register the binary itself, not `npx`"),
            "register-the-binary-itself-not-npx"
        );
        let text = "# A\n## B b\n```sh\n# not a heading\n```\n## B b\n#no\n";
        let anchors: Vec<String> = anchors(text).into_iter().collect();
        assert_eq!(anchors, ["a", "b-b", "b-b-1"]);
    }

    #[test]
    fn links_outside_code_are_found() {
        let text = "See [a](a.md#x) and `[b](b.md)`.\n```\n[c](c.md)\n```\n`code\nspan [d](d.md)` [e](#e \"title\")\n";
        assert_eq!(
            links(text),
            [(1, "a.md#x".to_string()), (6, "#e".to_string())]
        );
    }

    #[test]
    fn a_link_to_a_missing_file_or_heading_fails() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/b.md"), "# Bee\n## Its part\n").unwrap();
        std::fs::write(
            dir.path().join("README.md"),
            "# Top\n[ok](docs/b.md#its-part) [self](#top) [web](https://x.invalid/#y)\n\
             [gone](docs/c.md) [nohead](docs/b.md#nope) [noself](#nope)\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("docs/a.md"),
            "[up](../README.md#top) [sib](b.md)\n",
        )
        .unwrap();
        let problems = check(dir.path()).unwrap();
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(
            problems[0].starts_with("README.md:3: link `docs/c.md` leads nowhere"),
            "{problems:#?}"
        );
        assert!(
            problems[1].contains("`docs/b.md#nope`")
                && problems[1].contains("docs/b.md has no heading"),
            "{problems:#?}"
        );
        assert!(
            problems[2].contains("`#nope`") && problems[2].contains("this page has no heading"),
            "{problems:#?}"
        );
    }
}
