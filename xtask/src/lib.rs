//! ctxmon's automation as a library, so every gate (`check-arch`, budgets, CI) is testable.
//!
//! The binary in `main.rs` only parses the verb and calls into these modules; the layer rules
//! also run as an ordinary `#[test]` so that `cargo test --workspace` enforces them.
//!
//! The verbs: `check-arch` (crate edges; forbidden `std` uses and module cycles in the core and
//! the adapters; in every crate no two sibling modules that import each other; and
//! `placement`: no key of an agent's format outside the application's `readers`), `embed`
//! (`examples/embed`, built from its own lockfile and compared with `ctxmon status` on every
//! transcript at hand), `tidy` (`//!` headers, at most 600 lines outside tests, workspace
//! lints, every module named in ARCHITECTURE.md, citations of `docs/contract.md` and none of
//! issues, bug ids or design documents, links, no relative link on a page a published crate
//! ships, no application function over 120 lines), `budgets` (every injected tag at its
//! extremes), `fuzz`, `bench` (`docs/benchmarks.md`: per call against `xtask/floor/`, a bare
//! program, every program with an agent-sized environment, also in a project other sessions
//! used; transcripts and chats generated at run time), `dist` (release archives, checked by
//! installing them), `inject-cost` (`docs/inject-policy.md`), `release_build` (the one command
//! that builds the shipped binary for `dist` and `bench`: static on Linux, sized at link time,
//! no symbol table), `package` (`cargo package` of the two library crates, verified in a target
//! folder of its own after clearing the copies an earlier run left in cargo's source cache,
//! since cargo never rebuilds a registry crate it has seen) and `ci`. `lexer` is the small Rust
//! lexer the source checks share.

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod arch;
pub mod bench;
pub mod budgets;
pub mod budgets_resilience;
pub mod budgets_resume_log;
pub mod ci;
pub mod dist;
pub mod embed;
pub mod event_names;
pub mod fuzz;
pub mod inject_cost;
pub mod lexer;
pub mod modules;
pub mod package;
pub mod placement;
pub mod release_build;
pub mod scan;
pub mod siblings;
pub mod tidy;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The workspace root: xtask lives one folder below it, so this holds for any checkout.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map_or_else(|| manifest_dir.to_path_buf(), Path::to_path_buf)
}

/// The folder cargo builds into for the workspace at `root`: `$CARGO_TARGET_DIR` when set (CI
/// runners often set it; a relative one is taken from `root`, where xtask runs cargo), else
/// `root/target`.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The cargo that is running us (`$CARGO`), else the one on `PATH`.
///
/// Cargo sets `CARGO` for `cargo run` and `cargo test`, so nested invocations use the same
/// toolchain as the outer one even outside the workspace (the scratch workspaces of the tests).
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"))
}

/// Runs one of the command-line consts; `cargo` is replaced by the cargo that runs us.
pub fn run_cargo(root: &Path, line: &str, env: &[(&str, &str)]) -> Result<()> {
    let args = cargo_args(line)?;
    let status = Command::new(cargo())
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .status()
        .with_context(|| format!("starting `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed ({status})");
    }
    Ok(())
}

/// The arguments after `cargo` in a command-line const.
pub fn cargo_args(line: &str) -> Result<Vec<&str>> {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("cargo") => Ok(words.collect()),
        _ => bail!("ci command `{line}` must start with `cargo`"),
    }
}
