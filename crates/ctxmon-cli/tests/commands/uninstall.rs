//! Uninstall and what install says at its end: `uninstall --statusline`
//! removes only the status line (the one install replaced comes back); a full uninstall
//! deletes install's backup and says so; install ends with the next steps; doctor's summary is
//! printed once.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use settings::{BACKUP, SETTINGS, fixture, read};

use crate::common::Sandbox;
use crate::common::settings;

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn ctxmon_hooks(text: &str) -> usize {
    value(text)["hooks"]
        .as_object()
        .map_or(0, |h| h.values().map(|g| g.as_array().unwrap().len()).sum())
}

#[test]
fn uninstall_statusline_removes_only_the_status_line() {
    let sb = Sandbox::new();
    sb.write(SETTINGS, fixture("four-space.json"));
    let run = sb.run(&["install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let installed = read(&sb, SETTINGS);
    let hooks = ctxmon_hooks(&installed);

    let run = sb.run(&["uninstall", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("removed   statusLine"),
        "{}",
        run.stdout
    );
    let after = read(&sb, SETTINGS);
    assert_eq!(value(&after).get("statusLine"), None);
    assert_eq!(ctxmon_hooks(&after), hooks, "the hooks stay");
    assert_eq!(
        read(&sb, BACKUP),
        installed,
        "a backup, as install keeps one"
    );
    assert!(
        run.stdout.contains("previous version saved as"),
        "{}",
        run.stdout
    );

    let again = sb.run(&["uninstall", "--statusline"], "");
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.starts_with("ctxmon's status line is not in ")
            && again.stdout.contains("nothing changed"),
        "{}",
        again.stdout
    );
    assert_eq!(read(&sb, SETTINGS), after);

    // Then the rest: the user's file comes back byte for byte.
    let rest = sb.run(&["uninstall"], "");
    assert_eq!(rest.code, 0, "{}", rest.stderr);
    assert_eq!(read(&sb, SETTINGS), fixture("four-space.json"));
}

#[test]
fn uninstall_statusline_puts_back_the_status_line_install_replaced() {
    let sb = Sandbox::new();
    let original = fixture("own-statusline.json");
    sb.write(SETTINGS, &original);
    let theirs = value(&original)["statusLine"].clone();
    let run = sb.run(&["install", "--statusline", "--replace-statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let record = sb.path(".claude/settings.json.ctxmon-statusline");
    assert!(record.is_file());
    let hooks = ctxmon_hooks(&read(&sb, SETTINGS));

    let dry = sb.run(&["uninstall", "--statusline", "--dry-run"], "");
    assert!(
        dry.stdout.contains("restored  statusLine"),
        "{}",
        dry.stdout
    );
    assert!(record.is_file(), "a dry run changes nothing");

    let run = sb.run(&["--json", "uninstall", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = value(&run.stdout);
    assert_eq!(v["command"], "uninstall --statusline");
    assert_eq!(v["changes"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["changes"][0]["action"], "restored");
    let after = read(&sb, SETTINGS);
    assert_eq!(value(&after)["statusLine"], theirs);
    assert_eq!(ctxmon_hooks(&after), hooks, "the hooks stay");
    assert!(!record.exists(), "the record's job is done");

    let rest = sb.run(&["uninstall"], "");
    assert_eq!(rest.code, 0, "{}", rest.stderr);
    assert_eq!(read(&sb, SETTINGS), original, "byte for byte");
}

#[test]
fn uninstall_statusline_is_claude_codes_and_checks_its_input() {
    let sb = Sandbox::new();
    let run = sb.run(&["uninstall", "--agent", "codex", "--statusline"], "");
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("--statusline is Claude Code's"),
        "{}",
        run.stderr
    );
    let run = sb.run(
        &["--json", "uninstall", "--agent", "codex", "--statusline"],
        "",
    );
    assert_eq!(run.code, 2);
    assert_eq!(value(&run.stdout)["exit_code"], 2);

    // No file, or a file that is not JSON: as for uninstall.
    let none = sb.run(&["uninstall", "--statusline"], "");
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(none.stdout.contains("nothing changed"), "{}", none.stdout);
    sb.write(SETTINGS, "{ \"statusLine\": ");
    let broken = sb.run(&["uninstall", "--statusline"], "");
    assert_eq!(broken.code, 1);
    assert!(
        broken.stderr.contains("is not valid JSON"),
        "{}",
        broken.stderr
    );
    assert_eq!(read(&sb, SETTINGS), "{ \"statusLine\": ", "untouched");
    // Someone else's status line is not ctxmon's to remove.
    let other = json!({"statusLine": {"type": "command", "command": "npx ccusage statusline"}});
    sb.write(SETTINGS, other.to_string());
    let run = sb.run(&["uninstall", "--statusline"], "");
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("nothing changed"), "{}", run.stdout);
    assert_eq!(read(&sb, SETTINGS), other.to_string());
}

/// A full uninstall leaves nothing of ctxmon's: no entries, no record, and not the backup
/// install made (it could only bring ctxmon's entries back); it says so, and a dry run says it
/// would.
#[test]
fn a_full_uninstall_deletes_installs_backup_and_says_so() {
    let sb = Sandbox::new();
    let original = fixture("realistic.json");
    sb.write(SETTINGS, &original);
    assert_eq!(sb.run(&["install"], "").code, 0);
    assert_eq!(read(&sb, BACKUP), original);

    let dry = sb.run(&["uninstall", "--dry-run"], "");
    assert!(
        dry.stdout.contains("ctxmon's backup") && dry.stdout.contains("would be deleted"),
        "{}",
        dry.stdout
    );
    assert!(sb.path(BACKUP).is_file());

    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "deleted ctxmon's backup {}",
            sb.path(BACKUP).display()
        )),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("previous version saved"),
        "{}",
        run.stdout
    );
    assert_eq!(read(&sb, SETTINGS), original);
    assert_eq!(settings::claude_dir(&sb), ["settings.json"]);

    // JSON names it too; a backup that is not a file ctxmon made (a folder) is left alone.
    assert_eq!(sb.run(&["install"], "").code, 0);
    let v = value(&sb.run(&["--json", "uninstall"], "").stdout);
    assert_eq!(v["backup_removed"], sb.path(BACKUP).display().to_string());
    assert_eq!(v["backup"], Value::Null);
    assert_eq!(sb.run(&["install"], "").code, 0);
    std::fs::remove_file(sb.path(BACKUP)).unwrap();
    std::fs::create_dir(sb.path(BACKUP)).unwrap();
    let run = sb.run(&["--json", "uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(value(&run.stdout)["backup_removed"], Value::Null);
    assert!(sb.path(BACKUP).is_dir());
}

#[test]
fn install_ends_with_the_next_steps() {
    let sb = Sandbox::new();
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let last = run.stdout.lines().last().unwrap();
    assert!(
        last.contains("restart Claude Code")
            && last.contains("/hooks")
            && last.contains("`ctxmon doctor`"),
        "{}",
        run.stdout
    );
    let again = sb.run(&["install"], "");
    assert!(
        !again.stdout.contains("restart"),
        "nothing changed: {}",
        again.stdout
    );
    let dry = sb.run(&["install", "--scope", "local", "--dry-run", "--force"], "");
    assert!(
        !dry.stdout.contains("restart"),
        "nothing written: {}",
        dry.stdout
    );
    let v = value(
        &sb.run(&["--json", "install", "--scope", "local", "--force"], "")
            .stdout,
    );
    assert!(
        v["next_step"].as_str().unwrap().contains("ctxmon doctor"),
        "{v}"
    );

    let codex = sb.run(&["install", "--agent", "codex"], "");
    assert!(
        codex.stdout.contains("/hooks") && codex.stdout.contains("Then run `ctxmon doctor`"),
        "{}",
        codex.stdout
    );
}

/// Doctor's report is its explanation: the summary once, on stdout; stderr stays empty, and
/// exit 1 says there was a problem.
#[test]
fn doctor_prints_its_summary_once() {
    let sb = Sandbox::new();
    let run = sb.run(&["doctor"], "");
    assert_eq!(run.code, 1);
    let summary = run.stdout.lines().last().unwrap();
    assert!(summary.contains("problem"), "{}", run.stdout);
    assert_eq!(run.stdout.matches(summary).count(), 1);
    assert_eq!(run.stderr, "", "nothing repeated on stderr");
    let json = sb.run(&["--json", "doctor"], "");
    assert_eq!(json.code, 1);
    assert!(value(&json.stdout).is_array());
    assert_eq!(json.stderr, "");
}

/// Install then uninstall gives the file back as it was: one that was not there is removed
/// again (the project's agent folder too, when install made it), and an empty one stays empty
/// rather than `{}`.
#[test]
fn install_then_uninstall_leaves_an_absent_file_absent_and_an_empty_one_empty() {
    let sb = Sandbox::new();
    for (agent, file) in [
        ("gemini", ".gemini/settings.json"),
        ("claude", ".claude/settings.json"),
    ] {
        let install = sb.run(&["install", "--agent", agent], "");
        assert_eq!(install.code, 0, "{}", install.stderr);
        assert!(sb.path(file).is_file());
        let uninstall = sb.run(&["uninstall", "--agent", agent], "");
        assert_eq!(uninstall.code, 0, "{}", uninstall.stderr);
        assert!(!sb.path(file).exists(), "{agent}: {}", uninstall.stdout);
        assert!(!sb.path(file).parent().unwrap().exists(), "{agent}");
    }
    // The user's file, in a folder that stays (it is the agent's home).
    let user = sb.home.path().join(".claude/settings.json");
    let install = sb.run(&["install", "--scope", "user"], "");
    assert_eq!(install.code, 0, "{}", install.stderr);
    assert!(user.is_file());
    let uninstall = sb.run(&["uninstall", "--scope", "user"], "");
    assert_eq!(uninstall.code, 0, "{}", uninstall.stderr);
    assert!(!user.exists());
    // Empty, and blank, stay as they were.
    for before in ["", "\n  \n"] {
        sb.write(SETTINGS, before);
        assert_eq!(sb.run(&["install"], "").code, 0);
        assert_eq!(sb.run(&["uninstall"], "").code, 0);
        assert_eq!(read(&sb, SETTINGS), before);
    }
    // A file that held `{}` keeps it.
    sb.write(SETTINGS, "{}\n");
    assert_eq!(sb.run(&["install"], "").code, 0);
    assert_eq!(sb.run(&["uninstall"], "").code, 0);
    assert_eq!(read(&sb, SETTINGS), "{}\n");
}
