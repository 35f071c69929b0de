//! Project discovery from a subfolder (contract C12), against the real binary: every
//! command run in `proj/src` works on `proj`, the nearest folder holding `.ctxmon`, `.claude`
//! or `.git`, and looks its transcripts up under `proj`'s name. The walk never makes a project
//! of the home folder or `/`; `--project-dir` and `CLAUDE_PROJECT_DIR` are taken as named; a
//! hook keeps the folder its agent names.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Sandbox, transcript_with};

fn parse(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A git project with a Claude Code session filed under its name and one checkpoint (cx-001,
/// saved by the PreCompact hook as Claude Code runs it), and a `src/deep` folder inside it.
fn project_with_a_session() -> Sandbox {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(".git")).unwrap();
    std::fs::create_dir_all(sb.path("src/deep")).unwrap();
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    let transcript = folder.join("s1.jsonl");
    std::fs::write(&transcript, transcript_with(&[120_000, 150_000])).unwrap();
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s1", &transcript, json!({"trigger": "auto"})),
    );
    assert!(pre.stdout.contains("cx-001"), "{}", pre.stdout);
    sb
}

#[test]
fn every_command_in_a_subfolder_works_on_the_project() {
    let sb = project_with_a_session();
    let here = sb.path("src/deep");
    let project = std::fs::canonicalize(sb.dir()).unwrap();
    let run = |args: &[&str]| {
        let run = sb.run_in(&here, args, "");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        run
    };

    // status and report find the session Claude Code filed under the project's path.
    let status = parse(&run(&["--json", "status"]).stdout);
    assert_eq!(status["input_tokens"], 150_000, "{status}");
    let text = run(&["status"]).stdout;
    assert!(text.starts_with("ctx 75%"), "{text}");
    let report = parse(&run(&["--json", "report"]).stdout);
    assert_eq!(report["responses"], 2, "{report}");

    // The project's checkpoints, not "none".
    let list = parse(&run(&["--json", "checkpoint", "list"]).stdout);
    assert_eq!(list[0]["checkpoint_id"], "cx-001", "{list}");
    let text = run(&["checkpoint", "list"]).stdout;
    assert!(text.contains("cx-001"), "{text}");
    run(&["checkpoint", "show", "cx-001"]);

    // Configuration: the project's file, and `config set` writes there.
    run(&["config", "set", "checkpoints.keep", "7"]);
    assert!(sb.path(".ctxmon/config.toml").is_file());
    assert!(!here.join(".ctxmon").exists());
    let got = parse(&run(&["--json", "config", "get", "checkpoints.keep"]).stdout);
    assert_eq!(got["value"], 7, "{got}");

    // resume-log generate takes the project's newest session.
    let generated = parse(&run(&["--json", "resume-log", "generate"]).stdout);
    assert_eq!(generated["session_id"], "s1", "{generated}");
    let logs = parse(&run(&["--json", "resume-log", "list"]).stdout);
    assert_eq!(logs.as_array().map(Vec::len), Some(1), "{logs}");

    // install edits the project's settings, which Claude Code started in the project reads.
    let install = parse(&run(&["--json", "install", "--dry-run"]).stdout);
    let shown = install["path"].as_str().unwrap();
    assert!(
        Path::new(shown).starts_with(&project) || Path::new(shown).starts_with(sb.dir()),
        "{shown}"
    );
    assert!(shown.ends_with(".claude/settings.json"), "{shown}");
    assert!(!shown.contains("/src/"), "{shown}");

    // doctor names the project and finds its transcript.
    let doctor = sb.run_in(&here, &["--json", "doctor"], "");
    let checks = parse(&doctor.stdout);
    let transcript = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "transcript")
        .unwrap();
    assert_eq!(transcript["status"], "ok", "{transcript}");

    // Nothing was made in the subfolders.
    assert!(!sb.path("src/.ctxmon").exists() && !here.join(".ctxmon").exists());
}

#[test]
fn the_nearest_marker_wins_and_each_marker_counts() {
    for marker in [".ctxmon", ".claude", ".git"] {
        let sb = Sandbox::new();
        std::fs::create_dir_all(sb.path("pkg/lib/src")).unwrap();
        std::fs::create_dir_all(sb.path(".git")).unwrap();
        std::fs::create_dir_all(sb.path("pkg").join(marker)).unwrap();
        let run = sb.run_in(
            &sb.path("pkg/lib/src"),
            &["--json", "config", "set", "checkpoints.keep", "9"],
            "",
        );
        assert_eq!(run.code, 0, "{marker}: {}", run.stderr);
        let written = parse(&run.stdout)["path"].as_str().unwrap().to_string();
        assert!(
            written.ends_with("pkg/.ctxmon/config.toml"),
            "{marker}: {written}"
        );
    }
}

/// `~/.claude` is Claude Code's settings folder, and a dotfiles `~/.git` is common: neither
/// makes the home folder the project of a folder below it. A folder without any marker on the
/// way up stays its own project, as before.
#[test]
fn the_home_folder_is_never_reached_by_the_walk() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
    std::fs::create_dir_all(home.join(".git")).unwrap();
    std::fs::create_dir_all(home.join(".ctxmon")).unwrap();
    let loose = home.join("scratch/idea");
    std::fs::create_dir_all(&loose).unwrap();
    let run = sb.run_in(&loose, &["--json", "checkpoint", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = sb.run_in(
        &loose,
        &["--json", "config", "set", "checkpoints.keep", "3"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = parse(&run.stdout)["path"].as_str().unwrap().to_string();
    assert!(
        written.ends_with("scratch/idea/.ctxmon/config.toml"),
        "{written}"
    );
    assert!(!home.join(".ctxmon/config.toml").exists());
}

/// `GIT_CEILING_DIRECTORIES` bounds the walk as it bounds git's: a marker above a ceiling is not
/// found. (Every sandbox sets it to the temp folder, so a stray `/tmp/.ctxmon` is never found.)
#[test]
fn the_walk_does_not_climb_into_a_git_ceiling() {
    let mut sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(".git")).unwrap();
    std::fs::create_dir_all(sb.path("mnt/share/work")).unwrap();
    let here = sb.path("mnt/share/work");
    let set = |sb: &Sandbox| {
        let run = sb.run_in(
            &here,
            &["--json", "config", "set", "checkpoints.keep", "6"],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        parse(&run.stdout)["path"].as_str().unwrap().to_string()
    };
    // Without a ceiling inside the sandbox, the walk finds the sandbox's `.git`.
    let first = set(&sb);
    assert!(
        first.ends_with(".ctxmon/config.toml") && !first.contains("mnt/"),
        "{first}"
    );
    let ceiling = format!("/nonexistent:{}", sb.path("mnt/share").display());
    sb.set_env("GIT_CEILING_DIRECTORIES", &ceiling);
    let written = set(&sb);
    assert!(
        written.ends_with("mnt/share/work/.ctxmon/config.toml"),
        "{written}"
    );
}

/// `--project-dir` and `CLAUDE_PROJECT_DIR` name the project: no walk from there.
#[test]
fn a_named_project_is_taken_as_it_is() {
    let mut sb = project_with_a_session();
    let src = sb.path("src");
    let src_text = src.to_str().unwrap();
    let run = sb.run(
        &[
            "--json",
            "--project-dir",
            src_text,
            "config",
            "set",
            "checkpoints.keep",
            "4",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(src.join(".ctxmon/config.toml").is_file());
    // src/ has no session of its own: status says so rather than borrow the project's.
    let run = sb.run(&["--project-dir", src_text, "status"], "");
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("no transcript found"), "{}", run.stderr);

    sb.set_env("CLAUDE_PROJECT_DIR", sb.path("src/deep").to_str().unwrap());
    let run = sb.run_in(
        &sb.path("src/deep"),
        &["--json", "config", "set", "checkpoints.keep", "5"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(sb.path("src/deep/.ctxmon/config.toml").is_file());
}

/// A hook keeps the folder its agent names (Codex's `cwd` here, without CLAUDE_PROJECT_DIR):
/// it is the folder the agent files the session under, and the `.ctxmon` made there is what
/// commands below it find.
#[test]
fn a_hook_keeps_its_agents_folder_and_commands_below_find_it() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(".git")).unwrap();
    let app = sb.path("apps/web");
    std::fs::create_dir_all(app.join("components")).unwrap();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let input = json!({
        "session_id": "s1", "transcript_path": t, "cwd": app,
        "hook_event_name": "PreCompact", "trigger": "auto",
    });
    let pre = sb.run(&["hooks", "pre-compact"], input.to_string());
    assert!(pre.stdout.contains("cx-001"), "{}", pre.stdout);
    assert!(app.join(".ctxmon/checkpoints").is_dir());
    assert!(!sb.path(".ctxmon").exists());
    let list = sb.run_in(
        &app.join("components"),
        &["--json", "checkpoint", "list"],
        "",
    );
    assert_eq!(parse(&list.stdout)[0]["checkpoint_id"], "cx-001");
}

/// `hooks --help` said a hook's project was the nearest folder holding `.git` or `.claude`
/// above the current directory; a hook without `cwd` (and without CLAUDE_PROJECT_DIR) keeps the
/// current directory as it is. The help says what the hook does, and the hook does it.
#[test]
fn hooks_help_says_where_a_hook_without_cwd_keeps_its_state() {
    let sb = Sandbox::new();
    let help = sb.run(&["hooks", "--help"], "").stdout;
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("a hook input without cwd: the current directory, never a folder above it"),
        "{help}"
    );
    assert!(
        !flat.contains("then a hook input's cwd, then the nearest folder"),
        "{help}"
    );

    std::fs::create_dir_all(sb.path(".git")).unwrap();
    let here = sb.path("src");
    std::fs::create_dir_all(&here).unwrap();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let input = json!({
        "session_id": "s1", "transcript_path": t,
        "hook_event_name": "PreCompact", "trigger": "auto",
    });
    let pre = sb.run_in(&here, &["hooks", "pre-compact"], input.to_string());
    assert!(
        pre.stdout.contains("cx-001"),
        "{} {}",
        pre.stdout,
        pre.stderr
    );
    assert!(here.join(".ctxmon/checkpoints").is_dir());
    assert!(!sb.path(".ctxmon").exists());
}
