//! `ctxmon install` at a second scope of the same agent: the agent would run every hook of
//! both files, so every tag would come twice. Install refuses, names the file that already
//! registers ctxmon and writes nothing; `--force` registers both on purpose. Installing again
//! where ctxmon already is stays an update.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use crate::common::Sandbox;

#[test]
fn claude_code_hooks_at_another_scope_are_named_and_not_duplicated() {
    let sb = Sandbox::new();
    let user = sb.home.path().join(".claude/settings.json");
    let run = sb.run(&["install", "--scope", "user"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let before = std::fs::read_to_string(&user).unwrap();

    let second = sb.run(&["install"], "");
    assert_eq!(second.code, 1, "{}\n{}", second.stdout, second.stderr);
    assert!(
        second.stderr.contains(&user.display().to_string()),
        "{}",
        second.stderr
    );
    assert!(second.stderr.contains("--force"), "{}", second.stderr);
    assert!(second.stderr.contains("twice"), "{}", second.stderr);
    assert!(
        !sb.path(".claude/settings.json").exists(),
        "nothing written"
    );
    assert_eq!(std::fs::read_to_string(&user).unwrap(), before);

    // The user scope again is an update, not a second registration.
    assert_eq!(sb.run(&["install", "--scope", "user"], "").code, 0);
    // --force registers both on purpose.
    let forced = sb.run(&["install", "--force"], "");
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(sb.path(".claude/settings.json").exists());
    // Once both hold it, installing at either is an update again.
    assert_eq!(sb.run(&["install"], "").code, 0);
}

#[test]
fn codex_hooks_at_another_scope_are_named_and_not_duplicated() {
    let sb = Sandbox::new();
    let run = sb.run(&["install", "--agent", "codex"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let second = sb.run(&["install", "--agent", "codex", "--scope", "user"], "");
    assert_eq!(second.code, 1, "{}", second.stderr);
    assert!(
        second.stderr.contains(".codex/hooks.json"),
        "{}",
        second.stderr
    );
    assert!(!sb.home.path().join(".codex/hooks.json").exists());
    // Claude Code's files are another agent's: no conflict.
    assert_eq!(sb.run(&["install", "--scope", "user"], "").code, 0);
}
