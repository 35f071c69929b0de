//! The tidy rule against internal citations in `crates/` and `xtask/`: a comment, a doc or a
//! page there that points at something its reader cannot open. A published crate's reader has
//! its source and docs, nothing else: not the tracker's issue numbers, not the bug tracker's
//! ids, not the design documents the project started from. So a comment says the reason
//! itself, or cites a section of the contract, which ships with the crates.
//!
//! What is refused, in `.rs` comments and in `.md` and `.toml` files:
//! - an issue by number: the word `issue` or `issues`, then a number (`#` and spaces allowed
//!   between them);
//! - a bug id: `BUG`, a hyphen and a digit;
//! - a design document the project started from, which comments used to call by a name of
//!   its own: the word `seed` or `seeds` (possessive too) on a comment line that says nothing
//!   of randomness. A random, proptest or fuzz seed is named
//!   with what makes it one on the same line ([`RANDOM_WORDS`]), or lives in a file of the
//!   fuzz harness (its path says `fuzz`); a seed in a code span (`` `seed` ``, a parameter's
//!   name) is code.
//!
//! Code itself (identifiers, string literals) is not read for the last rule: `seed` is a fine
//! name for a generator's state. The citation of the spec by section is the `citations` rule's.

use std::path::Path;

use anyhow::{Context, Result};

/// The folders the rule reads, relative to the workspace root.
pub const CHECKED: &[&str] = &["crates", "xtask"];

/// Words that make a `seed` on the same line a random or fuzz seed, lower case.
pub const RANDOM_WORDS: &[&str] = &[
    "random",
    "rng",
    "xorshift",
    "proptest",
    "shuffle",
    "fuzz",
    "mutat",
    "replay",
    "deterministic",
    "generator",
];

/// Every citation in the [`CHECKED`] folders of `root`; one message
/// each, `path:line: …`.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    for dir in CHECKED {
        let dir = root.join(dir);
        if dir.is_dir() {
            super::walk(&dir, &mut |path| {
                if path
                    .extension()
                    .is_some_and(|e| e == "rs" || e == "md" || e == "toml")
                {
                    files.push(path.to_path_buf());
                }
            })?;
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        out.extend(citations(&shown, &text));
    }
    Ok(out)
}

/// The citations in one file: `shown` is its path from the root; a `.rs` file is read for
/// its comments only.
pub fn citations(shown: &str, text: &str) -> Vec<String> {
    let rust = shown.ends_with(".rs");
    // The fuzz harness's seeds are its inputs, on every line.
    let fuzz = shown.contains("fuzz");
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let at = format!("{shown}:{}", index + 1);
        let prose = if rust { comment(line) } else { Some(line) };
        // Issue numbers and bug ids count in code too: in a string they reach a user.
        if let Some(found) = issue_number(line) {
            out.push(format!(
                "{at}: cites {found:?}, which a reader of the crate cannot open; say the reason itself, or cite a section of docs/contract.md"
            ));
        }
        if let Some(found) = bug_id(line) {
            out.push(format!(
                "{at}: cites {found:?}, a bug id a reader of the crate cannot look up; say what went wrong and why the code is as it is"
            ));
        }
        if let Some(prose) = prose.filter(|_| !fuzz)
            && let Some(found) = design_seed(prose)
        {
            out.push(format!(
                "{at}: {found:?} reads as a citation of a design document a reader cannot open; say the reason itself (a random or fuzz seed: say so on the line)"
            ));
        }
    }
    out
}

/// The comment part of a line of Rust: what follows its first `//`, unless that sits inside
/// a string literal on the line.
fn comment(line: &str) -> Option<&str> {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return line.get(i + 2..),
            _ => {}
        }
    }
    None
}

/// Whether `c` continues a word (an identifier, a file name): such a neighbour makes `seed` or
/// `issue` part of another word.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// The start of each occurrence of `word` in `lower` that stands as a word of its own.
fn word_starts<'a>(lower: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    lower.match_indices(word).filter_map(move |(at, _)| {
        let before = lower.get(..at).and_then(|b| b.chars().last());
        before.is_none_or(|c| !is_word(c)).then_some(at)
    })
}

/// An issue by number (the word, singular or plural, then digits, a `#` allowed before them):
/// the words as written.
fn issue_number(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    word_starts(&lower, "issue").find_map(|at| {
        let rest = lower.get(at + "issue".len()..)?;
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let number = rest.trim_start_matches([' ', '#']);
        let digits = number.len()
            - number
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        let end = lower.len() - number.len() + digits;
        (digits > 0).then(|| line.get(at..end).unwrap_or("issue").to_owned())
    })
}

/// A bug id (`BUG`, a hyphen, digits): the id as written.
fn bug_id(line: &str) -> Option<String> {
    let marker = concat!("BUG", "-");
    line.match_indices(marker).find_map(|(at, _)| {
        let before = line.get(..at).and_then(|b| b.chars().last());
        let digits: String = line
            .get(at + marker.len()..)?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (before.is_none_or(|c| !is_word(c)) && !digits.is_empty())
            .then(|| format!("{marker}{digits}"))
    })
}

/// A `seed` of a design document in comment text: the word as written.
fn design_seed(prose: &str) -> Option<String> {
    let lower = prose.to_ascii_lowercase();
    if RANDOM_WORDS.iter().any(|w| lower.contains(w)) {
        return None;
    }
    let spans = code_spans(&lower);
    word_starts(&lower, "seed").find_map(|at| {
        let after = lower.get(at + "seed".len()..).unwrap_or("");
        let len = if after.starts_with("s'") || after.starts_with("'s") {
            "seed".len() + 2
        } else if after.starts_with('s') {
            "seed".len() + 1
        } else {
            "seed".len()
        };
        let next = lower.get(at + len..).and_then(|r| r.chars().next());
        let whole = next.is_none_or(|c| !is_word(c));
        let in_code = spans.iter().any(|&(start, end)| start <= at && at < end);
        (whole && !in_code).then(|| prose.get(at..at + len).unwrap_or("seed").to_owned())
    })
}

/// The byte ranges of the code spans (`` `…` ``) of a line.
fn code_spans(line: &str) -> Vec<(usize, usize)> {
    let ticks: Vec<usize> = line.match_indices('`').map(|(i, _)| i).collect();
    ticks
        .chunks(2)
        .filter_map(|pair| match pair {
            [start, end] => Some((*start, *end)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line that cites an issue, built so that this file cites none.
    fn issue(n: u32) -> String {
        format!("{} {n}", "issue")
    }

    fn found(shown: &str, text: &str) -> Vec<String> {
        citations(shown, text)
            .into_iter()
            .map(|m| m.split(", ").next().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn an_issue_number_fails_in_comments_code_and_pages() {
        let text = format!(
            "//! Header ({}).\nfn f() {{}} // {}: why\nconst S: &str = \"see {}\";\nlet issue_12 = 1; // the issuer 5\n",
            issue(12),
            concat!("Issues", " #3 and 4"),
            issue(7)
        );
        assert_eq!(
            found("src/a.rs", &text),
            [
                format!("src/a.rs:1: cites \"{}\"", issue(12)),
                format!("src/a.rs:2: cites \"{}\"", concat!("Issues", " #3")),
                format!("src/a.rs:3: cites \"{}\"", issue(7)),
            ]
        );
        assert_eq!(
            found("README.md", &format!("Fixed in {}.\n", issue(9))).len(),
            1
        );
    }

    #[test]
    fn a_bug_id_fails() {
        let id = concat!("BUG", "-329");
        let text = format!(
            "/// The reset ({id}).\nfn f() {{}}\n// {}-x and DEBUG-1 are not ids\n",
            "BUG"
        );
        let got = found("src/a.rs", &text);
        assert_eq!(got, [format!("src/a.rs:1: cites \"{id}\"")]);
    }

    #[test]
    fn a_design_seed_fails_and_a_random_one_passes() {
        let design = [
            "the seed's limit",
            "as in the seed.",
            "the seeds' behaviour",
            "Seeds nest maps",
        ];
        for prose in design {
            let text = format!("/// {prose}\nfn f() {{}}\n");
            assert_eq!(found("src/a.rs", &text).len(), 1, "{prose}");
        }
        let random = [
            "/// Built from a seed with a cheap xorshift.",
            "// Fuzz seeds: the states of a real session.",
            "/// `seed` varies the names.",
            "let seed = 4; // a plain statement",
            "fn f(seed: u64) {}",
            "const X: &str = \"the seed's\";",
            "/// The file `agent-document.json`, once seed-example.json, or seed_example.",
            "/// Failures replay from the seed.",
        ];
        for line in random {
            assert!(found("src/a.rs", &format!("{line}\n")).is_empty(), "{line}");
        }
        assert_eq!(found("docs.md", "The seed says so.\n").len(), 1);
        let harness = "/// Every seed, then the regression inputs.\n";
        assert!(found("crates/t/src/fuzz/mod.rs", harness).is_empty());
        assert_eq!(found("crates/t/src/lib.rs", harness).len(), 1);
    }

    #[test]
    fn a_planted_citation_fails_anywhere_in_the_checked_folders_only() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let planted = format!("//! Moved here ({}).\n", issue(14));
        write("crates/c/src/lib.rs", &planted);
        write("xtask/src/x.rs", "//! Fine.\n");
        write("crates/ctxmon-infra-fs/src/transcript/mod.rs", &planted);
        write("docs/elsewhere.md", &planted);
        let found = check(root).unwrap();
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with(&format!("crates/c/src/lib.rs:1: cites \"{}\"", issue(14))),
            "{found:#?}"
        );
        assert!(
            found[1].starts_with("crates/ctxmon-infra-fs/src/transcript/mod.rs:1: "),
            "no file is spared: {found:#?}"
        );
    }
}
