//! The Claude Code plugin in the repository: `.claude-plugin/plugin.json`, `hooks/hooks.json`
//! and the `hooks/ctxmon-hook` wrapper, run with real hook JSON the way Claude Code runs it
//! (through a shell, cleared environment, `CLAUDE_PLUGIN_ROOT` set).

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Sandbox, additional_context, transcript_with};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn json_file(rel: &str) -> Value {
    let text = std::fs::read_to_string(repo(rel)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel} is not valid JSON: {e}"))
}

struct Wrapped {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `hooks/ctxmon-hook <args>` with `/bin/sh` like Claude Code would: only PATH, HOME,
/// CLAUDE_PROJECT_DIR and CLAUDE_PLUGIN_ROOT in the environment, the hook JSON on stdin.
fn wrapper(sb: &Sandbox, plugin_root: &Path, path: &str, args: &[&str], stdin: &str) -> Wrapped {
    let started = Instant::now();
    let mut child = Command::new("/bin/sh")
        .arg(repo("hooks/ctxmon-hook"))
        .args(args)
        .current_dir(sb.dir())
        .env_clear()
        .env("PATH", path)
        .env("HOME", sb.home.path())
        .env("CLAUDE_PROJECT_DIR", sb.dir())
        .env("CLAUDE_PLUGIN_ROOT", plugin_root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    Wrapped {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// A folder holding `ctxmon`: a link to the real binary, or a fake shell script.
fn bin_dir(fake: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ctxmon");
    match fake {
        None => symlink(env!("CARGO_BIN_EXE_ctxmon"), &path).unwrap(),
        Some(script) => {
            std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    dir
}

/// A UserPromptSubmit input whose transcript sits at 75% of a 200K window.
fn warning_prompt(sb: &Sandbox) -> String {
    let transcript = sb.write("t.jsonl", transcript_with(&[150_000]));
    sb.prompt_input("plugin-session", &transcript)
}

const SYSTEM_PATH: &str = "/usr/bin:/bin";

#[test]
fn the_binary_on_path_answers_through_the_wrapper() {
    let sb = Sandbox::new();
    let bin = bin_dir(None);
    let empty_root = tempfile::tempdir().unwrap();
    let path = format!("{}:{SYSTEM_PATH}", bin.path().display());
    let run = wrapper(
        &sb,
        empty_root.path(),
        &path,
        &["prompt-submit", "4"],
        &warning_prompt(&sb),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let context = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(context.contains("tier=\"WARNING\""), "{context}");
}

#[test]
fn the_plugins_own_bin_folder_wins_and_timeout_is_optional() {
    let sb = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("bin")).unwrap();
    symlink(env!("CARGO_BIN_EXE_ctxmon"), root.path().join("bin/ctxmon")).unwrap();
    // A PATH with a fake ctxmon that would print garbage, and without timeout(1).
    let decoy = bin_dir(Some("echo decoy"));
    let path = decoy.path().display().to_string();
    let run = wrapper(
        &sb,
        root.path(),
        &path,
        &["prompt-submit"],
        &warning_prompt(&sb),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stdout.contains("decoy"), "{}", run.stdout);
    additional_context(&run.stdout, "UserPromptSubmit");
}

/// Runs the wrapper's prompt-submit with a plain PATH, an empty plugin root and `sb`'s HOME.
fn without_path_binary(sb: &Sandbox, session: &str) -> Wrapped {
    let empty_root = tempfile::tempdir().unwrap();
    let transcript = sb.write("t.jsonl", transcript_with(&[150_000]));
    wrapper(
        sb,
        empty_root.path(),
        SYSTEM_PATH,
        &["prompt-submit", "4"],
        &sb.prompt_input(session, &transcript),
    )
}

/// True (with a notice) when this machine has a ctxmon the wrapper finds outside the
/// sandbox: on the system PATH or in a system-wide npm prefix.
fn ctxmon_on_system_path() -> bool {
    let found = [
        "/usr/bin/ctxmon",
        "/bin/ctxmon",
        "/usr/local/lib/node_modules/ctxmon",
        "/usr/lib/node_modules/ctxmon",
        "/opt/homebrew/lib/node_modules/ctxmon",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists());
    if let Some(place) = found {
        ctxmon_test_support::skip!("a ctxmon is installed at {place}; skipping");
    }
    found.is_some()
}

#[test]
fn a_missing_binary_says_how_to_install_once_per_session() {
    if ctxmon_on_system_path() {
        return;
    }
    let sb = Sandbox::new();
    let first = without_path_binary(&sb, "session-a");
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let answer: Value = serde_json::from_str(first.stdout.trim()).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(message.contains("npm install -g ctxmon"), "{message}");
    assert!(message.contains("cargo install"), "{message}");
    assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    assert_eq!(first.stderr.lines().count(), 1, "{}", first.stderr);
    assert!(
        first.stderr.contains("binary not found"),
        "{}",
        first.stderr
    );

    // The same session hears nothing more, on any hook; another session is told once.
    let second = without_path_binary(&sb, "session-a");
    assert_eq!((second.code, second.stdout.as_str()), (Some(0), ""));
    assert_eq!(second.stderr, "");
    let other = without_path_binary(&sb, "session-b");
    assert!(other.stdout.contains("systemMessage"), "{}", other.stdout);
    let marker = sb
        .home
        .path()
        .join(".local/state/ctxmon/missing-binary/session-a");
    assert!(marker.is_file(), "no marker at {}", marker.display());
}

#[test]
fn a_missing_binary_with_an_odd_or_no_session_id_still_fails_open() {
    if ctxmon_on_system_path() {
        return;
    }
    let sb = Sandbox::new();
    let empty_root = tempfile::tempdir().unwrap();
    for (input, shown) in [
        ("{\"session_id\": \"../../x\"}", true),
        ("{\"session_id\": \"../../x\"}", false),
        ("not json", true),
        ("", false),
    ] {
        let run = wrapper(
            &sb,
            empty_root.path(),
            SYSTEM_PATH,
            &["session-start", "9"],
            input,
        );
        assert_eq!(run.code, Some(0));
        assert_eq!(
            run.stdout.contains("systemMessage"),
            shown,
            "{input:?}: {}",
            run.stdout
        );
    }
    // The id is reduced to a plain file name inside the state folder.
    let state = sb.home.path().join(".local/state/ctxmon/missing-binary");
    let names: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"x".to_string()), "{names:?}");
    assert!(names.contains(&"no-session".to_string()), "{names:?}");
}

/// The wrapper finds the binary where each install method puts it, with nothing on PATH.
#[test]
fn the_binary_is_found_where_npm_and_cargo_install_it() {
    if ctxmon_on_system_path() {
        return;
    }
    let places = [
        // npm install -g with prefix ~/.npm-global: nested below the launcher package.
        ".npm-global/lib/node_modules/ctxmon/node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon",
        // npx ctxmon: npm's exec cache, hoisted.
        ".npm/_npx/0123abcd/node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon",
        // nvm's per-version global prefix.
        ".nvm/versions/node/v20.1.0/lib/node_modules/ctxmon/node_modules/@ctxmon/linux-arm64-gnu/bin/ctxmon",
        // cargo install.
        ".cargo/bin/ctxmon",
    ];
    for place in places {
        let sb = Sandbox::new();
        let path = sb.home.path().join(place);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(env!("CARGO_BIN_EXE_ctxmon"), &path).unwrap();
        let run = without_path_binary(&sb, "found");
        assert_eq!(run.code, Some(0), "{place}: {}", run.stderr);
        let context = additional_context(&run.stdout, "UserPromptSubmit");
        assert!(context.contains("tier=\"WARNING\""), "{place}: {context}");
    }
    // A prefix set in ~/.npmrc (`~/` expanded) is looked at too.
    let sb = Sandbox::new();
    std::fs::write(sb.home.path().join(".npmrc"), "prefix = ~/tools/npm\n").unwrap();
    let path = sb
        .home
        .path()
        .join("tools/npm/lib/node_modules/ctxmon/node_modules/@ctxmon/darwin-arm64/bin/ctxmon");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    symlink(env!("CARGO_BIN_EXE_ctxmon"), &path).unwrap();
    let run = without_path_binary(&sb, "npmrc");
    additional_context(&run.stdout, "UserPromptSubmit");
}

/// PATH comes before npm and cargo: what the user's shell runs is what the plugin runs.
#[test]
fn path_wins_over_npm_and_cargo_installs() {
    let sb = Sandbox::new();
    let cargo = sb.home.path().join(".cargo/bin/ctxmon");
    std::fs::create_dir_all(cargo.parent().unwrap()).unwrap();
    std::fs::write(&cargo, "#!/bin/sh\necho cargo-decoy\n").unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = bin_dir(None);
    let empty_root = tempfile::tempdir().unwrap();
    let path = format!("{}:{SYSTEM_PATH}", bin.path().display());
    let run = wrapper(
        &sb,
        empty_root.path(),
        &path,
        &["prompt-submit", "4"],
        &warning_prompt(&sb),
    );
    assert!(!run.stdout.contains("cargo-decoy"), "{}", run.stdout);
    additional_context(&run.stdout, "UserPromptSubmit");
}

fn has_timeout() -> bool {
    let found = Path::new("/usr/bin/timeout").exists() || Path::new("/bin/timeout").exists();
    if !found {
        ctxmon_test_support::skip!("no timeout(1) here; skipping");
    }
    found
}

/// Runs the wrapper with `limit` seconds around a fake binary, which is expected to be stopped:
/// exit 0, no answer (the half printed before the hang must never reach Claude Code), gone
/// before `limit` seconds and a half, i.e. before Claude Code's timeout of `limit + 1`.
fn stopped(script: &str, limit: u64) -> Wrapped {
    let sb = Sandbox::new();
    let empty_root = tempfile::tempdir().unwrap();
    let bin = bin_dir(Some(script));
    let path = format!("{}:{SYSTEM_PATH}", bin.path().display());
    let run = wrapper(
        &sb,
        empty_root.path(),
        &path,
        &["prompt-submit", &limit.to_string()],
        &warning_prompt(&sb),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.elapsed < Duration::from_millis(limit * 1000 + 500),
        "still running at {:?}; Claude Code gives up at {}s",
        run.elapsed,
        limit + 1
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    run
}

#[test]
fn a_hanging_binary_is_stopped_by_term_a_second_early_and_says_nothing() {
    if !has_timeout() {
        return;
    }
    let run = stopped("printf '{\"hookSpecificOutput\":'\nexec sleep 30", 2);
    assert!(
        run.elapsed >= Duration::from_millis(900),
        "{:?}",
        run.elapsed
    );
    assert!(
        run.stderr
            .contains("timed out: stopped by TERM after 1s (status 124)"),
        "{}",
        run.stderr
    );
}

/// The KILL that follows an ignored TERM must land before Claude Code's own timeout, not at it.
#[test]
fn a_binary_that_ignores_term_is_killed_before_claude_codes_timeout() {
    if !has_timeout() {
        return;
    }
    // `trap '' TERM` is inherited by sleep, so nothing in the fake stops on TERM.
    let run = stopped(
        "trap '' TERM\nprintf '{\"hookSpecificOutput\":'\nsleep 30",
        2,
    );
    assert!(
        run.stderr
            .contains("timed out: killed at the 2s limit (status 137)"),
        "{}",
        run.stderr
    );
    // A one-second limit has no room for TERM first: KILL at once.
    let run = stopped("trap '' TERM\nsleep 30", 1);
    assert!(
        run.stderr.contains("killed at the 1s limit"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_failing_binary_gives_no_answer_and_exit_0() {
    let sb = Sandbox::new();
    let empty_root = tempfile::tempdir().unwrap();
    let bin = bin_dir(Some("echo '{\"broken\"'; exit 3"));
    let path = format!("{}:{SYSTEM_PATH}", bin.path().display());
    let run = wrapper(&sb, empty_root.path(), &path, &["session-start", "9"], "{}");
    assert_eq!(run.code, Some(0));
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr.trim(),
        "ctxmon: hooks session-start ended with status 3; no answer"
    );
    // The binary's own diagnostics still reach Claude Code's stderr.
    let bin = bin_dir(Some("echo 'ctxmon: bad config' >&2; exit 3"));
    let path = bin.path().display().to_string();
    let run = wrapper(&sb, empty_root.path(), &path, &["session-start", "9"], "{}");
    assert!(
        run.stderr.starts_with("ctxmon: bad config\n"),
        "{}",
        run.stderr
    );
    // Only a status timeout(1) gives is called a timeout.
    let bin = bin_dir(Some("exit 124"));
    let path = bin.path().display().to_string();
    let run = wrapper(&sb, empty_root.path(), &path, &["session-start", "9"], "{}");
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stderr.trim(),
        "ctxmon: hooks session-start ended with status 124; no answer"
    );
}

#[test]
fn plugin_json_names_ctxmon_at_the_crate_version() {
    let plugin = json_file(".claude-plugin/plugin.json");
    assert_eq!(plugin["name"], "ctxmon");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    assert!(plugin["description"].as_str().is_some_and(|d| d.len() > 40));
    assert!(plugin["author"]["name"].is_string());
}

/// `/plugin marketplace add <repo>` reads `.claude-plugin/marketplace.json` at the repository
/// root; `/plugin install ctxmon@ctxmon` then installs the entry whose source is that root.
#[test]
fn marketplace_json_lists_this_plugin_from_the_repository_root() {
    let market = json_file(".claude-plugin/marketplace.json");
    let name = market["name"].as_str().unwrap();
    assert!(
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
        "marketplace names are kebab-case: {name}"
    );
    assert!(
        !name.contains("claude") && !name.contains("anthropic"),
        "reserved-looking name"
    );
    assert!(market["owner"]["name"].is_string());
    let plugins = market["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    let entry = &plugins[0];
    let plugin = json_file(".claude-plugin/plugin.json");
    assert_eq!(entry["name"], plugin["name"]);
    let source = entry["source"].as_str().unwrap();
    assert!(
        source.starts_with("./"),
        "relative sources start with ./: {source}"
    );
    let root = repo(source);
    assert!(root.join(".claude-plugin/plugin.json").is_file());
    assert!(root.join("hooks/hooks.json").is_file());
    // plugin.json alone carries the version, so the two files cannot disagree on it.
    assert!(entry.get("version").is_none());
    assert_eq!(entry["license"], plugin["license"]);
}

/// Per event: (matcher, timeout, hook name) — from a settings or hooks.json document.
fn registrations(
    doc: &Value,
    mut hook_name: impl FnMut(&str) -> String,
) -> BTreeMap<String, (Option<String>, u64, String)> {
    let mut table = BTreeMap::new();
    for (event, groups) in doc["hooks"].as_object().unwrap() {
        let groups = groups.as_array().unwrap();
        assert_eq!(groups.len(), 1, "{event}");
        let hook = &groups[0]["hooks"][0];
        assert_eq!(hook["type"], "command");
        table.insert(
            event.clone(),
            (
                groups[0]["matcher"].as_str().map(String::from),
                hook["timeout"].as_u64().unwrap(),
                hook_name(hook["command"].as_str().unwrap()),
            ),
        );
    }
    table
}

#[test]
fn hooks_json_registers_exactly_what_install_writes() {
    let sb = Sandbox::new();
    let run = sb.run(&["install"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(sb.path(".claude/settings.json")).unwrap())
            .unwrap();
    let installed = registrations(&settings, |command| {
        let (_, name) = command.rsplit_once(" hooks ").unwrap();
        name.to_string()
    });
    let plugin = json_file("hooks/hooks.json");
    let mut wrapper_limits = Vec::new();
    let plugin_table = registrations(&plugin, |command| {
        let args = command
            .strip_prefix("\"${CLAUDE_PLUGIN_ROOT}/hooks/ctxmon-hook\" ")
            .unwrap_or_else(|| panic!("{command}"));
        let (name, limit) = args.split_once(' ').unwrap();
        wrapper_limits.push((name.to_string(), limit.parse::<u64>().unwrap()));
        name.to_string()
    });
    assert_eq!(plugin_table, installed);
    assert_eq!(installed.len(), 7);
    assert!(
        installed["SessionStart"].0.is_none(),
        "SessionStart must have no matcher"
    );
    assert!(
        installed["PostToolUse"].0.is_none(),
        "PostToolUse runs after every tool: no matcher"
    );
    assert_eq!(installed["PostToolUse"].2, "post-tool-use");
    // The wrapper gives up one second before Claude Code would.
    for (name, limit) in wrapper_limits {
        let (_, timeout, _) = installed.values().find(|v| v.2 == name).unwrap();
        assert_eq!(limit + 1, *timeout, "{name}");
    }
}

#[test]
fn the_wrapper_is_executable_posix_sh() {
    let path = repo("hooks/ctxmon-hook");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "hooks/ctxmon-hook must be executable");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("#!/bin/sh\n"));
    let check = Command::new("/bin/sh")
        .arg("-n")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    match Command::new("shellcheck")
        .args(["-s", "sh"])
        .arg(&path)
        .output()
    {
        Ok(lint) => assert!(
            lint.status.success(),
            "{}",
            String::from_utf8_lossy(&lint.stdout)
        ),
        Err(_) => {
            ctxmon_test_support::skip!("shellcheck is not installed; hooks/ctxmon-hook not linted")
        }
    }
}
