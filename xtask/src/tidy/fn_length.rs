//! The function-length rule of `cargo xtask tidy`: no function of the library embedders read
//! ([`CHECKED`]) is over [`MAX_FN_LINES`] lines, from its `fn` to its closing brace. A longer
//! one does several things under one name; split it into steps that each say what they do.
//!
//! Functions are found with the source checks' lexer, so braces in comments and literals do
//! not count: a `fn NAME` is followed to its body's `{` (a `;` first, outside parentheses and
//! brackets, means a declaration without one) and the braces are matched from there. A
//! function inside another counts on its own, and as part of the outer one.

use std::path::Path;

use anyhow::{Context, Result};

use crate::lexer::{Tok, lex};

/// The most lines a function may span.
pub const MAX_FN_LINES: usize = 120;

/// The source folders held to the rule: the application crate, which embedders read.
pub const CHECKED: &[&str] = &["crates/ctxmon-application/src"];

/// A function's name and the lines of its `fn` and of its body's closing brace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FnSpan {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

impl FnSpan {
    /// The lines it spans, both ends included.
    pub fn lines(&self) -> usize {
        self.end + 1 - self.start
    }
}

/// Every function with a body in `text`, in source order.
pub fn fn_spans(text: &str) -> Vec<FnSpan> {
    let tokens = lex(text);
    let mut out = Vec::new();
    for (k, token) in tokens.iter().enumerate() {
        if token.tok != Tok::Ident("fn".to_owned()) {
            continue;
        }
        // `fn(u8) -> u8`, a function pointer type, has no name.
        let Some(Tok::Ident(name)) = tokens.get(k + 1).map(|t| &t.tok) else {
            continue;
        };
        let Some(open) = body_start(&tokens[k + 2..]).map(|at| k + 2 + at) else {
            continue;
        };
        let mut depth = 0usize;
        for t in &tokens[open..] {
            match t.tok {
                Tok::Open => depth += 1,
                Tok::Close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        out.push(FnSpan {
                            name: name.clone(),
                            start: token.line,
                            end: t.line,
                        });
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The index of the `{` that opens the body, in the tokens after a function's name; `None`
/// for a declaration (its `;` comes first).
fn body_start(tokens: &[crate::lexer::Token]) -> Option<usize> {
    let mut nesting = 0usize;
    for (i, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::OpenParen | Tok::OpenBracket => nesting += 1,
            Tok::CloseParen | Tok::CloseBracket => nesting = nesting.saturating_sub(1),
            Tok::Semi if nesting == 0 => return None,
            Tok::Open if nesting == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The violations in one file: `shown` is its path from the root.
pub fn long_functions(shown: &str, text: &str) -> Vec<String> {
    fn_spans(text)
        .into_iter()
        .filter(|span| span.lines() > MAX_FN_LINES)
        .map(|span| {
            format!(
                "{shown}:{}: fn {} is {} lines, over {MAX_FN_LINES}; split it into steps that each say what they do",
                span.start,
                span.name,
                span.lines()
            )
        })
        .collect()
}

/// Every `.rs` file under the [`CHECKED`] folders of `root`; one message per long function.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for dir in CHECKED {
        let dir = root.join(dir);
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        super::walk(&dir, &mut |path| {
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path.to_path_buf());
            }
        })?;
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let shown = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            out.extend(long_functions(&shown, &text));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of `body` lines between its signature and its closing brace.
    fn function(name: &str, body: usize) -> String {
        let mut text = format!("fn {name}() {{\n");
        for i in 0..body {
            text.push_str(&format!("    let x{i} = {i};\n"));
        }
        text.push_str("}\n");
        text
    }

    #[test]
    fn a_function_over_the_limit_fails_and_one_at_it_passes() {
        // The signature and the closing brace count: 118 lines of body make 120.
        let text = format!("{}{}", function("fits", 118), function("long", 119));
        let found = long_functions("src/a.rs", &text);
        assert_eq!(
            found,
            [
                "src/a.rs:121: fn long is 121 lines, over 120; split it into steps that each say what they do"
            ]
        );
    }

    #[test]
    fn braces_in_comments_and_literals_declarations_and_pointer_types_are_not_bodies() {
        let text = "trait T {\n    fn declared(&self, x: [u8; 4]);\n}\n\
                    fn outer(f: fn(u8) -> u8) -> [u8; 2] {\n    // }\n    let s = \"}}\";\n    let c = '{';\n    fn inner() {}\n    [f(1), 2]\n}\n";
        let spans: Vec<(String, usize, usize)> = fn_spans(text)
            .into_iter()
            .map(|s| (s.name, s.start, s.end))
            .collect();
        assert_eq!(
            spans,
            [("outer".to_owned(), 4, 10), ("inner".to_owned(), 8, 8)]
        );
    }

    #[test]
    fn a_long_function_in_the_application_tree_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(CHECKED[0]).join("deep");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("x.rs"), function("planted", 200)).unwrap();
        let found = check(tmp.path()).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .starts_with("crates/ctxmon-application/src/deep/x.rs:1: fn planted is 202 lines"),
            "{}",
            found[0]
        );
    }
}
