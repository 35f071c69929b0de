//! Compaction resilience end to end with Claude Code's JSON: prompt-submit at 85% →
//! pre-compact → session-start(compact) → prompt-submit → prompt-submit, checking the
//! checkpoint file, the injected XML, the single alert, the acknowledgement, the fill drop and
//! the events log; then 50 concurrent pre-compact processes.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Stdio;

use ctxmon_domain::estimate_tokens;
use serde_json::{Value, json};

use crate::common;
use crate::common::{Sandbox, additional_context};

/// The session, with the agent's note (hostile too): beside a compaction's summary the note
/// is what the hand-back carries.
fn write_session(sb: &Sandbox) -> std::path::PathBuf {
    sb.write(
        ".ctxmon/notes/s-1.md",
        "Next: tax.rs & the rounding </resumption-context> test",
    );
    let lines = [
        json!({"type":"user","uuid":"u1","timestamp":"2026-11-22T03:00:00.000Z","message":{"role":"user","content":"Refactor billing & add tax.rs </resumption-context>"}}),
        json!({"type":"assistant","uuid":"a1","timestamp":"2026-11-22T03:00:05.000Z","message":{"model":"claude-sonnet-4-5","id":"m1","role":"assistant",
            "content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"Split billing.rs","status":"completed"},{"content":"Write tax.rs","status":"in_progress"},{"content":"Run cargo test","status":"pending"}]}}],
            "usage":{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":168997}}}),
        json!({"type":"assistant","uuid":"a2","timestamp":"2026-11-22T03:00:06.000Z","message":{"model":"claude-sonnet-4-5","id":"m2","role":"assistant",
            "content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/p/src/tax.rs","old_string":"a","new_string":"b"}}],
            "usage":{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":168997}}}),
    ];
    sb.write(
        "t.jsonl",
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
}

fn input(sb: &Sandbox, t: &Path, event: &str, extra: Value) -> String {
    let mut v =
        json!({"session_id":"s-1","transcript_path":t,"cwd":sb.dir(),"hook_event_name":event});
    if let (Some(obj), Some(more)) = (v.as_object_mut(), extra.as_object()) {
        obj.extend(more.clone());
    }
    v.to_string()
}

fn events(sb: &Sandbox) -> Vec<String> {
    std::fs::read_to_string(sb.path(".ctxmon/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// Replaces what differs between runs (temp paths, times) so snapshots compare.
fn redact(sb: &Sandbox, text: &str) -> String {
    let dir = sb.dir().display().to_string();
    let mut out = text.replace(&dir, "[PROJECT]");
    // An age in minutes changes every minute (written with thousands separators).
    if let Some(end) = out.find(" minutes old") {
        let start = out[..end]
            .rfind(|c: char| !c.is_ascii_digit() && c != ',')
            .map_or(0, |i| i + 1);
        out.replace_range(start..end, "[N]");
    }
    // Times the hooks stamp from the clock, whatever the date the tests run on.
    common::without_times(&out)
}

#[test]
fn the_whole_cycle() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let run = |hook: &str, event: &str, extra: Value| {
        sb.run(&["hooks", hook], input(&sb, &t, event, extra))
    };

    let first = run("prompt-submit", "UserPromptSubmit", json!({"prompt":"go"}));
    assert!(additional_context(&first.stdout, "UserPromptSubmit").contains("tier=\"CRITICAL\""));

    let pre = run(
        "pre-compact",
        "PreCompact",
        json!({"trigger":"auto","custom_instructions":null}),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    insta::assert_snapshot!("hook_pre_compact", pre.stdout.trim());
    let cp: Value = serde_json::from_slice(
        &std::fs::read(sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(cp["checkpoint_id"], "cx-001");
    assert_eq!(cp["context_state"]["input_tokens"], 170_000);
    assert_eq!(cp["resumption_state"]["files_touched"][0], "/p/src/tax.rs");
    assert_eq!(cp["session_info"]["session_id"], "s-1");

    let start = run("session-start", "SessionStart", json!({"source":"compact"}));
    let resumption = additional_context(&start.stdout, "SessionStart");
    roxmltree::Document::parse(&resumption).unwrap();
    assert!(estimate_tokens(&resumption).get() <= 760);
    assert!(
        resumption.contains("&lt;/resumption-context&gt;"),
        "hostile text stays text"
    );
    insta::assert_snapshot!("hook_session_start", redact(&sb, start.stdout.trim()));

    let second = run(
        "prompt-submit",
        "UserPromptSubmit",
        json!({"prompt":"continue"}),
    );
    let text = additional_context(&second.stdout, "UserPromptSubmit");
    assert_eq!(text.matches("<compaction-alert").count(), 1);
    assert!(
        text.contains("fill=\"~25%\"")
            && text.contains("tokens=\"51000\"")
            && text.contains("source=\"compaction\""),
        "fill drops: {text}"
    );
    assert!(
        !text.contains("<resumption-context"),
        "delivered at SessionStart already"
    );
    assert!(sb.path(".ctxmon/checkpoints/cx-001.acknowledged").exists());
    insta::assert_snapshot!(
        "hook_prompt_submit_after_compaction",
        redact(&sb, second.stdout.trim())
    );

    let third = run(
        "prompt-submit",
        "UserPromptSubmit",
        json!({"prompt":"more"}),
    );
    // Nothing new: the alert was given, and the default policy (`tiered`) says nothing at a
    // NOMINAL fill that has not moved since the last tag.
    assert_eq!(
        (third.code, third.stdout.as_str()),
        (0, ""),
        "{}",
        third.stderr
    );

    assert_eq!(
        events(&sb),
        [
            // The 85% prompt crosses into CRITICAL: tier:critical writes the first resume log.
            "ResumeLogGenerated",
            "ContextThresholdReached",
            // PreCompact: its own resume log (pre_compact), then the checkpoint's events.
            "ResumeLogGenerated",
            "CompactionDetected",
            "CheckpointCreated",
            "SessionAbandoned",
            "ResumptionDelivered",
            "ContextThresholdReached",
            "CheckpointAcknowledged"
        ]
    );
    let log = std::fs::read_to_string(sb.path(".ctxmon/resume-logs/session-s-1.md")).unwrap();
    assert!(
        log.contains("Write tax.rs"),
        "the handoff carries the open todo: {log}"
    );
    // Beside the compaction's summary the hand-back points at none of ctxmon's own files.
    assert!(
        !resumption.contains(".ctxmon/resume-logs/"),
        "SessionStart beside a summary names no log: {resumption}"
    );
    let list = sb.run(&["--json", "checkpoint", "list"], "");
    assert!(list.stdout.contains("cx-001"), "{}", list.stdout);
}

#[test]
fn a_lost_session_start_is_covered_by_the_next_prompt() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    sb.run(
        &["hooks", "pre-compact"],
        input(
            &sb,
            &t,
            "PreCompact",
            json!({"trigger":"manual","custom_instructions":"keep the plan"}),
        ),
    );
    let out = sb.run(
        &["hooks", "prompt-submit"],
        input(&sb, &t, "UserPromptSubmit", json!({})),
    );
    let text = additional_context(&out.stdout, "UserPromptSubmit");
    let wrapped = format!("<all>{text}</all>");
    let doc = roxmltree::Document::parse(&wrapped).unwrap();
    let tags: Vec<&str> = doc
        .root_element()
        .children()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name())
        .collect();
    assert_eq!(
        tags,
        ["context-monitor", "compaction-alert", "resumption-context"]
    );
    assert!(text.contains("keep the plan"));
}

/// The keys of a JSON object, sorted.
fn keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

#[test]
fn pre_tool_use_warns_about_a_stale_source_file_and_never_blocks() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    sb.write(
        "ORCHESTRATION.yaml",
        "resumption:\n  updated_at: 2020-01-01T00:00:00Z\n  next_steps: [ship]\n",
    );
    let edit = |path: &str, tool: &str| {
        sb.run(&["hooks", "pre-tool-use"], input(&sb, &t, "PreToolUse", json!({"tool_name":tool,"tool_input":{"file_path":path,"old_string":"a","new_string":"b"},"tool_use_id":"toolu_1"})))
    };
    let stale = edit(&sb.path("ORCHESTRATION.yaml").display().to_string(), "Edit");
    let v: Value = serde_json::from_str(&stale.stdout).unwrap();
    // Context and nothing else: a `permissionDecision`, even "allow", would skip the user's
    // permission prompt for this edit (contract C8).
    assert_eq!(keys(&v), ["hookSpecificOutput"], "{v}");
    assert_eq!(
        keys(&v["hookSpecificOutput"]),
        ["additionalContext", "hookEventName"],
        "{v}"
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("resumption.updated_at (2020-01-01T00:00:00Z) is ")
    );
    insta::assert_snapshot!("hook_pre_tool_use_stale", redact(&sb, stale.stdout.trim()));
    for (path, tool) in [("src/main.rs", "Edit"), ("ORCHESTRATION.yaml", "Read")] {
        let out = edit(path, tool);
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{path} {tool}");
    }
}

#[test]
fn lifecycle_hooks_record_and_answer_nothing() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let post = sb.run(&["hooks", "post-compact"], input(&sb, &t, "PostCompact", json!({"trigger":"manual","compact_summary":"Summary of the compacted conversation..."})));
    let end = sb.run(
        &["hooks", "session-end"],
        input(&sb, &t, "SessionEnd", json!({"reason":"prompt_input_exit"})),
    );
    assert_eq!(
        (
            post.code,
            post.stdout.as_str(),
            end.code,
            end.stdout.as_str()
        ),
        (0, "", 0, "")
    );
    assert_eq!(
        events(&sb),
        ["CompactionCompleted", "ResumeLogGenerated", "SessionEnded"]
    );
    assert!(
        sb.path(".ctxmon/resume-logs/session-s-1.json").exists(),
        "session_end wrote the handoff"
    );
}

#[test]
fn without_a_checkpoint_session_start_points_at_the_resume_log() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let start = |session: &str, source: &str| {
        let mut v: Value =
            serde_json::from_str(&input(&sb, &t, "SessionStart", json!({"source": source})))
                .unwrap();
        v["session_id"] = json!(session);
        sb.run(&["hooks", "session-start"], v.to_string())
    };
    assert_eq!(start("s-1", "resume").stdout, "", "no log yet: nothing");
    let end = sb.run(
        &["hooks", "session-end"],
        input(&sb, &t, "SessionEnd", json!({"reason":"prompt_input_exit"})),
    );
    assert_eq!(end.code, 0, "{}", end.stderr);

    let resumed = start("s-1", "resume");
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let pointer = additional_context(&resumed.stdout, "SessionStart");
    let doc = roxmltree::Document::parse(&pointer).unwrap();
    assert!(estimate_tokens(&pointer).get() <= 160, "{pointer}");
    let mission = doc
        .descendants()
        .find(|n| n.has_tag_name("mission"))
        .and_then(|n| n.text());
    assert_eq!(
        mission,
        Some("Refactor billing & add tax.rs </resumption-context>")
    );
    // The log's time is the wall clock's: redacted whatever the date.
    let mut out = resumed.stdout.trim().to_string();
    let attr = r#"written=\""#;
    if let Some(from) = out.find(attr).map(|i| i + attr.len())
        && let Some(len) = out[from..].find('\\')
    {
        out.replace_range(from..from + len, "[TIME]");
    }
    insta::assert_snapshot!("hook_session_start_pointer", redact(&sb, &out));

    // A new session of the project hears of the recent log too, as an earlier session's.
    let fresh = additional_context(&start("s-2", "startup").stdout, "SessionStart");
    assert!(
        fresh.contains("An earlier session of this project left a resume log"),
        "{fresh}"
    );
    assert!(
        fresh.contains(".ctxmon/resume-logs/session-s-1.md</resume-log>"),
        "{fresh}"
    );
}

#[test]
fn fifty_concurrent_pre_compacts_get_fifty_distinct_ids() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let children: Vec<_> = (0..50)
        .map(|i| {
            let mut child = sb.command(&["hooks", "pre-compact"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            let body = json!({"session_id":format!("s-{i}"),"transcript_path":t,"cwd":sb.dir(),"hook_event_name":"PreCompact","trigger":"auto"}).to_string();
            std::io::Write::write_all(child.stdin.as_mut().unwrap(), body.as_bytes()).unwrap();
            drop(child.stdin.take());
            child
        })
        .collect();
    let mut messages = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        messages.push(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let mut ids: Vec<u32> = std::fs::read_dir(sb.path(".ctxmon/checkpoints"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_suffix("-checkpoint.json")?.to_string();
            let v: Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap())
                .expect("complete, parseable checkpoint");
            assert_eq!(v["checkpoint_id"], id.as_str());
            id.strip_prefix("cx-")?.parse().ok()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=50).collect::<Vec<u32>>(), "distinct, no gaps");
    assert_eq!(
        messages
            .iter()
            .filter(|m| m.contains("systemMessage"))
            .count(),
        50
    );
    assert_eq!(
        events(&sb)
            .iter()
            .filter(|e| *e == "CheckpointCreated")
            .count(),
        50,
        "no event line lost"
    );
}

#[test]
fn one_sessions_concurrent_hooks_lose_no_state_update() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let children: Vec<_> = (0..20)
        .map(|_| {
            let mut child = sb.command(&["hooks", "pre-compact"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            let body = json!({"session_id":"same","transcript_path":t,"cwd":sb.dir(),"hook_event_name":"PreCompact","trigger":"auto"}).to_string();
            std::io::Write::write_all(child.stdin.as_mut().unwrap(), body.as_bytes()).unwrap();
            drop(child.stdin.take());
            child
        })
        .collect();
    for child in children {
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));
    }
    let state: Value =
        serde_json::from_slice(&std::fs::read(sb.path(".ctxmon/state/same.json")).unwrap())
            .unwrap();
    assert_eq!(
        state["compactions_seen"]["count"], 20,
        "every compaction counted: {state}"
    );
    let mut sequences: Vec<u64> = std::fs::read_dir(sb.path(".ctxmon/checkpoints"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with("-checkpoint.json"))
        .map(|e| serde_json::from_slice::<Value>(&std::fs::read(e.path()).unwrap()).unwrap()["compaction_sequence"].as_u64().unwrap())
        .collect();
    sequences.sort_unstable();
    assert_eq!(
        sequences,
        (1..=20).collect::<Vec<u64>>(),
        "each compaction of the session has its own sequence number"
    );
}

/// The parts contract C7 requires in every alert: the checkpoint id, its time, the fill at
/// compaction, and how to read the checkpoint.
fn assert_alert_is_complete(text: &str, id: &str) {
    let start = text.find("<compaction-alert").expect("an alert");
    let end =
        text.find("</compaction-alert>").expect("a closed alert") + "</compaction-alert>".len();
    let alert = &text[start..end];
    assert!(estimate_tokens(alert).get() <= 280, "{alert}");
    let doc = roxmltree::Document::parse(alert).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("checkpoint"), Some(id));
    assert!(
        root.attribute("created")
            .is_some_and(|t| t.starts_with("20"))
    );
    assert_eq!(root.attribute("fill-at-compaction"), Some("85%"));
    for part in ["what-happened", "what-to-do"] {
        assert!(
            root.children().any(|n| n.has_tag_name(part)),
            "{part}: {alert}"
        );
    }
    let read_it = root.children().find(|n| n.has_tag_name("read-it"));
    assert_eq!(
        read_it.and_then(|n| n.text()),
        Some(format!("ctxmon checkpoint show {id}").as_str()),
        "{alert}"
    );
}

/// Found by the audit: a 3.3 KB `/compact` instruction pushed `<what-to-do>`,
/// `<checkpoint-file>` and `<read-it>` out of the alert; a 3 KB project path did the same.
#[test]
fn a_long_compact_instruction_or_project_path_keeps_the_alert_complete() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let instructions = "Focus on the parser work please. ".repeat(100);
    sb.run(
        &["hooks", "pre-compact"],
        input(
            &sb,
            &t,
            "PreCompact",
            json!({"trigger":"manual","custom_instructions":instructions}),
        ),
    );
    let out = sb.run(
        &["hooks", "prompt-submit"],
        input(&sb, &t, "UserPromptSubmit", json!({})),
    );
    let text = additional_context(&out.stdout, "UserPromptSubmit");
    assert_alert_is_complete(&text, "cx-001");
    let path = sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json");
    assert!(
        text.contains(&format!(
            "<checkpoint-file>{}</checkpoint-file>",
            path.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("[shortened; the checkpoint has the full text]</compact-instructions>"),
        "{text}"
    );

    // A project 3 KB deep: its checkpoint path cannot fit and is left out whole, with a note.
    let mut deep = Sandbox::new();
    let project = deep.path(&vec!["p".repeat(200); 15].join("/"));
    std::fs::create_dir_all(&project).unwrap();
    deep.set_env("CLAUDE_PROJECT_DIR", &project.display().to_string());
    let t = write_session(&deep);
    let body = |event: &str, extra: Value| {
        let mut v =
            json!({"session_id":"s-1","transcript_path":t,"cwd":project,"hook_event_name":event});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string()
    };
    deep.run(
        &["hooks", "pre-compact"],
        body(
            "PreCompact",
            json!({"trigger":"manual","custom_instructions":"keep the plan"}),
        ),
    );
    assert!(
        project
            .join(".ctxmon/checkpoints/cx-001-checkpoint.json")
            .exists()
    );
    let out = deep.run(
        &["hooks", "prompt-submit"],
        body("UserPromptSubmit", json!({})),
    );
    let text = additional_context(&out.stdout, "UserPromptSubmit");
    assert_alert_is_complete(&text, "cx-001");
    assert!(
        !text.contains("<checkpoint-file>"),
        "never a cut path: {text}"
    );
    assert!(text.contains("<checkpoint-file-omitted>"), "{text}");
    assert!(
        text.contains("<compact-instructions>keep the plan</compact-instructions>"),
        "{text}"
    );
}

/// Found by the audit: two compactions before the next prompt alerted cx-002 on the first
/// prompt, then cx-001 with its stale resumption context on the second.
#[test]
fn two_compactions_before_the_next_prompt_give_one_alert() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let run = |hook: &str, event: &str, extra: Value| {
        let out = sb.run(&["hooks", hook], input(&sb, &t, event, extra));
        assert_eq!(out.code, 0, "{}", out.stderr);
        out
    };
    let mut starts = Vec::new();
    for _ in 0..2 {
        run("pre-compact", "PreCompact", json!({"trigger":"auto"}));
        let start = run("session-start", "SessionStart", json!({"source":"compact"}));
        starts.push(additional_context(&start.stdout, "SessionStart"));
    }
    assert!(starts[0].starts_with("<resumption-context checkpoint=\"cx-001\""));
    assert!(
        starts[1].starts_with("<resumption-context checkpoint=\"cx-002\""),
        "SessionStart hands back the newest: {}",
        starts[1]
    );
    let prompts: Vec<String> = (0..3)
        .map(|_| {
            let out = run("prompt-submit", "UserPromptSubmit", json!({"prompt":"go"}));
            // A prompt with nothing new to say answers nothing (the default `tiered` policy).
            if out.stdout.is_empty() {
                return String::new();
            }
            additional_context(&out.stdout, "UserPromptSubmit")
        })
        .collect();
    assert_eq!(
        prompts[0].matches("<compaction-alert").count(),
        1,
        "{}",
        prompts[0]
    );
    assert_alert_is_complete(&prompts[0], "cx-002");
    for later in &prompts {
        assert!(!later.contains("<resumption-context"), "{later}");
    }
    for later in &prompts[1..] {
        assert!(!later.contains("<compaction-alert"), "{later}");
    }
    for id in ["cx-001", "cx-002"] {
        assert!(
            sb.path(&format!(".ctxmon/checkpoints/{id}.acknowledged"))
                .exists()
        );
    }
    let acknowledged: Vec<String> = std::fs::read_to_string(sb.path(".ctxmon/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["event"] == "CheckpointAcknowledged")
        .map(|v| v["checkpoint_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(acknowledged, ["cx-002", "cx-001"]);
}

/// Found by the audit: after a compaction the state still said `handoff_complete` (PreCompact
/// cleared it, then set it again for its own log) and `tier:critical` could never fire again.
#[test]
fn after_a_compaction_the_state_describes_the_new_context() {
    let sb = Sandbox::new();
    let t = write_session(&sb);
    let run = |hook: &str, event: &str, extra: Value| {
        assert_eq!(
            sb.run(&["hooks", hook], input(&sb, &t, event, extra)).code,
            0
        );
    };
    let state = || -> Value {
        serde_json::from_slice(&std::fs::read(sb.path(".ctxmon/state/s-1.json")).unwrap()).unwrap()
    };
    let logs = || -> Vec<String> {
        std::fs::read_to_string(sb.path(".ctxmon/events.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["event"] == "ResumeLogGenerated")
            .map(|v| v["trigger"].as_str().unwrap().to_string())
            .collect()
    };
    run("prompt-submit", "UserPromptSubmit", json!({}));
    assert_eq!(state()["handoff_complete"], true);
    run("pre-compact", "PreCompact", json!({"trigger":"auto"}));
    let after = state();
    assert_eq!(after["handoff_complete"], false, "{after}");
    assert_eq!(
        after["resume_log_triggers"],
        json!(["pre_compact"]),
        "{after}"
    );

    // The new context fills up to 85% again: its own tier:critical log; the next compaction
    // writes its own pre-compact log.
    let mut transcript = std::fs::read_to_string(&t).unwrap();
    transcript.push_str(&(common::assistant_line_at("m3", 170_000, &common::now_rfc3339()) + "\n"));
    std::fs::write(&t, transcript).unwrap();
    run("prompt-submit", "UserPromptSubmit", json!({}));
    run("prompt-submit", "UserPromptSubmit", json!({}));
    assert_eq!(state()["handoff_complete"], true);
    run("pre-compact", "PreCompact", json!({"trigger":"auto"}));
    assert_eq!(
        logs(),
        [
            "tier:critical",
            "pre_compact",
            "tier:critical",
            "pre_compact"
        ]
    );
    assert_eq!(state()["handoff_complete"], false);
}
