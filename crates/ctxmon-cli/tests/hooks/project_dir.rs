//! A project directory that does not exist is never created: ctxmon only creates `.ctxmon` (and
//! what is below it) inside a project that exists. Hooks fail open without state and say why on
//! stderr; commands exit 2 naming the folder.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::json;

use crate::common::{Sandbox, additional_context, transcript_with};

/// Every file and folder under `dir`, relative, sorted: what a run may have created.
fn tree(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().map(Result::unwrap) {
            let path = entry.path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

fn hook_input(event: &str, t: &std::path::Path, cwd: &std::path::Path) -> String {
    json!({
        "session_id": "s-missing",
        "transcript_path": t,
        "cwd": cwd,
        "hook_event_name": event,
        "prompt": "go on",
        "trigger": "auto",
        "source": "compact",
        "tool_name": "Write",
        "tool_input": {"file_path": cwd.join("ORCHESTRATION.yaml")},
        "reason": "other",
    })
    .to_string()
}

const HOOKS: [(&str, &str); 7] = [
    ("prompt-submit", "UserPromptSubmit"),
    ("session-start", "SessionStart"),
    ("pre-compact", "PreCompact"),
    ("pre-tool-use", "PreToolUse"),
    ("post-tool-use", "PostToolUse"),
    ("post-compact", "PostCompact"),
    ("session-end", "SessionEnd"),
];

#[test]
fn hooks_in_a_missing_project_fail_open_and_create_nothing() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let before = tree(sb.dir());
    let missing = sb.path("does/not/exist");
    // Named by the hook input's cwd, by --project-dir and by CLAUDE_PROJECT_DIR.
    let mut by_env = Sandbox::new();
    by_env.set_env("CLAUDE_PROJECT_DIR", missing.to_str().unwrap());
    let runs = |name: &str, event: &str| {
        let input = hook_input(event, &t, &missing);
        let dir = missing.to_str().unwrap();
        vec![
            sb.run(&["hooks", name], &input),
            sb.run(&["--project-dir", dir, "hooks", name], &input),
            by_env.run(&["hooks", name], &input),
        ]
    };
    for (name, event) in HOOKS {
        for run in runs(name, event) {
            assert_eq!(run.code, 0, "{name}: {}", run.stderr);
            assert!(
                run.stderr.contains("does/not/exist does not exist"),
                "{name}: {}",
                run.stderr
            );
            match name {
                // What needs no state is still answered: the fill of the transcript.
                "prompt-submit" => assert!(
                    additional_context(&run.stdout, event).contains("tier=\"WARNING\""),
                    "{}",
                    run.stdout
                ),
                // Never decides a permission (the note about the file it writes needs no
                // state).
                "pre-tool-use" => assert!(
                    run.stdout.is_empty() || !run.stdout.contains("permissionDecision"),
                    "{}",
                    run.stdout
                ),
                // No checkpoint was saved, so none is announced.
                _ => assert_eq!(run.stdout.trim(), "", "{name}"),
            }
        }
    }
    assert_eq!(tree(sb.dir()), before, "nothing was created");
    assert_eq!(tree(by_env.dir()), Vec::<String>::new());
}

#[test]
fn commands_in_a_missing_project_exit_2_and_create_nothing() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let before = tree(sb.dir());
    let missing = sb.path("nonexistent/x");
    let dir = missing.to_str().unwrap();
    let t = t.to_str().unwrap();
    let commands: [&[&str]; 11] = [
        &["resume-log", "generate", "--session", "s"],
        &["resume-log", "list"],
        &["status", "--transcript", t],
        &["report", "--transcript", t],
        &["checkpoint", "list"],
        &["checkpoint", "prune", "--keep", "0"],
        &["config", "set", "hooks.deadline_ms", "900"],
        &["config", "show"],
        &["install"],
        &["install", "--scope", "local"],
        &["doctor"],
    ];
    for args in commands {
        let mut all = vec!["--project-dir", dir];
        all.extend_from_slice(args);
        let run = sb.run(&all, "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("project directory {dir} does not exist")),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    }
    // Named by CLAUDE_PROJECT_DIR, the message says so.
    let mut by_env = Sandbox::new();
    by_env.set_env("CLAUDE_PROJECT_DIR", dir);
    let run = by_env.run(&["resume-log", "generate", "--session", "s"], "");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("CLAUDE_PROJECT_DIR"), "{}", run.stderr);
    // What needs no project still works.
    let schema = sb.run(&["--project-dir", dir, "config", "schema"], "");
    assert_eq!(schema.code, 0, "{}", schema.stderr);
    assert_eq!(tree(sb.dir()), before, "nothing was created");
    assert_eq!(tree(by_env.dir()), Vec::<String>::new());
}
