//! The module half of `check-arch`: inside a core crate or the adapters, the top-level modules
//! depend on each other without cycles, so each can be read (and tested) knowing only the ones
//! below it.
//!
//! An edge is a path that leaves a top-level module for another: `crate::hooks::…` written in
//! any file under `src/handoff/` is the edge `handoff -> hooks`, and so is a `super::super::…`
//! chain that climbs to the crate root and down into `hooks`. Comments and literals do not
//! count (the lexer of [`crate::scan`] reads the paths). Test modules count like any other
//! code: a cycle through a test is still one a reader has to untangle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};

/// One place where a module uses another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// The file (relative to the crate's `src`) and line of the first such use.
    pub at: String,
}

/// Checks each crate of `crates`, as (name, source folder relative to `root`); one message
/// per cycle. `check-arch` passes the core crates and the adapters (`crate::arch::CORE`,
/// `crate::arch::ADAPTERS`).
pub fn check(root: &Path, crates: &[(&str, &str)]) -> Result<Vec<String>> {
    let mut messages = Vec::new();
    for (crate_name, dir) in crates {
        let files = read_sources(&root.join(dir))?;
        for cycle in cycles(&edges(&files)) {
            messages.push(format!(
                "{dir}: modules of {crate_name} depend on each other: {cycle} (the top-level modules of a crate form no cycle: move what both need below both)"
            ));
        }
    }
    Ok(messages)
}

/// Every `.rs` file under `src` as (path relative to `src` with `/` separators, text).
pub fn read_sources(src: &Path) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))?;
        for entry in entries {
            let path = entry
                .with_context(|| format!("listing {}", dir.display()))?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                let rel = path.strip_prefix(src).unwrap_or(&path);
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push((parts.join("/"), text));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The module path of a file below `src`: `hooks/mod.rs` is `[hooks]`, `monitor/fill/reset.rs`
/// is `[monitor, fill, reset]`, `lib.rs` the root `[]`.
pub fn module_path(rel: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = rel.split('/').collect();
    if let Some(last) = parts.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(last);
        if !matches!(stem, "mod" | "lib" | "main") {
            parts.push(stem);
        }
    }
    parts
}

/// The edges between top-level modules, one per (from, to) with its first use.
pub fn edges(files: &[(String, String)]) -> Vec<Edge> {
    let tops: BTreeSet<&str> = files
        .iter()
        .filter_map(|(rel, _)| module_path(rel).first().copied())
        .collect();
    let mut found: BTreeMap<(String, String), String> = BTreeMap::new();
    for (rel, text) in files {
        let module = module_path(rel);
        let Some(&from) = module.first() else {
            continue;
        };
        for path in crate::scan::paths(text) {
            let names: Vec<&str> = path.iter().map(|(s, _)| s.as_str()).collect();
            let supers = names.iter().take_while(|s| **s == "super").count();
            let target = match names.first() {
                Some(&"crate") => names.get(1),
                // `super` chains that climb exactly to the crate root.
                Some(&"super") if supers == module.len() => names.get(supers),
                _ => None,
            };
            let Some(&to) = target else { continue };
            if to != from && tops.contains(to) {
                let line = path.first().map_or(0, |(_, l)| *l);
                found
                    .entry((from.to_string(), to.to_string()))
                    .or_insert_with(|| format!("{rel}:{line}"));
            }
        }
    }
    found
        .into_iter()
        .map(|((from, to), at)| Edge { from, to, at })
        .collect()
}

/// Each group of modules that reach each other, described by the edges inside it.
pub fn cycles(edges: &[Edge]) -> Vec<String> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().push(&e.to);
    }
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.to_string()];
        while let Some(m) = stack.pop() {
            for &n in next.get(m.as_str()).into_iter().flatten() {
                if seen.insert(n.to_string()) {
                    stack.push(n.to_string());
                }
            }
        }
        seen
    };
    let nodes: BTreeSet<&str> = edges.iter().map(|e| e.from.as_str()).collect();
    let reached: BTreeMap<&str, BTreeSet<String>> = nodes.iter().map(|&n| (n, reach(n))).collect();
    let mut groups: BTreeSet<Vec<&str>> = BTreeSet::new();
    for &a in &nodes {
        let group: Vec<&str> = nodes
            .iter()
            .copied()
            .filter(|&b| {
                b == a || (reached[a].contains(b) && reached.get(b).is_some_and(|r| r.contains(a)))
            })
            .collect();
        if group.len() > 1 {
            groups.insert(group);
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let inside: Vec<String> = edges
                .iter()
                .filter(|e| group.contains(&e.from.as_str()) && group.contains(&e.to.as_str()))
                .map(|e| format!("{} -> {} at {}", e.from, e.to, e.at))
                .collect();
            inside.join("; ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn a_use_in_either_direction_is_an_edge_and_both_make_a_cycle() {
        let tree = files(&[
            ("lib.rs", "pub mod a; pub mod b; pub mod c;"),
            ("a/mod.rs", "mod x;"),
            ("a/x.rs", "use crate::b::Thing;"),
            ("b.rs", "\n\nfn f() { crate::a::x::g(); }"),
            ("c.rs", "use crate::a::Other;"),
        ]);
        let e = edges(&tree);
        let shown: Vec<String> = e
            .iter()
            .map(|e| format!("{}>{}@{}", e.from, e.to, e.at))
            .collect();
        assert_eq!(shown, ["a>b@a/x.rs:1", "b>a@b.rs:3", "c>a@c.rs:1"]);
        assert_eq!(
            cycles(&e),
            ["a -> b at a/x.rs:1; b -> a at b.rs:3"],
            "c only depends: it is in no cycle"
        );
    }

    #[test]
    fn grouped_imports_and_super_chains_to_the_root_count_comments_do_not() {
        let tree = files(&[
            ("a/inner/deep.rs", "use super::super::super::b::X;"),
            (
                "a/mod.rs",
                "// crate::b is mentioned only here\nuse super::Y;",
            ),
            ("b/mod.rs", "use crate::{config, a::Z};"),
            (
                "config.rs",
                "/// crate::a in a doc comment\nfn f() { let s = \"crate::b\"; }",
            ),
        ]);
        let e = edges(&tree);
        let pairs: Vec<(&str, &str)> = e.iter().map(|e| (e.from.as_str(), e.to.as_str())).collect();
        assert_eq!(pairs, [("a", "b"), ("b", "a"), ("b", "config")]);
        assert_eq!(cycles(&e).len(), 1);
    }

    #[test]
    fn a_chain_without_a_way_back_is_no_cycle() {
        let tree = files(&[
            ("hooks.rs", "use crate::handoff::x; use crate::run::y;"),
            ("handoff.rs", "use crate::run::y; use crate::monitor::z;"),
            ("run.rs", "use crate::monitor::z;"),
            ("monitor.rs", "use crate::ports::p;"),
            ("ports.rs", ""),
        ]);
        assert!(cycles(&edges(&tree)).is_empty());
    }
}
