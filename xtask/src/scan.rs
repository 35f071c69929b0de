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

use crate::lexer::{Tok, Token, lex};

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

#[cfg(test)]
mod tests;
