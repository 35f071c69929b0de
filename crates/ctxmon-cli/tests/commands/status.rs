//! `ctxmon status` end to end: output, its JSON (contract C13), errors and exit codes.

use crate::common;
use crate::common::{Sandbox, repo_fixture, shared_fixtures, transcript_with};

#[test]
fn status_reports_the_committed_fixture() {
    let sb = Sandbox::new();
    let fixture = repo_fixture("transcripts/session-warning.jsonl");
    let run = sb.run(&["status", "--transcript", fixture.to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("75%")
            && run.stdout.contains("WARNING")
            && run.stdout.contains("150,000/200,000"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn json_carries_the_contract_fields() {
    let sb = Sandbox::new();
    let fixture = repo_fixture("transcripts/session-warning.jsonl");
    let run = sb.run(
        &[
            "--json",
            "status",
            "--transcript",
            fixture.to_str().unwrap(),
            "--window",
            "200000",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["fill_percentage"], 0.75);
    assert_eq!(v["input_tokens"], 150_000);
    assert_eq!(v["context_window_size"], 200_000);
    assert_eq!(v["threshold_tier"], "warning");
    assert_eq!(v["source"], "transcript");
    assert_eq!(v["model"], "claude-sonnet-4-5-20250929");
    assert_eq!(v["tokens_until_auto_compact"], 17_000);
}

#[test]
fn window_and_model_flags_choose_the_window() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let t = t.to_str().unwrap();
    let v = |args: &[&str]| -> serde_json::Value {
        serde_json::from_str(&sb.run(args, "").stdout).unwrap()
    };
    assert_eq!(
        v(&["--json", "status", "--transcript", t, "--window", "1000000"])["threshold_tier"],
        "nominal"
    );
    assert_eq!(
        v(&[
            "--json",
            "status",
            "--transcript",
            t,
            "--model",
            "claude-opus-4-6[1m]"
        ])["context_window_size"],
        1_000_000
    );
    // --window beats --model's [1m] (a flag is configuration, the highest rule).
    assert_eq!(
        v(&[
            "--json",
            "status",
            "--transcript",
            t,
            "--window",
            "300000",
            "--model",
            "x[1m]"
        ])["context_window_size"],
        300_000
    );
}

#[test]
fn every_real_transcript_gives_its_documented_tokens() {
    let Some(dir) = shared_fixtures() else { return };
    let cases = [
        ("cc-1.0.98-basic.jsonl", 17_437),
        ("cc-1.0.108-inline-sidechain.jsonl", 26_080),
        ("cc-1.0.98-heavy-inline-sidechain.jsonl", 21_552),
        ("cc-1.0.51-streaming-duplicates.jsonl", 104_468),
        ("cc-2.0.37-sonnet-4-5.jsonl", 68_182),
        ("cc-2.0.37-agent-file.jsonl", 36_962),
        (
            "cc-2.1.17-subagent-layout/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl",
            23_954,
        ),
        (
            "cc-2.1.17-subagent-layout/subagents/agent-a2271d1.jsonl",
            42_774,
        ),
        ("cc-2.1.42-opus-4-6.jsonl", 28_320),
        ("cc-2.1.226-compact-boundary-line.jsonl", 19_650),
        ("synthetic-compact-after-rewind.jsonl", 10),
    ];
    let sb = Sandbox::new();
    for (file, tokens) in cases {
        let run = sb.run(
            &[
                "--json",
                "status",
                "--transcript",
                dir.join(file).to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(run.code, 0, "{file}: {}", run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(v["input_tokens"], tokens, "{file}");
    }
}

#[test]
fn unreadable_transcripts_are_one_line_errors_with_exit_1() {
    let sb = Sandbox::new();
    let garbage = sb.write("garbage.jsonl", "not json\n{also not\n\u{0}\u{1}\n");
    let non_utf8 = sb.write("bin.jsonl", [0xff, 0xfe, b'\n', 0x80, 0x81, b'\n']);
    let cases = [
        (sb.path("missing.jsonl"), "not found"),
        (garbage, "no usage record"),
        (non_utf8, "no usage record"),
        (sb.dir().to_path_buf(), "not a regular file"),
    ];
    for (path, needle) in cases {
        let run = sb.run(&["status", "--transcript", path.to_str().unwrap()], "");
        assert_eq!(run.code, 1, "{}: {}", path.display(), run.stderr);
        assert_eq!(
            run.stderr.trim().lines().count(),
            1,
            "one line: {}",
            run.stderr
        );
        assert!(run.stderr.contains(needle), "{needle}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        // Under --json the same failure is an object on stdout (contract C13).
        let run = sb.run(
            &["--json", "status", "--transcript", path.to_str().unwrap()],
            "",
        );
        assert_eq!(run.code, 1, "{}: {}", path.display(), run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(v["exit_code"], 1);
        assert!(v["error"].as_str().unwrap().contains(needle), "{v}");
    }
}

/// A session that has had no answer yet (contract C13): Claude Code has created the transcript,
/// empty or holding only the first request. That is 0 and "no response yet" with exit 0, in
/// text and JSON, also when `status` finds the transcript itself.
#[test]
fn a_just_started_session_is_at_zero_not_an_error() {
    let sb = Sandbox::new();
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    let request = r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Fix the parser"},"uuid":"u1","timestamp":"2026-11-20T10:00:00.000Z","sessionId":"s1"}"#;
    let first_request = folder.join("s1.jsonl");
    std::fs::write(&first_request, format!("{request}\n")).unwrap();
    let empty = sb.write("empty.jsonl", "");
    for (args, shown) in [
        (vec!["status"], "the project's newest"),
        (
            vec!["status", "--transcript", empty.to_str().unwrap()],
            "empty",
        ),
    ] {
        let run = sb.run(&args, "");
        assert_eq!(run.code, 0, "{shown}: {}", run.stderr);
        assert!(
            run.stdout
                .starts_with("ctx 0% ▱▱▱▱▱▱▱▱▱▱ 0/200,000 tokens  NOMINAL"),
            "{shown}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("no response yet"), "{}", run.stdout);
        assert!(run.stderr.is_empty(), "{shown}: {}", run.stderr);
        let json_args: Vec<&str> = std::iter::once("--json").chain(args.clone()).collect();
        let run = sb.run(&json_args, "");
        assert_eq!(run.code, 0, "{shown}: {}", run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            (
                &v["input_tokens"],
                &v["percent"],
                &v["threshold_tier"],
                &v["awaiting_first_response"]
            ),
            (&0.into(), &0.into(), &"nominal".into(), &true.into()),
            "{shown}: {v}"
        );
        assert!(v["note"].as_str().unwrap().starts_with("no response yet"));
    }
    // Once the first answer is there, the flag is down and the figure is measured.
    std::fs::write(
        &first_request,
        format!("{request}\n{}\n", common::assistant_line("m1", 30_000)),
    )
    .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&sb.run(&["--json", "status"], "").stdout).unwrap();
    assert_eq!(
        (&v["input_tokens"], &v["awaiting_first_response"]),
        (&30_000.into(), &false.into())
    );
}

/// A transcript the user may not read is a one-line error with exit 1. As root (tests and CI)
/// the binary runs as nobody, or the file would simply be read.
#[cfg(unix)]
#[test]
fn a_transcript_without_read_permission_is_a_one_line_error() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    std::fs::set_permissions(&t, std::fs::Permissions::from_mode(0o000)).unwrap();
    let shown = t.to_str().unwrap();
    for command in ["status", "report"] {
        let Some(run) = sb.run_where_modes_bind(&t, &[command, "--transcript", shown], "") else {
            return;
        };
        assert_eq!(run.code, 1, "{command}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{command}: {}", run.stdout);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("permission denied, check its owner and mode"),
            "{command}: {}",
            run.stderr
        );
    }
}

/// A path given on the command line is the flag's mistake: the advice names `--transcript`, not
/// the hook input (which hooks still name, see `hooks/prompt_submit.rs`).
#[test]
fn a_wrong_transcript_flag_is_named_as_the_flag() {
    let sb = Sandbox::new();
    let missing = sb.path("nonexistent.jsonl");
    let folder = sb.dir().to_path_buf();
    for command in ["status", "report"] {
        for (path, advice) in [
            (&missing, "check the --transcript path"),
            (&folder, "to --transcript"),
        ] {
            let run = sb.run(&[command, "--transcript", path.to_str().unwrap()], "");
            assert_eq!(run.code, 1, "{command}: {}", run.stderr);
            assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
            assert!(
                run.stderr.contains(advice) && !run.stderr.contains("hook input"),
                "{command} {}: {}",
                path.display(),
                run.stderr
            );
        }
    }
}

#[test]
fn usage_of_the_wrong_type_or_negative_is_not_a_figure() {
    let sb = Sandbox::new();
    let good = common::assistant_line("1", 120_000);
    let bad_type = r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":"lots","cache_read_input_tokens":5}}}"#;
    let negative = r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":-5,"cache_read_input_tokens":190000}}}"#;
    let t = sb.write("t.jsonl", format!("{good}\n{bad_type}\n{negative}\n"));
    let run = sb.run(
        &["--json", "status", "--transcript", t.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        v["input_tokens"], 120_000,
        "the newest well-formed record counts"
    );
}

#[test]
fn configuration_errors_exit_2_naming_key_and_file() {
    let sb = Sandbox::new();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nwarning_threshold = 0.95\n",
    );
    let t = sb.write("t.jsonl", transcript_with(&[100_000]));
    let run = sb.run(&["status", "--transcript", t.to_str().unwrap()], "");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("context_monitor.warning_threshold")
            && run.stderr.contains(".ctxmon/config.toml"),
        "{}",
        run.stderr
    );
}

#[test]
fn usage_errors_exit_2() {
    let sb = Sandbox::new();
    assert_eq!(sb.run(&["status", "--no-such-flag"], "").code, 2);
    assert_eq!(sb.run(&["status", "--window", "many"], "").code, 2);
}

#[test]
fn without_a_transcript_the_projects_newest_is_used() {
    let sb = Sandbox::new();
    let canonical = std::fs::canonicalize(sb.dir()).unwrap();
    let slug: String = canonical
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let folder = sb.home.path().join(".claude/projects").join(slug);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("s1.jsonl"), transcript_with(&[170_000])).unwrap();
    let run = sb.run(&["--json", "status"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["threshold_tier"], "critical");

    let lonely = Sandbox::new();
    let run = lonely.run(&["status"], "");
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--transcript"), "{}", run.stderr);
    // Under --json, the same failure is an object on stdout, not nothing (contract C13).
    let run = lonely.run(&["--json", "status"], "");
    assert_eq!(run.code, 1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["exit_code"], 1);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("no transcript found"),
        "{v}"
    );
}
