//! The citation rule of `cargo xtask tidy`: the repository cites its own contract,
//! [`CONTRACT`], and nothing that lives outside it.
//!
//! In every `.rs` and `.md` file of the tree:
//! - no citation of the product spec by section (the word `spec` followed by a section sign and
//!   a number, also when a line break falls between them): the spec is not part of the
//!   repository, so a reader could not follow it; what the code relies on is in [`CONTRACT`];
//! - every `contract C<n>` (and each further `, C<m>` or ` and C<m>` right after it) names a
//!   section [`CONTRACT`] has, a heading `## C<n>. Title`;
//! - every link into [`CONTRACT`] by anchor (the file name, `#` and the anchor; inside the
//!   contract, `#` and the anchor) names an anchor of one of its headings, as GitHub derives
//!   them.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result};

/// The repository's contract, relative to the workspace root.
pub const CONTRACT: &str = "docs/contract.md";

/// The section sign, kept out of the literals so this file does not cite what it forbids.
const SECTION_SIGN: char = '\u{a7}';

/// What [`CONTRACT`] defines: its section numbers and its headings' anchors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contract {
    pub sections: BTreeSet<u32>,
    pub anchors: BTreeSet<String>,
}

impl Contract {
    /// Reads the sections (`## C<n>. …`) and anchors of every heading from the contract's text.
    pub fn parse(text: &str) -> Contract {
        let mut contract = Contract::default();
        let mut fenced = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            let hashes = line.chars().take_while(|&c| c == '#').count();
            let Some(title) = line.get(hashes..).and_then(|t| t.strip_prefix(' ')) else {
                continue;
            };
            if fenced || hashes == 0 {
                continue;
            }
            contract.anchors.insert(anchor(title));
            if hashes == 2
                && let Some((number, _)) = title.strip_prefix('C').and_then(|t| t.split_once('.'))
                && let Ok(n) = number.parse::<u32>()
            {
                contract.sections.insert(n);
            }
        }
        contract
    }
}

/// GitHub's anchor for a heading (the links rule's one slug).
pub use super::links::slug as anchor;

/// Every `.rs` and `.md` file of the tree checked against [`CONTRACT`]; one message each.
pub fn check_tree(root: &Path) -> Result<Vec<String>> {
    let contract_path = root.join(CONTRACT);
    let contract = if contract_path.is_file() {
        let text = std::fs::read_to_string(&contract_path)
            .with_context(|| format!("reading {}", contract_path.display()))?;
        Some(Contract::parse(&text))
    } else {
        None
    };
    let mut files = Vec::new();
    super::walk(root, &mut |path| {
        if path.extension().is_some_and(|e| e == "rs" || e == "md") {
            files.push(path.to_path_buf());
        }
    })?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        out.extend(citations(&shown, &text, contract.as_ref()));
    }
    Ok(out)
}

/// The violations in one file: `shown` is its path from the root, `contract` what
/// [`CONTRACT`] defines (`None` when the tree has none).
pub fn citations(shown: &str, text: &str, contract: Option<&Contract>) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let at = format!("{shown}:{}", index + 1);
        if cites_spec(line, lines.get(index + 1).copied()) {
            out.push(format!(
                "{at}: cites the spec by section; cite the section of {CONTRACT} that holds the rule (`contract C<n>`)"
            ));
        }
        for n in contract_sections(line) {
            match contract {
                Some(c) if c.sections.contains(&n) => {}
                Some(_) => out.push(format!(
                    "{at}: cites contract C{n}, which {CONTRACT} does not have (its headings are `## C<n>. Title`)"
                )),
                None => out.push(format!("{at}: cites contract C{n}, but {CONTRACT} is missing")),
            }
        }
        let own = shown == CONTRACT;
        for target in anchor_links(line, own) {
            match contract {
                Some(c) if c.anchors.contains(&target) => {}
                _ => out.push(format!(
                    "{at}: links {CONTRACT}#{target}, which is not one of its headings' anchors"
                )),
            }
        }
    }
    out
}

/// Whether `line` (with `next` after it) cites the spec by section.
fn cites_spec(line: &str, next: Option<&str>) -> bool {
    let lower = line.to_ascii_lowercase();
    if lower.contains(&format!("spec {SECTION_SIGN}")) {
        return true;
    }
    // A citation wrapped between `spec` and its section sign.
    let ends_with_spec = lower
        .trim_end()
        .strip_suffix("spec")
        .is_some_and(|before| before.is_empty() || before.ends_with([' ', '(', '/', '*', '!']));
    let next_starts_with_sign = next.is_some_and(|n| {
        n.trim_start()
            .trim_start_matches(['/', '!', '*', '#', '-', '>'])
            .trim_start()
            .starts_with(SECTION_SIGN)
    });
    ends_with_spec && next_starts_with_sign
}

/// The section numbers `line` cites: each `contract C<n>` (any case of the word), and the
/// `C<m>` listed right after it with `, ` or ` and `.
pub fn contract_sections(line: &str) -> Vec<u32> {
    let lower = line.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = lower.get(from..).and_then(|rest| rest.find("contract c")) {
        let start = from + found;
        from = start + "contract c".len();
        // A word of its own: `subcontract C1` is not a citation.
        let own_word = lower
            .get(..start)
            .and_then(|before| before.chars().last())
            .is_none_or(|c| !c.is_alphanumeric());
        // The `C` as written: a citation spells it upper case.
        if !own_word || line.get(from - 1..from) != Some("C") {
            continue;
        }
        let mut rest = line.get(from..).unwrap_or("");
        while let Some((n, after)) = number(rest) {
            out.push(n);
            let Some(next) = [", C", " and C"]
                .iter()
                .find_map(|sep| after.strip_prefix(sep))
                .filter(|next| number(next).is_some())
            else {
                break;
            };
            rest = next;
        }
    }
    out
}

/// The decimal number at the start of `text` and what follows it.
fn number(text: &str) -> Option<(u32, &str)> {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let n = text.get(..digits)?.parse().ok()?;
    Some((n, text.get(digits..)?))
}

/// The anchors `line` links in the contract: after the file name and `#`, and after `](#` when
/// the line is the contract's own.
fn anchor_links(line: &str, own: bool) -> Vec<String> {
    // Built so that this file holds no link of its own.
    let mut prefixes = vec![concat!("contract.md", "#")];
    if own {
        prefixes.push("](#");
    }
    let mut out = Vec::new();
    for prefix in prefixes {
        let mut from = 0;
        while let Some(found) = line.get(from..).and_then(|rest| rest.find(prefix)) {
            from += found + prefix.len();
            let target: String = line
                .get(from..)
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            out.push(target);
        }
    }
    out
}
