//! `--json` is honoured or refused by every command (contract C13), against the real binary:
//! under `--json` every failure, a command line clap refuses included, prints one
//! `{"error", "exit_code"}` object on stdout whose `exit_code` is the process's; `completions`
//! refuses `--json`; `doctor` prints only its checks; the status line's object carries the
//! figures, the tier and the source; hooks answer in their own format. JSON is indented on a
//! terminal and one line elsewhere.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::Value;

use crate::common::{Run, Sandbox, transcript_with};

/// The run failed with `code`, said why on stderr, and stdout is exactly one error object
/// (one line: stdout is a pipe here) that says the same.
fn assert_json_failure(what: &str, run: &Run, code: i32) {
    assert_eq!(run.code, code, "{what}: {}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{what}: {}", run.stdout);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{what}: not one JSON document ({e}): {}", run.stdout));
    assert_eq!(v["exit_code"], code, "{what}: {v}");
    let error = v["error"].as_str().unwrap_or_else(|| panic!("{what}: {v}"));
    assert!(!error.is_empty(), "{what}");
    assert!(
        run.stderr.contains(error),
        "{what}: stderr says the same: {}\n{error}",
        run.stderr
    );
}

#[test]
fn every_command_answers_its_failure_in_json() {
    let sb = Sandbox::new();
    let garbage = sb.write("garbage.jsonl", "not json\n");
    let garbage = garbage.to_str().unwrap();
    let bad_input = sb.write("bad.json", "{\n");
    let bad_input = bad_input.to_str().unwrap();
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["status"], 1),
        (vec!["status", "--transcript", garbage], 1),
        (vec!["status", "--window", "many"], 2),
        (vec!["report"], 1),
        (vec!["report", "--transcript", garbage], 1),
        (vec!["report", "--svg"], 2),
        (vec!["checkpoint", "show", "seven"], 2),
        (vec!["checkpoint", "show", "cx-009"], 1),
        (vec!["checkpoint", "ack", "cx-009"], 1),
        (vec!["checkpoint", "prune"], 2),
        (vec!["checkpoint", "prune", "--keep", "many"], 2),
        (vec!["resume-log", "generate"], 2),
        (vec!["resume-log", "generate", "--session", "../etc"], 2),
        (vec!["resume-log", "show"], 1),
        (vec!["resume-log", "latest"], 1),
        (vec!["resume-log", "cleanup", "--keep", "0"], 2),
        (vec!["config", "get", "no.such_key"], 2),
        (vec!["config", "set", "checkpoints.keep", "lots"], 2),
        (vec!["config", "path", "extra"], 2),
        (vec!["config", "schema", "extra"], 2),
        (vec!["assemble", "--input", bad_input], 2),
        (vec!["assemble", "--input", "/nonexistent/snapshot.json"], 1),
        (vec!["install", "--agent", "codex", "--scope", "local"], 2),
        (vec!["completions", "bash"], 2),
        (vec!["no-such-command"], 2),
        (
            vec![
                "--project-dir",
                "/nonexistent/project",
                "checkpoint",
                "list",
            ],
            2,
        ),
    ];
    for (args, code) in &cases {
        let mut all = vec!["--json"];
        all.extend(args);
        assert_json_failure(&args.join(" "), &sb.run(&all, ""), *code);
        // `--json` after the command counts the same (it is a global flag).
        let mut after = args.clone();
        after.push("--json");
        if args[0] != "--project-dir" {
            assert_json_failure(&after.join(" "), &sb.run(&after, ""), *code);
        }
    }

    // Folders ctxmon cannot use, a configuration it refuses, settings it will not edit.
    let broken = Sandbox::new();
    broken.write(".ctxmon/checkpoints", "not a folder");
    broken.write(".ctxmon/resume-logs", "not a folder");
    broken.write(".claude/settings.json", "{ not json");
    for (args, code) in [
        (&["checkpoint", "list"][..], 1),
        (&["resume-log", "list"], 1),
        (&["resume-log", "stats"], 1),
        (&["install"], 1),
        (&["uninstall"], 1),
    ] {
        let mut all = vec!["--json"];
        all.extend(args);
        let run = broken.run(&all, "");
        assert_json_failure(&args.join(" "), &run, code);
    }
    let install = broken.run(&["--json", "install"], "");
    let v: Value = serde_json::from_str(&install.stdout).unwrap();
    assert_eq!(
        (&v["command"], &v["agent"], &v["written"]),
        (&"install".into(), &"claude".into(), &false.into()),
        "install keeps its own keys: {v}"
    );
    broken.write(".ctxmon/config.toml", "no_such_section = 1\n");
    assert_json_failure(
        "config show",
        &broken.run(&["--json", "config", "show"], ""),
        2,
    );
}

/// Without --json nothing changes: stdout stays empty on a failure.
#[test]
fn without_json_a_failure_writes_nothing_on_stdout() {
    let sb = Sandbox::new();
    for args in [
        &["status"][..],
        &["checkpoint", "show", "cx-009"],
        &["status", "--bogus"],
    ] {
        let run = sb.run(args, "");
        assert_ne!(run.code, 0);
        assert_eq!(run.stdout, "", "{args:?}");
    }
    assert!(
        sb.run(&["completions", "bash"], "")
            .stdout
            .contains("_ctxmon")
    );
}

/// doctor's checks are its answer, problems or not: one JSON array on stdout, exit 1, and no
/// error object after it.
#[test]
fn doctor_answers_with_its_checks_only() {
    let sb = Sandbox::new();
    let run = sb.run(&["--json", "doctor"], "");
    assert_eq!(run.code, 1, "a project without hooks has problems");
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v.as_array().is_some_and(|a| !a.is_empty()), "{v}");
}

/// `statusline --json` is one object with the figures, the tier and the source; hooks answer
/// in Claude Code's format, never with an error object, and exit 0.
#[test]
fn the_status_line_and_the_hooks_keep_their_own_answers() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let input = serde_json::json!({"session_id": "s1", "transcript_path": t,
        "model": {"id": "claude-sonnet-4-5"}, "workspace": {"project_dir": sb.dir()}});
    let run = sb.run(&["--json", "statusline"], input.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let fill = &v["fill"];
    assert_eq!(
        (
            &fill["input_tokens"],
            &fill["context_window_size"],
            &fill["percent"],
            &fill["threshold_tier"],
            &fill["source"]
        ),
        (
            &150_000.into(),
            &200_000.into(),
            &75.into(),
            &"warning".into(),
            &"transcript".into()
        ),
        "{v}"
    );
    assert!(v["line"].as_str().unwrap().starts_with("ctx 75%"), "{v}");

    let hook = sb.run(&["--json", "hooks", "prompt-submit"], "{ not json");
    assert_eq!(hook.code, 0);
    assert!(!hook.stdout.contains("exit_code"), "{}", hook.stdout);
    let refused = sb.run(&["--json", "hooks", "no-such-hook"], "{}");
    assert_eq!(refused.code, 0);
    assert!(!refused.stdout.contains("exit_code"), "{}", refused.stdout);
}

/// One layout rule: one line for a pipe, indented for a terminal, answers and errors alike.
#[test]
fn json_is_indented_on_a_terminal_and_one_line_elsewhere() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let args = ["--json", "status", "--transcript", t.to_str().unwrap()];
    let piped = sb.run(&args, "");
    assert_eq!(piped.stdout.lines().count(), 1, "{}", piped.stdout);
    let Some(shown) = sb.run_on_terminal(&args, 80, true) else {
        return;
    };
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(shown.stdout.starts_with("{\n  \""), "{}", shown.stdout);
    let a: Value = serde_json::from_str(&shown.stdout).unwrap();
    let b: Value = serde_json::from_str(&piped.stdout).unwrap();
    assert_eq!(a, b);
    let failed = sb.run_on_terminal(&["--json", "checkpoint", "show", "cx-009"], 80, true);
    let failed = failed.unwrap();
    assert_eq!(failed.code, 1);
    assert!(
        failed.stdout.starts_with("{\n  \"error\": "),
        "{}",
        failed.stdout
    );
    for args in [&["config", "schema"][..], &["--json", "config", "path"]] {
        assert_eq!(sb.run(args, "").stdout.lines().count(), 1, "{args:?}");
        let shown = sb.run_on_terminal(args, 80, true).unwrap();
        assert!(shown.stdout.lines().count() > 3, "{args:?}");
    }
}
