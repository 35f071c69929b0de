//! `ctxmon install` / `ctxmon uninstall` end to end: install → install → uninstall on copies of
//! realistic settings files, compared byte for byte with the expected files in
//! `tests/fixtures/settings/` (`@CTXMON@` stands for the binary's path).

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use settings::{BACKUP, SETTINGS, claude_dir, fixture, generic, read};

use crate::common::Sandbox;
use crate::common::settings;

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

/// A renamed copy of the binary (`ctxmon-dev`) knows its own entries: a second install changes
/// nothing, doctor finds the hooks, uninstall gives back the original bytes.
#[test]
fn a_renamed_binary_recognises_what_it_installed() {
    let sb = Sandbox::new();
    let original = fixture("realistic.json");
    sb.write(SETTINGS, &original);
    let bin = sb.path("bin/ctxmon-dev");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    if std::fs::hard_link(env!("CARGO_BIN_EXE_ctxmon"), &bin).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_ctxmon"), &bin).unwrap();
    }
    let first = sb.run_program(
        &bin,
        &["install", "--statusline", "--replace-statusline"],
        "",
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let installed = read(&sb, SETTINGS);
    assert!(
        installed.contains("ctxmon-dev hooks prompt-submit"),
        "{installed}"
    );
    let second = sb.run_program(&bin, &["install", "--statusline"], "");
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stdout.contains("already installed"),
        "{}",
        second.stdout
    );
    assert_eq!(read(&sb, SETTINGS), installed);
    let removed = sb.run_program(&bin, &["uninstall"], "");
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert_eq!(read(&sb, SETTINGS), original);
}

/// Run from npm's exec cache (`npx ctxmon install` without an install), the binary registers
/// its own path there, not the JS launcher's, and says that the cache is no stable home.
#[test]
fn a_binary_in_npxs_cache_registers_itself_and_says_the_cache_may_go() {
    let sb = Sandbox::new();
    let bin = sb.path(".npm/_npx/5f2c/node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    if std::fs::hard_link(env!("CARGO_BIN_EXE_ctxmon"), &bin).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_ctxmon"), &bin).unwrap();
    }
    let run = sb.run_program(&bin, &["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let real = std::fs::canonicalize(&bin).unwrap();
    let installed = read(&sb, SETTINGS);
    assert!(
        installed.contains(&format!("{} hooks prompt-submit", real.display())),
        "{installed}"
    );
    assert!(
        run.stderr.contains("in npx's cache") && run.stderr.contains("npm install -g ctxmon"),
        "{}",
        run.stderr
    );
    // Anywhere else, no such note.
    let plain = Sandbox::new();
    let run = plain.run(&["install"], "");
    assert!(!run.stderr.contains("npx"), "{}", run.stderr);
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
fn a_missing_file_is_created_private_and_uninstall_removes_it_again() {
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
    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!sb.path(SETTINGS).exists(), "{}", run.stdout);
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

const RECORD: &str = ".claude/settings.json.ctxmon-statusline";

/// Installs over `own-statusline.json` with `--replace-statusline` and checks the result, the
/// record that keeps the user's status line, and that the record is private.
fn replace_own_statusline() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(SETTINGS, fixture("own-statusline.json"));
    let run = sb.run(&["install", "--statusline", "--replace-statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("replaced  statusLine")
            && run
                .stdout
                .contains("ctxmon-statusline; `ctxmon uninstall` puts it back"),
        "{}",
        run.stdout
    );
    assert_eq!(
        generic(&read(&sb, SETTINGS)),
        fixture("own-statusline.installed.json")
    );
    let record = read(&sb, RECORD);
    assert!(
        record.contains(
            "\"statusLine\": {\"type\":\"command\",\"command\":\"~/.claude/statusline.sh\"}"
        ),
        "{record}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.path(RECORD))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    sb
}

/// Uninstall gives back the original file, status line included, and deletes the record.
fn uninstall_restores_own_statusline(sb: &Sandbox) {
    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("restored  statusLine")
            && run.stdout.contains("~/.claude/statusline.sh"),
        "{}",
        run.stdout
    );
    assert_eq!(read(sb, SETTINGS), fixture("own-statusline.json"));
    assert!(!sb.path(RECORD).exists(), "the record outlived its use");
}

/// The audit's repro: a later install that changes something replaces the backup, which
/// used to be the only place the replaced status line was kept.
#[test]
fn a_replaced_status_line_survives_a_later_install_that_changes_the_file() {
    let sb = replace_own_statusline();
    // The user removes one of ctxmon's hooks by hand.
    let installed = read(&sb, SETTINGS);
    let post_compact = format!(
        ",\n    \"PostCompact\": [\n      {{\n        \"hooks\": [\n          {{\n            \
         \"type\": \"command\",\n            \"command\": \"{} hooks post-compact\",\n            \
         \"timeout\": 5\n          }}\n        ]\n      }}\n    ]",
        settings::exe()
    );
    assert!(installed.contains(&post_compact), "{installed}");
    sb.write(SETTINGS, installed.replace(&post_compact, ""));
    let again = sb.run(&["install", "--statusline"], "");
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.contains("added     PostCompact"),
        "{}",
        again.stdout
    );
    // The backup now holds ctxmon's status line, not the user's.
    assert!(
        read(&sb, BACKUP).contains(" statusline\""),
        "{}",
        read(&sb, BACKUP)
    );
    uninstall_restores_own_statusline(&sb);
}

#[test]
fn a_replaced_status_line_survives_an_install_from_another_binary_path() {
    let sb = replace_own_statusline();
    let other = sb.path("elsewhere/ctxmon");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    if std::fs::hard_link(env!("CARGO_BIN_EXE_ctxmon"), &other).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_ctxmon"), &other).unwrap();
    }
    let run = std::process::Command::new(&other)
        .args(["install", "--statusline"])
        .current_dir(sb.dir())
        .env_clear()
        .env("HOME", sb.home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("updated   statusLine"), "{stdout}");
    assert!(read(&sb, SETTINGS).contains("elsewhere/ctxmon statusline"));
    uninstall_restores_own_statusline(&sb);
}

#[test]
fn an_unreadable_status_line_record_stops_uninstall_instead_of_losing_the_line() {
    let sb = replace_own_statusline();
    sb.write(RECORD, "{ not json");
    let installed = read(&sb, SETTINGS);
    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("ctxmon-statusline holds no status line")
            && run.stderr.contains("nothing was changed"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&sb, SETTINGS), installed);
    // Deleting the record is the documented way out: ctxmon's line is then simply removed.
    std::fs::remove_file(sb.path(RECORD)).unwrap();
    std::fs::remove_file(sb.path(BACKUP)).unwrap();
    let run = sb.run(&["uninstall"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("removed   statusLine"),
        "{}",
        run.stdout
    );
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

    // A second scope on purpose (the local file already registers ctxmon): --force.
    assert_eq!(
        sb.run(&["install", "--scope", "user", "--force"], "").code,
        0
    );
    assert!(sb.home.path().join(".claude/settings.json").exists());

    let config_dir = sb.path("claude-config");
    sb.set_env("CLAUDE_CONFIG_DIR", config_dir.to_str().unwrap());
    let run = sb.run(&["install", "--scope", "user", "--force"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&config_dir.join("settings.json").display().to_string())
    );
    assert!(config_dir.join("settings.json").exists());
    assert_eq!(sb.run(&["uninstall", "--scope", "user"], "").code, 0);
    // Install made the file; uninstall takes it away again.
    assert!(!config_dir.join("settings.json").exists());
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
    assert_eq!(changes.len(), 8, "seven hooks and the status line");
    assert!(changes.iter().all(|c| c["action"] == "added"));
    let again = sb.run(&["--json", "install", "--statusline"], "");
    let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(
        (v["changed"].as_bool(), v["written"].as_bool()),
        (Some(false), Some(false))
    );
}

/// `path`'s modification time moved `ago` into the past.
fn age(path: &std::path::Path, ago: std::time::Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - ago)
        .unwrap();
}

/// An install killed while it wrote left its temp copy of the settings (`.tmp-*`, up to 2 MB)
/// and its write probe (`.ctxmon-probe-*`) in `.claude/` for good. The next install removes
/// ctxmon's own once they are stale; a fresh one (an install running now) and files that are
/// not ctxmon's stay.
#[test]
fn an_install_removes_what_a_killed_install_left_behind() {
    let sb = Sandbox::new();
    let hour = std::time::Duration::from_secs(3600);
    let stale = [
        (
            ".claude/.tmp-Ab3dE9",
            "{\n  \"hooks\": {\"command\": \"/bin/ctxmon hooks pre-",
        ),
        (".claude/.tmp-Zz0000", ""),
        (".claude/.ctxmon-probe-Xy12Z3", ""),
        (".claude/.ctxmon-tmp-k2Jd8s", "{\"hooks\": {}}"),
    ];
    let kept = [
        (".claude/.ctxmon-probe-fresh1", "", None),
        (".claude/.tmp-Q1w2E3", "{\"theirs\": true}", Some(hour)),
        (".claude/.tmp-longer-name", "", Some(hour)),
        (".claude/notes.txt", "mine", Some(hour)),
    ];
    for (rel, text) in stale {
        age(&sb.write(rel, text), hour);
    }
    for (rel, text, ago) in kept {
        let path = sb.write(rel, text);
        if let Some(ago) = ago {
            age(&path, ago);
        }
    }
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (rel, _) in stale {
        assert!(!sb.path(rel).exists(), "{rel} removed");
    }
    for (rel, _, _) in kept {
        assert!(sb.path(rel).exists(), "{rel} kept");
    }
    assert!(
        run.stdout
            .contains("removed 4 leftover files of an interrupted install"),
        "{}",
        run.stdout
    );
    // Nothing of this install's own stays behind.
    let names: Vec<String> = std::fs::read_dir(sb.path(".claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ctxmon-tmp-") || n.starts_with(".ctxmon-probe-"))
        .collect();
    assert_eq!(names, [".ctxmon-probe-fresh1"]);
}
