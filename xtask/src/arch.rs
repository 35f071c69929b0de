//! `cargo xtask check-arch`: the layer rules of contract C1 (H-07, H-08) in one place.
//!
//! Crate edges come from `cargo metadata`, so a dependency cannot hide behind a rename, a
//! target table or an optional feature: every declared normal or build dependency of a core
//! crate must be on its allow-list. Dev-dependencies are free everywhere (tests may use
//! `proptest`, `insta`, `tempfile`). Because neither core allow-list names `ctxmon-infra-fs` or
//! `ctxmon-cli`, the composition root stays the only crate that wires adapters in. The source
//! half lives in [`crate::scan`], the acyclic module graph inside the core crates in
//! [`crate::modules`], and the rule that no two sibling modules of any crate import each other
//! in [`crate::siblings`].
//!
//! Besides the five fixed members the workspace may hold test-support crates, under one rule
//! (ARCHITECTURE.md, "Test support"): a member named `*-test-support` sets `publish = false`,
//! is a dev-dependency of the crates that use it and never a normal or build one, and may itself
//! depend on anything. So shared test code is a crate, not a file included by `#[path]`, and
//! still cannot reach the binary.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

pub const DOMAIN: &str = "ctxmon-domain";
pub const APPLICATION: &str = "ctxmon-application";
pub const INFRA_FS: &str = "ctxmon-infra-fs";
pub const CLI: &str = "ctxmon-cli";
pub const XTASK: &str = "xtask";

/// The core crates, by source folder: the ones the source scan and the top-level module rule
/// hold to no I/O and no cycle.
pub const CORE: &[(&str, &str)] = &[
    (DOMAIN, "crates/ctxmon-domain/src"),
    (APPLICATION, "crates/ctxmon-application/src"),
];

/// The adapters, by source folder: held to no cycle between their top-level modules like the
/// core (the reading rules they once shared in a circle live in the application's `readers`).
pub const ADAPTERS: &[(&str, &str)] = &[(INFRA_FS, "crates/ctxmon-infra-fs/src")];

/// Exactly these packages make up the workspace, besides test-support crates; a sixth is a
/// design change, not a drive-by.
pub const MEMBERS: [&str; 5] = [DOMAIN, APPLICATION, INFRA_FS, CLI, XTASK];

/// The name ending of a test-support member: dev-only, unpublished, free in what it uses.
pub const TEST_SUPPORT_SUFFIX: &str = "-test-support";

/// Whether `name` is a test-support crate's name.
pub fn is_test_support(name: &str) -> bool {
    name.strip_suffix(TEST_SUPPORT_SUFFIX)
        .is_some_and(|stem| !stem.is_empty())
}

/// The maintained YAML crates the infra crate may pick from; it may use at most one.
pub const YAML_CRATES: &[&str] = &[
    "serde_norway",
    "serde_yaml_ng",
    "serde_yml",
    "serde_yaml",
    "yaml-rust2",
    "saphyr",
];

const DOMAIN_ALLOWED: &[&str] = &["serde"];
const APPLICATION_ALLOWED: &[&str] = &[
    DOMAIN,
    "serde",
    "serde_json",
    // The transcript readers (`readers`) find line ends and the tokens that spare a parse with
    // it; already in the graph through serde_json.
    "memchr",
    // Codex's `config.toml` layers, read by `readers::settings::codex`, parsing only.
    "toml",
];
const INFRA_FS_ALLOWED: &[&str] = &[
    DOMAIN,
    APPLICATION,
    "serde",
    "serde_json",
    "figment",
    "fd-lock",
    "tempfile",
    "libc",
    "rustix",
    "toml",
    // `config set` and `config unset` change one key of a file and keep the user's comments,
    // order and layout (`config/edit.rs`); toml alone can only re-serialise a parsed table.
    "toml_edit",
    // Vectorised newline search for the backward transcript scan (already in the graph via
    // serde_json); the scalar loop was 97% of the hook's worst-case time.
    "memchr",
    // Time zone rules (TZif, POSIX `TZ`, the system zone database) for times shown to people
    // (`local_time`); a maintained library instead of our own zone parser.
    "jiff",
];

/// The allow-list of a workspace crate's normal dependencies and the reason for it; `None`
/// means "anything", which only the composition root and xtask get.
fn allowed(crate_name: &str) -> Option<(Vec<&'static str>, &'static str)> {
    match crate_name {
        DOMAIN => Some((
            DOMAIN_ALLOWED.to_vec(),
            "H-07: the domain imports nothing external but serde",
        )),
        APPLICATION => Some((
            APPLICATION_ALLOWED.to_vec(),
            "H-08: the application imports no infrastructure",
        )),
        INFRA_FS => Some((
            [INFRA_FS_ALLOWED, YAML_CRATES].concat(),
            "adapters use the storage and config crates of contract C1; ctxmon-cli is the only composition root",
        )),
        _ => None,
    }
}

/// How to run `cargo metadata`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetadataOptions {
    /// Pass `--offline`: the scratch workspaces of the tests resolve without a registry.
    pub offline: bool,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    workspace_members: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    id: String,
    manifest_path: String,
    dependencies: Vec<Dependency>,
    /// `Some([])` for `publish = false`, `None` for publishable anywhere.
    #[serde(default)]
    publish: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Dependency {
    /// The package name, even when the manifest renames it.
    name: String,
    /// `None` for normal, `"dev"` or `"build"`.
    kind: Option<String>,
}

/// Runs the whole check (crate edges, then the source scan) and fails with every violation.
pub fn run(root: &Path) -> Result<()> {
    let violations = check(root, MetadataOptions::default())?;
    if violations.is_empty() {
        println!(
            "check-arch: layer rules hold ({} crates and their test support, core sources scanned)",
            MEMBERS.len()
        );
        return Ok(());
    }
    for violation in &violations {
        eprintln!("{violation}");
    }
    bail!(
        "check-arch: {} violation(s) of the layer rules (contract C1); fix the code, not the rules",
        violations.len()
    )
}

/// Returns one message per violation; an error means the check could not run at all.
pub fn check(root: &Path, options: MetadataOptions) -> Result<Vec<String>> {
    let metadata = load_metadata(root, options)?;
    let mut violations = check_dependencies(root, &metadata);
    for (crate_name, dir) in CORE {
        violations.extend(crate::scan::scan_dir(root, dir, crate_name)?);
    }
    violations.extend(crate::modules::check(root, &[CORE, ADAPTERS].concat())?);
    violations.extend(crate::siblings::check(root)?);
    violations.extend(crate::event_names::check(root)?);
    violations.extend(crate::placement::check(root)?);
    Ok(violations)
}

fn load_metadata(root: &Path, options: MetadataOptions) -> Result<Metadata> {
    let manifest = root.join("Cargo.toml");
    let mut command = Command::new(crate::cargo());
    command
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(&manifest);
    if options.offline {
        command.arg("--offline");
    }
    let output = command
        .output()
        .with_context(|| format!("running cargo metadata for {}", manifest.display()))?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed for {} ({}):\n{}",
            manifest.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    serde_json::from_slice(&output.stdout).context("parsing the output of cargo metadata")
}

fn check_dependencies(root: &Path, metadata: &Metadata) -> Vec<String> {
    let member_ids: BTreeSet<&str> = metadata
        .workspace_members
        .iter()
        .map(String::as_str)
        .collect();
    let members: Vec<&Package> = metadata
        .packages
        .iter()
        .filter(|p| member_ids.contains(p.id.as_str()))
        .collect();
    let mut violations = Vec::new();

    let names: BTreeSet<&str> = members.iter().map(|p| p.name.as_str()).collect();
    for extra in names
        .iter()
        .filter(|n| !MEMBERS.contains(n) && !is_test_support(n))
    {
        violations.push(format!(
            "Cargo.toml: unexpected workspace member {extra} (the workspace is exactly {}, plus dev-only `*{TEST_SUPPORT_SUFFIX}` crates; contract C1)",
            MEMBERS.join(", ")
        ));
    }
    for missing in MEMBERS.iter().filter(|n| !names.contains(*n)) {
        violations.push(format!(
            "Cargo.toml: workspace member {missing} is missing (the workspace is exactly {}; contract C1)",
            MEMBERS.join(", ")
        ));
    }

    for package in &members {
        let manifest = Path::new(&package.manifest_path);
        let shown = manifest.strip_prefix(root).unwrap_or(manifest).display();
        let normal: Vec<&Dependency> = package
            .dependencies
            .iter()
            .filter(|d| d.kind.as_deref() != Some("dev"))
            .collect();
        if is_test_support(&package.name) && package.publish.as_ref().is_none_or(|p| !p.is_empty())
        {
            violations.push(format!(
                "{shown}: {} must set `publish = false` (a test-support crate is never published)",
                package.name
            ));
        }
        for dep in normal
            .iter()
            .filter(|d| is_test_support(&d.name) && names.contains(d.name.as_str()))
        {
            violations.push(format!(
                "{shown}: {} depends on {} outside [dev-dependencies] (test support is dev-only, so it never reaches the binary)",
                package.name, dep.name
            ));
        }
        if let Some((allow, why)) = allowed(&package.name) {
            for dep in &normal {
                if !allow.contains(&dep.name.as_str()) {
                    violations.push(format!(
                        "{shown}: forbidden dependency {} in {} ({why}; allowed: {})",
                        dep.name,
                        package.name,
                        allow.join(", ")
                    ));
                }
            }
            let yaml: Vec<&str> = normal
                .iter()
                .map(|d| d.name.as_str())
                .filter(|n| YAML_CRATES.contains(n))
                .collect();
            if yaml.len() > 1 {
                violations.push(format!(
                    "{shown}: {} uses {} YAML crates ({}); pick one",
                    package.name,
                    yaml.len(),
                    yaml.join(", ")
                ));
            }
        }
    }
    violations.sort();
    violations.dedup();
    violations
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layer rules hold for this very workspace, so `cargo test --workspace` enforces them.
    #[test]
    fn workspace_obeys_the_layer_rules() {
        let violations = check(&crate::workspace_root(), MetadataOptions::default()).unwrap();
        assert!(
            violations.is_empty(),
            "check-arch violations:\n{}",
            violations.join("\n")
        );
    }
}
