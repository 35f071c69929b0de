//! `ctxmon doctor` for the agent a project uses: a project that registered ctxmon for Codex
//! or Gemini CLI only passes without Claude Code's hooks, and a project with ctxmon registered
//! for no agent gets one line that names the ways to install.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use super::doctor::{doctor, healthy, problems};

#[test]
fn a_project_that_uses_only_codex_passes() {
    let sb = healthy();
    // No Claude Code hooks at all: the project uses ctxmon through Codex.
    std::fs::remove_file(sb.path(".claude/settings.json")).unwrap();
    let run = sb.run(&["install", "--agent", "codex"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 0, "{checks:#?}");
    // Claude Code's absence is said once, as something to know, not a problem.
    let claude: Vec<_> = found.iter().filter(|c| c.0 == "hooks").collect();
    assert_eq!(claude.len(), 1, "{found:#?}");
    assert_eq!(claude[0].1, "skip", "{found:#?}");
    assert!(claude[0].2.contains("Claude Code"), "{}", claude[0].2);
    assert!(
        !checks.iter().any(|c| c.0 == "statusline"),
        "the status line is Claude Code's: {checks:#?}"
    );
    assert_eq!(
        checks
            .iter()
            .filter(|c| c.0.starts_with("codex hook ") && c.1 == "ok")
            .count(),
        5,
        "{checks:#?}"
    );
}

#[test]
fn ctxmon_registered_for_no_agent_says_so_in_one_line() {
    let sb = healthy();
    sb.write(".claude/settings.json", r#"{"model": "opus"}"#);
    // Codex is on this machine too, but ctxmon is registered for neither agent.
    std::fs::create_dir_all(sb.home.path().join(".codex")).unwrap();
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 1, "{found:#?}");
    let failed: Vec<_> = found.iter().filter(|c| c.1 == "fail").collect();
    assert_eq!(failed.len(), 1, "{found:#?}");
    let (name, _, text) = failed[0];
    assert_eq!(name, "hooks");
    assert!(text.contains("no agent"), "{text}");
    assert!(text.contains("`ctxmon install`"), "{text}");
    assert!(text.contains("`ctxmon install --agent codex`"), "{text}");
    assert!(
        !found.iter().any(|c| c.0 == "codex hooks"),
        "the one line covers Codex too: {found:#?}"
    );
}

#[test]
fn a_project_that_uses_only_gemini_cli_passes() {
    let sb = healthy();
    std::fs::remove_file(sb.path(".claude/settings.json")).unwrap();
    let run = sb.run(&["install", "--agent", "gemini"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{checks:#?}");
    let gemini: Vec<_> = checks
        .iter()
        .filter(|c| c.0.starts_with("gemini hook "))
        .collect();
    assert_eq!(gemini.len(), 5, "{checks:#?}");
    assert!(gemini.iter().all(|c| c.1 == "ok"), "{checks:#?}");
    assert!(
        gemini.iter().any(|c| c.0 == "gemini hook BeforeAgent"),
        "{checks:#?}"
    );
    // A hook's deadline fits its 5,000 ms timeout: no deadline warning from milliseconds
    // read as seconds, or the other way round.
    assert!(!checks.iter().any(|c| c.0 == "deadlines"), "{checks:#?}");
}

#[test]
fn a_gemini_hook_in_two_files_warns_only_when_the_commands_differ() {
    let sb = healthy();
    std::fs::remove_file(sb.path(".claude/settings.json")).unwrap();
    assert_eq!(sb.run(&["install", "--agent", "gemini"], "").code, 0);
    let project = std::fs::read_to_string(sb.path(".gemini/settings.json")).unwrap();
    let user = sb.home.path().join(".gemini/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    // The same commands in the user's file: Gemini CLI runs identical hooks once.
    std::fs::write(&user, &project).unwrap();
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{checks:#?}");
    assert!(
        !checks
            .iter()
            .any(|c| c.1 == "warn" && c.2.contains("registered 2 times")),
        "{checks:#?}"
    );
    // Through another path to the binary the commands differ, and each one runs.
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_ctxmon")).unwrap();
    let link = sb.path("bin/ctxmon");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&exe, &link).unwrap();
    let other = project.replace(
        "\"ctxmon hooks ",
        &format!("\"{} hooks ", link.to_str().unwrap()),
    );
    assert_ne!(other, project, "the project file names the binary `ctxmon`");
    std::fs::write(&user, other).unwrap();
    let (_, checks) = doctor(&sb);
    let warned: Vec<_> = checks
        .iter()
        .filter(|c| c.0 == "gemini hook BeforeAgent" && c.1 == "warn")
        .collect();
    assert_eq!(warned.len(), 1, "{checks:#?}");
    assert!(
        warned[0]
            .2
            .contains("registered 2 times with different commands"),
        "{}",
        warned[0].2
    );
}

/// Whether any check's fix says to run `ctxmon install --statusline`.
fn suggests_statusline(checks: &[(String, String, String)]) -> bool {
    checks.iter().any(|c| c.2.contains("install --statusline`"))
}

#[test]
fn the_status_line_is_suggested_only_to_a_claude_code_project_without_it() {
    // Claude Code's status line is installed but has not yet seen a payload: nothing to
    // install, only something to wait for.
    let sb = healthy();
    std::fs::remove_dir_all(sb.path(".ctxmon/status-line")).unwrap();
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{checks:#?}");
    let figure = checks.iter().find(|c| c.0 == "statusline figure").unwrap();
    assert_eq!(figure.1, "skip", "{figure:?}");
    assert!(!suggests_statusline(&checks), "{checks:#?}");
    // Without it, Claude Code's project is told how to get it.
    let settings = std::fs::read_to_string(sb.path(".claude/settings.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&settings).unwrap();
    v.as_object_mut().unwrap().remove("statusLine");
    sb.write(".claude/settings.json", v.to_string());
    let (_, checks) = doctor(&sb);
    assert!(suggests_statusline(&checks), "{checks:#?}");
    // Codex and Gemini CLI have no command-backed status line to install.
    for agent in ["codex", "gemini"] {
        let sb = healthy();
        std::fs::remove_dir_all(sb.path(".ctxmon/status-line")).unwrap();
        std::fs::remove_file(sb.path(".claude/settings.json")).unwrap();
        let run = sb.run(&["install", "--agent", agent], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let (code, checks) = doctor(&sb);
        assert_eq!(code, 0, "{agent}: {checks:#?}");
        assert!(!suggests_statusline(&checks), "{agent}: {checks:#?}");
    }
}
