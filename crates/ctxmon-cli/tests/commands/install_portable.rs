//! Portable project settings: at project scope, install writes the bare
//! `ctxmon hooks …` when the binary running is the `ctxmon` PATH finds, so the committed file
//! works on every teammate's machine; otherwise the absolute path and a note that `--scope
//! local` keeps machine paths out of shared files. User and local scope keep absolute paths.
//! Doctor accepts the bare form when PATH resolves it, and says what to do when it does not.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use settings::{SETTINGS, exe, read};

use crate::common;
use crate::common::Sandbox;
use crate::common::settings;

const BIN: &str = env!("CARGO_BIN_EXE_ctxmon");

/// A folder in the sandbox's HOME holding `ctxmon`, made by `make`, put first on PATH.
fn with_ctxmon_on_path(make: impl Fn(&Path)) -> (Sandbox, PathBuf) {
    let mut sb = Sandbox::new();
    let dir = sb.home.path().join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    make(&dir.join("ctxmon"));
    sb.prepend_path(&dir);
    (sb, dir)
}

/// `ctxmon` on PATH is a link to the binary under test (as `cargo install` or a package
/// manager's link would be).
fn linked() -> (Sandbox, PathBuf) {
    with_ctxmon_on_path(|at| std::os::unix::fs::symlink(BIN, at).unwrap())
}

/// Every hook command in `text`'s `hooks`, and the status line's command.
fn commands(text: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut out: Vec<String> = v["hooks"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|groups| groups.as_array().unwrap().clone())
        .flat_map(|group| group["hooks"].as_array().unwrap().clone())
        .map(|hook| hook["command"].as_str().unwrap().to_string())
        .collect();
    if let Some(line) = v["statusLine"]["command"].as_str() {
        out.push(line.to_string());
    }
    out
}

fn json(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", run.stdout, run.stderr))
}

#[test]
fn the_shared_project_file_names_ctxmon_when_path_finds_this_binary() {
    let (sb, _) = linked();
    let run = sb.run(&["install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("note:"), "{}", run.stdout);
    let all = commands(&read(&sb, SETTINGS));
    assert_eq!(all.len(), 8, "{all:?}");
    assert!(
        all.iter()
            .all(|c| c.starts_with("ctxmon hooks ") || c == "ctxmon statusline"),
        "{all:?}"
    );
    assert!(!read(&sb, SETTINGS).contains(&exe()), "no machine path");

    // Doctor accepts it, and says which binary PATH finds.
    let doctor = sb.run(&["--json", "doctor"], "");
    let checks = json(&doctor);
    for check in checks.as_array().unwrap() {
        let name = check["check"].as_str().unwrap();
        let hook = name.starts_with("hook ") && name != "hook log";
        if hook || name == "statusline" {
            assert_eq!(check["status"], "ok", "{check}");
        }
        if hook {
            assert!(
                check["message"].as_str().unwrap().contains("(on PATH: "),
                "{check}"
            );
        }
    }

    // The same file on a machine without ctxmon on PATH (a teammate's): doctor says so and
    // what to do, rather than calling the path stale.
    let mut elsewhere = Sandbox::new();
    elsewhere.set_env("PATH", "/usr/bin:/bin");
    elsewhere.write(SETTINGS, read(&sb, SETTINGS));
    let doctor = elsewhere.run(&["--json", "doctor"], "");
    assert_eq!(doctor.code, 1);
    let checks = json(&doctor);
    let hook = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "hook UserPromptSubmit")
        .unwrap();
    assert_eq!(hook["status"], "fail", "{hook}");
    assert!(
        hook["message"]
            .as_str()
            .unwrap()
            .contains("`ctxmon` is not on PATH"),
        "{hook}"
    );
    assert!(
        hook["fix"]
            .as_str()
            .unwrap()
            .starts_with("put ctxmon on PATH"),
        "{hook}"
    );
}

/// An absolute path written earlier (before ctxmon was on PATH) becomes the bare name, and back
/// again when PATH no longer finds this binary.
#[test]
fn an_earlier_absolute_path_becomes_portable_and_back() {
    let (sb, _) = linked();
    let mut plain = Sandbox::new();
    plain.project = sb.project;
    plain.set_env("PATH", "/usr/bin:/bin");
    let first = plain.run(&["install"], "");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(commands(&read(&plain, SETTINGS))[0].starts_with(&exe()));

    let mut on_path = Sandbox::new();
    let dir = on_path.home.path().join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(BIN, dir.join("ctxmon")).unwrap();
    on_path.prepend_path(&dir);
    on_path.project = plain.project;
    let second = on_path.run(&["--json", "install"], "");
    let v = json(&second);
    assert_eq!(v["program"], "ctxmon");
    assert_eq!(v["note"], Value::Null);
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["action"] == "updated")
    );
    assert!(
        commands(&read(&on_path, SETTINGS))
            .iter()
            .all(|c| c.starts_with("ctxmon hooks "))
    );
    let again = on_path.run(&["install"], "");
    assert!(
        again.stdout.contains("already installed"),
        "{}",
        again.stdout
    );
}

/// User and local scope are one person's files: they keep the absolute path, which runs
/// whatever PATH the agent starts with.
#[test]
fn user_and_local_scope_keep_the_absolute_path() {
    let (sb, _) = linked();
    for scope in ["local", "user"] {
        // Both scopes on purpose: --force.
        let run = sb.run(
            &[
                "--json",
                "install",
                "--scope",
                scope,
                "--statusline",
                "--force",
            ],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let v = json(&run);
        assert_eq!(v["program"], exe().as_str(), "{scope}");
        assert_eq!(v["note"], Value::Null, "{scope}: nothing shared");
        let text = std::fs::read_to_string(v["path"].as_str().unwrap()).unwrap();
        assert!(
            commands(&text).iter().all(|c| c.starts_with(&exe())),
            "{scope}: {text}"
        );
    }
}

/// Not on PATH, or another binary first on PATH: the absolute path, and a note saying what it
/// costs a teammate and that `--scope local` keeps machine paths out of shared files.
#[test]
fn otherwise_the_absolute_path_and_a_note() {
    let (another, other_dir) =
        with_ctxmon_on_path(|at| std::fs::write(at, "#!/bin/sh\necho other\n").unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            other_dir.join("ctxmon"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let mut none = Sandbox::new();
    none.set_env("PATH", "/usr/bin:/bin");
    for (sb, why) in [
        (&another, "the `ctxmon` on PATH is another binary"),
        (&none, "ctxmon is not on PATH"),
    ] {
        let run = sb.run(&["install"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            commands(&read(sb, SETTINGS))
                .iter()
                .all(|c| c.starts_with(&exe()))
        );
        let note = run
            .stdout
            .lines()
            .find(|l| l.starts_with("note: "))
            .unwrap_or_else(|| panic!("no note: {}", run.stdout));
        assert!(note.contains(why), "{note}");
        assert!(note.contains("--scope local"), "{note}");
        assert!(note.contains("teammate"), "{note}");
        // Said again by a later install that changes nothing: the file is still not portable.
        let again = sb.run(&["install"], "");
        assert!(again.stdout.contains("already installed"));
        assert!(again.stdout.contains("--scope local"), "{}", again.stdout);
        let v = json(&sb.run(&["--json", "install", "--dry-run"], ""));
        assert!(v["note"].as_str().unwrap().contains(why), "{v}");
    }
}

#[test]
fn codex_project_scope_is_portable_too_and_its_user_scope_is_not() {
    let (sb, _) = linked();
    let run = sb.run(&["install", "--agent", "codex"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(sb.path(".codex/hooks.json")).unwrap();
    let all = commands(&text);
    assert_eq!(all.len(), 5);
    assert!(
        all.iter().all(|c| c.starts_with("ctxmon hooks ")),
        "{all:?}"
    );
    let user = json(&sb.run(
        &[
            "--json", "install", "--agent", "codex", "--scope", "user", "--force",
        ],
        "",
    ));
    assert_eq!(user["program"], exe().as_str());
}

/// `npx ctxmon install` and npm scripts put the project's `node_modules/.bin` on PATH for that
/// one command; Claude Code's hooks run without it, so it does not make the name portable.
#[test]
fn a_node_modules_folder_on_path_does_not_count() {
    let mut sb = Sandbox::new();
    let bin = sb.path("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("ctxmon")).unwrap();
    sb.set_env("PATH", &format!("{}:/usr/bin:/bin", bin.display()));
    let v = json(&sb.run(&["--json", "install"], ""));
    assert_eq!(v["program"], exe().as_str());
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .contains("ctxmon is not on PATH"),
        "{v}"
    );
}
