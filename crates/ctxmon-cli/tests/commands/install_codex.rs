//! `ctxmon install --agent codex` / `ctxmon uninstall --agent codex` end to end: Codex's
//! `hooks.json` in the project (`.codex/`) and the user's folder (`$CODEX_HOME`, default
//! `~/.codex`), with the Claude Code installer's guarantees: idempotent, a backup, uninstall
//! gives back the original bytes (no file when there was none), the user's own hooks kept,
//! refusals that write nothing. `tests/fixtures/codex-hooks/` holds a user's hooks.json and
//! what install makes of it (`@CTXMON@` stands for the binary's path).

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use settings::{PLACEHOLDER, exe, generic};

use crate::common;
use crate::common::Sandbox;
use crate::common::settings;

const HOOKS: &str = ".codex/hooks.json";
const BACKUP: &str = ".codex/hooks.json.ctxmon-backup";
const CODEX: [&str; 2] = ["--agent", "codex"];

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/codex-hooks")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The names in `dir`, sorted (empty when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn codex(sb: &Sandbox, verb: &str, more: &[&str]) -> common::Run {
    let args = [&[verb], &CODEX[..], more].concat();
    sb.run(&args, "")
}

#[test]
fn a_missing_hooks_json_is_created_and_uninstall_removes_it_again() {
    let sb = Sandbox::new();
    let first = codex(&sb, "install", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stdout.contains("(Codex project scope)"),
        "{}",
        first.stdout
    );
    assert!(
        first.stdout.contains("trust them: open /hooks"),
        "{}",
        first.stdout
    );
    let installed = read(&sb.path(HOOKS));
    let v: serde_json::Value = serde_json::from_str(&installed).unwrap();
    let events: Vec<&String> = v["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PostCompact",
            "PostToolUse",
            "PreCompact",
            "SessionStart",
            "UserPromptSubmit"
        ]
    );
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        format!("{} hooks post-tool-use", exe()).as_str()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.path(HOOKS))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_eq!(
        names(&sb.path(".codex")),
        ["hooks.json"],
        "no backup of nothing"
    );
    assert!(
        !sb.path(".claude").exists(),
        "Claude Code's settings untouched"
    );

    let second = codex(&sb, "install", &[]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stdout.contains("already installed"),
        "{}",
        second.stdout
    );
    assert!(!second.stdout.contains("trust"), "nothing new to trust");
    assert_eq!(read(&sb.path(HOOKS)), installed);
    assert_eq!(names(&sb.path(".codex")), ["hooks.json"]);

    let removed = codex(&sb, "uninstall", &[]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(removed.stdout.contains("removed"), "{}", removed.stdout);
    assert!(!sb.path(HOOKS).exists(), "the file install created is gone");
    assert_eq!(
        names(&sb.path(".codex")),
        Vec::<String>::new(),
        "no backup either: nothing of ctxmon's is left to keep"
    );
    let again = codex(&sb, "uninstall", &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("not installed"), "{}", again.stdout);
}

#[test]
fn the_users_hooks_json_keeps_every_byte_of_the_users_own() {
    let sb = Sandbox::new();
    let original = fixture("user-hooks.json");
    sb.write(HOOKS, &original);
    let first = codex(&sb, "install", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let installed = read(&sb.path(HOOKS));
    assert_eq!(generic(&installed), fixture("user-hooks.installed.json"));
    assert_eq!(read(&sb.path(BACKUP)), original, "backup = the input");

    let second = codex(&sb, "install", &[]);
    assert!(
        second.stdout.contains("already installed"),
        "{}",
        second.stdout
    );
    assert_eq!(read(&sb.path(HOOKS)), installed);
    assert_eq!(
        read(&sb.path(BACKUP)),
        original,
        "a no-op replaced the backup"
    );

    let removed = codex(&sb, "uninstall", &[]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert_eq!(read(&sb.path(HOOKS)), original, "byte for byte");
    assert!(
        !removed.stdout.contains("removed /"),
        "the user's file stays"
    );
}

#[test]
fn an_old_binary_path_is_updated_and_the_user_is_asked_to_trust_it_again() {
    let sb = Sandbox::new();
    let old = fixture("user-hooks.installed.json").replace(PLACEHOLDER, "/old/bin/ctxmon");
    sb.write(HOOKS, &old);
    let run = codex(&sb, "install", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "updated   UserPromptSubmit  command was `/old/bin/ctxmon hooks prompt-submit`"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("trust them: open /hooks"),
        "{}",
        run.stdout
    );
    assert_eq!(
        generic(&read(&sb.path(HOOKS))),
        fixture("user-hooks.installed.json")
    );
    let removed = codex(&sb, "uninstall", &[]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert_eq!(read(&sb.path(HOOKS)), fixture("user-hooks.json"));
}

#[test]
fn user_scope_follows_codex_home_and_defaults_to_the_home_folder() {
    let mut sb = Sandbox::new();
    let home_file = sb.home.path().join(".codex/hooks.json");
    // No CODEX_HOME (or an empty one, which Codex ignores too): ~/.codex.
    sb.set_env("CODEX_HOME", "");
    let run = codex(&sb, "install", &["--scope", "user"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("(Codex user scope)"), "{}", run.stdout);
    assert!(home_file.is_file());
    assert!(!sb.path(".codex").exists(), "the project is not touched");

    let elsewhere = tempfile::tempdir().unwrap();
    sb.set_env("CODEX_HOME", elsewhere.path().to_str().unwrap());
    let run = codex(&sb, "install", &["--scope", "user"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = elsewhere.path().join("hooks.json");
    assert!(
        run.stdout.contains(written.to_str().unwrap()),
        "{}",
        run.stdout
    );
    assert!(read(&written).contains("hooks pre-compact"));
    let removed = codex(&sb, "uninstall", &["--scope", "user"]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(!written.exists());
    assert!(
        home_file.is_file(),
        "~/.codex is not $CODEX_HOME's business"
    );
}

#[test]
fn dry_run_and_json_report_without_writing() {
    let sb = Sandbox::new();
    let run = codex(&sb, "install", &["--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("--- /dev/null\n+++ "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("dry run: nothing was written"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Codex asks you to trust"),
        "{}",
        run.stdout
    );
    assert!(!sb.path(".codex").exists());

    let json = sb.run(&["--json", "install", "--agent", "codex"], "");
    assert_eq!(json.code, 0, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["agent"], "codex");
    assert_eq!(v["scope"], "project");
    assert_eq!(v["written"], true);
    assert_eq!(v["file_removed"], false);
    assert!(v["next_step"].as_str().unwrap().contains("/hooks"));
    assert_eq!(v["changes"].as_array().unwrap().len(), 5);

    let dry = sb.run(
        &["--json", "uninstall", "--agent", "codex", "--dry-run"],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!(
        (v["written"].as_bool(), v["file_removed"].as_bool()),
        (Some(false), Some(false))
    );
    assert!(v["diff"].as_str().unwrap().contains("+++ /dev/null"), "{v}");
    assert!(sb.path(HOOKS).is_file(), "a dry run removes nothing");

    let gone = sb.run(&["--json", "uninstall", "--agent", "codex"], "");
    let v: serde_json::Value = serde_json::from_str(&gone.stdout).unwrap();
    assert_eq!(v["file_removed"], true);
    assert_eq!(v["next_step"], serde_json::Value::Null);
    assert!(!sb.path(HOOKS).exists());
}

#[test]
fn claude_code_stays_the_default_agent() {
    let sb = Sandbox::new();
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(sb.path(".claude/settings.json").is_file());
    assert!(!sb.path(".codex").exists());
    assert!(!run.stdout.contains("/hooks in Codex"), "{}", run.stdout);
    let json = sb.run(&["--json", "install"], "");
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["agent"], "claude");
}

/// Bad input: exit 1 for a file ctxmon must not edit, 2 for a bad command line; nothing is
/// written either way, backup included.
#[test]
fn refusals_name_the_problem_and_write_nothing() {
    for (content, needles) in [
        (
            "{\n  \"hooks\": {\n    \"Stop\": [],\n  }\n}\n",
            &["not valid JSON", "line 4"][..],
        ),
        ("{\"hooks\": {\"Stop\": {}}}", &["Codex expects a list"][..]),
        ("[]", &["not a JSON object"][..]),
        (
            "\u{feff}{\"hooks\": {}}\n",
            &["byte-order mark", "Codex cannot read"][..],
        ),
    ] {
        let sb = Sandbox::new();
        sb.write(HOOKS, content);
        let run = codex(&sb, "install", &[]);
        assert_eq!(run.code, 1, "{content:?}: {}", run.stderr);
        for needle in [HOOKS, "nothing was changed"].iter().chain(needles) {
            assert!(
                run.stderr.contains(needle),
                "{needle:?} missing: {}",
                run.stderr
            );
        }
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(read(&sb.path(HOOKS)), content);
        assert_eq!(names(&sb.path(".codex")), ["hooks.json"]);
    }
    let sb = Sandbox::new();
    for args in [
        &["install", "--agent", "vim"][..],
        &["uninstall", "--agent", ""][..],
        &["install", "--agent", "codex", "--statusline"][..],
        &["install", "--agent", "codex", "--scope", "local"][..],
        &["uninstall", "--agent", "codex", "--scope", "local"][..],
    ] {
        let run = sb.run(args, "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.is_empty());
        assert!(!sb.path(".codex").exists() && !sb.path(".claude").exists());
    }
    let unknown = sb.run(&["install", "--agent", "vim"], "");
    assert!(
        unknown.stderr.contains("claude, codex, gemini"),
        "{}",
        unknown.stderr
    );
    let local = sb.run(
        &["--json", "install", "--agent", "codex", "--scope", "local"],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&local.stdout).unwrap();
    assert_eq!(
        (v["exit_code"].as_u64(), v["agent"].as_str()),
        (Some(2), Some("codex"))
    );
}

/// A hooks.json reached through a symlink (dotfile managers link these) is written through,
/// and an uninstall that empties it keeps the link and the file it points to.
#[cfg(unix)]
#[test]
fn a_symlinked_hooks_json_stays_a_link_through_the_round_trip() {
    let sb = Sandbox::new();
    let real = sb.write("dotfiles/codex-hooks.json", "{}\n");
    std::fs::create_dir_all(sb.path(".codex")).unwrap();
    std::os::unix::fs::symlink(&real, sb.path(HOOKS)).unwrap();
    let run = codex(&sb, "install", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(read(&real).contains("hooks session-start"));
    let removed = codex(&sb, "uninstall", &[]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(
        std::fs::symlink_metadata(sb.path(HOOKS))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&real), "{}\n");
}
