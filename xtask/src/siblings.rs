//! The sibling rule of `check-arch`: in every crate of the workspace, two modules with the same
//! parent never import each other (`a` uses `super::b` and `b` uses `super::a`). Such a pair is
//! one module cut in two along no line: neither half reads without the other, and a change to
//! either can break both. What both need belongs in one of them, or in a third module below
//! both.
//!
//! An edge goes from the module a path is written in to the module the path names, resolved
//! from `crate::`, `super::` and `self::` (through inline `mod name { … }` blocks and files
//! named by `#[path]`). Between two modules whose nearest common parent is P it counts for the
//! two children of P on the way: a use of `crate::b::y` in `a/x.rs` is the edge `a -> b`.
//! Paths that start anywhere else (a name a `use` brought in, a glob, another crate) are not
//! followed: the rule sees what is written, so a circle behind a re-export goes unseen.
//! Longer cycles are the top-level rule's business, in the core crates ([`crate::modules`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};

/// Circles that are known and being removed, as (source folder, module, module); each is
/// reported nowhere else. None today: the adapters' transcript readers, which had two, now
/// live in the application's `readers`.
pub const KNOWN_CIRCLES: &[(&str, &str, &str)] = &[];

/// One use of a sibling module: under `parent`, `from` names `to`, first at `at`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SiblingEdge {
    pub parent: Vec<String>,
    pub from: String,
    pub to: String,
    /// The file (relative to the crate's `src`) and line of the first such use.
    pub at: String,
}

/// The source folders of every crate: `crates/*/src` and `xtask/src`, sorted.
pub fn source_dirs(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let crates = root.join("crates");
    if crates.is_dir() {
        for entry in
            std::fs::read_dir(&crates).with_context(|| format!("listing {}", crates.display()))?
        {
            let entry = entry.with_context(|| format!("listing {}", crates.display()))?;
            if entry.path().join("src").is_dir() {
                out.push(format!(
                    "crates/{}/src",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    if root.join("xtask/src").is_dir() {
        out.push("xtask/src".to_owned());
    }
    out.sort();
    Ok(out)
}

/// Checks every crate's source folder; one message per pair of siblings that import each other.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let mut messages = Vec::new();
    for dir in source_dirs(root)? {
        let files = crate::modules::read_sources(&root.join(&dir))?;
        for (a, b, text) in circles(&edges(&files)) {
            let known = KNOWN_CIRCLES
                .iter()
                .any(|&(d, x, y)| d == dir && ((x, y) == (&a, &b) || (y, x) == (&a, &b)));
            if !known {
                messages.push(format!(
                    "{dir}: modules {a} and {b} import each other: {text} (siblings import one way only: move what both need into one of them, or below both)"
                ));
            }
        }
    }
    Ok(messages)
}

/// The module path of every file, `#[path]` attributes honoured.
fn file_modules(files: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = files
        .iter()
        .map(|(rel, _)| {
            let module = crate::modules::module_path(rel);
            (rel.clone(), module.into_iter().map(str::to_owned).collect())
        })
        .collect();
    for (rel, text) in files {
        let Some(declaring) = out.get(rel).cloned() else {
            continue;
        };
        let folder = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
        for (target, name) in path_declarations(text) {
            let mut module = declaring.clone();
            module.push(name);
            out.insert(join_relative(folder, &target), module);
        }
    }
    out
}

/// `(target, name)` of each `#[path = "target"]` attribute and the `mod name;` it is on.
fn path_declarations(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut target: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#[path") {
            target = rest
                .trim_start()
                .strip_prefix('=')
                .and_then(|r| r.trim_start().strip_prefix('"'))
                .and_then(|r| r.split_once('"'))
                .map(|(t, _)| t.to_owned());
            continue;
        }
        if line.starts_with("#[") {
            continue;
        }
        if let Some(t) = target.take() {
            let rest = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            if let Some(name) = rest.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                out.push((t, name.trim().to_owned()));
            }
        }
    }
    out
}

/// `folder/target` with `..` and `.` resolved, `/`-separated.
fn join_relative(folder: &str, target: &str) -> String {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// The edges between sibling modules, one per (parent, from, to) with its first use.
pub fn edges(files: &[(String, String)]) -> Vec<SiblingEdge> {
    let modules = file_modules(files);
    let scoped: Vec<(&str, Vec<crate::scan::ScopedPath>)> = files
        .iter()
        .map(|(rel, text)| (rel.as_str(), crate::scan::scoped_paths(text)))
        .collect();
    // Every module there is: each file's, each inline one inside it, and their parents.
    let mut known: BTreeSet<Vec<String>> = BTreeSet::new();
    for (rel, paths) in &scoped {
        let base = modules.get(*rel).cloned().unwrap_or_default();
        for path in paths {
            let mut module = base.clone();
            module.extend(path.inline.iter().cloned());
            known.insert(module);
        }
        known.insert(base);
    }
    for module in known.clone() {
        for end in 0..module.len() {
            known.insert(module[..end].to_vec());
        }
    }
    let mut found: BTreeMap<(Vec<String>, String, String), String> = BTreeMap::new();
    for (rel, paths) in &scoped {
        let base = modules.get(*rel).cloned().unwrap_or_default();
        for path in paths {
            let mut from = base.clone();
            from.extend(path.inline.iter().cloned());
            let names: Vec<&str> = path.segments.iter().map(|(s, _)| s.as_str()).collect();
            let Some(target) = resolve(&from, &names, &known) else {
                continue;
            };
            let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if let (Some(a), Some(b)) = (from.get(common), target.get(common)) {
                let line = path.segments.first().map_or(0, |(_, l)| *l);
                found
                    .entry((from[..common].to_vec(), a.clone(), b.clone()))
                    .or_insert_with(|| format!("{rel}:{line}"));
            }
        }
    }
    found
        .into_iter()
        .map(|((parent, from, to), at)| SiblingEdge {
            parent,
            from,
            to,
            at,
        })
        .collect()
}

/// The module a path written in `from` names: its `crate`/`super`/`self` start resolved, then
/// as many further segments as name modules. `None` for a path that starts elsewhere.
fn resolve(from: &[String], names: &[&str], known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let (mut module, rest) = match names.first() {
        Some(&"crate") => (Vec::new(), names.get(1..)?),
        Some(&"self") => (from.to_vec(), names.get(1..)?),
        Some(&"super") => {
            let up = names.iter().take_while(|s| **s == "super").count();
            let keep = from.len().checked_sub(up)?;
            (from[..keep].to_vec(), names.get(up..)?)
        }
        _ => return None,
    };
    for name in rest {
        module.push((*name).to_owned());
        if !known.contains(&module) {
            module.pop();
            break;
        }
    }
    Some(module)
}

/// Each pair of siblings that import each other, as (`crate::…::a`, `crate::…::b`, the two
/// edges), `a` before `b`.
pub fn circles(edges: &[SiblingEdge]) -> Vec<(String, String, String)> {
    let at: BTreeMap<(&[String], &str, &str), &str> = edges
        .iter()
        .map(|e| {
            (
                (e.parent.as_slice(), e.from.as_str(), e.to.as_str()),
                e.at.as_str(),
            )
        })
        .collect();
    let mut out = Vec::new();
    for (&(parent, a, b), &there) in &at {
        if a < b
            && let Some(&back) = at.get(&(parent, b, a))
        {
            let name = |m: &str| {
                let mut parts = vec!["crate"];
                parts.extend(parent.iter().map(String::as_str));
                parts.push(m);
                parts.join("::")
            };
            out.push((
                name(a),
                name(b),
                format!("{a} -> {b} at {there}; {b} -> {a} at {back}"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests;
