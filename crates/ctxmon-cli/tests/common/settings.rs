//! Helpers for the install tests: the settings fixtures, with `@CTXMON@` standing for the
//! absolute path of the binary under test so the expected files are machine-independent.

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::Sandbox;

pub const PLACEHOLDER: &str = "@CTXMON@";

/// The binary's path as `ctxmon install` writes it (canonical, like `current_exe`).
pub fn exe() -> String {
    let path = std::fs::canonicalize(env!("CARGO_BIN_EXE_ctxmon")).unwrap();
    let path = path.to_str().unwrap().to_string();
    // The fixtures hold the path verbatim; a path that needs shell quoting or JSON escaping
    // would make them lie.
    assert!(
        path.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)),
        "the test binary's path {path} needs quoting; build in a plainer folder"
    );
    path
}

pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/settings")
        .join(name)
}

pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

/// `text` with the binary's path replaced by the placeholder, for comparing with a fixture.
pub fn generic(text: &str) -> String {
    text.replace(&exe(), PLACEHOLDER)
}

pub const SETTINGS: &str = ".claude/settings.json";
pub const BACKUP: &str = ".claude/settings.json.ctxmon-backup";

pub fn read(sb: &Sandbox, rel: &str) -> String {
    std::fs::read_to_string(sb.path(rel)).unwrap()
}

/// The names in the sandbox's `.claude` folder, sorted.
pub fn claude_dir(sb: &Sandbox) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(sb.path(".claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
