//! `cargo xtask ci`: every gate, in the order a reviewer would want them to fail.
//!
//! Cheap checks run first (format, lint) so a typo fails in seconds; each step prints a header
//! and its duration, and the first failure stops the run with a non-zero exit.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

/// The workspace's test command; README.md documents exactly this string.
pub const TEST_COMMAND: &str = "cargo test --workspace --locked";
pub const FMT_COMMAND: &str = "cargo fmt --all -- --check";
pub const CLIPPY_COMMAND: &str = "cargo clippy --workspace --all-targets --locked -- -D warnings";
pub const DENY_COMMAND: &str = "cargo deny check bans licenses sources";
/// The two library crates' API documentation, every rustdoc warning an error: a public item
/// without docs (`missing_docs`) or a broken intra-doc link fails. Their doc examples run in the
/// test step (`cargo test --workspace` runs doc tests).
pub const DOCS_COMMAND: &str =
    "cargo doc --no-deps --locked -p ctxmon-domain -p ctxmon-application";
/// What `cargo publish` would upload for the two library crates, built from the packaged files
/// alone (ctxmon-application against the packaged ctxmon-domain): a file the build needs but
/// the package leaves out fails here, not after a release. Offline, and nothing is published.
pub const PACKAGE_COMMAND: &str =
    "cargo package --locked --offline -p ctxmon-domain -p ctxmon-application";
/// A process of its own, not a call into this one: the test step may have rebuilt (replaced)
/// the xtask binary this process runs from, and the benchmark spawns that binary as its runner.
pub const BENCH_SMOKE_COMMAND: &str = "cargo xtask bench --quick";
/// A process of its own for the same reason; it reuses the release build bench-smoke made.
pub const DIST_COMMAND: &str = "cargo xtask dist";

/// What one CI step does.
#[derive(Debug, Clone, Copy)]
enum Action {
    /// A cargo command line (one of the consts above) with extra environment.
    Cargo(&'static str, &'static [(&'static str, &'static str)]),
    /// An in-process gate over the workspace root.
    InProcess(fn(&Path) -> Result<()>),
    /// `cargo deny`, which may not be installed on a developer machine.
    Deny,
    /// `cargo xtask fuzz` for [`crate::fuzz::CI_SECONDS`] per target.
    Fuzz,
    /// [`PACKAGE_COMMAND`] after clearing an earlier run's unpacked copies
    /// ([`crate::package`]).
    Package,
}

#[derive(Debug, Clone, Copy)]
struct Step {
    name: &'static str,
    action: Action,
}

const STEPS: &[Step] = &[
    Step {
        name: "format",
        action: Action::Cargo(FMT_COMMAND, &[]),
    },
    Step {
        name: "clippy",
        action: Action::Cargo(CLIPPY_COMMAND, &[]),
    },
    Step {
        name: "test",
        // CI never writes snapshots: a changed golden output must fail, not be accepted. The
        // fuzz targets only replay their seeds here; the fuzz step gives them time.
        action: Action::Cargo(
            TEST_COMMAND,
            &[("INSTA_UPDATE", "no"), ("CTXFUZZ_SECS", "0")],
        ),
    },
    Step {
        name: "docs",
        action: Action::Cargo(DOCS_COMMAND, &[("RUSTDOCFLAGS", "-D warnings")]),
    },
    Step {
        name: "package",
        action: Action::Package,
    },
    Step {
        name: "check-arch",
        action: Action::InProcess(crate::arch::run),
    },
    Step {
        name: "tidy",
        action: Action::InProcess(crate::tidy::run),
    },
    Step {
        name: "budgets",
        action: Action::InProcess(|_| crate::budgets::run_all()),
    },
    Step {
        name: "embed",
        // `cargo xtask embed`: the embedder's program (examples/embed, ctxmon-application
        // alone, at most 25 crates) built from its own lockfile and run beside `ctxmon status`
        // on every transcript at hand; a figure that differs fails.
        action: Action::InProcess(crate::embed::run),
    },
    Step {
        name: "cargo-deny",
        action: Action::Deny,
    },
    Step {
        name: "bench-smoke",
        // `cargo xtask bench --quick`: every benchmark case on the release binary, each answer
        // checked (a wrong answer fails); timings are reported, never gated. Without it a check
        // the benchmark makes could go stale unnoticed between full runs.
        action: Action::Cargo(BENCH_SMOKE_COMMAND, &[]),
    },
    Step {
        name: "dist",
        // The release archive, SHA256SUMS, install.sh and npm tarballs, then installed with
        // `install.sh --archive` and with npm offline and run: what a release would publish
        // is proven to install. Seconds, since bench-smoke has built the release binary.
        action: Action::Cargo(DIST_COMMAND, &[]),
    },
    Step {
        name: "fuzz",
        action: Action::Fuzz,
    },
];

/// Runs every step in order and stops at the first failure.
pub fn run(root: &Path) -> Result<()> {
    let started = Instant::now();
    let total = STEPS.len();
    for (index, step) in STEPS.iter().enumerate() {
        println!(
            "\n==> [{}/{total}] {}: {}",
            index + 1,
            step.name,
            describe(step.action)
        );
        let step_started = Instant::now();
        let outcome = run_step(root, step.action);
        let took = seconds(step_started.elapsed());
        match outcome {
            Ok(()) => println!("<== {}: ok in {took}", step.name),
            Err(error) => {
                println!("<== {}: FAILED in {took}", step.name);
                return Err(error.context(format!("ci step `{}` failed", step.name)));
            }
        }
    }
    println!(
        "\nci: all {total} steps passed in {}",
        seconds(started.elapsed())
    );
    Ok(())
}

fn describe(action: Action) -> String {
    match action {
        Action::Cargo(line, env) => {
            let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            [env.join(" "), line.to_owned()].join(" ").trim().to_owned()
        }
        Action::InProcess(_) => "in-process check".to_owned(),
        Action::Deny => DENY_COMMAND.to_owned(),
        Action::Fuzz => format!("cargo xtask fuzz --seconds {}", crate::fuzz::CI_SECONDS),
        Action::Package => PACKAGE_COMMAND.to_owned(),
    }
}

fn run_step(root: &Path, action: Action) -> Result<()> {
    match action {
        Action::Cargo(line, env) => crate::run_cargo(root, line, env),
        Action::InProcess(check) => check(root),
        Action::Fuzz => crate::fuzz::run(root, &crate::fuzz::Options::ci()),
        Action::Package => crate::package::run(root, PACKAGE_COMMAND),
        Action::Deny => {
            if deny_installed(root) {
                return crate::run_cargo(root, DENY_COMMAND, &[]);
            }
            let install = "install it with `cargo install --locked cargo-deny`";
            if is_ci() {
                bail!(
                    "cargo-deny is not installed and CI=true, so the license and source gate cannot be skipped; {install}"
                );
            }
            println!(
                "notice: cargo-deny is not installed; skipping bans/licenses/sources ({install}; CI fails without it)"
            );
            Ok(())
        }
    }
}

fn deny_installed(root: &Path) -> bool {
    Command::new(crate::cargo())
        .args(["deny", "--version"])
        .current_dir(root)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// CI systems set `CI=true` (GitHub, GitLab, our `.ci/run`); `1` is accepted too.
fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

fn seconds(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_line_starts_with_cargo() {
        for step in STEPS {
            if let Action::Cargo(line, _) = step.action {
                assert!(!crate::cargo_args(line).unwrap().is_empty(), "{line}");
            }
        }
        assert!(crate::cargo_args("rm -rf /").is_err());
    }

    #[test]
    fn steps_run_in_the_documented_order() {
        let names: Vec<&str> = STEPS.iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "format",
                "clippy",
                "test",
                "docs",
                "package",
                "check-arch",
                "tidy",
                "budgets",
                "embed",
                "cargo-deny",
                "bench-smoke",
                "dist",
                "fuzz"
            ]
        );
    }

    #[test]
    fn the_test_step_never_writes_snapshots() {
        let test = STEPS.iter().find(|s| s.name == "test").unwrap();
        let Action::Cargo(line, env) = test.action else {
            panic!("the test step runs cargo");
        };
        assert_eq!(line, TEST_COMMAND);
        assert!(env.contains(&("INSTA_UPDATE", "no")));
        assert_eq!(
            describe(test.action),
            "INSTA_UPDATE=no CTXFUZZ_SECS=0 cargo test --workspace --locked"
        );
    }

    /// README.md and xtask must agree on how to run the tests. Until README.md is written this
    /// passes with a notice; once it exists it must show `TEST_COMMAND` verbatim.
    #[test]
    fn readme_shows_the_test_command() {
        let readme = crate::workspace_root().join("README.md");
        match std::fs::read_to_string(&readme) {
            Ok(text) => assert!(
                text.contains(TEST_COMMAND),
                "README.md must show the test command `{TEST_COMMAND}` (xtask/src/ci.rs runs exactly that)"
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!(
                    "notice: {} not found; test command not cross-checked",
                    readme.display()
                );
            }
            Err(e) => panic!("reading {}: {e}", readme.display()),
        }
    }
}
