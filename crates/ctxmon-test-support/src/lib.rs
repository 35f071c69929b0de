//! What more than one crate's tests share, as a crate of its own instead of files included by
//! `#[path]` across crate folders: the stable-Rust fuzz harness (`fuzz`), the process-level
//! proofs of the checkpoint folder (`proof`: many writers, SIGKILLs, an audit of what is left),
//! the start of a process as a user that file modes bind (`unprivileged`) and a skipped test
//! that a plain `cargo test` shows (`skip`).
//!
//! A dev-dependency only (of `ctxmon-infra-fs` and `ctxmon-cli`); `cargo xtask check-arch`
//! rejects it as a normal dependency, so nothing here reaches the binary.

// Test support: a panic is how a broken precondition fails the test, and the harness reports
// its progress and tables on the test's stderr.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

pub mod fuzz;
pub mod proof;
pub mod skip;
#[cfg(unix)]
pub mod unprivileged;
