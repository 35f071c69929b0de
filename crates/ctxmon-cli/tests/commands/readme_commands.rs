//! The commands README.md and `docs/*.md` show, with what they print, are real: the
//! README's first command measures the fixture it names and prints the line the
//! README quotes; every ```` ```console ```` block, run by a shell command by command, prints
//! exactly the output shown under each `$` line; and the hooks docs/installation.md says
//! `ctxmon install` writes are what it writes. An example that is abridged on purpose is fenced
//! ```` ```text ````, not `console`.
//!
//! A command runs in a scratch folder that holds the repository's `fixtures/` (so the relative
//! paths the docs show resolve as from the repository's root, and a file a command writes, such
//! as `report --svg fill.svg`, lands there), with `ctxmon` on PATH as the binary under test,
//! a temp HOME, `TZ=UTC`, `NO_COLOR=1` and `COLUMNS=80`. A rollout named under
//! `~/.codex/sessions/` is the shared Codex fixture of that name, copied there (a chat under
//! `~/.gemini/tmp/` the shared Gemini CLI chat of that name); without
//! `../shared` such a block is skipped with a notice.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;
use crate::common::Sandbox;
use crate::readme_examples::documents;

const BIN: &str = env!("CARGO_BIN_EXE_ctxmon");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bodies of `text`'s blocks fenced exactly ```` ```<language> ````, in order.
fn fenced(text: &str, language: &str) -> Vec<String> {
    let open = format!("```{language}\n");
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        let body = &rest[start + open.len()..];
        let end = body.find("```").unwrap();
        blocks.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    blocks
}

/// A console block as (command, output shown under it) pairs.
fn steps(block: &str) -> Vec<(String, String)> {
    let mut steps: Vec<(String, Vec<&str>)> = Vec::new();
    for line in block.lines() {
        match line.strip_prefix("$ ") {
            Some(command) => steps.push((command.to_string(), Vec::new())),
            None => {
                let (_, output) = steps
                    .last_mut()
                    .unwrap_or_else(|| panic!("a console block starts with output: {block}"));
                output.push(line);
            }
        }
    }
    steps
        .into_iter()
        .map(|(command, output)| (command, output.join("\n")))
        .collect()
}

/// A scratch folder shaped like the repository's root for the docs' commands, with `ctxmon` on
/// PATH, and the environment they run in.
struct Shell {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
    path: String,
}

impl Shell {
    fn new() -> Shell {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(root().join("fixtures"), dir.path().join("fixtures")).unwrap();
        let bin = dir.path().join(".bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(BIN, bin.join("ctxmon")).unwrap();
        let path = format!("{}:{}", bin.display(), crate::common::outer_path());
        Shell {
            dir,
            home: tempfile::tempdir().unwrap(),
            path,
        }
    }

    /// Copies the shared rollouts `command` names under `~/.codex/sessions/` into HOME; false
    /// when it names one and `../shared` is absent.
    fn provide_rollouts(&self, command: &str) -> bool {
        for word in command.split_whitespace() {
            if let Some(rel) = word.strip_prefix("~/.gemini/tmp/") {
                let Some(shared) = gemini_fixtures() else {
                    return false;
                };
                let name = Path::new(rel).file_name().unwrap();
                let at = self.home.path().join(".gemini/tmp").join(rel);
                std::fs::create_dir_all(at.parent().unwrap()).unwrap();
                std::fs::copy(shared.join(name), &at)
                    .unwrap_or_else(|e| panic!("{word}: no shared chat of that name ({e})"));
                continue;
            }
            let Some(rel) = word.strip_prefix("~/.codex/sessions/") else {
                continue;
            };
            let Some(shared) = common::codex_fixtures() else {
                return false;
            };
            let name = Path::new(rel).file_name().unwrap();
            let at = self.home.path().join(".codex/sessions").join(rel);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::copy(shared.join(name), &at)
                .unwrap_or_else(|e| panic!("{word}: no shared rollout of that name ({e})"));
        }
        true
    }

    /// Runs `command` with `sh -c`: (exit code, stdout, stderr).
    fn run(&self, command: &str) -> (i32, String, String) {
        let out = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(self.dir.path())
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", self.home.path())
            .env("TZ", "UTC")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "80")
            .env("GIT_CEILING_DIRECTORIES", self.dir.path().parent().unwrap())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// The shared Gemini CLI chats, or `None` after a notice.
fn gemini_fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/gemini-chats");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!("../shared is absent; skipping doc examples on Gemini chats");
        None
    }
}

#[test]
fn every_console_block_prints_what_it_shows() {
    let mut ran = 0;
    for (doc, text) in documents() {
        for block in fenced(&text, "console") {
            let shell = Shell::new();
            for (command, shown) in steps(&block) {
                if !shell.provide_rollouts(&command) {
                    continue;
                }
                let (code, stdout, stderr) = shell.run(&command);
                assert_eq!(code, 0, "{doc}: `{command}` failed: {stderr}");
                assert_eq!(
                    stdout.trim_end(),
                    shown,
                    "{doc}: `{command}` does not print what {doc} shows"
                );
                ran += 1;
            }
        }
    }
    // The README's status lines, the report and (with ../shared) Codex's status at least.
    assert!(ran >= 3, "only {ran} console commands found");
}

#[test]
fn the_readme_opens_with_a_command_that_prints_what_it_says() {
    let (_, readme) = documents().remove(0);
    let block = &fenced(&readme, "sh")[0];
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(lines.len(), 2, "two commands first: {block}");
    let args = lines[0]
        .strip_prefix("cargo run --release -p ctxmon-cli -- ")
        .unwrap_or_else(|| {
            panic!(
                "the first command runs ctxmon from the checkout: {}",
                lines[0]
            )
        });
    assert_eq!(lines[1], "cargo test --workspace --locked");
    let fixture = args.split_whitespace().last().unwrap();
    assert!(
        root().join(fixture).is_file(),
        "{fixture} is not in the repository: a fresh clone could not run the first command"
    );

    let shell = Shell::new();
    let (code, stdout, stderr) = shell.run(&format!("ctxmon {args}"));
    assert_eq!(code, 0, "{stderr}");
    let first = stdout.lines().next().unwrap();
    let after = &readme[readme.find(block.as_str()).unwrap() + block.len()..];
    let said = after.split("\n\n").nth(1).unwrap();
    assert!(
        said.contains(&format!("(`{first}`)")),
        "the README says the first command prints something else; it prints:\n{stdout}"
    );
}

/// The hooks block of docs/installation.md, and the status line after it.
fn installation_example() -> (Value, Value) {
    let page = std::fs::read_to_string(root().join("docs/installation.md")).unwrap();
    let section = &page[page.find("\n### What install writes\n").unwrap()..];
    let hooks: Value = serde_json::from_str(&fenced(section, "json")[0]).unwrap();
    let marker = "and with `--statusline`: `";
    let line = &section[section.find(marker).unwrap() + marker.len()..];
    let line: Value =
        serde_json::from_str(&format!("{{{}}}", &line[..line.find('`').unwrap()])).unwrap();
    (hooks, line)
}

#[test]
fn the_hooks_install_writes_are_the_ones_shown() {
    let (hooks, line) = installation_example();
    // At project scope with this binary on PATH as `ctxmon`, as the page describes.
    let mut sb = Sandbox::new();
    let bin = sb.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("ctxmon")).unwrap();
    sb.prepend_path(&bin);
    let run = sb.run(&["install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(sb.path(".claude/settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        written["hooks"], hooks["hooks"],
        "docs/installation.md shows other hooks than install writes"
    );
    assert_eq!(written["statusLine"], line["statusLine"]);
}

#[test]
fn a_console_block_reads_as_commands_and_outputs() {
    let block = "$ a\none\ntwo\n$ b\n$ c\nthree\n";
    let steps = steps(block);
    assert_eq!(
        steps,
        [
            ("a".to_string(), "one\ntwo".to_string()),
            ("b".to_string(), String::new()),
            ("c".to_string(), "three".to_string()),
        ]
    );
    assert_eq!(
        fenced("x\n```console\n$ a\n```\n```consoles\n```\n", "console"),
        ["$ a\n"]
    );
}
