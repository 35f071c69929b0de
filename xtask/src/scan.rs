//! The source half of `check-arch`: the core crates never touch files, processes, the network,
//! the environment, stdin or the wall clock.
//!
//! Crate-level rules cannot see `std`, so this scan reads the code itself. It is a small lexer,
//! not a regex: comments are dropped, string and char literals are opaque, and `use` groups are
//! expanded, so `use std::{env, fs}` is caught and `// std::fs is banned here` is not. Besides
//! paths it knows three shapes that would slip past them: a `Path` method that asks the file
//! system (`p.exists()`, `Path::metadata(p)`), and a clock type renamed (`use
//! std::time::SystemTime as T`, `type T = Instant;`) so that its `now()` no longer reads as one.

use std::path::Path;

use anyhow::{Context, Result};

/// A forbidden path (matched as consecutive segments anywhere in a path) and why it is banned.
struct Forbidden {
    segments: &'static [&'static str],
    why: &'static str,
}

const FORBIDDEN: &[Forbidden] = &[
    Forbidden {
        segments: &["std", "fs"],
        why: "the core does no file I/O; add a port in ctxmon-application and an adapter in ctxmon-infra-fs",
    },
    Forbidden {
        segments: &["std", "env"],
        why: "the core reads no environment; configuration reaches it as values from the composition root",
    },
    Forbidden {
        segments: &["std", "process"],
        why: "the core spawns no processes; put the call behind a port with an adapter in ctxmon-infra-fs",
    },
    Forbidden {
        segments: &["std", "net"],
        why: "the core does no network I/O; put the call behind a port with an adapter outside the core",
    },
    Forbidden {
        segments: &["SystemTime", "now"],
        why: "the core reads no wall clock; time reaches it through the Clock port",
    },
    Forbidden {
        segments: &["Instant", "now"],
        why: "the core reads no clock; time reaches it through the Clock port",
    },
    Forbidden {
        segments: &["io", "stdin"],
        why: "the core reads no stdin; the CLI reads it and passes the values in",
    },
    Forbidden {
        segments: &["io", "Stdin"],
        why: "the core reads no stdin; the CLI reads it and passes the values in",
    },
];

/// `Path` methods that ask the file system, banned as calls (`p.exists()`) and as paths
/// (`Path::exists`): a use case that checks a file takes the answer from a port instead.
const FS_PATH_METHODS: &[&str] = &[
    "exists",
    "try_exists",
    "metadata",
    "symlink_metadata",
    "read_dir",
    "read_link",
    "is_file",
    "is_dir",
    "is_symlink",
    "canonicalize",
];
const FS_PATH_WHY: &str = "the core asks no file system about a path; put the question behind a port with an adapter in ctxmon-infra-fs";

/// Clock types whose renaming would hide `now()` from the path rules.
const CLOCK_TYPES: &[&str] = &["SystemTime", "Instant"];
const CLOCK_ALIAS_WHY: &str = "a renamed clock type hides its `now()` from this check; the core reads time through the Clock port";

/// One forbidden use found in a source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line of the path's last matched segment.
    pub line: usize,
    /// The forbidden thing, spelled as a path (`std::fs`, `Instant::now`).
    pub thing: String,
    pub why: &'static str,
}

/// Scans every `.rs` file under `root/rel_dir` and returns one message per finding, in the form
/// `path:line: forbidden <thing> in <crate> (why)` with `path` relative to `root`.
pub fn scan_dir(root: &Path, rel_dir: &str, crate_name: &str) -> Result<Vec<String>> {
    let mut files = Vec::new();
    collect_rs_files(&root.join(rel_dir), &mut files)?;
    files.sort();
    let mut messages = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for finding in scan_source(&text) {
            messages.push(format!(
                "{shown}:{}: forbidden {} in {crate_name} ({})",
                finding.line, finding.thing, finding.why
            ));
        }
    }
    Ok(messages)
}

fn collect_rs_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .with_context(|| format!("inspecting {}", path.display()))?;
        if kind.is_dir() {
            collect_rs_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Scans one source text; findings are ordered by line and never repeated for one line.
pub fn scan_source(text: &str) -> Vec<Finding> {
    let tokens = lex(text);
    let mut findings = shape_findings(&tokens);
    for path in &paths_of(&tokens) {
        if let [.., (ty, _), (method, line)] = path.as_slice()
            && ty == "Path"
            && FS_PATH_METHODS.contains(&method.as_str())
        {
            findings.push(Finding {
                line: *line,
                thing: format!("Path::{method}"),
                why: FS_PATH_WHY,
            });
        }
        for rule in FORBIDDEN {
            let n = rule.segments.len();
            for window in path.windows(n) {
                if window.iter().zip(rule.segments).all(|((s, _), r)| s == r) {
                    findings.push(Finding {
                        line: window[n - 1].1,
                        thing: rule.segments.join("::"),
                        why: rule.why,
                    });
                }
            }
        }
    }
    findings.sort_by(|a, b| (a.line, &a.thing).cmp(&(b.line, &b.thing)));
    findings.dedup();
    findings
}

/// Every path in a source text as segments with the line each sits on: comments dropped,
/// literals opaque, `use` groups expanded. Every identifier starts a path, so suffixes of a
/// path come again, which is harmless to a search (and catches `::std::fs` without special
/// cases).
pub fn paths(text: &str) -> Vec<Segments> {
    paths_of(&lex(text))
}

/// A path as written, from its first segment (never the tail of a longer path), with the inline
/// modules (`mod name { … }`) around it, outermost first: what a reader needs to resolve
/// `super::` and `self::` to the module they name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedPath {
    pub inline: Vec<String>,
    pub segments: Segments,
}

/// Every path of a source text that starts a path (not a tail after `::`), `use` groups
/// expanded, each with the inline modules it sits in.
pub fn scoped_paths(text: &str) -> Vec<ScopedPath> {
    let tokens = lex(text);
    let tok = |k: usize| tokens.get(k).map(|t| &t.tok);
    let mut out = Vec::new();
    // Each open inline module with the brace depth outside its `{`.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut k = 0;
    while let Some(token) = tokens.get(k) {
        match &token.tok {
            Tok::Open => depth += 1,
            Tok::Close => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, at)| *at == depth) {
                    inline.pop();
                }
            }
            Tok::Ident(word)
                if word == "mod"
                    && matches!(tok(k + 1), Some(Tok::Ident(_)))
                    && tok(k + 2) == Some(&Tok::Open) =>
            {
                if let Some(Tok::Ident(name)) = tok(k + 1) {
                    inline.push((name.clone(), depth));
                }
                depth += 1;
                k += 3;
                continue;
            }
            Tok::Ident(_) if k == 0 || tok(k - 1) != Some(&Tok::PathSep) => {
                let mut found = Vec::new();
                expand(&tokens, k, &[], &mut found, 0);
                let names: Vec<String> = inline.iter().map(|(name, _)| name.clone()).collect();
                out.extend(found.into_iter().map(|segments| ScopedPath {
                    inline: names.clone(),
                    segments,
                }));
            }
            _ => {}
        }
        k += 1;
    }
    out
}

fn paths_of(tokens: &[Token]) -> Vec<Segments> {
    let mut paths = Vec::new();
    for start in 0..tokens.len() {
        if matches!(tokens[start].tok, Tok::Ident(_)) {
            expand(tokens, start, &[], &mut paths, 0);
        }
    }
    paths
}

/// The findings that are token shapes rather than paths: `.exists()` and the other file-system
/// calls on a path, `SystemTime as` / `Instant as`, and `type NAME = …SystemTime;`.
fn shape_findings(tokens: &[Token]) -> Vec<Finding> {
    let ident = |k: usize| match tokens.get(k).map(|t| &t.tok) {
        Some(Tok::Ident(name)) => Some(name.as_str()),
        _ => None,
    };
    let tok = |k: usize| tokens.get(k).map(|t| &t.tok);
    let mut findings = Vec::new();
    for (k, token) in tokens.iter().enumerate() {
        let Tok::Ident(name) = &token.tok else {
            continue;
        };
        let name = name.as_str();
        let after_dot = k > 0 && tok(k - 1) == Some(&Tok::Dot);
        // Without arguments, as every one of these `Path` methods is called: a method of the
        // same name that takes some (`meta.metadata(true)`) is another type's.
        if after_dot
            && FS_PATH_METHODS.contains(&name)
            && tok(k + 1) == Some(&Tok::OpenParen)
            && tok(k + 2) == Some(&Tok::CloseParen)
        {
            findings.push(Finding {
                line: token.line,
                thing: format!(".{name}()"),
                why: FS_PATH_WHY,
            });
        }
        if CLOCK_TYPES.contains(&name) && ident(k + 1) == Some("as") {
            findings.push(Finding {
                line: token.line,
                thing: format!("{name} as"),
                why: CLOCK_ALIAS_WHY,
            });
        }
        // `type T = std::time::Instant;`: the alias is the last segment before the `;`.
        if CLOCK_TYPES.contains(&name) && tok(k + 1) == Some(&Tok::Semi) && is_type_alias(tokens, k)
        {
            findings.push(Finding {
                line: token.line,
                thing: format!("type … = {name}"),
                why: CLOCK_ALIAS_WHY,
            });
        }
    }
    findings
}

/// Whether the path ending at `end` is the right-hand side of `type NAME = …`.
fn is_type_alias(tokens: &[Token], end: usize) -> bool {
    let mut k = end;
    // Walk back over `a::b::` to the `=`.
    while k >= 2 && tokens[k - 1].tok == Tok::PathSep && matches!(tokens[k - 2].tok, Tok::Ident(_))
    {
        k -= 2;
    }
    if k > 0 && tokens[k - 1].tok == Tok::PathSep {
        k -= 1; // a leading `::`
    }
    k >= 3
        && tokens[k - 1].tok == Tok::Eq
        && matches!(tokens[k - 2].tok, Tok::Ident(_))
        && tokens[k - 3].tok == Tok::Ident("type".to_owned())
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Dot,
    OpenParen,
    CloseParen,
    Semi,
    Eq,
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

/// A path as segments with the line each one sits on.
pub type Segments = Vec<(String, usize)>;

/// Expands the path (or `use` tree) starting at `i` into `out`; returns the index after it.
fn expand(
    tokens: &[Token],
    mut i: usize,
    prefix: &[(String, usize)],
    out: &mut Vec<Segments>,
    depth: usize,
) -> usize {
    let mut path: Segments = prefix.to_vec();
    // Nesting deeper than any real `use` tree means malformed input: stop rather than recurse.
    if depth > 32 {
        return i + 1;
    }
    while let Some(Token {
        tok: Tok::Ident(name),
        line,
    }) = tokens.get(i)
    {
        path.push((name.clone(), *line));
        i += 1;
        if tokens.get(i).map(|t| &t.tok) != Some(&Tok::PathSep) {
            break;
        }
        i += 1;
        if tokens.get(i).map(|t| &t.tok) == Some(&Tok::Open) {
            i += 1;
            while let Some(token) = tokens.get(i) {
                match token.tok {
                    Tok::Ident(_) => i = expand(tokens, i, &path, out, depth + 1),
                    Tok::Close => {
                        i += 1;
                        break;
                    }
                    _ => i += 1,
                }
            }
            break;
        }
    }
    out.push(path);
    i
}

/// Splits Rust source into the few token kinds the scan needs. Comments vanish; string, char
/// and byte literals become `Other`, so their contents are never mistaken for code.
fn lex(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        let mut push = |tok: Tok| {
            out.push(Token {
                tok,
                line: start_line,
            })
        };
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if at(i + 1) == '/' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => i = skip_block_comment(&chars, i, &mut line),
            '"' => {
                i = skip_string(&chars, i + 1, &mut line);
                push(Tok::Other);
            }
            '\'' => {
                if at(i + 1) == '\\' {
                    // An escaped char literal: '\n', '\'', '\u{1F600}'.
                    i += 3;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                    push(Tok::Other);
                } else if at(i + 2) == '\'' {
                    i += 3;
                    push(Tok::Other);
                } else {
                    // A lifetime or label; its name is lexed as an identifier next.
                    i += 1;
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let begin = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let ident: String = chars[begin..i].iter().collect();
                let raw_prefix = matches!(ident.as_str(), "r" | "br" | "cr");
                if raw_prefix && let Some(end) = skip_raw_string(&chars, i, &mut line) {
                    i = end;
                    push(Tok::Other);
                } else if ident == "r" && at(i) == '#' {
                    // A raw identifier (`r#type`): the name is lexed next.
                    i += 1;
                } else {
                    push(Tok::Ident(ident));
                }
            }
            c if c.is_ascii_digit() => {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                push(Tok::Other);
            }
            ':' if at(i + 1) == ':' => {
                i += 2;
                push(Tok::PathSep);
            }
            '{' | '}' | ',' | '(' | ')' | ';' => {
                i += 1;
                push(match c {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    '(' => Tok::OpenParen,
                    ')' => Tok::CloseParen,
                    ';' => Tok::Semi,
                    _ => Tok::Comma,
                });
            }
            // A lone `.` (a method call or field); `..` and `..=` are ranges.
            '.' if at(i + 1) != '.' && (i == 0 || chars[i - 1] != '.') => {
                i += 1;
                push(Tok::Dot);
            }
            // A lone `=`: not `==`, `=>`, `<=`, `>=`, `!=` or a compound assignment.
            '=' if !matches!(at(i + 1), '=' | '>')
                && (i == 0 || !"=<>!+-*/%^&|".contains(chars[i - 1])) =>
            {
                i += 1;
                push(Tok::Eq);
            }
            c if c.is_whitespace() => i += 1,
            _ => {
                i += 1;
                push(Tok::Other);
            }
        }
    }
    out
}

/// Skips a (possibly nested) block comment starting at `i`; returns the index after it.
fn skip_block_comment(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0usize;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        if chars[i] == '/' && next == Some('*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && next == Some('/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if chars[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// Skips the body of a `"…"` string from just after the opening quote.
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if chars.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 2;
            }
            '"' => return i + 1,
            '\n' => {
                *line += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

/// If `i` (just after an `r`/`br`/`cr` prefix) opens a raw string `#*"`, skips the whole
/// literal and returns the index after it.
fn skip_raw_string(chars: &[char], mut i: usize, line: &mut usize) -> Option<usize> {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '\n' {
            *line += 1;
        } else if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(i)
}

#[cfg(test)]
mod tests;
