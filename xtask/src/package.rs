//! The CI package step: `cargo package` for the two library crates, after clearing what an
//! earlier run of it left in cargo's source cache.
//!
//! Packaging two workspace crates together makes cargo pretend the first is already published:
//! it writes a local registry under `target/package/` and unpacks ctxmon-domain's `.crate` from
//! it into `$CARGO_HOME/registry/src/<hash>/ctxmon-domain-<version>`, where the hash comes from
//! that registry's path. Cargo unpacks a crate only once per folder, so a second run from the
//! same checkout path verifies ctxmon-application against the ctxmon-domain of the first run,
//! and fails as soon as the domain's API has changed in between (CI runs from a fixed path with
//! a lasting cargo home). The build of that copy goes stale the same way: cargo never rebuilds a
//! registry crate whose name and version it has built before. So each run first removes our
//! crates' unpacked folders, then builds in a target folder of its own (`package-verify` in the
//! target directory) whose copies of our two crates it cleans; the dependencies stay built there,
//! and the workspace's own build (tests, benches) is left alone.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The crates `cargo xtask ci` packages; their unpacked copies are the ones cleared.
pub const PACKAGED_CRATES: [&str; 2] = ["ctxmon-domain", "ctxmon-application"];

/// Cargo's home: `$CARGO_HOME`, else `~/.cargo`, as cargo itself decides.
pub fn cargo_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CARGO_HOME").filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(home));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".cargo"))
}

/// Removes every unpacked copy of `crates` under `<cargo_home>/registry/src/*/` and returns
/// what it removed. Only folders named `<crate>-<version>` go; a missing cache is not an error.
pub fn clear_unpacked(cargo_home: &Path, crates: &[&str]) -> Result<Vec<PathBuf>> {
    let src = cargo_home.join("registry").join("src");
    let registries = match std::fs::read_dir(&src) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("listing {}", src.display())),
    };
    let mut removed = Vec::new();
    for registry in registries {
        let registry = registry.with_context(|| format!("listing {}", src.display()))?;
        let Ok(unpacked) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for entry in unpacked.flatten() {
            let name = entry.file_name();
            let is_ours = name
                .to_str()
                .is_some_and(|name| crates.iter().any(|c| is_unpacked_copy(name, c)));
            if is_ours && entry.path().is_dir() {
                std::fs::remove_dir_all(entry.path())
                    .with_context(|| format!("removing {}", entry.path().display()))?;
                removed.push(entry.path());
            }
        }
    }
    removed.sort();
    Ok(removed)
}

/// `ctxmon-domain-0.1.0` is a copy of `ctxmon-domain`; `ctxmon-domain-extra-0.1.0` is not.
fn is_unpacked_copy(folder: &str, krate: &str) -> bool {
    folder
        .strip_prefix(krate)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|version| version.chars().next())
        .is_some_and(|c| c.is_ascii_digit())
}

/// The packaging step's own target folder: `package-verify` in the target directory.
pub fn verify_target_dir(root: &Path) -> PathBuf {
    crate::target_dir(root).join("package-verify")
}

/// Clears the stale copies (saying which), then runs `line` through the CI's cargo runner.
pub fn run(root: &Path, line: &str) -> Result<()> {
    match cargo_home() {
        Some(home) => {
            for path in clear_unpacked(&home, &PACKAGED_CRATES)? {
                println!(
                    "package: removed an earlier run's unpacked copy {}",
                    path.display()
                );
            }
        }
        None => println!("notice: neither CARGO_HOME nor HOME is set; no unpacked copy cleared"),
    }
    let target = verify_target_dir(root);
    let target = target
        .to_str()
        .with_context(|| format!("the target folder {} is not UTF-8", target.display()))?;
    let clean = format!(
        "cargo clean --offline -p {} -p {}",
        PACKAGED_CRATES[0], PACKAGED_CRATES[1]
    );
    let env = [("CARGO_TARGET_DIR", target)];
    crate::run_cargo(root, &clean, &env)?;
    crate::run_cargo(root, line, &env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(dir: &Path, parts: &[&str]) -> PathBuf {
        let path = parts.iter().fold(dir.to_path_buf(), |p, part| p.join(part));
        std::fs::create_dir_all(&path).unwrap();
        std::fs::write(path.join(".cargo-ok"), "{\"v\":1}").unwrap();
        path
    }

    #[test]
    fn only_our_crates_unpacked_copies_are_removed() {
        let home = tempfile::tempdir().unwrap();
        let src = ["registry", "src"];
        let overlay = make(
            home.path(),
            &[src[0], src[1], "-22c3805da5a543b4", "ctxmon-domain-0.1.0"],
        );
        let app = make(
            home.path(),
            &[
                src[0],
                src[1],
                "-14cd1cce6819ff87",
                "ctxmon-application-0.2.0",
            ],
        );
        let serde = make(
            home.path(),
            &[
                src[0],
                src[1],
                "index.crates.io-1949cf8c6b5b557f",
                "serde-1.0.228",
            ],
        );
        let lookalike = make(
            home.path(),
            &[
                src[0],
                src[1],
                "-14cd1cce6819ff87",
                "ctxmon-domain-extra-0.1.0",
            ],
        );

        let removed = clear_unpacked(home.path(), &PACKAGED_CRATES).unwrap();

        assert_eq!(removed, vec![app.clone(), overlay.clone()]);
        assert!(!overlay.exists() && !app.exists());
        assert!(serde.exists(), "another crate's source stays");
        assert!(
            lookalike.exists(),
            "a crate whose name only starts like ours stays"
        );
        assert!(
            clear_unpacked(home.path(), &PACKAGED_CRATES)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_cargo_home_without_a_source_cache_is_not_an_error() {
        let home = tempfile::tempdir().unwrap();
        assert!(
            clear_unpacked(home.path(), &PACKAGED_CRATES)
                .unwrap()
                .is_empty()
        );
        let file_not_dir = home.path().join("registry");
        std::fs::write(&file_not_dir, "").unwrap();
        assert!(clear_unpacked(home.path(), &PACKAGED_CRATES).is_err());
    }

    #[test]
    fn unpacked_copy_names_need_a_version() {
        assert!(is_unpacked_copy("ctxmon-domain-0.1.0", "ctxmon-domain"));
        assert!(!is_unpacked_copy("ctxmon-domain", "ctxmon-domain"));
        assert!(!is_unpacked_copy("ctxmon-domain-", "ctxmon-domain"));
        assert!(!is_unpacked_copy("ctxmon-domainx-0.1.0", "ctxmon-domain"));
    }
}
