//! `ctxmon install` / `uninstall` on settings files it must not, or cannot, edit blindly:
//! JSON with comments or trailing commas, wrong shapes, symlinks (kept, written through),
//! read-only files and files owned by someone else. A refusal exits 1, names the file and
//! writes nothing, backup included.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;

use settings::{BACKUP, SETTINGS, claude_dir, exe, fixture, generic, read};

use crate::common::Sandbox;
use crate::common::settings;

/// Runs `args` against `content` and checks the refusal: exit 1, every `needles` in stderr,
/// the file unchanged and no backup.
fn refused(content: &str, args: &[&str], needles: &[&str]) {
    let sb = Sandbox::new();
    sb.write(SETTINGS, content);
    let run = sb.run(args, "");
    assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
    let mut all = vec![SETTINGS, "nothing was changed"];
    all.extend(needles);
    for needle in all {
        assert!(
            run.stderr.contains(needle),
            "{needle:?} missing from: {}",
            run.stderr
        );
    }
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(read(&sb, SETTINGS), content);
    assert_eq!(claude_dir(&sb), ["settings.json"]);
}

#[test]
fn json_with_comments_is_refused_naming_the_line() {
    let text = "{\n  \"model\": \"opus\",\n  // my hooks\n  \"hooks\": {}\n}\n";
    refused(
        text,
        &["install"],
        &["not valid JSON", "line 3, column 3", "comments"],
    );
    refused(text, &["uninstall"], &["line 3"]);
    let block = "{\n  \"model\": \"opus\" /* default */\n}\n";
    refused(block, &["install"], &["line 2", "comments"]);
}

#[test]
fn json_with_a_trailing_comma_is_refused_naming_the_line() {
    let text = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",]\n  }\n}\n";
    refused(text, &["install"], &["line 3", "trailing comma"]);
    let member = "{\n  \"model\": \"opus\",\n}\n";
    refused(
        member,
        &["install", "--dry-run"],
        &["line 3", "trailing comma"],
    );
}

#[test]
fn documents_of_the_wrong_shape_are_refused() {
    refused("[]\n", &["install"], &["not a JSON object"]);
    refused(
        "{\"hooks\": [\"x\"]}",
        &["install"],
        &["`hooks` is not an object"],
    );
    refused(
        "{\"hooks\": {\"SessionStart\": \"ctxmon\"}}",
        &["uninstall"],
        &["`hooks.SessionStart` is not a list"],
    );
    refused("{\"a\": 1", &["install"], &["not valid JSON", "line 1"]);
}

#[test]
fn an_event_that_is_not_a_list_is_refused_even_when_ctxmon_does_not_use_it() {
    refused(
        "{\"hooks\":{\"Stop\":{\"a\":1}}}",
        &["install"],
        &["`hooks.Stop` is not a list"],
    );
    refused(
        "{\"hooks\":{\"Stop\":{\"a\":1}}}",
        &["uninstall"],
        &["`hooks.Stop` is not a list"],
    );
}

#[test]
fn a_json_refusal_prints_a_json_error_too() {
    let sb = Sandbox::new();
    let content = "{\"hooks\":{\"Stop\":{\"a\":1}}}";
    sb.write(SETTINGS, content);
    for verb in ["install", "uninstall"] {
        let run = sb.run(&["--json", verb], "");
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stderr.contains("`hooks.Stop` is not a list"),
            "{}",
            run.stderr
        );
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
            panic!(
                "{verb}: stdout is not one JSON object ({e}): {:?}",
                run.stdout
            )
        });
        assert_eq!(v["command"], verb);
        assert_eq!(v["exit_code"], 1);
        assert_eq!(
            (v["changed"].as_bool(), v["written"].as_bool()),
            (Some(false), Some(false))
        );
        let error = v["error"].as_str().unwrap();
        assert!(
            error.contains("`hooks.Stop` is not a list") && error.contains(SETTINGS),
            "{error}"
        );
    }
    assert_eq!(read(&sb, SETTINGS), content);
    assert_eq!(claude_dir(&sb), ["settings.json"]);
}

#[test]
fn a_crlf_settings_file_gets_crlf_lines_and_comes_back_byte_for_byte() {
    let crlf = |text: String| text.replace('\n', "\r\n");
    let sb = Sandbox::new();
    let original = crlf(fixture("realistic.json"));
    sb.write(SETTINGS, &original);
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let installed = read(&sb, SETTINGS);
    assert_eq!(
        generic(&installed),
        crlf(fixture("realistic.installed.json"))
    );
    assert!(
        !installed.replace("\r\n", "").contains('\n'),
        "a bare LF was written"
    );
    assert_eq!(sb.run(&["uninstall"], "").code, 0);
    assert_eq!(read(&sb, SETTINGS), original);
}

/// Claude Code's CLI reads a settings file that starts with a byte-order mark (its desktop app
/// does not: anthropics/claude-code#81355), so install accepts one, keeps it, and says so.
#[test]
fn a_byte_order_mark_is_kept_and_named() {
    let sb = Sandbox::new();
    let original = format!("\u{feff}{}", fixture("realistic.json"));
    sb.write(SETTINGS, &original);
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("byte-order mark") && run.stderr.contains("desktop app"),
        "{}",
        run.stderr
    );
    assert_eq!(
        generic(&read(&sb, SETTINGS)),
        format!("\u{feff}{}", fixture("realistic.installed.json"))
    );
    assert_eq!(sb.run(&["install"], "").code, 0);
    assert_eq!(sb.run(&["uninstall"], "").code, 0);
    assert_eq!(read(&sb, SETTINGS), original);
}

#[test]
fn a_settings_file_that_is_not_utf8_is_refused() {
    let sb = Sandbox::new();
    sb.write(SETTINGS, b"{\"model\": \"\xff\"}");
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not UTF-8"), "{}", run.stderr);
    assert_eq!(claude_dir(&sb), ["settings.json"]);
}

#[test]
fn a_folder_in_place_of_the_settings_file_is_refused() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(SETTINGS)).unwrap();
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("is a folder"), "{}", run.stderr);
}

#[test]
fn a_symlinked_settings_file_is_written_through_and_stays_a_link() {
    let sb = Sandbox::new();
    let target = sb.write("dotfiles/claude/settings.json", fixture("realistic.json"));
    std::fs::create_dir_all(sb.path(".claude")).unwrap();
    symlink(&target, sb.path(SETTINGS)).unwrap();

    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("written through the symlink"),
        "{}",
        run.stdout
    );
    let link = std::fs::symlink_metadata(sb.path(SETTINGS)).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let written = std::fs::read_to_string(&target).unwrap();
    assert_eq!(generic(&written), fixture("realistic.installed.json"));
    // The backup sits beside the path the user knows, as a plain file.
    assert_eq!(read(&sb, BACKUP), fixture("realistic.json"));
    assert!(
        !std::fs::symlink_metadata(sb.path(BACKUP))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Nothing but the target changed in the dotfiles folder.
    assert_eq!(
        std::fs::read_dir(target.parent().unwrap()).unwrap().count(),
        1
    );

    assert_eq!(sb.run(&["uninstall"], "").code, 0);
    assert!(
        std::fs::symlink_metadata(sb.path(SETTINGS))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        fixture("realistic.json")
    );
}

#[test]
fn a_dangling_symlink_is_refused() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(".claude")).unwrap();
    symlink(sb.path("nowhere/settings.json"), sb.path(SETTINGS)).unwrap();
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("is a symlink to"), "{}", run.stderr);
    assert!(!sb.path("nowhere").exists());
    assert_eq!(claude_dir(&sb), ["settings.json"]);
}

#[test]
fn a_read_only_settings_file_is_refused_even_for_root() {
    let sb = Sandbox::new();
    let path = sb.write(SETTINGS, fixture("realistic.json"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("is read-only") && run.stderr.contains("mode 444"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&sb, SETTINGS), fixture("realistic.json"));
    assert_eq!(claude_dir(&sb), ["settings.json"]);
    // A dry run only reads, so it still shows what would change.
    assert_eq!(sb.run(&["install", "--dry-run"], "").code, 0);
}

/// Runs the binary as `nobody` through setpriv(1); `None` when that is impossible here
/// (not root, or no setpriv).
fn as_nobody(sb: &Sandbox, args: &[&str]) -> Option<std::process::Output> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    let probe = Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .output()
        .ok()?;
    if !probe.status.success() {
        return None;
    }
    let output = Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", &exe()])
        .args(args)
        .current_dir(sb.dir())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", sb.home.path())
        .output()
        .unwrap();
    Some(output)
}

#[test]
fn a_settings_file_owned_by_someone_else_is_refused() {
    let sb = Sandbox::new();
    let path = sb.write(SETTINGS, fixture("realistic.json"));
    // Root owns the project; nobody may read it (0644, folders 0755) but not write it.
    for dir in [sb.dir(), &sb.path(".claude")] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let Some(out) = as_nobody(&sb, &["install"]) else {
        ctxmon_test_support::skip!(
            "cannot switch to user nobody (needs root and setpriv); skipping"
        );
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write")
            && stderr.contains("owner uid 0")
            && stderr.contains("nothing was changed"),
        "{stderr}"
    );
    assert_eq!(read(&sb, SETTINGS), fixture("realistic.json"));
    assert_eq!(claude_dir(&sb), ["settings.json"]);
}

#[test]
fn a_folder_nobody_may_write_in_stops_a_new_file_before_anything_is_written() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(".claude")).unwrap();
    for dir in [sb.dir(), &sb.path(".claude")] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let Some(out) = as_nobody(&sb, &["install"]) else {
        ctxmon_test_support::skip!(
            "cannot switch to user nobody (needs root and setpriv); skipping"
        );
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write in"), "{stderr}");
    assert!(claude_dir(&sb).is_empty());
}
