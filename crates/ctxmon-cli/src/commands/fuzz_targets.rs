//! In-process fuzz targets for what the binary reads from outside: the seven hooks' stdin JSON
//! (parsed and run end to end against a temp project), the status line's stdin, the
//! `ctxmon assemble` input with its JSON-path errors, the `resume-log generate --from` document,
//! the settings file `install` and `uninstall` edit, and a transcript as `ctxmon report` charts
//! it. They live inside the binary crate (a unit-test module) because that is where this code
//! is; the harness is shared with the adapters' targets (`ctxmon_test_support::fuzz`).
//!
//! Besides "never panics", each target checks what the binary promises about its output: a
//! hook answers nothing or one JSON object whose injected text is well-formed XML under
//! 10,000 characters; the status line is one line; a bundle fits its budget; a generated resume
//! log stays within 10,000 tokens and round-trips; install is idempotent and undone exactly by
//! uninstall; the SVG chart is XML.

use std::path::{Path, PathBuf};

use ctxmon_application::assembly::{ContextBuilderOptions, create_context_builder};
use ctxmon_application::config::ResumeLogsConfig;
use ctxmon_application::handoff::resume_log::{
    ExactJson, GenerationInputs, ResumeLogGenerator, TriggerKind, from_json,
};
use ctxmon_application::monitor::fill::{FillSeriesBuilder, FillSettings};
use ctxmon_domain::{ResumeLog, Timestamp, estimate_tokens};
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;
use serde_json::{Value, json};

use super::deadline::Progress;
use crate::cli::{Agent, GlobalArgs, Hook};
use crate::exit::Failure;
use crate::install::merge::{self, Options};
use crate::wire::status_input::StatusInput;
use ctxmon_test_support::fuzz::seeds::{
    SYNTHETIC_TRANSCRIPT, TRANSCRIPT_KEYS, file_seeds, shared_seeds,
};
use ctxmon_test_support::fuzz::{self, Format, Fuzz, Outcome};

/// A temp project with a transcript, a resumption source and one checkpoint, and the global
/// flags that pin every command to it (`--project-dir`, so a fuzzed `cwd` cannot move a hook
/// out of it).
struct Project {
    dir: tempfile::TempDir,
    global: GlobalArgs,
    transcript: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        let transcript = dir.path().join("t.jsonl");
        std::fs::write(&transcript, SYNTHETIC_TRANSCRIPT).expect("transcript");
        std::fs::write(
            dir.path().join("ORCHESTRATION.yaml"),
            "resumption:\n  recovery_state: tax.rs half written\n  next_steps: [write tests]\n  files_to_read: [src/tax.rs]\n  updated_at: 2020-01-01T00:00:00Z\n",
        )
        .expect("source file");
        let global = GlobalArgs {
            json: false,
            project_dir: Some(dir.path().to_path_buf()),
            config: None,
        };
        Project {
            dir,
            global,
            transcript,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs one hook in-process on `stdin`, as the binary does after reading it.
    fn hook(&self, hook: Hook, stdin: &[u8]) -> String {
        super::hooks::answer(
            hook,
            &self.global,
            Ok(stdin.to_vec()),
            &Progress::detached(),
        )
    }

    /// A realistic hook input for `event`, with `extra` fields.
    fn input(&self, event: &str, extra: Value) -> Vec<u8> {
        let mut input = json!({
            "session_id": "0f3c2a10-5b1e-4c2d-9a77-0c1d2e3f4a5b",
            "transcript_path": self.transcript.display().to_string(),
            "cwd": self.path().display().to_string(),
            "permission_mode": "default",
            "hook_event_name": event,
        });
        if let (Some(obj), Value::Object(more)) = (input.as_object_mut(), extra) {
            obj.extend(more);
        }
        serde_json::to_vec(&input).expect("serialize")
    }
}

/// What a hook may print: nothing, or one JSON object whose injected text is short,
/// well-formed XML and carries the right event name; no hook decides a permission.
fn check_answer(hook: Hook, answer: &str) -> Outcome {
    if answer.is_empty() {
        return Ok("silent".into());
    }
    let value: Value = serde_json::from_str(answer)
        .unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {answer}"));
    let obj = value.as_object().expect("the answer is a JSON object");
    if let Some(message) = obj.get("systemMessage") {
        let message = message.as_str().expect("systemMessage is a string");
        assert!(message.chars().count() < 10_000);
        return Ok("system message".into());
    }
    let specific = obj
        .get("hookSpecificOutput")
        .expect("an answer has hookSpecificOutput or systemMessage");
    assert_eq!(
        specific["hookEventName"],
        json!(
            ctxmon_application::agents::AgentKind::ClaudeCode
                .description()
                .event_of(hook)
        ),
        "{answer}"
    );
    // Context only: ctxmon never decides a permission (even "allow" skips the user's prompt)
    // and never adds another key.
    let mut keys: Vec<&str> = specific
        .as_object()
        .expect("hookSpecificOutput is an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["additionalContext", "hookEventName"], "{answer}");
    assert_eq!(obj.len(), 1, "one key besides nothing: {answer}");
    let text = specific["additionalContext"]
        .as_str()
        .expect("additionalContext is a string");
    assert!(!text.is_empty() && text.chars().count() < 10_000, "{text}");
    let wrapped = format!("<answer>{text}</answer>");
    let doc = roxmltree::Document::parse(&wrapped)
        .unwrap_or_else(|e| panic!("injected text is not well-formed XML ({e}):\n{text}"));
    let mut tags: Vec<&str> = doc
        .root_element()
        .children()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name())
        .collect();
    tags.sort_unstable();
    Ok(tags.join("+"))
}

/// Fuzzes one hook's stdin. `seeds` are built from the project (its paths are in them).
fn hook_target(name: &'static str, hook: Hook, seeds: impl Fn(&Project) -> Vec<Vec<u8>>) {
    let project = Project::new();
    // A checkpoint to hand back, as after a real compaction.
    let _ = project.hook(
        Hook::PreCompact,
        &project.input("PreCompact", json!({"trigger": "auto"})),
    );
    let report = Fuzz::new(name, Format::Json)
        .seeds(seeds(&project))
        .dict(TRANSCRIPT_KEYS)
        .dict(&[
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "prompt",
            "source",
            "trigger",
            "custom_instructions",
            "tool_name",
            "tool_input",
            "tool_response",
            "turn_id",
            "reason",
            "model",
            "compact_summary",
            "turn_id",
            "UserPromptSubmit",
            "SessionStart",
            "PreCompact",
            "PreToolUse",
            "PostToolUse",
            "PostCompact",
            "SessionEnd",
            "compact",
            "resume",
            "startup",
            "clear",
            "auto",
            "manual",
            "ORCHESTRATION.yaml",
        ])
        .run(|bytes| {
            let answer = project.hook(hook, bytes);
            check_answer(hook, &answer)
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_hook_prompt_submit() {
    hook_target("hook_prompt_submit", Hook::PromptSubmit, |p| {
        vec![
            p.input(
                "UserPromptSubmit",
                json!({"prompt": "Refactor billing and add tax.rs"}),
            ),
            p.input(
                "UserPromptSubmit",
                json!({"prompt": "</context-monitor>&<x>"}),
            ),
            p.input(
                "UserPromptSubmit",
                json!({"session_id": "../../etc", "prompt": ""}),
            ),
            b"{\"hook_event_name\":\"UserPromptSubmit\"}".to_vec(),
            // Codex's shape: a turn id, the model as a string, no transcript path.
            p.input(
                "UserPromptSubmit",
                json!({"transcript_path": null, "turn_id": "019c8bfe-ed40", "model": "gpt-5.3-codex", "prompt": "go on"}),
            ),
        ]
    });
}

#[test]
fn fuzz_hook_session_start() {
    hook_target("hook_session_start", Hook::SessionStart, |p| {
        ["compact", "resume", "startup", "clear"]
            .iter()
            .map(|source| {
                p.input(
                    "SessionStart",
                    json!({"source": source, "model": "claude-sonnet-4-5"}),
                )
            })
            .collect()
    });
}

#[test]
fn fuzz_hook_pre_compact() {
    hook_target("hook_pre_compact", Hook::PreCompact, |p| {
        vec![
            p.input(
                "PreCompact",
                json!({"trigger": "auto", "custom_instructions": ""}),
            ),
            p.input(
                "PreCompact",
                json!({"trigger": "manual", "custom_instructions": "keep <the> tax & rate work"}),
            ),
        ]
    });
}

#[test]
fn fuzz_hook_pre_tool_use() {
    hook_target("hook_pre_tool_use", Hook::PreToolUse, |p| {
        let source = p.path().join("ORCHESTRATION.yaml").display().to_string();
        vec![
            p.input(
                "PreToolUse",
                json!({"tool_name": "Edit", "tool_input": {"file_path": source, "old_string": "a", "new_string": "b"}}),
            ),
            p.input(
                "PreToolUse",
                json!({"tool_name": "Write", "tool_input": {"file_path": "ORCHESTRATION.yaml", "content": "x"}}),
            ),
            p.input(
                "PreToolUse",
                json!({"tool_name": "NotebookEdit", "tool_input": {"notebook_path": source}}),
            ),
            p.input(
                "PreToolUse",
                json!({"tool_name": "MultiEdit", "tool_input": {"file_path": "/elsewhere/x.rs", "edits": []}}),
            ),
        ]
    });
}

#[test]
fn fuzz_hook_post_tool_use() {
    hook_target("hook_post_tool_use", Hook::PostToolUse, |p| {
        vec![
            p.input(
                "PostToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_response": {"stdout": "ok", "stderr": ""}}),
            ),
            p.input(
                "PostToolUse",
                json!({"tool_name": "Read", "tool_input": {"file_path": "src/lib.rs"}, "tool_response": {"content": "</context-monitor>&"}}),
            ),
            // A session at WARNING: its first run injects, so the answer is checked too.
            p.input(
                "PostToolUse",
                json!({"session_id": "fuzz-loop", "transcript_path": fuzz::workspace_root().join("fixtures/transcripts/session-warning.jsonl").display().to_string(), "tool_name": "Grep"}),
            ),
            // Codex CLI's shape: transcript_path may be null.
            p.input(
                "PostToolUse",
                json!({"transcript_path": null, "model": "gpt-5-codex", "turn_id": "t1", "tool_name": "shell", "tool_response": "ok"}),
            ),
        ]
    });
}

#[test]
fn fuzz_hook_post_compact() {
    hook_target("hook_post_compact", Hook::PostCompact, |p| {
        vec![p.input(
            "PostCompact",
            json!({"trigger": "auto", "compact_summary": "The user asked for tax support."}),
        )]
    });
}

#[test]
fn fuzz_hook_session_end() {
    hook_target("hook_session_end", Hook::SessionEnd, |p| {
        ["exit", "clear", "logout", "prompt_input_exit", "other"]
            .iter()
            .map(|reason| p.input("SessionEnd", json!({"reason": reason})))
            .collect()
    });
}

/// A session's hooks in order: prompt, compaction, the prompt after it, the end.
fn session_sequence(p: &Project) -> Vec<(Hook, Vec<u8>)> {
    vec![
        (
            Hook::PromptSubmit,
            p.input("UserPromptSubmit", json!({"prompt": "go on"})),
        ),
        (
            Hook::PreToolUse,
            p.input(
                "PreToolUse",
                json!({"tool_name": "Edit", "tool_input": {"file_path": p.path().join("ORCHESTRATION.yaml")}}),
            ),
        ),
        (
            Hook::PostToolUse,
            p.input("PostToolUse", json!({"tool_name": "Bash", "tool_response": "ok"})),
        ),
        (
            Hook::PreCompact,
            p.input("PreCompact", json!({"trigger": "auto"})),
        ),
        (
            Hook::PostCompact,
            p.input("PostCompact", json!({"trigger": "auto"})),
        ),
        (
            Hook::SessionStart,
            p.input("SessionStart", json!({"source": "compact"})),
        ),
        (
            Hook::PromptSubmit,
            p.input("UserPromptSubmit", json!({"prompt": "and now?"})),
        ),
        (
            Hook::SessionEnd,
            p.input("SessionEnd", json!({"reason": "exit"})),
        ),
    ]
}

/// Runs `sequence` and joins the answers' labels; the first broken promise panics.
fn run_sequence(p: &Project, sequence: &[(Hook, Vec<u8>)]) -> Outcome {
    let labels: Vec<String> = sequence
        .iter()
        .map(|(hook, stdin)| {
            let answer = p.hook(*hook, stdin);
            check_answer(*hook, &answer).unwrap_or_else(|e| e)
        })
        .collect();
    Ok(labels.join(","))
}

/// The hooks' use cases over a fuzzed transcript: the fill and its tier (resume logs at
/// CRITICAL), the tail a checkpoint is derived from, the compaction and what is handed back.
/// Each execution starts a fresh `.ctxmon`, so every trigger can fire again.
#[test]
fn fuzz_hook_transcript() {
    let project = Project::new();
    let sequence = session_sequence(&project);
    let state = project.path().join(".ctxmon");
    let report = Fuzz::new("hook_transcript", Format::JsonLines)
        .seeds(fuzz::seeds::transcript_seeds(16 * 1024))
        .dict(TRANSCRIPT_KEYS)
        .run(|bytes| {
            let _ = std::fs::remove_dir_all(&state);
            std::fs::write(&project.transcript, bytes).expect("write the transcript");
            run_sequence(&project, &sequence)
        });
    assert!(report.executions > 0);
}

/// The hooks and the status line over a fuzzed session state file (`.ctxmon/state/`), seeded
/// with the states a real session leaves.
#[test]
fn fuzz_hook_state() {
    let project = Project::new();
    let high = fuzz::seeds::file_seeds("fixtures/transcripts", &["session-warning.jsonl"]);
    if let Some(transcript) = high.first() {
        std::fs::write(&project.transcript, transcript).expect("transcript");
    }
    let sequence = session_sequence(&project);
    let layout = ctxmon_infra_fs::ProjectLayout::new(project.path());
    let key = ctxmon_domain::SessionKey::from_raw("0f3c2a10-5b1e-4c2d-9a77-0c1d2e3f4a5b");
    let path = layout.state_file(&key);
    // Fuzz seeds: the state after each step of a real session.
    let mut seeds = Vec::new();
    for (hook, stdin) in &sequence {
        let _ = project.hook(*hook, stdin);
        if let Ok(bytes) = std::fs::read(&path) {
            seeds.push(bytes);
        }
    }
    let status = serde_json::to_vec(&json!({
        "session_id": "0f3c2a10-5b1e-4c2d-9a77-0c1d2e3f4a5b",
        "transcript_path": project.transcript.display().to_string(),
        "context_window": {"context_window_size": 200000, "current_usage": null}
    }))
    .expect("serialize");
    let status = StatusInput::parse(&status).expect("a status payload");
    let report = Fuzz::new("hook_state", Format::Json)
        .seeds(seeds)
        .dict(&[
            "schema_version",
            "last_tier",
            "last_injected_tier",
            "last_fill",
            "last_tokens",
            "compactions_seen",
            "count",
            "last_boundary_uuid",
            "last_boundary_timestamp",
            "last_checkpoint_id",
            "last_checkpoint_at",
            "handoff_complete",
            "threshold_crossed_at",
            "resumption_delivered",
            "resume_log_triggers",
            "updated_at",
            "nominal",
            "low",
            "warning",
            "critical",
            "emergency",
            "tier:critical",
            "pre_compact",
            "cx-001",
        ])
        .run(|bytes| {
            std::fs::write(&path, bytes).expect("write the state");
            let line =
                super::statusline::render_for(&project.global, &status, &Progress::detached());
            assert!(line.starts_with("ctx ") && !line.contains('\n'), "{line:?}");
            std::fs::write(&path, bytes).expect("write the state");
            let prompt = &sequence[0];
            let answer = project.hook(prompt.0, &prompt.1);
            let first = check_answer(prompt.0, &answer)?;
            std::fs::write(&path, bytes).expect("write the state");
            let start = &sequence[4];
            let answer = project.hook(start.0, &start.1);
            let second = check_answer(start.0, &answer)?;
            Ok(format!("{first},{second}"))
        });
    assert!(report.executions > 0);
}

/// The hooks over a fuzzed checkpoint of the session (`cx-001`), seeded with the checkpoints a
/// real compaction writes: what SessionStart hands back (and when, by age), the compaction
/// alert of the next prompt, and the next PreCompact, which lists it.
#[test]
fn fuzz_hook_checkpoint() {
    let project = Project::new();
    let sequence = session_sequence(&project);
    let dot = project.path().join(".ctxmon");
    let checkpoint = dot.join("checkpoints").join("cx-001-checkpoint.json");
    let mut seeds = Vec::new();
    for transcript in fuzz::seeds::file_seeds("fixtures/transcripts", &[".jsonl"])
        .into_iter()
        .chain([SYNTHETIC_TRANSCRIPT.as_bytes().to_vec()])
    {
        let _ = std::fs::remove_dir_all(&dot);
        std::fs::write(&project.transcript, transcript).expect("transcript");
        let _ = project.hook(sequence[2].0, &sequence[2].1);
        seeds.extend(std::fs::read(&checkpoint));
    }
    let startup = project.input("SessionStart", json!({"source": "startup"}));
    let report = Fuzz::new("hook_checkpoint", Format::Json)
        .seeds(seeds)
        .dict(&[
            "schema_version",
            "checkpoint_id",
            "timestamp",
            "created_at_ms",
            "compaction_sequence",
            "trigger",
            "custom_instructions",
            "context_state",
            "resumption_state",
            "session_info",
            "session_id",
            "fill_percentage",
            "input_tokens",
            "context_window_size",
            "threshold_tier",
            "next_steps",
            "files_to_read",
            "todos",
            "origin",
            "source_file",
            "transcript",
            "quality_trajectory",
            "cx-001",
            "cx-002",
        ])
        .run(|bytes| {
            let _ = std::fs::remove_dir_all(&dot);
            if let Some(parent) = checkpoint.parent() {
                std::fs::create_dir_all(parent).expect("checkpoint folder");
            }
            std::fs::write(&checkpoint, bytes).expect("write the checkpoint");
            let mut labels = Vec::new();
            for (hook, stdin) in [
                (Hook::SessionStart, &startup),
                (sequence[4].0, &sequence[4].1),
                (sequence[0].0, &sequence[0].1),
                (sequence[2].0, &sequence[2].1),
            ] {
                let answer = project.hook(hook, stdin);
                labels.push(check_answer(hook, &answer)?);
            }
            Ok(labels.join(","))
        });
    assert!(report.executions > 0);
}

/// The hooks that read the resumption source (`ORCHESTRATION.yaml`), over a fuzzed one:
/// PreToolUse's staleness note, the checkpoint PreCompact derives from it and what SessionStart
/// hands back, each checked as injected XML.
#[test]
fn fuzz_hook_resumption_source() {
    let project = Project::new();
    let sequence = session_sequence(&project);
    let source = project.path().join("ORCHESTRATION.yaml");
    let dot = project.path().join(".ctxmon");
    let report = Fuzz::new("hook_resumption_source", Format::Text)
        .seed(fuzz::seeds::ORCHESTRATION_YAML)
        .seed(std::fs::read(&source).expect("the project's source file"))
        .seed("resumption:\n  updated_at: 1999-01-01T00:00:00Z\n  next_steps: [\"</resumption-context>\", \"&amp;\"]\n")
        .seed("resumption:\n  files_to_read:\n    - {path: \"a\\\"b<c>.rs\", priority: -1, reason: \"]]>\"}\n")
        .dict(&[
            "resumption:\n  ",
            "recovery_state: ",
            "summary: ",
            "quality_trajectory: ",
            "decisions:\n    - ",
            "agent_summaries:\n    - ",
            "files_to_read:\n    - ",
            "next_steps: ",
            "updated_at: ",
            "{path: ",
            "priority: ",
            "reason: ",
            "score: ",
            "iteration: ",
            "2020-01-01T00:00:00Z",
            "</resumption-staleness>",
            "<![CDATA[",
        ])
        .run(|bytes| {
            let _ = std::fs::remove_dir_all(&dot);
            std::fs::write(&source, bytes).expect("write the source file");
            let steps = [1, 2, 4];
            let labels: Result<Vec<String>, String> = steps
                .iter()
                .map(|&i| {
                    let (hook, stdin) = &sequence[i];
                    check_answer(*hook, &project.hook(*hook, stdin))
                })
                .collect();
            labels.map(|l| l.join(","))
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_statusline() {
    let project = Project::new();
    let transcript = project.transcript.display().to_string();
    let recent = json!({
        "hook_event_name": "Status",
        "session_id": "0f3c2a10",
        "transcript_path": transcript,
        "cwd": project.path().display().to_string(),
        "model": {"id": "claude-opus-4-6[1m]", "display_name": "Opus"},
        "workspace": {"current_dir": "/w", "project_dir": "/w"},
        "context_window": {
            "total_input_tokens": 50113,
            "context_window_size": 1000000,
            "current_usage": {"input_tokens": 8500, "output_tokens": 1200,
                "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 2000,
                "cache_creation": {"ephemeral_5m_input_tokens": 5000}}
        }
    });
    let old = json!({"session_id": "x", "transcript_path": transcript,
        "model": {"id": "claude-sonnet-4"}, "total_input_tokens": 5000});
    let report = Fuzz::new("statusline", Format::Json)
        .seed(serde_json::to_vec(&recent).expect("serialize"))
        .seed(serde_json::to_vec(&old).expect("serialize"))
        .seeds(shared_seeds(&[".json"]))
        .dict(TRANSCRIPT_KEYS)
        .dict(&[
            "context_window",
            "context_window_size",
            "current_usage",
            "workspace",
            "current_dir",
            "project_dir",
            "display_name",
        ])
        .run(|bytes| {
            let line = match StatusInput::parse(bytes) {
                Some(input) => {
                    super::statusline::render_for(&project.global, &input, &Progress::detached())
                }
                None => return Err("not a status payload".into()),
            };
            assert!(line.starts_with("ctx "), "{line}");
            assert!(!line.contains(['\n', '\r']), "one line: {line:?}");
            Ok(if line == "ctx --" {
                "unknown".into()
            } else {
                "measured".into()
            })
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_assemble_input() {
    let minimal = br#"{"runId":"r","goal":{"raw":"g"},"agent":{"id":"a","role":"coder"},"constraints":{"maxTokens":10}}"#;
    let rich = json!({
        "runId": "r2",
        "goal": {"raw": "Fix <login> & signup", "intentType": "debug"},
        "agent": {"id": "a", "role": "coder", "capabilities": ["read_files"]},
        "repo": {"root": "/w", "files": [
            {"path": "a.rs", "size": 10, "relevanceScore": 0.9, "content": "fn a() {}"},
            {"path": "b.rs", "size": 99999999999u64, "relevanceScore": -1.0}
        ], "diffs": [{"path": "a.rs", "patch": "+x", "changeType": "modified"}],
          "symbols": [{"name": "a", "kind": "function", "file": "a.rs"}]},
        "memory": {"pinned": [{"id": "m1", "content": "always run tests", "importance": 1.0}],
            "recent": [], "summaries": []},
        "recentEvents": [{"eventId": "e1", "type": "tool_call", "toolName": "Bash",
            "toolCallId": "t1", "args": {"command": "ls"}, "timestamp": 5},
            {"eventId": "e2", "type": "tool_result", "toolCallId": "t1", "result": "ok",
            "timestamp": 6}],
        "constraints": {"maxTokens": 2000, "strategy": "balanced", "nowMs": 10}
    });
    let report = Fuzz::new("assemble_input", Format::Json)
        .seed(minimal.to_vec())
        .seed(serde_json::to_vec(&rich).expect("serialize"))
        .seeds(file_seeds("fixtures/assembly", &[".json"]))
        .dict(&[
            "runId",
            "goal",
            "raw",
            "intentType",
            "agent",
            "id",
            "role",
            "capabilities",
            "repo",
            "root",
            "files",
            "path",
            "size",
            "language",
            "relevanceScore",
            "content",
            "diffs",
            "patch",
            "changeType",
            "additions",
            "deletions",
            "symbols",
            "name",
            "kind",
            "file",
            "range",
            "documentation",
            "memory",
            "pinned",
            "recent",
            "summaries",
            "importance",
            "recentEvents",
            "eventId",
            "type",
            "toolName",
            "toolCallId",
            "args",
            "result",
            "timestamp",
            "payload",
            "metadata",
            "constraints",
            "maxTokens",
            "strategy",
            "nowMs",
            "allowSummarization",
            "branch",
            "commit",
            "dirty",
            "greedy",
            "balanced",
            "conservative",
        ])
        .run(|bytes| {
            // With and without the command line's overrides, by the input's parity so a
            // failure replays from its bytes alone.
            let (strategy, max_tokens) = if bytes.len() % 2 == 1 {
                (
                    Some(ctxmon_domain::assembly::AssemblyStrategyType::Greedy),
                    Some(bytes.len() as u64),
                )
            } else {
                (None, None)
            };
            let input = match super::assemble::parse_input("stdin", bytes, strategy, max_tokens) {
                Ok(input) => input,
                Err(Failure::Usage(e)) => {
                    let text = e.to_string();
                    assert!(text.starts_with("stdin: "), "{text}");
                    return Err(text.chars().take(50).collect());
                }
                Err(other) => panic!("parsing fails only as a usage error: {other:?}"),
            };
            let bundle = create_context_builder(ContextBuilderOptions::default()).build(&input);
            match bundle {
                Ok(bundle) => {
                    assert!(
                        bundle.token_estimate <= input.constraints.max_tokens,
                        "{} tokens over a budget of {}",
                        bundle.token_estimate,
                        input.constraints.max_tokens
                    );
                    serde_json::to_string_pretty(&bundle).expect("a bundle serializes");
                    Ok(if bundle.messages.is_empty() {
                        "empty bundle"
                    } else {
                        "bundle"
                    }
                    .into())
                }
                Err(e) => {
                    assert_ne!(
                        e.kind,
                        ctxmon_application::assembly::AssemblyErrorKind::Internal,
                        "{e}"
                    );
                    Err(format!("{:?}", e.kind))
                }
            }
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_resume_log_draft() {
    let full = json!({"mission_summary": "Add tax support to billing",
        "accomplishments": ["Split billing.rs"], "key_findings": ["VAT is rounded per line"],
        "decisions": [{"decision": "Round per line", "rationale": "Matches the ledger"}],
        "next_steps": ["Write the migration"], "critical_context": {"ledger": "/w/shop/ledger.csv"},
        "metadata": {"files_modified": ["a.rs"], "commands_run": ["cargo test"], "errors": [],
            "agents_used": ["reviewer"], "notes": {"k": "v"}}});
    let config = ResumeLogsConfig::default();
    let generator = ResumeLogGenerator::from_config(&config);
    let report = Fuzz::new("resume_log_draft", Format::Json)
        .seed(serde_json::to_vec_pretty(&full).expect("serialize"))
        .seed(br#"{"next_steps":"one"}"#.to_vec())
        .seed(b"{}".to_vec())
        // A document with every field: nested critical context, the agent's metrics.
        .seed(include_bytes!("../../../../fixtures/resume-logs/agent-document.json").to_vec())
        .dict(&[
            "session_id",
            "context_metrics",
            "percentage_used",
            "session_duration_minutes",
            "mission_summary",
            "accomplishments",
            "key_findings",
            "decisions",
            "decision",
            "rationale",
            "next_steps",
            "critical_context",
            "metadata",
            "files_modified",
            "commands_run",
            "errors",
            "agents_used",
            "notes",
        ])
        .run(|bytes| {
            let draft = match super::resume_log::from::parse_draft("in.json", bytes) {
                Ok(draft) => draft,
                Err(Failure::Usage(e)) => {
                    let text = e.to_string();
                    assert!(text.starts_with("in.json: "), "{text}");
                    return Err(text.chars().take(50).collect());
                }
                Err(other) => panic!("a bad document is a usage error: {other:?}"),
            };
            let generated = generator.generate(&GenerationInputs {
                session_id: "s1",
                trigger: TriggerKind::Manual,
                now: Timestamp(1_790_000_000_000),
                fill: None,
                agent: Some(&draft),
                checkpoint: None,
                tail: None,
                derived: None,
                head: None,
                git: None,
                transcript_path: None,
                previous: None,
            });
            let markdown = generated.rendered.markdown();
            let tokens = estimate_tokens(&markdown).get();
            assert!(tokens <= 10_000, "{tokens} tokens");
            // As the store writes and reads it.
            let json = serde_json::to_vec_pretty(&ExactJson(&generated.log)).expect("serialize");
            let back: ResumeLog = from_json(&json).expect("the stored JSON reads back");
            assert_eq!(back, generated.log, "a log round-trips exactly");
            Ok(if generated.log.next_steps.is_empty() {
                "log"
            } else {
                "log with steps"
            }
            .into())
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_install_settings() {
    let program = "/home/you/.cargo/bin/ctxmon";
    let plain = Options {
        agent: Agent::ClaudeCode,
        program,
        statusline: false,
        replace_statusline: false,
    };
    let with_line = Options {
        statusline: true,
        replace_statusline: true,
        ..plain
    };
    // Codex's hooks.json goes through the same editor with its own table.
    let codex = Options {
        agent: Agent::Codex,
        ..plain
    };
    let report = Fuzz::new("install_settings", Format::Json)
        .seeds(file_seeds("crates/ctxmon-cli/tests/fixtures/settings", &[".json"]))
        .seed(br#"{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"statusLine":{"type":"command","command":"mine"}}"#.to_vec())
        .dict(&[
            "hooks", "statusLine", "matcher", "type", "command", "timeout", "padding",
            "UserPromptSubmit", "SessionStart", "PreCompact", "PreToolUse", "PostCompact",
            "SessionEnd", "PostToolUse", "ctxmon hooks prompt-submit", "ctxmon statusline", "compact",
            "Write|Edit|MultiEdit", "//", "/*", ",}", ",]",
        ])
        .run(|bytes| {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return Err("not UTF-8".into());
            };
            let opts = match bytes.len() % 3 {
                0 => &with_line,
                1 => &codex,
                _ => &plain,
            };
            let installed = match merge::install(Some(text), opts) {
                Ok(outcome) => outcome,
                Err(merge::PlanError::Internal(e)) => panic!("install: internal error {e}"),
                Err(e) => return Err(format!("{e:?}").chars().take(40).collect()),
            };
            // A byte-order mark the file had is kept (Claude Code's CLI reads such a file);
            // only a mark install did not find may not appear.
            let body = match installed.text.strip_prefix('\u{feff}') {
                Some(body) if text.starts_with('\u{feff}') => body,
                _ => installed.text.as_str(),
            };
            let value: Value = serde_json::from_str(body).unwrap_or_else(|e| {
                panic!("install wrote invalid JSON ({e}):\n{}", installed.text)
            });
            assert!(value.is_object());
            let again = merge::install(Some(&installed.text), opts).expect("install twice");
            assert_eq!(again.text, installed.text, "a second install changes nothing");
            let saved = installed.replaced_statusline.as_deref();
            let restore = saved.map_or(merge::Restore::Nothing, |raw| merge::Restore::From {
                raw,
                source: "the record",
            });
            let removed = match merge::uninstall(&installed.text, restore, opts.agent) {
                Ok(outcome) => outcome,
                Err(merge::PlanError::Internal(e)) => panic!("uninstall: internal error {e}"),
                Err(e) => panic!("uninstall refused what install wrote: {e:?}"),
            };
            // A file of white space (after a byte-order mark, if any) is an empty file: what
            // install fills comes back as `{}` (README).
            let bare = text.strip_prefix('\u{feff}').unwrap_or(text);
            if !bare.trim().is_empty()
                && !text.contains("ctxmon")
                && !opts.statusline
                && !empty_hook_lists(text)
            {
                // Byte for byte, except that an empty object or list install filled comes back
                // as `{}` or `[]` whatever whitespace it held (found by this target; README).
                assert_eq!(
                    empty_containers_closed(&removed.text),
                    empty_containers_closed(text),
                    "install then uninstall gives back the original bytes"
                );
            }
            Ok(format!("installed {} {}", opts.agent.description().flag, opts.statusline))
        });
    assert!(report.executions > 0);
}

/// True when `text` has an empty `hooks` object or an empty list under one of ctxmon's events:
/// uninstall cannot tell those from what install filled, and removes them (README).
fn empty_hook_lists(text: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let Some(hooks) = value.get("hooks").and_then(Value::as_object) else {
        return false;
    };
    hooks.is_empty()
        || crate::install::table::codex_hooks()
            .iter()
            .map(|r| r.event)
            .chain(
                crate::install::table::claude_hooks()
                    .iter()
                    .map(|r| r.event),
            )
            .any(|event| {
                hooks
                    .get(event)
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            })
}

/// `text` with the whitespace inside every empty `{ }` and `[ ]` outside strings removed.
fn empty_containers_closed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                let rest: String = chars.clone().take_while(|c| c.is_whitespace()).collect();
                let mut after = chars.clone().skip(rest.chars().count());
                if !rest.is_empty() && after.next() == Some(close) {
                    for _ in 0..rest.chars().count() {
                        chars.next();
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn empty_containers_are_closed_outside_strings_only() {
    assert_eq!(empty_containers_closed("{\n}\n"), "{}\n");
    assert_eq!(
        empty_containers_closed("{\"a\": [ ], \"b\": \"{ }\", \"c\": [1 ]}"),
        "{\"a\": [], \"b\": \"{ }\", \"c\": [1 ]}"
    );
}

#[test]
fn fuzz_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.jsonl");
    let settings =
        FillSettings::from_config(&ctxmon_application::config::Config::default()).expect("valid");
    let report = Fuzz::new("report", Format::JsonLines)
        .seeds(fuzz::seeds::transcript_seeds(16 * 1024))
        .dict(TRANSCRIPT_KEYS)
        .run(|bytes| {
            std::fs::write(&path, bytes).expect("write");
            let mut builder = FillSeriesBuilder::new();
            let stats = JsonlTranscriptReader::default()
                .read_events(&path, |event| builder.push(event))
                .map_err(|e| format!("{:?}", e.kind))?;
            let series = builder.finish(&settings, None);
            if series.points.is_empty() {
                return Err(format!("no points (json {})", stats.any_json));
            }
            let text = crate::report::text(&series, "t.jsonl", 80, false);
            assert!(!text.is_empty());
            let svg = crate::report::svg::render(&series, "t <&> \"x\".jsonl");
            if let Err(e) = roxmltree::Document::parse(&svg) {
                panic!("the SVG is not XML ({e}):\n{svg}");
            }
            let json = crate::report::json(&series, "t.jsonl", Some("chart.svg"));
            // Numbered from 1, and the session has an end whenever it has a response.
            assert_eq!(json["points"][0]["response"], 1);
            assert!(json["last"]["tokens"].is_u64(), "{}", json["last"]);
            Ok(if series.compactions.is_empty() {
                "chart"
            } else {
                "chart with compactions"
            }
            .into())
        });
    assert!(report.executions > 0);
}
