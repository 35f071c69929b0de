//! Negative tests of `check-arch` on scratch workspaces: the gate must really reject bad edges
//! and bad sources, not just pass on the real workspace.
//!
//! Each scratch is five tiny crates with path dependencies, resolved by `cargo metadata
//! --offline`. A forbidden external crate (`anyhow`) is a local path crate placed outside the
//! workspace folder, so it resolves without a registry and does not become a member.

use std::fs;
use std::path::Path;

use tempfile::TempDir;
use xtask::arch::{MetadataOptions, check};

const OFFLINE: MetadataOptions = MetadataOptions { offline: true };

/// Extra manifest lines and `src/lib.rs` text for one scratch crate.
#[derive(Default)]
struct Crate {
    extra_manifest: &'static str,
    lib: &'static str,
}

#[derive(Default)]
struct Scratch {
    domain: Crate,
    application: Crate,
    infra_fs: Crate,
    extra_member: bool,
    /// A `ctxmon-test-support` member, used by the CLI as this kind of dependency.
    test_support: Option<TestSupport>,
}

/// How the scratch's test-support crate is declared and used.
struct TestSupport {
    /// `publish = false` in its manifest.
    unpublished: bool,
    /// The CLI's table that names it: `dev-dependencies` or `dependencies`.
    cli_table: &'static str,
}

impl Scratch {
    /// Writes the scratch under a temp dir and returns (guard, workspace root).
    fn write(&self) -> (TempDir, std::path::PathBuf) {
        let tmp = tempfile::tempdir().expect("creating a temp dir");
        let ws = tmp.path().join("ws");
        write_crate(&tmp.path().join("vendor/anyhow"), "anyhow", "", "");

        let mut members = vec![
            "crates/ctxmon-domain",
            "crates/ctxmon-application",
            "crates/ctxmon-infra-fs",
            "crates/ctxmon-cli",
            "xtask",
        ];
        if self.extra_member {
            members.push("crates/ctxmon-utils");
            write_crate(&ws.join("crates/ctxmon-utils"), "ctxmon-utils", "", "");
        }
        let mut cli_extra = String::new();
        if let Some(support) = &self.test_support {
            members.push("crates/ctxmon-test-support");
            // It may depend on anything: the infra crate and an outside crate here.
            write_package(
                &ws.join("crates/ctxmon-test-support"),
                "ctxmon-test-support",
                support.unpublished,
                "[dependencies]\nctxmon-infra-fs = { path = \"../ctxmon-infra-fs\" }\nanyhow = { path = \"../../../vendor/anyhow\" }\n",
                "",
            );
            let line = "ctxmon-test-support = { path = \"../ctxmon-test-support\" }\n";
            cli_extra = match support.cli_table {
                // The CLI's manifest already has `[dependencies]`: the line joins it.
                "dependencies" => line.to_owned(),
                table => format!("\n[{table}]\n{line}"),
            };
        }
        let members: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
        let root_manifest = format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        );
        fs::create_dir_all(&ws).expect("creating the scratch workspace");
        fs::write(ws.join("Cargo.toml"), root_manifest).expect("writing the root manifest");

        let domain = "ctxmon-domain = { path = \"../ctxmon-domain\" }\n";
        let application = "ctxmon-application = { path = \"../ctxmon-application\" }\n";
        let infra = "ctxmon-infra-fs = { path = \"../ctxmon-infra-fs\" }\n";
        let crates = ws.join("crates");
        write_crate(
            &crates.join("ctxmon-domain"),
            "ctxmon-domain",
            self.domain.extra_manifest,
            self.domain.lib,
        );
        write_crate(
            &crates.join("ctxmon-application"),
            "ctxmon-application",
            &format!(
                "[dependencies]\n{domain}{}",
                self.application.extra_manifest
            ),
            self.application.lib,
        );
        write_crate(
            &crates.join("ctxmon-infra-fs"),
            "ctxmon-infra-fs",
            &format!(
                // Not on the application, so the application → infra edge test stays acyclic.
                "[dependencies]\n{domain}{}",
                self.infra_fs.extra_manifest
            ),
            self.infra_fs.lib,
        );
        write_crate(
            &crates.join("ctxmon-cli"),
            "ctxmon-cli",
            &format!(
                "[dependencies]\n{domain}{application}{infra}anyhow = {{ path = \"../../../vendor/anyhow\" }}\n{cli_extra}"
            ),
            "",
        );
        write_crate(&ws.join("xtask"), "xtask", "", "");
        (tmp, ws)
    }

    fn violations(&self) -> Vec<String> {
        let (_guard, ws) = self.write();
        check(&ws, OFFLINE).expect("check-arch must run on the scratch workspace")
    }
}

fn write_crate(dir: &Path, name: &str, extra_manifest: &str, lib: &str) {
    write_package(dir, name, true, extra_manifest, lib);
}

fn write_package(dir: &Path, name: &str, unpublished: bool, extra_manifest: &str, lib: &str) {
    fs::create_dir_all(dir.join("src")).expect("creating a scratch crate");
    let publish = if unpublished { "publish = false\n" } else { "" };
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n{publish}\n{extra_manifest}"
    );
    fs::write(dir.join("Cargo.toml"), manifest).expect("writing a scratch manifest");
    fs::write(dir.join("src/lib.rs"), format!("//! {name}\n{lib}"))
        .expect("writing a scratch lib.rs");
}

/// Asserts exactly one violation, containing every needle.
fn assert_one(violations: &[String], needles: &[&str]) {
    assert_eq!(
        violations.len(),
        1,
        "expected one violation, got {violations:#?}"
    );
    for needle in needles {
        assert!(
            violations[0].contains(needle),
            "{needle:?} missing from {violations:#?}"
        );
    }
}

#[test]
fn a_clean_scratch_passes() {
    let clean = Scratch {
        infra_fs: Crate {
            extra_manifest: "",
            lib: "pub fn read() { let _ = std::fs::read(\"x\"); }\n",
        },
        ..Scratch::default()
    };
    assert_eq!(clean.violations(), Vec::<String>::new());
}

#[test]
fn domain_depending_on_anyhow_is_rejected() {
    let bad = Scratch {
        domain: Crate {
            extra_manifest: "[dependencies]\nanyhow = { path = \"../../../vendor/anyhow\" }\n",
            lib: "",
        },
        ..Scratch::default()
    };
    assert_one(
        &bad.violations(),
        &[
            "crates/ctxmon-domain/Cargo.toml",
            "ctxmon-domain",
            "anyhow",
            "H-07",
        ],
    );
}

#[test]
fn renames_and_build_dependencies_do_not_hide_an_edge() {
    let renamed = Scratch {
        domain: Crate {
            extra_manifest: "[dependencies]\nerr = { package = \"anyhow\", path = \"../../../vendor/anyhow\" }\n",
            lib: "",
        },
        ..Scratch::default()
    };
    assert_one(&renamed.violations(), &["ctxmon-domain", "anyhow"]);

    let build = Scratch {
        application: Crate {
            extra_manifest: "[build-dependencies]\nanyhow = { path = \"../../../vendor/anyhow\" }\n",
            lib: "",
        },
        ..Scratch::default()
    };
    assert_one(&build.violations(), &["ctxmon-application", "anyhow"]);
}

#[test]
fn dev_dependencies_are_allowed_everywhere() {
    let dev = Scratch {
        domain: Crate {
            extra_manifest: "[dev-dependencies]\nanyhow = { path = \"../../../vendor/anyhow\" }\n",
            lib: "",
        },
        ..Scratch::default()
    };
    assert_eq!(dev.violations(), Vec::<String>::new());
}

#[test]
fn application_depending_on_infra_is_rejected() {
    let bad = Scratch {
        application: Crate {
            extra_manifest: "ctxmon-infra-fs = { path = \"../ctxmon-infra-fs\" }\n",
            lib: "",
        },
        ..Scratch::default()
    };
    assert_one(
        &bad.violations(),
        &["ctxmon-application", "ctxmon-infra-fs", "H-08"],
    );
}

#[test]
fn an_unexpected_member_is_rejected() {
    let bad = Scratch {
        extra_member: true,
        ..Scratch::default()
    };
    assert_one(
        &bad.violations(),
        &["unexpected workspace member ctxmon-utils"],
    );
}

#[test]
fn a_dev_only_test_support_crate_is_allowed() {
    let ok = Scratch {
        test_support: Some(TestSupport {
            unpublished: true,
            cli_table: "dev-dependencies",
        }),
        ..Scratch::default()
    };
    assert_eq!(ok.violations(), Vec::<String>::new());
}

#[test]
fn test_support_as_a_normal_dependency_is_rejected() {
    let bad = Scratch {
        test_support: Some(TestSupport {
            unpublished: true,
            cli_table: "dependencies",
        }),
        ..Scratch::default()
    };
    assert_one(
        &bad.violations(),
        &[
            "crates/ctxmon-cli/Cargo.toml",
            "ctxmon-cli depends on ctxmon-test-support outside [dev-dependencies]",
        ],
    );
}

#[test]
fn a_publishable_test_support_crate_is_rejected() {
    let bad = Scratch {
        test_support: Some(TestSupport {
            unpublished: false,
            cli_table: "dev-dependencies",
        }),
        ..Scratch::default()
    };
    assert_one(
        &bad.violations(),
        &["ctxmon-test-support must set `publish = false`"],
    );
}

#[test]
fn std_fs_in_domain_source_is_rejected_with_file_and_line() {
    let bad = Scratch {
        domain: Crate {
            extra_manifest: "",
            lib: "// std::fs in a comment is fine\npub fn f() { let _ = std::fs::read(\"x\"); }\n",
        },
        ..Scratch::default()
    };
    assert_one(
        &bad.violations(),
        &["crates/ctxmon-domain/src/lib.rs:3: forbidden std::fs in ctxmon-domain"],
    );
}

#[test]
fn grouped_imports_in_application_source_are_rejected() {
    let bad = Scratch {
        application: Crate {
            extra_manifest: "",
            lib: "#[cfg(test)]\nmod tests {\n    use std::{env, fs};\n}\n",
        },
        ..Scratch::default()
    };
    let violations = bad.violations();
    assert_eq!(violations.len(), 2, "{violations:#?}");
    assert!(violations[0].contains("crates/ctxmon-application/src/lib.rs:4: forbidden std::env"));
    assert!(violations[1].contains("crates/ctxmon-application/src/lib.rs:4: forbidden std::fs"));
}

#[test]
fn file_system_questions_and_renamed_clocks_in_application_source_are_rejected() {
    let bad = Scratch {
        application: Crate {
            extra_manifest: "",
            lib: "use std::time::Instant as Now;\npub fn f(p: &std::path::Path) -> bool { p.exists() }\n",
        },
        ..Scratch::default()
    };
    let violations = bad.violations();
    assert_eq!(violations.len(), 2, "{violations:#?}");
    assert!(violations[0].contains("crates/ctxmon-application/src/lib.rs:2: forbidden Instant as"));
    assert!(violations[1].contains("crates/ctxmon-application/src/lib.rs:3: forbidden .exists()"));
}
