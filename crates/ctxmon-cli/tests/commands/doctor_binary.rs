//! `ctxmon doctor`'s `binary` line for a binary installed without Rust: the fix matches how
//! ctxmon was installed (install.sh's folder → the PATH line, npm → npm), never `cargo
//! install`, and the line says how the hooks call the binary.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::Sandbox;

const BIN: &str = env!("CARGO_BIN_EXE_ctxmon");

/// The binary under test placed at `rel` in the sandbox's HOME, as an installer would put it
/// (a hard link where the file system allows, else a copy: either is a file of its own name).
pub(super) fn placed(sb: &Sandbox, rel: &str) -> PathBuf {
    let at = sb.home.path().join(rel);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    if std::fs::hard_link(BIN, &at).is_err() {
        std::fs::copy(BIN, &at).unwrap();
    }
    at
}

/// The `binary` check of `doctor --json` run by `program`: (status, message, fix).
fn binary_line(sb: &Sandbox, program: &Path) -> (String, String, String) {
    let run = sb.run_program(program, &["--json", "doctor"], "");
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", run.stdout, run.stderr));
    let c = v
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "binary")
        .unwrap()
        .clone();
    (
        c["status"].as_str().unwrap().to_string(),
        c["message"].as_str().unwrap().to_string(),
        c["fix"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn a_release_binary_off_path_is_told_the_path_line_and_how_the_hooks_call_it() {
    let sb = Sandbox::new();
    let exe = placed(&sb, ".local/bin/ctxmon");
    // install.sh's next step: `~/.local/bin/ctxmon install`, with ~/.local/bin off PATH.
    let install = sb.run_program(&exe, &["install"], "");
    assert_eq!(install.code, 0, "{}", install.stderr);
    let (status, message, fix) = binary_line(&sb, &exe);
    assert_eq!(status, "warn", "{message}");
    assert!(
        !fix.contains("cargo"),
        "no Rust for a release binary: {fix}"
    );
    assert!(fix.contains("export PATH="), "{fix}");
    assert!(fix.contains(".local/bin"), "{fix}");
    assert!(
        message.contains(&format!("the hooks call {}", exe.display())),
        "{message}"
    );
}

#[test]
fn an_npm_binary_off_path_is_told_about_npm() {
    let sb = Sandbox::new();
    let exe = placed(
        &sb,
        ".npm-global/lib/node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon",
    );
    let (status, message, fix) = binary_line(&sb, &exe);
    assert_eq!(status, "warn", "{message}");
    assert!(!fix.contains("cargo"), "no Rust for an npm binary: {fix}");
    assert!(fix.contains("npm"), "{fix}");
    assert!(message.contains("no hook calls it yet"), "{message}");
}
