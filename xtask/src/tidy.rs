//! `cargo xtask tidy`: the house rules about files, as rust-analyzer's tidy tests keep them.
//!
//! Each rule is a plain function over a source tree that returns one message per violation:
//! - every `.rs` file opens with a `//!` header saying what it holds;
//! - no file that is not test code is over [`MAX_LINES`] lines (test code: anything under a
//!   `tests/` folder, a `tests.rs`/`*_tests.rs`/`tests_*.rs` file, a module declared under
//!   `#[cfg(test)]` and what lies below it, and a `*-test-support` crate);
//! - every crate's `Cargo.toml` takes the workspace's lints (`[lints] workspace = true`), and
//!   only [`UNSAFE_ALLOWED_IN`] may allow `unsafe_code` (the workspace denies it);
//! - no `#[path]` attribute reaches out of its own crate (shared test code is a crate:
//!   `ctxmon-test-support`);
//! - every top-level module of `ctxmon-application` and `ctxmon-infra-fs` is named in that
//!   crate's section of ARCHITECTURE.md, so the map stays honest, and the map stays on one
//!   page (at most 160 lines);
//! - sources and documents cite the repository's own contract, `docs/contract.md`, by a section
//!   it has, and never the spec outside the repository (`citations`); `crates/` and `xtask/`
//!   cite no issue number, bug id or design document a reader cannot open
//!   (`internal_citations`);
//! - every relative link of the markdown pages (root and `docs/`) leads to a file and heading
//!   that exist (`links`), and the pages that ship with a published crate (its README, the
//!   contract) have no relative links at all (`shipped_pages`);
//! - no function of `ctxmon-application` spans more than 120 lines (`fn_length`).
//!
//! It also runs as a `#[test]`, so `cargo test --workspace` keeps the tree tidy, and as a step
//! of `cargo xtask ci`.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

pub mod citations;
pub mod fn_length;
pub mod internal_citations;
pub mod links;
pub mod shipped_pages;

/// The most lines a file that is not test code may have.
pub const MAX_LINES: usize = 600;

/// The one file that may allow `unsafe_code`: `wait4` for a benchmarked child's peak RSS.
pub const UNSAFE_ALLOWED_IN: &str = "xtask/src/bench/wait.rs";

/// The crates whose top-level modules ARCHITECTURE.md must name, with their `lib.rs`.
pub const MAPPED_CRATES: &[(&str, &str)] = &[
    ("ctxmon-application", "crates/ctxmon-application/src/lib.rs"),
    ("ctxmon-infra-fs", "crates/ctxmon-infra-fs/src/lib.rs"),
];

/// Runs every rule and fails with every violation.
pub fn run(root: &Path) -> Result<()> {
    let violations = check(root)?;
    if violations.is_empty() {
        println!(
            "tidy: headers, lengths, lints, #[path], the module map, citations, the docs' links and function lengths hold"
        );
        return Ok(());
    }
    for violation in &violations {
        eprintln!("{violation}");
    }
    bail!("tidy: {} violation(s); fix the files", violations.len())
}

/// Returns one message per violation, sorted; an error means the check could not run.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let files = rust_files(root)?;
    let tests = test_modules(&files)?;
    let mut violations = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(&file.path)
            .with_context(|| format!("reading {}", file.path.display()))?;
        let shown = file.shown(root);
        violations.extend(header(&shown, &text));
        if !is_test_code(root, &file.path, &tests) {
            violations.extend(length(&shown, &text));
        }
        violations.extend(path_attributes(root, &file.path, &shown, &text));
        if shown != UNSAFE_ALLOWED_IN {
            violations.extend(unsafe_allowed(&shown, &text));
        }
    }
    for manifest in manifests(root)? {
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let shown = manifest.strip_prefix(root).unwrap_or(&manifest).display();
        violations.extend(lints(&shown.to_string(), &text));
    }
    violations.extend(module_map(root)?);
    violations.extend(citations::check_tree(root)?);
    violations.extend(fn_length::check(root)?);
    violations.extend(internal_citations::check(root)?);
    violations.extend(links::check(root)?);
    violations.extend(shipped_pages::check(root)?);
    violations.sort();
    Ok(violations)
}

/// A `.rs` file of the tree.
#[derive(Debug, Clone)]
struct RustFile {
    path: PathBuf,
}

impl RustFile {
    fn shown(&self, root: &Path) -> String {
        let rel = self.path.strip_prefix(root).unwrap_or(&self.path);
        rel.to_string_lossy().replace('\\', "/")
    }
}

/// Every `.rs` file below `root`, build output and hidden folders left out, sorted.
fn rust_files(root: &Path) -> Result<Vec<RustFile>> {
    let mut out = Vec::new();
    walk(root, &mut |path| {
        if path.extension().is_some_and(|e| e == "rs") {
            out.push(RustFile {
                path: path.to_path_buf(),
            });
        }
    })?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kind = entry
            .file_type()
            .with_context(|| format!("inspecting {}", path.display()))?;
        if kind.is_dir() {
            if name.starts_with('.') || name == "target" {
                continue;
            }
            walk(&path, visit)?;
        } else if kind.is_file() {
            visit(&path);
        }
    }
    Ok(())
}

/// The first line that is neither blank nor an inner attribute must be a `//!` line.
pub fn header(shown: &str, text: &str) -> Option<String> {
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with("#!["));
    match first {
        Some(line) if line.starts_with("//!") => None,
        _ => Some(format!(
            "{shown}:1: no `//!` header; open the file with a line or two on what it holds"
        )),
    }
}

/// A file that is not test code may have at most [`MAX_LINES`] lines.
pub fn length(shown: &str, text: &str) -> Option<String> {
    let lines = text.lines().count();
    (lines > MAX_LINES).then(|| {
        format!(
            "{shown}: {lines} lines, over {MAX_LINES} for code that is not a test; split it by concern"
        )
    })
}

/// Whether `path` is test code: see the module docs.
fn is_test_code(root: &Path, path: &Path, test_modules: &BTreeSet<PathBuf>) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let in_tests_dir = rel.components().any(|c| match c {
        Component::Normal(name) => name == "tests" || name == "benches",
        _ => false,
    });
    let support_crate = rel.components().any(|c| match c {
        Component::Normal(name) => crate::arch::is_test_support(&name.to_string_lossy()),
        _ => false,
    });
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let test_name = stem == "tests" || stem.ends_with("_tests") || stem.starts_with("tests_");
    // A test module's file, and every module below it.
    let under_cfg_test = test_modules
        .iter()
        .any(|m| path == m || path.starts_with(module_dir(m)));
    in_tests_dir || support_crate || test_name || under_cfg_test
}

/// The files of modules declared under `#[cfg(test)]` (`#[cfg(test)] mod name;`).
fn test_modules(files: &[RustFile]) -> Result<BTreeSet<PathBuf>> {
    let mut out = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file.path)
            .with_context(|| format!("reading {}", file.path.display()))?;
        for name in cfg_test_mods(&text) {
            let dir = module_dir(&file.path);
            for candidate in [
                dir.join(format!("{name}.rs")),
                dir.join(&name).join("mod.rs"),
            ] {
                if candidate.is_file() {
                    out.insert(candidate);
                }
            }
        }
    }
    Ok(out)
}

/// The folder in which the child modules of the module in `file` live.
fn module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("")).to_path_buf();
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("lib" | "main" | "mod") | None => parent,
        Some(stem) => parent.join(stem),
    }
}

/// Names of the `mod name;` declarations whose attributes include `#[cfg(test)]`.
pub fn cfg_test_mods(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut under_cfg_test = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[") {
            under_cfg_test |= line.replace(' ', "") == "#[cfg(test)]";
            continue;
        }
        if under_cfg_test && let Some(name) = mod_declaration(line) {
            out.push(name.to_owned());
        }
        under_cfg_test = false;
    }
    out
}

/// `name` of `mod name;` / `pub mod name;` / `pub(crate) mod name;`.
fn mod_declaration(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("pub(crate) ")
        .or_else(|| line.strip_prefix("pub "))
        .unwrap_or(line);
    let name = rest.strip_prefix("mod ")?.strip_suffix(';')?.trim();
    name.chars()
        .all(|c| c.is_alphanumeric() || c == '_')
        .then_some(name)
}

/// `#[path = "…"]` attributes whose target lies outside the crate of `path`.
pub fn path_attributes(root: &Path, path: &Path, shown: &str, text: &str) -> Vec<String> {
    let Some(crate_dir) = crate_dir(root, path) else {
        return Vec::new();
    };
    let dir = path.parent().unwrap_or(root);
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some(target) = path_attribute(line) else {
            continue;
        };
        let resolved = normalize(&dir.join(target));
        if !resolved.starts_with(&crate_dir) {
            out.push(format!(
                "{shown}:{}: #[path = {target:?}] reaches out of its crate; share the code through a crate (see ctxmon-test-support)",
                index + 1
            ));
        }
    }
    out
}

/// The target of a `#[path = "…"]` line.
fn path_attribute(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("#[path")?.trim_start();
    let rest = rest.strip_prefix('=')?.trim_start().strip_prefix('"')?;
    rest.split_once('"').map(|(target, _)| target)
}

/// The folder of the nearest `Cargo.toml` above `path`, not above `root`.
fn crate_dir(root: &Path, path: &Path) -> Option<PathBuf> {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.join("Cargo.toml").is_file() {
            return Some(d.to_path_buf());
        }
        if d == root {
            return None;
        }
        dir = d.parent();
    }
    None
}

/// `a/b/../c` → `a/c`, lexically (the target may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A line that allows, expects or warns on `unsafe_code` outside its one permitted file.
pub fn unsafe_allowed(shown: &str, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim_start();
            !line.starts_with("//") && line.starts_with("#") && line.contains("unsafe_code")
        })
        .map(|(index, _)| {
            format!(
                "{shown}:{}: unsafe_code is allowed only in {UNSAFE_ALLOWED_IN}; the workspace denies it",
                index + 1
            )
        })
        .collect()
}

/// Every crate manifest: the workspace's `crates/*/Cargo.toml` and `xtask/Cargo.toml`.
fn manifests(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let crates = root.join("crates");
    if crates.is_dir() {
        for entry in
            std::fs::read_dir(&crates).with_context(|| format!("listing {}", crates.display()))?
        {
            let manifest = entry?.path().join("Cargo.toml");
            if manifest.is_file() {
                out.push(manifest);
            }
        }
    }
    let xtask = root.join("xtask/Cargo.toml");
    if xtask.is_file() {
        out.push(xtask);
    }
    out.sort();
    Ok(out)
}

/// A crate manifest must contain `[lints]` followed by `workspace = true`.
pub fn lints(shown: &str, manifest: &str) -> Option<String> {
    let mut lines = manifest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let found = lines.any(|l| l == "[lints]")
        && lines.next().map(|l| l.replace(' ', "")) == Some("workspace=true".to_owned());
    (!found).then(|| {
        format!(
            "{shown}: no `[lints] workspace = true`; every crate takes the workspace's lints (override in code with a reason, not in the manifest)"
        )
    })
}

/// Every top-level module of the mapped crates must be named in its crate's section of
/// ARCHITECTURE.md (a code span that begins with the module: `fill/`, `hooks::session_key`).
pub fn module_map(root: &Path) -> Result<Vec<String>> {
    let map_path = root.join("ARCHITECTURE.md");
    let map = std::fs::read_to_string(&map_path)
        .with_context(|| format!("reading {}", map_path.display()))?;
    let mut out: Vec<String> = map_length(&map).into_iter().collect();
    for (crate_name, lib) in MAPPED_CRATES {
        let lib_path = root.join(lib);
        let text = std::fs::read_to_string(&lib_path)
            .with_context(|| format!("reading {}", lib_path.display()))?;
        out.extend(unnamed_modules(crate_name, lib, &text, &map));
    }
    Ok(out)
}

/// The most lines ARCHITECTURE.md may have: a map on one page, whose detail lives in the module
/// docs it points to. A map that grows past it has turned into an atlas.
pub const MAP_MAX_LINES: usize = 160;

/// The message for a map longer than [`MAP_MAX_LINES`], if it is.
pub fn map_length(map: &str) -> Option<String> {
    let lines = map.lines().count();
    (lines > MAP_MAX_LINES).then(|| {
        format!(
            "ARCHITECTURE.md: {lines} lines, more than {MAP_MAX_LINES}; keep one line per module and move the detail into the module's //! docs"
        )
    })
}

/// The messages for `lib`'s top-level modules (test-only ones aside) that the section of
/// `crate_name` in `map` does not name.
pub fn unnamed_modules(crate_name: &str, lib: &str, lib_text: &str, map: &str) -> Vec<String> {
    let Some(section) = section(map, crate_name) else {
        return vec![format!(
            "ARCHITECTURE.md: no section for {crate_name} (a heading naming it), so its modules are unmapped"
        )];
    };
    let named = code_span_heads(section);
    let test_only: BTreeSet<String> = cfg_test_mods(lib_text).into_iter().collect();
    lib_text
        .lines()
        .enumerate()
        .filter_map(|(index, line)| mod_declaration(line.trim()).map(|m| (index, m)))
        .filter(|(_, m)| !test_only.contains(*m) && !named.contains(*m))
        .map(|(index, m)| {
            format!(
                "{lib}:{}: module `{m}` is not named in ARCHITECTURE.md's {crate_name} section; add a line on what it holds",
                index + 1
            )
        })
        .collect()
}

/// The text under the first heading that names `crate_name`, up to the next heading of the
/// same or a higher level.
fn section<'a>(map: &'a str, crate_name: &str) -> Option<&'a str> {
    let mut start = None;
    let mut level = 0;
    let mut offset = 0;
    for line in map.split_inclusive('\n') {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let heading = hashes > 0 && line[hashes..].starts_with(' ');
        match start {
            None if heading && line.contains(crate_name) => {
                start = Some(offset + line.len());
                level = hashes;
            }
            Some(begin) if heading && hashes <= level => return Some(&map[begin..offset]),
            _ => {}
        }
        offset += line.len();
    }
    start.map(|begin| &map[begin..])
}

/// The first segment of every code span: `` `fill/series.rs` `` → `fill`, `` `hooks::x` `` →
/// `hooks`, `` `memory.rs` `` → `memory`.
fn code_span_heads(text: &str) -> BTreeSet<&str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|span| {
            let head = span.split(['/', ':', '.', ' ', '(']).next()?;
            (!head.is_empty()).then_some(head)
        })
        .collect()
}

#[cfg(test)]
mod tests;
