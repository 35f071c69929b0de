//! `ctxmon install` / `ctxmon uninstall` end to end: install → install → uninstall on copies of
//! realistic settings files, compared byte for byte with the expected files in
//! `tests/fixtures/settings/` (`@CTXMON@` stands for the binary's path).

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;
#[path = "common/settings.rs"]
mod settings;

use common::Sandbox;
use settings::{BACKUP, SETTINGS, claude_dir, fixture, generic, read};

/// Copies `input` (a fixture, or no file) into a fresh project, installs with `flags`, and
/// checks the result against `<expected>.installed.json`, that the backup holds the input,
/// and that a second install changes nothing at all (same bytes, no new backup). Returns the
/// sandbox for the uninstall step.
fn install_twice(input: Option<&str>, flags: &[&str], expected: &str) -> Sandbox {
    let sb = Sandbox::new();
    if let Some(name) = input {
        sb.write(SETTINGS, fixture(name));
    }
    let args = [&["install"], flags].concat();
    let first = sb.run(&args, "");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.contains("added"), "{}", first.stdout);
    let installed = read(&sb, SETTINGS);
    assert_eq!(
        generic(&installed),
        fixture(&format!("{expected}.installed.json"))
    );
    match input {
        Some(name) => assert_eq!(read(&sb, BACKUP), fixture(name), "backup = the input"),
        None => assert!(!sb.path(BACKUP).exists(), "nothing to back up"),
    }
    let listing = claude_dir(&sb);

    let second = sb.run(&args, "");
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stdout.contains("already installed"),
        "{}",
        second.stdout
    );
    assert_eq!(
        read(&sb, SETTINGS),
        installed,
        "a second install changed the file"
    );
    assert_eq!(claude_dir(&sb), listing, "a second install created a file");
    if let Some(name) = input {
        assert_eq!(
            read(&sb, BACKUP),
            fixture(name),
            "a second install replaced the backup"
        );
    }
    sb
}

fn uninstall(sb: &Sandbox) -> String {
    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("removed"), "{}", run.stdout);
    let after = read(sb, SETTINGS);
    let again = sb.run(&["uninstall"], "");
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("not installed"), "{}", again.stdout);
    assert_eq!(read(sb, SETTINGS), after);
    after
}

#[test]
fn realistic_settings_keep_every_byte_of_the_users_own() {
    let sb = install_twice(Some("realistic.json"), &[], "realistic");
    assert_eq!(uninstall(&sb), fixture("realistic.json"));
}

#[test]
fn a_four_space_hugging_layout_is_followed_and_restored() {
    let sb = install_twice(Some("four-space.json"), &[], "four-space");
    assert_eq!(uninstall(&sb), fixture("four-space.json"));
}

#[test]
fn an_empty_object_gets_hooks_and_status_line_and_gets_them_back_out() {
    let sb = install_twice(Some("empty.json"), &["--statusline"], "empty");
    assert_eq!(uninstall(&sb), fixture("empty.json"));
}

#[test]
fn a_missing_file_is_created_private_and_uninstall_leaves_an_empty_object() {
    let sb = install_twice(None, &[], "missing");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.path(SETTINGS))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_eq!(uninstall(&sb), fixture("missing.uninstalled.json"));
}

#[test]
fn an_old_binary_path_is_updated_in_place_without_duplicates() {
    let sb = install_twice(Some("old-path.json"), &["--statusline"], "old-path");
    let out = sb.run(&["install", "--statusline"], "");
    assert!(out.stdout.contains("already installed"), "{}", out.stdout);
    assert_eq!(uninstall(&sb), fixture("old-path.uninstalled.json"));
}

#[test]
fn old_path_install_reports_what_it_updated() {
    let sb = Sandbox::new();
    sb.write(SETTINGS, fixture("old-path.json"));
    let run = sb.run(&["install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in [
        "updated   UserPromptSubmit  command was `/home/you/.cargo/bin/ctxmon hooks prompt-submit`",
        "updated   SessionStart      re-registered with no matcher",
        "updated   PreCompact        command was `/home/you/.cargo/bin/ctxmon hooks pre-compact`; removed 1 entry (duplicate)",
        "added     PostCompact",
        "updated   statusLine        command was `/home/you/.cargo/bin/ctxmon statusline`",
    ] {
        assert!(run.stdout.contains(line), "{line}\n{}", run.stdout);
    }
}

#[test]
fn someone_elses_status_line_is_refused_then_replaced_on_request_and_restored() {
    let sb = Sandbox::new();
    sb.write(SETTINGS, fixture("realistic.json"));
    let refused = sb.run(&["install", "--statusline"], "");
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("npx -y ccusage@latest statusline")
            && refused.stderr.contains("--replace-statusline")
            && refused.stderr.contains("nothing was changed"),
        "{}",
        refused.stderr
    );
    assert_eq!(read(&sb, SETTINGS), fixture("realistic.json"));
    assert_eq!(claude_dir(&sb), ["settings.json"]);

    let sb = install_twice(
        Some("realistic.json"),
        &["--statusline", "--replace-statusline"],
        "realistic-statusline",
    );
    let run = sb.run(&["uninstall"], "");
    assert!(
        run.stdout.contains("restored  statusLine"),
        "{}",
        run.stdout
    );
    assert_eq!(read(&sb, SETTINGS), fixture("realistic.json"));
}

#[test]
fn replace_statusline_needs_statusline() {
    let sb = Sandbox::new();
    let run = sb.run(&["install", "--replace-statusline"], "");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!sb.path(SETTINGS).exists());
}

#[test]
fn dry_run_shows_a_diff_and_writes_nothing() {
    let sb = Sandbox::new();
    sb.write(SETTINGS, fixture("four-space.json"));
    let run = sb.run(&["install", "--dry-run"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let settings = sb.path(SETTINGS).display().to_string();
    assert!(
        run.stdout.starts_with(&format!(
            "--- {settings}\n+++ {settings} (after ctxmon install)\n@@ "
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("+                    \"command\": \""),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("dry run: nothing was written"));
    assert_eq!(read(&sb, SETTINGS), fixture("four-space.json"));
    assert_eq!(claude_dir(&sb), ["settings.json"]);

    // The same for uninstall, and for a file that does not exist yet.
    sb.run(&["install"], "");
    let installed = read(&sb, SETTINGS);
    let run = sb.run(&["uninstall", "--dry-run"], "");
    assert!(run.stdout.contains("\n-"), "{}", run.stdout);
    assert_eq!(read(&sb, SETTINGS), installed);
    let fresh = Sandbox::new();
    let run = fresh.run(&["install", "--dry-run", "--scope", "local"], "");
    assert!(run.stdout.starts_with("--- /dev/null\n"), "{}", run.stdout);
    assert!(!fresh.path(".claude").exists());
}

#[test]
fn scopes_pick_their_files_and_user_honours_claude_config_dir() {
    let mut sb = Sandbox::new();
    assert_eq!(sb.run(&["install", "--scope", "local"], "").code, 0);
    assert!(sb.path(".claude/settings.local.json").exists());
    assert!(!sb.path(SETTINGS).exists());

    assert_eq!(sb.run(&["install", "--scope", "user"], "").code, 0);
    assert!(sb.home.path().join(".claude/settings.json").exists());

    let config_dir = sb.path("claude-config");
    sb.set_env("CLAUDE_CONFIG_DIR", config_dir.to_str().unwrap());
    let run = sb.run(&["install", "--scope", "user"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&config_dir.join("settings.json").display().to_string())
    );
    assert!(config_dir.join("settings.json").exists());
    assert_eq!(sb.run(&["uninstall", "--scope", "user"], "").code, 0);
    assert_eq!(
        std::fs::read_to_string(config_dir.join("settings.json")).unwrap(),
        "{}\n"
    );
}

#[test]
fn an_existing_file_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let path = sb.write(SETTINGS, fixture("empty.json"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(sb.run(&["install"], "").code, 0);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn json_output_lists_every_change() {
    let sb = Sandbox::new();
    let run = sb.run(&["--json", "install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["changed"], true);
    assert_eq!(v["written"], true);
    assert_eq!(v["backup"], serde_json::Value::Null);
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 7);
    assert!(changes.iter().all(|c| c["action"] == "added"));
    let again = sb.run(&["--json", "install", "--statusline"], "");
    let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(
        (v["changed"].as_bool(), v["written"].as_bool()),
        (Some(false), Some(false))
    );
}
