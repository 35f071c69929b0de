//! An embedder's figures are the binary's. `examples/embed` (a crate of its own depending on
//! ctxmon-application alone) prints what `ctxmon --json status` reports of a transcript, and
//! a program that applies the agents' own settings through the library gets `status`'s room
//! to auto-compaction, overrides included.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::ports::AgentKind;
use ctxmon_application::readers::TranscriptFiles;
use serde_json::Value;

use crate::common::Sandbox;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example's binary, built offline from its own lockfile into its own target folder (so
/// the build never waits for the lock this test run holds).
fn build_example() -> PathBuf {
    let target = root().join("target/embed");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--offline",
            "--locked",
            "--manifest-path",
        ])
        .arg(root().join("examples/embed/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building examples/embed failed");
    target
        .join("debug")
        .join(format!("ctxmon-embed{}", std::env::consts::EXE_SUFFIX))
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            jsonl_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
}

fn status(sandbox: &Sandbox, transcript: &Path) -> (i32, Value) {
    let path = transcript.to_string_lossy();
    let run = sandbox.run(&["--json", "status", "--transcript", &path], "");
    let value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    (run.code, value)
}

#[test]
fn the_embed_example_prints_what_status_reports_on_every_transcript() {
    let example = build_example();
    let sandbox = Sandbox::new();
    let mut files = Vec::new();
    jsonl_files(&root().join("fixtures/transcripts"), &mut files);
    let shared = root().join("../shared/fixtures");
    for agent in ["claude-code-transcripts", "codex-rollouts", "gemini-chats"] {
        if shared.join(agent).is_dir() {
            jsonl_files(&shared.join(agent), &mut files);
        } else {
            ctxmon_test_support::skip!("{} is absent; not compared", shared.join(agent).display());
        }
    }
    assert!(files.len() >= 2, "{files:?}");
    // A file that is not a transcript at all: both refuse it.
    files.push(sandbox.write("garbage.jsonl", "not json\n"));
    let mut measured = 0;
    for file in &files {
        let (code, theirs) = status(&sandbox, file);
        let path = file.to_string_lossy();
        let ours = sandbox.run_program(&example, &[&path], "");
        assert_eq!(
            ours.code == 0,
            code == 0,
            "{path}: status exited {code}, the example {} ({})",
            ours.code,
            ours.stderr
        );
        if code != 0 {
            continue;
        }
        measured += 1;
        let line: Value = serde_json::from_str(ours.stdout.trim()).unwrap();
        for (mine, key) in [
            ("agent", "agent"),
            ("tokens", "input_tokens"),
            ("window", "context_window_size"),
            ("model", "model"),
        ] {
            assert_eq!(line.get(mine), theirs.get(key), "{path}: {mine}");
        }
    }
    assert!(measured >= 2);
}

/// The room to auto-compaction an embedder computes with the library, given the same files
/// and environment, is `status`'s.
fn library_room(sandbox: &Sandbox, transcript: &Path, agent: AgentKind) -> Option<u64> {
    let mut env: Vec<(String, String)> = sandbox.env.clone();
    env.push(("HOME".into(), sandbox.home.path().display().to_string()));
    let mut settings = FillSettings::default();
    let mut files = |path: &Path| match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    };
    let warnings = settings.apply_agent_settings(agent, sandbox.dir(), &env, &mut files);
    assert!(warnings.is_empty(), "{warnings:?}");
    let reader = TranscriptFiles::new(|path: &Path| File::open(path));
    let fill = reader
        .measure(transcript, &settings, None)
        .expect("the transcript measures");
    fill.estimate.tokens_until_auto_compact.map(|t| t.get())
}

#[test]
fn an_embedders_room_to_auto_compaction_is_status_s_overrides_included() {
    let mut sandbox = Sandbox::new();
    sandbox.write(".claude/settings.json", r#"{"autoCompactWindow": 150000}"#);
    sandbox.set_env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "70");
    let line = r#"{"type":"assistant","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":12,"cache_read_input_tokens":68170}}}"#;
    let transcript = sandbox.write("t.jsonl", format!("{line}\n"));
    let (code, theirs) = status(&sandbox, &transcript);
    assert_eq!(code, 0, "{theirs}");
    let room = theirs["tokens_until_auto_compact"].as_u64();
    // 70% of the 150,000-token compaction window, less the 68,182 in the context.
    assert_eq!(room, Some(105_000 - 68_182));
    assert_eq!(
        library_room(&sandbox, &transcript, AgentKind::ClaudeCode),
        room
    );

    // Turned off in the user's settings: no room to speak of, on both sides.
    let off = Sandbox::new();
    let user = off.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, r#"{"autoCompactEnabled": false}"#).unwrap();
    let transcript = off.write("t.jsonl", format!("{line}\n"));
    let (_, theirs) = status(&off, &transcript);
    assert_eq!(theirs["tokens_until_auto_compact"], Value::Null);
    assert_eq!(library_room(&off, &transcript, AgentKind::ClaudeCode), None);
}

#[test]
fn an_embedders_codex_limit_is_status_s() {
    let mut sandbox = Sandbox::new();
    let codex_home = sandbox.home.path().join("codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        "model_auto_compact_token_limit = 200000\n",
    )
    .unwrap();
    sandbox.set_env("CODEX_HOME", &codex_home.display().to_string());
    let rollout = [
        r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"s","cwd":"/p"}}"#,
        r#"{"timestamp":"t1","type":"turn_context","payload":{"model":"gpt-5.3-codex"}}"#,
        r#"{"timestamp":"t2","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":60000,"cached_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":0,"total_tokens":60100},"model_context_window":258400}}}"#,
    ]
    .join("\n");
    let transcript = sandbox.write("rollout.jsonl", rollout + "\n");
    let (code, theirs) = status(&sandbox, &transcript);
    assert_eq!(code, 0, "{theirs}");
    let room = theirs["tokens_until_auto_compact"].as_u64();
    assert_eq!(room, Some(200_000 - 60_100));
    assert_eq!(library_room(&sandbox, &transcript, AgentKind::Codex), room);
}

#[test]
fn an_embedders_gemini_compression_point_is_status_s() {
    let chat =
        root().join("../shared/fixtures/gemini-chats/session-2026-04-25T08-23-e435870b.jsonl");
    if !chat.is_file() {
        ctxmon_test_support::skip!("{} is absent; not compared", chat.display());
        return;
    }
    let sandbox = Sandbox::new();
    sandbox.write(
        ".gemini/settings.json",
        r#"{"model": {"compressionThreshold": 0.5}}"#,
    );
    let (code, theirs) = status(&sandbox, &chat);
    assert_eq!(code, 0, "{theirs}");
    let room = theirs["tokens_until_auto_compact"].as_u64();
    // Half of Gemini's 1,048,576-token window, less the chat's 13,116.
    assert_eq!(room, Some(524_288 - 13_116));
    assert_eq!(library_room(&sandbox, &chat, AgentKind::Gemini), room);
}
