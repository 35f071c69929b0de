//! What install and uninstall leave in the project, said where it happens: the backup install
//! keeps beside a shared file is not for committing; uninstalling Codex removes the `.codex/`
//! folder its file leaves empty; uninstall names `.ctxmon/`, which it keeps and which holds
//! prompts and command output.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use crate::common::Sandbox;

#[test]
fn the_backup_of_a_project_file_comes_with_a_hint() {
    let sb = Sandbox::new();
    sb.write(".claude/settings.json", r#"{"model": "opus"}"#);
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("previous version saved as"))
        .unwrap();
    assert!(line.contains(".gitignore"), "{line}");
    assert!(line.contains(".claude/*.ctxmon-*"), "{line}");
}

#[test]
fn uninstalling_codex_leaves_no_empty_codex_folder() {
    let sb = Sandbox::new();
    assert_eq!(sb.run(&["install", "--agent", "codex"], "").code, 0);
    let run = sb.run(&["uninstall", "--agent", "codex"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!sb.path(".codex").exists(), "{}", run.stdout);
    // A folder holding anything else stays.
    sb.write(".codex/config.toml", "model = \"o3\"\n");
    assert_eq!(sb.run(&["install", "--agent", "codex"], "").code, 0);
    assert_eq!(sb.run(&["uninstall", "--agent", "codex"], "").code, 0);
    assert!(sb.path(".codex/config.toml").exists());
}

#[test]
fn uninstall_names_the_ctxmon_folder_it_keeps() {
    let sb = Sandbox::new();
    assert_eq!(sb.run(&["install"], "").code, 0);
    sb.write(".ctxmon/events.jsonl", "{}\n");
    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".ctxmon"), "{}", run.stdout);
    assert!(run.stdout.contains("prompts"), "{}", run.stdout);
    assert!(sb.path(".ctxmon").exists(), "uninstall deletes no data");
}
