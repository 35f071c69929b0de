//! The git ctxmon runs itself (`git status` for resume logs) in a repository whose own
//! configuration asks git to run programs: a cloned project's `core.fsmonitor` must not run
//! because a hook or a command looked at the work tree.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use serde_json::json;

use crate::common::{Sandbox, transcript_with};

fn git(sb: &Sandbox, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(sb.dir())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", sb.home.path())
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn no_hook_or_command_runs_the_projects_fsmonitor() {
    let sb = Sandbox::new();
    if !git(&sb, &["init", "-q"]) {
        ctxmon_test_support::skip!("git unavailable; skipping");
        return;
    }
    let marker = sb.home.path().join("fsmonitor-ran");
    let script = sb.home.path().join("fsmonitor.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho ran >> '{}'\nexit 1\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(git(
        &sb,
        &["config", "core.fsmonitor", script.to_str().unwrap()]
    ));
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    // The test means something only if git itself runs the script here.
    git(&sb, &["status", "--porcelain"]);
    if !marker.exists() {
        ctxmon_test_support::skip!("this git never runs core.fsmonitor; skipping");
        return;
    }
    std::fs::remove_file(&marker).unwrap();

    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s1", &t, json!({"trigger": "auto"})),
    );
    assert!(
        pre.stdout.contains("cx-001"),
        "{} {}",
        pre.stdout,
        pre.stderr
    );
    let end = sb.run(
        &["hooks", "session-end"],
        sb.hook_input("SessionEnd", "s1", &t, json!({"reason": "logout"})),
    );
    assert_eq!(end.code, 0, "{}", end.stderr);
    let generate = sb.run(&["resume-log", "generate", "--session", "s1"], "");
    assert_eq!(generate.code, 0, "{}", generate.stderr);
    let log =
        std::fs::read_to_string(sb.path(".ctxmon/resume-logs/session-s1.json")).unwrap_or_default();
    assert!(log.contains("t.jsonl"), "git status was read: {log}");
    assert!(
        !marker.exists(),
        "core.fsmonitor ran {} time(s)",
        std::fs::read_to_string(&marker)
            .unwrap_or_default()
            .lines()
            .count()
    );
}
