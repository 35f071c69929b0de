//! No `.ctxmon` in unexpected places (contract C12), against the real binary: a relative
//! `cwd` in the hook input is ignored (it was resolved against wherever the process ran), and
//! `.ctxmon` is never created at `/` or directly in the home folder unless `--project-dir`
//! names that folder (an agent's project variable counts no more than `cwd`). The hooks still
//! answer.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::json;

use crate::common::{Run, Sandbox, additional_context, transcript_with};

fn input(event: &str, cwd: &str, transcript: &Path) -> String {
    json!({
        "session_id": "s1",
        "transcript_path": transcript,
        "cwd": cwd,
        "hook_event_name": event,
        "prompt": "go on",
        "trigger": "auto",
    })
    .to_string()
}

fn assert_prompt_answered(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let context = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(context.contains("tier=\"WARNING\""), "{context}");
}

#[test]
fn a_relative_cwd_is_ignored_not_resolved_against_the_process_folder() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let nested = sb.path("a/b/c");
    std::fs::create_dir_all(&nested).unwrap();
    for (name, event) in [
        ("prompt-submit", "UserPromptSubmit"),
        ("pre-compact", "PreCompact"),
    ] {
        let run = sb.run_in(&nested, &["hooks", name], input(event, "../..", &t));
        // Two folders up from a/b/c is a/: nothing there, nor in the sandbox's project folder.
        assert!(!sb.path("a/.ctxmon").exists(), "{name}");
        assert!(!sb.path(".ctxmon").exists(), "{name}");
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("the input's cwd \"../..\" is not an absolute path; ignored"),
            "{}",
            run.stderr
        );
        if name == "prompt-submit" {
            assert_prompt_answered(&run);
        } else {
            assert!(
                run.stdout.contains("Checkpoint cx-001 saved"),
                "{}",
                run.stdout
            );
        }
    }
    // The documented fallback, the process's own folder (Claude Code runs hooks in the project).
    assert!(
        sb.path("a/b/c/.ctxmon/checkpoints/cx-001-checkpoint.json")
            .is_file()
    );
}

#[test]
fn cwd_root_creates_no_ctxmon_at_root() {
    if Path::new("/.ctxmon").exists() {
        ctxmon_test_support::skip!("/.ctxmon exists already (an older ctxmon's?); skipping");
        return;
    }
    // Whether the run made `/.ctxmon` (the old behaviour); taken back at once if so.
    let made_root = || {
        let made = Path::new("/.ctxmon").exists();
        if made {
            let _ = std::fs::remove_dir_all("/.ctxmon");
        }
        made
    };
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    for cwd in ["/", "/tmp/.."] {
        let prompt = sb.run(
            &["hooks", "prompt-submit"],
            input("UserPromptSubmit", cwd, &t),
        );
        assert!(!made_root(), "prompt-submit, cwd {cwd}: /.ctxmon created");
        let pre = sb.run(&["hooks", "pre-compact"], input("PreCompact", cwd, &t));
        assert!(!made_root(), "pre-compact, cwd {cwd}: /.ctxmon created");
        assert_prompt_answered(&prompt);
        assert!(
            prompt.stderr.contains(&format!(
                "{cwd} is the root folder (from the input's cwd); ctxmon creates no .ctxmon there"
            )),
            "{}",
            prompt.stderr
        );
        assert_eq!(pre.code, 0, "{}", pre.stderr);
        assert!(
            pre.stdout.trim().is_empty(),
            "nothing saved: {}",
            pre.stdout
        );
    }
}

/// An agent's variable names wherever the agent was started: the home folder or `/` from
/// `CLAUDE_PROJECT_DIR` or `GEMINI_PROJECT_DIR` gets no `.ctxmon`, as from `cwd`.
#[test]
fn an_agents_project_variable_does_not_make_home_or_root_a_project() {
    for variable in ["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"] {
        let mut sb = Sandbox::new();
        let t = sb.write("t.jsonl", transcript_with(&[150_000]));
        let home = sb.home.path().to_path_buf();
        let home_str = home.to_str().unwrap().to_string();
        for (folder, what) in [
            (home_str.as_str(), "your home folder"),
            ("/", "the root folder"),
        ] {
            let root_had = Path::new("/.ctxmon").exists();
            sb.set_env(variable, folder);
            let run = sb.run(&["hooks", "pre-compact"], input("PreCompact", folder, &t));
            assert_eq!(run.code, 0, "{}", run.stderr);
            assert!(!home.join(".ctxmon").exists(), "{variable}={folder}");
            assert_eq!(
                Path::new("/.ctxmon").exists(),
                root_had,
                "{variable}={folder}"
            );
            assert!(
                run.stderr.contains(&format!("is {what} (from {variable})")),
                "{}",
                run.stderr
            );
            assert!(run.stdout.trim().is_empty(), "{}", run.stdout);
            assert_prompt_answered(&sb.run(
                &["hooks", "prompt-submit"],
                input("UserPromptSubmit", folder, &t),
            ));
        }
    }
}

#[test]
fn the_home_folder_is_a_project_only_when_named() {
    let mut sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let home = sb.home.path().to_path_buf();
    let home_str = home.to_str().unwrap().to_string();
    let ctxmon = home.join(".ctxmon");

    // From the input's cwd and from the current directory (a command run in a shell at ~).
    let run = sb.run(
        &["hooks", "pre-compact"],
        input("PreCompact", &home_str, &t),
    );
    assert!(!ctxmon.exists());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("is your home folder (from the input's cwd)"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.trim().is_empty(), "{}", run.stdout);
    assert_prompt_answered(&sb.run(
        &["hooks", "prompt-submit"],
        input("UserPromptSubmit", &home_str, &t),
    ));
    let set = sb.run_in(
        &home,
        &["config", "set", "context_monitor.warning_threshold", "0.72"],
        "",
    );
    assert!(!ctxmon.exists());
    assert_eq!(set.code, 1, "{}", set.stderr);
    assert!(
        set.stderr
            .contains("is your home folder (from the current directory)"),
        "{}",
        set.stderr
    );
    assert!(!ctxmon.exists());

    // Named on purpose: the home folder is the project.
    let named = sb.run(
        &["--project-dir", &home_str, "hooks", "pre-compact"],
        input("PreCompact", &home_str, &t),
    );
    assert!(
        named.stdout.contains("Checkpoint cx-001 saved"),
        "{}",
        named.stderr
    );
    assert!(ctxmon.join("checkpoints/cx-001-checkpoint.json").is_file());
    assert_eq!(
        std::fs::read_to_string(ctxmon.join(".gitignore")).unwrap(),
        "*\n"
    );

    // One that exists is used, however the folder was found.
    let again = sb.run(
        &["hooks", "pre-compact"],
        input("PreCompact", &home_str, &t),
    );
    assert!(
        again.stdout.contains("Checkpoint cx-002 saved"),
        "{}",
        again.stderr
    );
    sb.set_env("CLAUDE_PROJECT_DIR", &home_str);
    let by_env = sb.run(
        &["hooks", "pre-compact"],
        input("PreCompact", &home_str, &t),
    );
    assert!(
        by_env.stdout.contains("Checkpoint cx-003 saved"),
        "{}",
        by_env.stderr
    );
}
