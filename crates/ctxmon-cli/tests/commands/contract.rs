//! The command tree of contract C13 and the config commands, end to end.

use crate::common::Sandbox;

#[test]
fn help_shows_the_whole_command_tree() {
    let sb = Sandbox::new();
    let run = sb.run(&["--help"], "");
    assert_eq!(run.code, 0);
    for cmd in [
        "status",
        "hooks",
        "statusline",
        "checkpoint",
        "resume-log",
        "config",
        "assemble",
        "install",
        "uninstall",
        "doctor",
    ] {
        assert!(
            run.stdout.contains(cmd),
            "{cmd} missing from --help:\n{}",
            run.stdout
        );
    }
    for flag in ["--json", "--project-dir", "--config"] {
        assert!(run.stdout.contains(flag), "{flag}");
    }
    let hooks = sb.run(&["hooks", "--help"], "");
    for hook in [
        "prompt-submit",
        "session-start",
        "pre-compact",
        "pre-tool-use",
        "post-tool-use",
        "post-compact",
        "session-end",
    ] {
        assert!(hooks.stdout.contains(hook), "{hook}");
    }
    let config = sb.run(&["config", "--help"], "");
    for sub in ["show", "get", "set", "path", "schema"] {
        assert!(config.stdout.contains(sub), "{sub}");
    }
}

#[test]
fn commands_of_later_issues_never_silently_succeed() {
    let sb = Sandbox::new();
    for args in [
        &["statusline"][..],
        &["checkpoint", "list"],
        &["resume-log", "list"],
        &["install"],
        &["uninstall"],
    ] {
        let run = sb.run(args, "{}");
        if run.code == 0 {
            // Landed since: then it must have done something visible.
            assert!(!run.stdout.is_empty(), "{args:?} succeeded silently");
        } else {
            assert_eq!(run.code, 1, "{args:?}");
            assert!(
                run.stderr.contains("not yet available"),
                "{args:?}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn config_set_get_show_round_trip() {
    let sb = Sandbox::new();
    let set = sb.run(
        &["config", "set", "context_monitor.warning_threshold", "0.72"],
        "",
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(sb.path(".ctxmon/config.toml").exists());
    let get = sb.run(&["config", "get", "context_monitor.warning_threshold"], "");
    assert_eq!((get.code, get.stdout.trim()), (0, "0.72"));
    let json = sb.run(
        &[
            "--json",
            "config",
            "get",
            "context_monitor.warning_threshold",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(v["source"].as_str().unwrap().contains("config.toml"), "{v}");
    let show = sb.run(&["config", "show"], "");
    assert!(
        show.stdout.contains("warning_threshold = 0.72"),
        "{}",
        show.stdout
    );
    let local = sb.run(
        &[
            "config",
            "set",
            "context_monitor.inject",
            "on-change",
            "--scope",
            "local",
        ],
        "",
    );
    assert_eq!(local.code, 0, "{}", local.stderr);
    assert!(
        std::fs::read_to_string(sb.path(".ctxmon/config.local.toml"))
            .unwrap()
            .contains("on-change")
    );
}

#[test]
fn config_mistakes_exit_2_and_write_nothing() {
    let sb = Sandbox::new();
    let unknown = sb.run(
        &["config", "set", "context_monitor.warning_treshold", "0.7"],
        "",
    );
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("warning_threshold"),
        "suggests the right key: {}",
        unknown.stderr
    );
    let order = sb.run(
        &["config", "set", "context_monitor.warning_threshold", "0.95"],
        "",
    );
    assert_eq!(order.code, 2);
    assert!(!sb.path(".ctxmon/config.toml").exists(), "nothing written");
    let range = sb.run(
        &[
            "config",
            "set",
            "context_monitor.post_compaction_percent",
            "5",
        ],
        "",
    );
    assert_eq!(range.code, 2);
    assert_eq!(sb.run(&["config", "get", "no.such"], "").code, 2);
}

#[test]
fn config_path_and_schema() {
    let sb = Sandbox::new();
    let paths = sb.run(&["config", "path"], "");
    assert_eq!(paths.code, 0);
    assert!(
        paths.stdout.contains(".ctxmon/config.toml")
            && paths.stdout.contains(".ctxmon/config.local.toml"),
        "{}",
        paths.stdout
    );
    let schema = sb.run(&["config", "schema"], "");
    let v: serde_json::Value = serde_json::from_str(&schema.stdout).unwrap();
    assert_eq!(
        v["properties"]["context_monitor"]["properties"]["post_compaction_percent"]["maximum"],
        60
    );
}

/// A section name is not an unknown key: `get` prints the whole section, as TOML that parses
/// back, or with --json its values and where each came from.
#[test]
fn config_get_of_a_section_prints_the_section() {
    let sb = Sandbox::new();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nwarning_threshold = 0.72\n\n[context_monitor.models]\nclaude-x = 500000\n",
    );
    let run = sb.run(&["config", "get", "context_monitor"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    for line in [
        "[context_monitor]",
        "warning_threshold = 0.72",
        "[context_monitor.models]",
        "claude-x = 500000",
    ] {
        assert!(lines.contains(&line), "{line}: {}", run.stdout);
    }
    assert!(run.stdout.contains("critical_threshold = "), "defaults too");
    assert!(!run.stdout.contains("[hooks]"), "only that section");
    // The text is a configuration file: written as the local layer, it reads back.
    sb.write(".ctxmon/config.local.toml", &run.stdout);
    let back = sb.run(&["config", "get", "context_monitor.models.claude-x"], "");
    assert_eq!(
        (back.code, back.stdout.trim()),
        (0, "500000"),
        "{}",
        back.stderr
    );

    let json = sb.run(&["--json", "config", "get", "hooks"], "");
    assert_eq!(json.code, 0, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["key"], "hooks");
    assert_eq!(v["value"]["log_max_bytes"], 1_048_576, "{v}");
    // The deadlines are unset by default: each hook runs on its own built-in one.
    assert_eq!(v["value"]["deadline_ms"], serde_json::Value::Null, "{v}");
    assert_eq!(
        v["value"]["pre_compact_deadline_ms"],
        serde_json::Value::Null,
        "{v}"
    );
    assert_eq!(v["sources"]["hooks.deadline_ms"]["layer"], "default", "{v}");
    // `config show` says what stands in for an unset deadline.
    let text = sb.run(&["config", "show"], "");
    assert!(
        text.stdout
            .contains("# pre_compact_deadline_ms is not set (built in, 7000)"),
        "{}",
        text.stdout
    );

    let wrong = sb.run(&["config", "get", "context_monitr"], "");
    assert_eq!(wrong.code, 2, "{}", wrong.stderr);
}

/// Claude Code treats exit 2 from UserPromptSubmit as "block the prompt": a hook's command line
/// that clap refuses (an empty `--project-dir "$CLAUDE_PROJECT_DIR"`, an unknown hook or flag,
/// an extra word) must still exit 0 with nothing on stdout, and say why on stderr and in the
/// hooks log.
#[test]
fn hook_usage_errors_exit_0_and_answer_nothing() {
    let sb = Sandbox::new();
    let cases: [&[&str]; 7] = [
        &["--project-dir=", "hooks", "prompt-submit"],
        &["hooks", "prompt-submit", "--project-dir="],
        &["hooks", "bogus"],
        &["hooks", "prompt-submit", "--bogus"],
        &["hooks", "prompt-submit", "extra"],
        &["--bogus", "hooks", "session-start"],
        &["hooks"],
    ];
    for args in cases {
        let run = sb.run(args, "{}");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(
            run.stderr.contains("ctxmon hooks"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // With no project named, the current directory's log gets the message.
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap();
    assert!(
        log.contains("prompt-submit") && log.contains("--bogus"),
        "{log}"
    );
    assert!(log.contains("'bogus'"), "{log}");

    // A --project-dir clap accepted names the project whose log gets it.
    let other = Sandbox::new();
    let dir = other.dir().to_str().unwrap();
    let run = sb.run(
        &["--project-dir", dir, "hooks", "pre-compact", "extra"],
        "{}",
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let log = std::fs::read_to_string(other.path(".ctxmon/logs/hooks.log")).unwrap();
    assert!(
        log.contains("pre-compact") && log.contains("extra"),
        "{log}"
    );

    // Help is not an error; other commands keep exit 2 for usage errors.
    for args in [
        &["hooks", "--help"][..],
        &["hooks", "prompt-submit", "--help"],
    ] {
        let help = sb.run(args, "");
        assert_eq!(help.code, 0, "{args:?}");
        assert!(help.stdout.contains("Usage"), "{args:?}: {}", help.stdout);
    }
    assert_eq!(sb.run(&["--project-dir=", "status"], "").code, 2);
    assert_eq!(sb.run(&["status", "hooks"], "").code, 2);
    assert_eq!(sb.run(&["--config", "hooks", "bogus"], "").code, 2);
}
