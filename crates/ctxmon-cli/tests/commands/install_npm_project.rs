//! `npx ctxmon install` where ctxmon is the project's npm dependency: the committed
//! `.claude/settings.json` gets a command every teammate's checkout runs (the project's own
//! `node_modules/.bin/ctxmon`, found through `$CLAUDE_PROJECT_DIR`), not this machine's path,
//! and that command really runs the binary when a hook runs it.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use crate::common::Sandbox;
use crate::common::settings::{SETTINGS, read};

const BIN: &str = env!("CARGO_BIN_EXE_ctxmon");

/// A project with ctxmon as an npm dependency, laid out as npm lays it out once the launcher
/// has linked itself to the native binary; returns the sandbox and the binary's path.
fn npm_project() -> (Sandbox, PathBuf) {
    let mut sb = Sandbox::new();
    sb.write("package.json", r#"{"devDependencies": {"ctxmon": "*"}}"#);
    let exe = sb.path("node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon");
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    if std::fs::hard_link(BIN, &exe).is_err() {
        std::fs::copy(BIN, &exe).unwrap();
    }
    std::fs::create_dir_all(sb.path("node_modules/.bin")).unwrap();
    std::os::unix::fs::symlink(
        "../@ctxmon/linux-x64-gnu/bin/ctxmon",
        sb.path("node_modules/.bin/ctxmon"),
    )
    .unwrap();
    // npx puts the project's node_modules/.bin first on PATH for the one command.
    let bin = sb.path("node_modules/.bin");
    sb.prepend_path(&bin);
    (sb, exe)
}

#[test]
fn a_project_dependency_is_named_through_the_project_folder() {
    let (sb, exe) = npm_project();
    let run = sb.run_program(&exe, &["install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = read(&sb, SETTINGS);
    assert!(
        !text.contains(&sb.dir().display().to_string()),
        "no machine path in the shared file: {text}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let command = v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let program = command.strip_suffix(" hooks prompt-submit").unwrap();
    assert!(program.contains("node_modules/.bin/ctxmon"), "{command}");
    assert!(program.contains("CLAUDE_PROJECT_DIR"), "{command}");

    // The command works where the hook runs: a shell with CLAUDE_PROJECT_DIR set (Claude Code
    // sets it for hooks) and without it in the project folder (the status line's case).
    for with_var in [true, false] {
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c")
            .arg(format!("{program} --version"))
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .current_dir(sb.dir());
        if with_var {
            sh.env("CLAUDE_PROJECT_DIR", sb.dir()).current_dir("/");
        }
        let out = sh.output().unwrap();
        assert!(out.status.success(), "{with_var}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).starts_with("ctxmon "),
            "{out:?}"
        );
    }

    // Install again is an update that finds nothing to do; uninstall removes every entry.
    let again = sb.run_program(&exe, &["install", "--statusline"], "");
    assert!(
        again.stdout.contains("already installed"),
        "{}",
        again.stdout
    );

    // Doctor accepts every hook line.
    let doctor = sb.run_program(&exe, &["--json", "doctor"], "");
    let checks: serde_json::Value = serde_json::from_str(&doctor.stdout).unwrap();
    for check in checks.as_array().unwrap() {
        let name = check["check"].as_str().unwrap();
        if name.starts_with("hook ") && name != "hook log" || name == "statusline" {
            assert_eq!(check["status"], "ok", "{check}");
        }
    }
    let removed = sb.run_program(&exe, &["uninstall"], "");
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    // Install made the file, so uninstall removes it.
    assert!(!sb.path(SETTINGS).exists(), "{}", removed.stdout);
}
