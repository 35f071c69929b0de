//! The README leads with ways to install that work from this repository today (a build from
//! the checkout, or the release archive `cargo xtask dist` makes), and says of the release
//! download and npm that they apply once published; docs/release.md says the unscoped npm name
//! must be claimed before the first release.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap()
}

/// The commands of the ```` ```sh ```` blocks of `text`, in order, comments dropped.
fn sh_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```sh\n") {
        let body = &rest[start + 6..];
        let end = body.find("\n```").unwrap();
        for line in body[..end].lines() {
            let command = line.split(" #").next().unwrap().trim();
            if !command.is_empty() && !command.starts_with('#') {
                out.push(command.to_string());
            }
        }
        rest = &body[end..];
    }
    out
}

#[test]
fn the_first_install_command_works_from_this_repository() {
    let readme = read("README.md");
    let commands = sh_commands(&readme);
    // The first two are the fixture run and the tests; the next installs.
    let install = &commands[2];
    assert!(
        install.starts_with("cargo install --locked --path crates/ctxmon-cli"),
        "the README's first install command must work from a checkout: {install}"
    );
    assert!(root().join("crates/ctxmon-cli/Cargo.toml").is_file());
    assert!(
        readme.contains("cargo xtask dist"),
        "the release archive built from the repository is offered too"
    );
}

#[test]
fn release_and_npm_instructions_say_they_apply_once_published() {
    let readme = read("README.md");
    for needle in ["npm install -g ctxmon", "releases/latest/download"] {
        for (at, _) in readme.match_indices(needle) {
            let before = &readme[at.saturating_sub(700)..at];
            assert!(
                before.contains("once published") || before.contains("once they are published"),
                "`{needle}` at byte {at} of README.md without saying it applies once published"
            );
        }
    }
}

#[test]
fn release_docs_say_the_npm_name_must_be_claimed() {
    let release = read("docs/release.md");
    assert!(
        release.contains("unscoped `ctxmon`") && release.contains("claimed"),
        "docs/release.md must say the unscoped npm name is to be claimed before the first release"
    );
}
