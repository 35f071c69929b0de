//! `ctxmon doctor` end to end: a healthy project exits 0 with every check ok, and each kind of
//! problem exits 1 with exactly its own line not ok.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use crate::common::{Sandbox, transcript_with};

const BIN: &str = env!("CARGO_BIN_EXE_ctxmon");

const HOOKS: [(&str, &str); 7] = [
    ("UserPromptSubmit", "prompt-submit"),
    ("SessionStart", "session-start"),
    ("PreCompact", "pre-compact"),
    ("PreToolUse", "pre-tool-use"),
    ("PostToolUse", "post-tool-use"),
    ("PostCompact", "post-compact"),
    ("SessionEnd", "session-end"),
];

/// Settings with ctxmon's seven hooks run by `binary`, SessionStart with `session_matcher`.
fn settings(binary: &str, session_matcher: Option<&str>) -> serde_json::Value {
    let mut hooks = serde_json::Map::new();
    for (event, name) in HOOKS {
        // The timeouts install registers: the compaction hooks get 10 s, the others 5 s.
        let timeout = if matches!(event, "SessionStart" | "PreCompact") {
            10
        } else {
            5
        };
        let mut group = serde_json::json!({
            "hooks": [{"type": "command", "command": format!("{binary} hooks {name}"), "timeout": timeout}]
        });
        if event == "PreToolUse" {
            group["matcher"] = "Write|Edit|MultiEdit".into();
        }
        if let (Some(m), "SessionStart") = (session_matcher, event) {
            group["matcher"] = m.into();
        }
        hooks.insert(event.into(), serde_json::json!([group]));
    }
    // The user's own hook and keys sit beside ctxmon's, as in a real file.
    hooks.insert(
        "Stop".into(),
        serde_json::json!([{"hooks": [{"type": "command", "command": "notify-send done"}]}]),
    );
    serde_json::json!({
        "model": "opus",
        "hooks": hooks,
        "statusLine": {"type": "command", "command": format!("{binary} statusline"), "padding": 0}
    })
}

/// A project in which every check passes: hooks and status line on this binary, the binary on
/// PATH, a valid configuration, a private `.ctxmon`, a measurable transcript.
pub(super) fn healthy() -> Sandbox {
    healthy_in(Sandbox::new())
}

/// [`healthy`] in the sandbox `sb`.
fn healthy_in(mut sb: Sandbox) -> Sandbox {
    let bin_dir = Path::new(BIN).parent().unwrap().display().to_string();
    sb.prepend_path(Path::new(&bin_dir));
    sb.write(
        ".claude/settings.json",
        serde_json::to_string_pretty(&settings(BIN, None)).unwrap(),
    );
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nwarning_threshold = 0.72\n",
    );
    private(&sb.path(".ctxmon"));
    let folder = transcripts_folder(&sb);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("s.jsonl"), transcript_with(&[40_000, 90_000])).unwrap();
    // The status line has seen Claude Code's own figure, and it agrees (45%).
    statusline_reports(&sb, 45);
    sb
}

/// Runs the status line once with a payload whose `used_percentage` is `used` (the figure
/// comes from the transcript: `current_usage` is null, as right after `/compact`).
fn statusline_reports(sb: &Sandbox, used: u64) {
    let input = serde_json::json!({
        "session_id": "s",
        "transcript_path": sb.transcripts_folder().join("s.jsonl"),
        "cwd": sb.dir(),
        "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
        "context_window": {"context_window_size": 200000, "used_percentage": used, "current_usage": null},
    });
    let run = sb.run(&["statusline"], input.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("45%"), "{}", run.stdout);
}

fn private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

fn transcripts_folder(sb: &Sandbox) -> std::path::PathBuf {
    sb.transcripts_folder()
}

/// Runs `doctor --json` and returns (exit code, checks as (name, status, message + fix)).
pub(super) fn doctor(sb: &Sandbox) -> (i32, Vec<(String, String, String)>) {
    let run = sb.run(&["--json", "doctor"], "");
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", run.stdout, run.stderr));
    let checks = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
                format!(
                    "{} · fix: {}",
                    c["message"].as_str().unwrap(),
                    c["fix"].as_str().unwrap_or("")
                ),
            )
        })
        .collect();
    (run.code, checks)
}

/// The checks that are not ok, as (name, status, message).
pub(super) fn problems(checks: &[(String, String, String)]) -> Vec<(String, String, String)> {
    checks
        .iter()
        .filter(|(_, status, _)| status != "ok")
        .cloned()
        .collect()
}

/// Asserts exit 1 and that the only problem is `name` with `status`, its text containing `needle`.
fn only_problem(sb: &Sandbox, name: &str, status: &str, needle: &str) {
    let (code, checks) = doctor(sb);
    let found = problems(&checks);
    assert_eq!(code, 1, "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    let (n, s, text) = &found[0];
    assert_eq!((n.as_str(), s.as_str()), (name, status), "{text}");
    assert!(text.contains(needle), "{needle:?} not in {text}");
}

#[test]
fn a_healthy_project_passes_every_check() {
    let sb = healthy();
    let (code, checks) = doctor(&sb);
    assert_eq!(problems(&checks), [], "{checks:#?}");
    assert_eq!(code, 0);
    let names: Vec<&str> = checks.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "binary",
            "hook UserPromptSubmit",
            "hook SessionStart",
            "hook PreCompact",
            "hook PreToolUse",
            "hook PostToolUse",
            "hook PostCompact",
            "hook SessionEnd",
            "statusline",
            "config",
            "storage",
            "hook log",
            "transcript",
            "statusline figure"
        ]
    );
    assert!(checks[0].2.contains("is this binary"), "{}", checks[0].2);
    assert!(
        checks[12].2.contains("measures 45% (90,000 of 200,000"),
        "{}",
        checks[12].2
    );
    // Text: one line per check, a header and a summary.
    let run = sb.run(&["doctor"], "");
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.stdout.lines().count(), 14 + 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("\nok    hook SessionStart  "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("all 14 checks passed\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn no_hooks_at_all_is_one_line_pointing_at_install() {
    let sb = healthy();
    sb.write(".claude/settings.json", r#"{"model": "opus"}"#);
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 1);
    assert_eq!(
        found.len(),
        2,
        "hooks fail, status line skipped: {found:#?}"
    );
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("hooks", "fail")
    );
    assert!(found[0].2.contains("ctxmon install"), "{}", found[0].2);
    assert_eq!(found[1].1, "skip");
}

#[test]
fn a_hook_at_an_old_binary_path_fails() {
    let sb = healthy();
    let mut s = settings(BIN, None);
    s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] =
        "/opt/old/ctxmon hooks prompt-submit".into();
    sb.write(".claude/settings.json", s.to_string());
    only_problem(
        &sb,
        "hook UserPromptSubmit",
        "fail",
        "/opt/old/ctxmon does not exist",
    );
}

#[test]
fn session_start_with_the_compact_matcher_fails() {
    let sb = healthy();
    sb.write(
        ".claude/settings.json",
        settings(BIN, Some("compact")).to_string(),
    );
    only_problem(&sb, "hook SessionStart", "fail", "matcher `compact`");
    only_problem(&sb, "hook SessionStart", "fail", "remove the matcher");
}

#[test]
fn a_missing_event_fails_and_says_which() {
    let sb = healthy();
    let mut s = settings(BIN, None);
    s["hooks"].as_object_mut().unwrap().remove("SessionEnd");
    sb.write(".claude/settings.json", s.to_string());
    only_problem(&sb, "hook SessionEnd", "fail", "not registered");
}

/// Doctor has no payload; it reports what the status line last found when
/// Claude Code's own figure and ctxmon's are more than two points apart.
#[test]
fn a_status_line_figure_far_from_ctxmons_warns() {
    let sb = healthy();
    statusline_reports(&sb, 60);
    only_problem(&sb, "statusline figure", "warn", "15.0 points apart since ");
    only_problem(
        &sb,
        "statusline figure",
        "warn",
        "Claude Code 60%, ctxmon 45.0%",
    );
    only_problem(&sb, "statusline figure", "warn", "compare `ctxmon status`");
    // Back in agreement: the record follows at once.
    statusline_reports(&sb, 44);
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{:#?}", problems(&checks));
    // And with a window of its own, the fix names both windows.
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\ncontext_window = 150000\n",
    );
    let input = serde_json::json!({
        "session_id": "s", "transcript_path": sb.transcripts_folder().join("s.jsonl"), "cwd": sb.dir(),
        "context_window": {"context_window_size": 200000, "used_percentage": 45, "current_usage": null},
    });
    assert!(
        sb.run(&["statusline"], input.to_string())
            .stdout
            .contains("60%")
    );
    only_problem(
        &sb,
        "statusline figure",
        "warn",
        "a 150,000 window, Claude Code a 200,000 one",
    );
}

/// An installation from before post-tool-use: doctor asks for `ctxmon install`, unless the
/// configuration turned the hook off.
#[test]
fn an_install_without_post_tool_use_fails_unless_it_is_switched_off() {
    let sb = healthy();
    let mut s = settings(BIN, None);
    s["hooks"].as_object_mut().unwrap().remove("PostToolUse");
    sb.write(".claude/settings.json", s.to_string());
    only_problem(&sb, "hook PostToolUse", "fail", "run `ctxmon install`");
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\npost_tool_use = false\n",
    );
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 0, "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("hook PostToolUse", "skip")
    );
    assert!(
        found[0].2.contains("post_tool_use is off"),
        "{}",
        found[0].2
    );
    // A matcher that leaves tools out loses the warnings of loops over the others.
    let mut s = settings(BIN, None);
    s["hooks"]["PostToolUse"][0]["matcher"] = "Bash".into();
    sb.write(".claude/settings.json", s.to_string());
    sb.write(".ctxmon/config.toml", "");
    only_problem(&sb, "hook PostToolUse", "warn", "matcher `Bash`");
}

#[test]
fn settings_that_are_not_json_fail_with_the_position() {
    let sb = healthy();
    let good = serde_json::to_string_pretty(&settings(BIN, None)).unwrap();
    sb.write(
        ".claude/settings.local.json",
        "{\n  \"model\": \"opus\",\n}\n",
    );
    sb.write(".claude/settings.json", good);
    only_problem(
        &sb,
        "settings .claude/settings.local.json",
        "fail",
        "is not valid JSON (trailing comma at line 3",
    );
}

/// Claude Code's CLI reads settings that start with a byte-order mark; so does doctor.
#[test]
fn settings_with_a_byte_order_mark_are_read() {
    let sb = healthy();
    let good = serde_json::to_string_pretty(&settings(BIN, None)).unwrap();
    sb.write(".claude/settings.json", format!("\u{feff}{good}"));
    let (code, checks) = doctor(&sb);
    assert_eq!(problems(&checks), [], "{checks:#?}");
    assert_eq!(code, 0);
}

#[test]
fn user_settings_honour_claude_config_dir_and_duplicates_warn() {
    let mut sb = healthy();
    let config_dir = sb.home.path().join("claude-config");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::write(
        config_dir.join("settings.json"),
        settings(BIN, None).to_string(),
    )
    .unwrap();
    sb.write(".claude/settings.json", "{}");
    sb.set_env("CLAUDE_CONFIG_DIR", config_dir.to_str().unwrap());
    let (code, checks) = doctor(&sb);
    assert_eq!(problems(&checks), [], "{checks:#?}");
    assert_eq!(code, 0);
    assert!(
        checks[1].2.contains("claude-config/settings.json runs"),
        "{}",
        checks[1].2
    );
    // The same hook again in the project, through another path to a binary: it would run twice.
    let link = sb.path("bin/ctxmon");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    let mut project = serde_json::json!({"hooks": {}});
    project["hooks"]["PreCompact"] =
        settings(link.to_str().unwrap(), None)["hooks"]["PreCompact"].clone();
    sb.write(".claude/settings.json", project.to_string());
    only_problem(&sb, "hook PreCompact", "warn", "registered 2 times");
}

#[test]
fn an_invalid_configuration_names_the_key_and_the_file() {
    let sb = healthy();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nwarning_treshold = 0.7\n",
    );
    only_problem(
        &sb,
        "config",
        "fail",
        "context_monitor.warning_treshold from ",
    );
    only_problem(&sb, "config", "fail", ".ctxmon/config.toml");
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nwarning_threshold = 0.95\n",
    );
    only_problem(&sb, "config", "fail", "warning_threshold");
}

#[test]
fn a_ctxmon_path_that_is_not_a_folder_fails() {
    let sb = healthy();
    std::fs::remove_dir_all(sb.path(".ctxmon")).unwrap();
    sb.write(".ctxmon", "not a folder");
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 1);
    // A file named .ctxmon holds no configuration files: the project layers are absent (the
    // configuration is valid without them), and only the storage check fails; the status
    // line's comparison went with the folder.
    let names: Vec<(&str, &str)> = found.iter().map(|c| (c.0.as_str(), c.1.as_str())).collect();
    assert_eq!(
        names,
        [("storage", "fail"), ("statusline figure", "skip")],
        "{found:#?}"
    );
    assert!(found[0].2.contains("is not a folder"), "{}", found[0].2);
    let text = sb.run(&["doctor"], "");
    assert_eq!(text.stdout.lines().count(), 14 + 2, "{}", text.stdout);
}

#[test]
fn a_ctxmon_folder_open_to_others_warns() {
    let sb = healthy();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(sb.path(".ctxmon"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        only_problem(&sb, "storage", "warn", "chmod 700 .ctxmon");
    }
}

#[test]
fn recent_hook_problems_warn_with_the_newest() {
    let sb = healthy();
    // A real hook problem, logged by the real hook: stdin that is not JSON.
    let hook = sb.run(&["hooks", "prompt-submit"], "this is not json");
    assert_eq!(hook.code, 0);
    only_problem(&sb, "hook log", "warn", "prompt-submit: stdin is not JSON");
}

/// Claude Code creates a session's transcript before its first response: nothing to check yet.
#[test]
fn a_new_sessions_empty_transcript_is_skipped() {
    let sb = healthy();
    std::fs::remove_file(transcripts_folder(&sb).join("s.jsonl")).unwrap();
    std::fs::write(transcripts_folder(&sb).join("new.jsonl"), "").unwrap();
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{checks:#?}");
    let (_, status, text) = checks.iter().find(|(n, _, _)| n == "transcript").unwrap();
    assert_eq!(status, "skip", "{text}");
    assert!(
        text.contains("is empty: the session has had no response yet"),
        "{text}"
    );
}

/// The first prompt of every session (its transcript empty, or only the user's line) once
/// logged `warn prompt-submit: fill not measured: the transcript has no usage record yet`, and
/// doctor then reported a hook problem and exited 1 for a day. Before the first answer there is
/// nothing to measure and nothing wrong.
#[test]
fn a_new_sessions_first_prompt_is_not_a_hook_problem() {
    let sb = healthy();
    let folder = transcripts_folder(&sb);
    std::fs::remove_file(folder.join("s.jsonl")).unwrap();
    let user_only = folder.join("new.jsonl");
    std::fs::write(
        &user_only,
        "{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}\n",
    )
    .unwrap();
    let empty = folder.join("other.jsonl");
    std::fs::write(&empty, "").unwrap();
    for (session, t) in [("s-new", &user_only), ("s-empty", &empty)] {
        let start = sb.run(
            &["hooks", "session-start"],
            sb.hook_input(
                "SessionStart",
                session,
                t,
                serde_json::json!({"source": "startup"}),
            ),
        );
        assert_eq!(start.code, 0, "{}", start.stderr);
        let prompt = sb.run(&["hooks", "prompt-submit"], sb.prompt_input(session, t));
        assert_eq!(prompt.code, 0, "{}", prompt.stderr);
        assert!(prompt.stdout.trim().is_empty(), "{}", prompt.stdout);
    }
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default();
    assert!(
        !log.lines()
            .any(|l| l.contains(" warn ") || l.contains(" error ")),
        "{log}"
    );
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{:#?}", problems(&checks));
    let (_, status, _) = checks.iter().find(|(n, _, _)| n == "hook log").unwrap();
    assert_eq!(status, "ok");
}

/// Claude Code names a new session's transcript before it writes the file: the first prompt
/// finds no file, which is how every session starts, not a problem. A second prompt that
/// still finds none is one.
#[test]
fn a_transcript_not_written_yet_on_the_first_prompt_is_not_a_hook_problem() {
    let sb = healthy();
    let missing = transcripts_folder(&sb).join("not-yet.jsonl");
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input(
            "SessionStart",
            "s-new",
            &missing,
            serde_json::json!({"source": "startup"}),
        ),
    );
    assert_eq!(start.code, 0, "{}", start.stderr);
    let prompt = sb.run(
        &["hooks", "prompt-submit"],
        sb.prompt_input("s-new", &missing),
    );
    assert_eq!(prompt.code, 0, "{}", prompt.stderr);
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default();
    assert!(
        !log.lines()
            .any(|l| l.contains(" warn ") || l.contains(" error ")),
        "{log}"
    );
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{:#?}", problems(&checks));
    // The second prompt of the session: by now Claude Code has written the file, so a
    // missing one is worth a line in the log.
    let again = sb.run(
        &["hooks", "prompt-submit"],
        sb.prompt_input("s-new", &missing),
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default();
    assert!(log.contains("transcript not found"), "{log}");
}

#[test]
fn a_transcript_without_a_reachable_usage_warns() {
    let sb = healthy();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nmax_scan_bytes = 65536\n",
    );
    let mut text = transcript_with(&[40_000]);
    let user = format!(
        "{{\"type\":\"user\",\"message\":{{\"content\":\"{}\"}}}}\n",
        "x".repeat(1_000)
    );
    for _ in 0..100 {
        text.push_str(&user);
    }
    std::fs::write(transcripts_folder(&sb).join("s.jsonl"), text).unwrap();
    only_problem(&sb, "transcript", "warn", "max_scan_bytes");
}

#[test]
fn the_binary_check_warns_about_another_ctxmon_on_path() {
    let mut sb = healthy();
    let other = sb.path("other-bin/ctxmon");
    sb.write("other-bin/ctxmon", "#!/bin/sh\nexit 0\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    sb.prepend_path(other.parent().unwrap());
    only_problem(&sb, "binary", "warn", "but this is");
    let path = sb.outer_path.clone();
    sb.set_env("PATH", &path);
    only_problem(&sb, "binary", "warn", "not on PATH");
}

/// `cargo install --path crates/ctxmon-cli` puts a `ctxmon` in `$CARGO_HOME/bin`, which cargo
/// puts on the PATH of every test process: what a test sees must not change with it.
#[test]
fn a_ctxmon_the_user_installed_is_not_seen_by_the_tests() {
    let cargo_bin = tempfile::tempdir().unwrap();
    let installed = cargo_bin.path().join("ctxmon");
    std::fs::write(&installed, "#!/bin/sh\nexit 0\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&installed, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let outer = format!(
        "{}:{}",
        cargo_bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut sb = healthy_in(Sandbox::with_outer_path(&outer));
    assert!(
        !sb.outer_path
            .contains(&cargo_bin.path().display().to_string())
    );
    let path = sb.outer_path.clone();
    sb.set_env("PATH", &path);
    only_problem(&sb, "binary", "warn", "not on PATH");
}

/// The Codex lines of `checks`, as (name, status, text).
fn codex_lines(checks: &[(String, String, String)]) -> Vec<(String, String, String)> {
    checks
        .iter()
        .filter(|(name, _, _)| name.starts_with("codex"))
        .cloned()
        .collect()
}

/// A healthy project that also registered ctxmon for Codex (`install --agent codex`).
fn healthy_with_codex() -> Sandbox {
    let sb = healthy();
    let run = sb.run(&["install", "--agent", "codex"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    sb
}

#[test]
fn without_codex_doctor_says_nothing_about_it_and_with_it_one_skip_line() {
    let sb = healthy();
    let (code, checks) = doctor(&sb);
    assert_eq!((code, codex_lines(&checks)), (0, vec![]));
    // Codex installed for this user (its folder exists) but ctxmon not registered for it:
    // informative, not a problem.
    std::fs::create_dir_all(sb.home.path().join(".codex")).unwrap();
    let (code, checks) = doctor(&sb);
    let lines = codex_lines(&checks);
    assert_eq!(code, 0, "{checks:#?}");
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert_eq!(
        (lines[0].0.as_str(), lines[0].1.as_str()),
        ("codex hooks", "skip")
    );
    assert!(
        lines[0].2.contains("install --agent codex"),
        "{}",
        lines[0].2
    );
    assert!(lines[0].2.contains("/hooks"), "{}", lines[0].2);
}

#[test]
fn a_codex_registration_gets_one_ok_line_per_hook() {
    let sb = healthy_with_codex();
    let (code, checks) = doctor(&sb);
    assert_eq!(problems(&checks), [], "{checks:#?}");
    assert_eq!(code, 0);
    let lines = codex_lines(&checks);
    let names: Vec<&str> = lines.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "codex hook UserPromptSubmit",
            "codex hook SessionStart",
            "codex hook PreCompact",
            "codex hook PostToolUse",
            "codex hook PostCompact",
        ]
    );
    assert!(
        lines[3].2.contains(".codex/hooks.json runs "),
        "{}",
        lines[3].2
    );
    assert!(lines[3].2.contains("hooks post-tool-use"), "{}", lines[3].2);
}

#[test]
fn a_codex_hook_at_an_old_binary_path_or_missing_fails() {
    let sb = healthy_with_codex();
    let file = sb.path(".codex/hooks.json");
    let installed = std::fs::read_to_string(&file).unwrap();
    // PATH finds this binary, so the project's file names it portably.
    let stale = installed.replace(
        "\"ctxmon hooks prompt-submit\"",
        "\"/opt/old/ctxmon hooks prompt-submit\"",
    );
    assert_ne!(stale, installed);
    std::fs::write(&file, &stale).unwrap();
    only_problem(
        &sb,
        "codex hook UserPromptSubmit",
        "fail",
        "/opt/old/ctxmon",
    );
    only_problem(
        &sb,
        "codex hook UserPromptSubmit",
        "fail",
        "install --agent codex",
    );

    let mut v: serde_json::Value = serde_json::from_str(&installed).unwrap();
    v["hooks"].as_object_mut().unwrap().remove("PostCompact");
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    only_problem(&sb, "codex hook PostCompact", "fail", "not registered");

    // `ctxmon install --agent codex` is the fix doctor names, and it is enough.
    assert_eq!(sb.run(&["install", "--agent", "codex"], "").code, 0);
    assert_eq!(doctor(&sb).0, 0);
}

#[test]
fn a_codex_hook_in_two_files_is_named_because_codex_runs_both() {
    let sb = healthy_with_codex();
    let exe = std::fs::canonicalize(BIN).unwrap();
    // The same hook also in the user's config.toml `[hooks]`: Codex loads both.
    let config = format!(
        "model = \"gpt-5.3-codex\"\n\n[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\n\
         type = \"command\"\ncommand = \"{} hooks session-start\"\ntimeout = 10\n",
        exe.display()
    );
    std::fs::create_dir_all(sb.home.path().join(".codex")).unwrap();
    std::fs::write(sb.home.path().join(".codex/config.toml"), config).unwrap();
    only_problem(
        &sb,
        "codex hook SessionStart",
        "warn",
        "~/.codex/config.toml",
    );
    only_problem(
        &sb,
        "codex hook SessionStart",
        "warn",
        "Codex runs every copy",
    );
}

#[test]
fn a_codex_hooks_json_codex_cannot_read_fails() {
    let sb = healthy_with_codex();
    let file = sb.path(".codex/hooks.json");
    let installed = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("\u{feff}{installed}")).unwrap();
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 1);
    let lines = codex_lines(&checks);
    assert_eq!(lines[0].0, "codex .codex/hooks.json", "{lines:#?}");
    assert_eq!(lines[0].1, "fail");
    assert!(lines[0].2.contains("byte-order mark"), "{}", lines[0].2);
}

/// What a killed install left in `.claude/` is named by doctor, with the way to clear it.
#[test]
fn leftovers_of_a_killed_install_are_reported() {
    let sb = healthy();
    for rel in [".claude/.tmp-Ab3dE9", ".claude/.ctxmon-probe-Xy12Z3"] {
        let path = sb.write(rel, "");
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
            .unwrap();
    }
    only_problem(&sb, "install leftovers", "warn", ".ctxmon-probe-Xy12Z3");
    let (_, checks) = doctor(&sb);
    let text = &problems(&checks)[0].2;
    assert!(text.contains(".tmp-Ab3dE9"), "{text}");
    assert!(text.contains("ctxmon install"), "{text}");
}

/// An older version's temp copy that was cut off before anything showing it is ctxmon's (and
/// one in the Gemini CLI folder) is named too, as not proven ctxmon's, rather than ignored.
#[test]
fn old_style_temp_copies_that_cannot_be_attributed_are_named() {
    let sb = healthy();
    for (rel, text) in [
        (".claude/.tmp-Q1w2E3", "{\"permissions\": {"),
        (".gemini/.ctxmon-tmp-a1b2c3", "{}"),
    ] {
        let path = sb.write(rel, text);
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
            .unwrap();
    }
    let (_, checks) = doctor(&sb);
    let found = problems(&checks);
    let text = &found
        .iter()
        .find(|p| p.0 == "install leftovers")
        .expect("the leftovers check")
        .2;
    assert!(
        text.contains(".tmp-Q1w2E3") && text.contains("nothing in them shows"),
        "{text}"
    );
    assert!(text.contains(".gemini/.ctxmon-tmp-a1b2c3"), "{text}");
}
