//! `ctxmon hooks post-tool-use` end to end (contract C3): the binary run with PostToolUse JSON
//! on a real Claude Code transcript that grows the way a tool loop grows it. The shared
//! fixture `cc-1.0.51-streaming-duplicates.jsonl` rises from 17k to 104k tokens; with the
//! project's window set to 130,000 its first N lines sit in known tiers (the newest main-chain
//! usage of each cut, input + cache creation + cache read, is in the table below).

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common;
use crate::common::{Run, Sandbox, additional_context, shared_fixtures};

const FIXTURE: &str = "cc-1.0.51-streaming-duplicates.jsonl";
const WINDOW: &str = "[context_monitor]\ncontext_window = 130000\n";

/// Lines kept of the fixture, and the tokens of the newest usage in them (tier at 130,000).
const LOW_200: (usize, u64) = (200, 77_927); // 59%
const LOW_230: (usize, u64) = (230, 84_288);
const LOW_260: (usize, u64) = (260, 89_893);
const WARNING_269: (usize, u64) = (269, 91_017); // 70.01%
const WARNING_300: (usize, u64) = (300, 95_355);
const WARNING_320: (usize, u64) = (320, 99_326);
const WARNING_340: (usize, u64) = (340, 103_329);
const CRITICAL_346: (usize, u64) = (346, 104_468); // the whole file, 80%

/// A project whose window is 130,000 and whose transcript is the fixture's first lines; `None`
/// when `../shared` is absent.
struct Loop {
    sb: Sandbox,
    lines: Vec<String>,
    transcript: PathBuf,
}

impl Loop {
    fn new(config: &str) -> Option<Loop> {
        let dir = shared_fixtures()?;
        let text = std::fs::read_to_string(dir.join(FIXTURE)).unwrap();
        let sb = Sandbox::new();
        sb.write(".ctxmon/config.toml", config);
        let transcript = sb.path("session.jsonl");
        Some(Loop {
            lines: text.lines().map(str::to_string).collect(),
            sb,
            transcript,
        })
    }

    /// The transcript as it stands after the first `n` lines (Claude Code appends).
    fn grow_to(&self, n: usize) {
        let mut text = self.lines[..n].join("\n");
        text.push('\n');
        std::fs::write(&self.transcript, text).unwrap();
    }

    /// Appends raw lines (a compaction boundary, later responses).
    fn append(&self, lines: &[String]) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.transcript)
            .unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
    }

    fn tool_call(&self) -> Run {
        let input = self.sb.hook_input(
            "PostToolUse",
            "loop-1",
            &self.transcript,
            serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"},
                "tool_response": {"stdout": "test result: ok", "stderr": "", "interrupted": false},
                "tool_use_id": "toolu_01"}),
        );
        let run = self.sb.run(&["hooks", "post-tool-use"], input);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    }

    fn prompt(&self) -> Run {
        let run = self.sb.run(
            &["hooks", "prompt-submit"],
            self.sb.prompt_input("loop-1", &self.transcript),
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    }

    fn state_bytes(&self) -> Option<Vec<u8>> {
        std::fs::read(self.sb.path(".ctxmon/state/loop-1.json")).ok()
    }
}

/// The `(tier, tokens)` of the `<context-monitor>` tag a PostToolUse answer carries.
fn tag(run: &Run) -> (String, u64) {
    let ctx = additional_context(&run.stdout, "PostToolUse");
    let doc = roxmltree::Document::parse(&ctx).unwrap();
    let el = doc.root_element();
    assert_eq!(el.tag_name().name(), "context-monitor", "{ctx}");
    assert_eq!(el.attribute("window"), Some("130000"), "{ctx}");
    (
        el.attribute("tier").unwrap().to_string(),
        el.attribute("tokens").unwrap().parse().unwrap(),
    )
}

fn silent(run: &Run, what: &str) {
    assert_eq!(run.stdout, "", "{what}: expected no answer");
}

#[test]
fn at_an_unchanged_tier_three_calls_inject_nothing_and_write_nothing() {
    let Some(l) = Loop::new(WINDOW) else { return };
    l.grow_to(LOW_200.0);
    assert_eq!(tag(&l.tool_call()), ("LOW".to_string(), LOW_200.1));
    let recorded = l.state_bytes().expect("the tag is recorded");
    for (lines, _) in [LOW_200, LOW_230, LOW_260] {
        l.grow_to(lines);
        silent(&l.tool_call(), &format!("LOW again at line {lines}"));
    }
    assert_eq!(
        l.state_bytes(),
        Some(recorded),
        "the unchanged path reads the state and writes nothing"
    );
}

#[test]
fn when_the_tier_rises_one_call_injects() {
    let Some(l) = Loop::new(WINDOW) else { return };
    l.grow_to(LOW_260.0);
    assert_eq!(tag(&l.tool_call()).0, "LOW");
    l.grow_to(WARNING_269.0);
    assert_eq!(tag(&l.tool_call()), ("WARNING".to_string(), WARNING_269.1));
    for (lines, _) in [WARNING_269, WARNING_300, WARNING_320, WARNING_340] {
        l.grow_to(lines);
        silent(&l.tool_call(), &format!("WARNING again at line {lines}"));
    }
    l.grow_to(CRITICAL_346.0);
    assert_eq!(
        tag(&l.tool_call()),
        ("CRITICAL".to_string(), CRITICAL_346.1)
    );
    silent(&l.tool_call(), "CRITICAL again");
    // Each crossing went to events.jsonl once, when its tag went.
    let events = std::fs::read_to_string(l.sb.path(".ctxmon/events.jsonl")).unwrap();
    let crossings: Vec<String> = events
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|v| v["event"] == "ContextThresholdReached")
        .map(|v| v["new_tier"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(crossings, ["low", "warning", "critical"]);
}

#[test]
fn a_tier_prompt_submit_injected_is_not_injected_again_after_a_tool_call() {
    let Some(l) = Loop::new(WINDOW) else { return };
    l.grow_to(WARNING_300.0);
    let prompt = l.prompt();
    let ctx = additional_context(&prompt.stdout, "UserPromptSubmit");
    assert!(ctx.contains("tier=\"WARNING\""), "{ctx}");
    for (lines, _) in [WARNING_300, WARNING_320, WARNING_340] {
        l.grow_to(lines);
        silent(
            &l.tool_call(),
            &format!("WARNING at line {lines} after the prompt's tag"),
        );
    }
    l.grow_to(CRITICAL_346.0);
    assert_eq!(tag(&l.tool_call()).0, "CRITICAL");
}

#[test]
fn after_a_compaction_the_record_falls_and_the_next_rise_injects_again() {
    let Some(l) = Loop::new(WINDOW) else { return };
    let Some(dir) = shared_fixtures() else { return };
    l.grow_to(CRITICAL_346.0);
    assert_eq!(tag(&l.tool_call()).0, "CRITICAL");
    // A real compact_boundary line (postTokens 19,650): the fill falls to NOMINAL.
    let boundary = std::fs::read_to_string(dir.join("cc-2.1.226-compact-boundary-line.jsonl"))
        .unwrap()
        .trim_end()
        .to_string();
    l.append(&[boundary]);
    silent(&l.tool_call(), "a fall is recorded, not announced");
    let state: serde_json::Value = serde_json::from_slice(&l.state_bytes().unwrap()).unwrap();
    assert_eq!(state["lowest_tier_since_injection"], "nominal", "{state}");
    // The loop goes on and the new context fills up again: LOW is news once more.
    l.append(&l.lines[150..200]);
    assert_eq!(tag(&l.tool_call()), ("LOW".to_string(), LOW_200.1));
    silent(&l.tool_call(), "LOW again");
}

#[test]
fn switched_off_in_the_configuration_it_injects_and_stores_nothing() {
    for off in ["post_tool_use = false\n", "enabled = false\n"] {
        let Some(l) = Loop::new(&format!("{WINDOW}{off}")) else {
            return;
        };
        l.grow_to(CRITICAL_346.0);
        for _ in 0..3 {
            silent(&l.tool_call(), off);
        }
        assert_eq!(
            l.state_bytes(),
            None,
            "{off}: nothing measured, nothing stored"
        );
    }
}

#[test]
fn bad_input_fails_open() {
    let Some(l) = Loop::new(WINDOW) else { return };
    l.grow_to(CRITICAL_346.0);
    let project = l.sb.dir().display().to_string();
    let t = l.transcript.display().to_string();
    let huge = format!(
        r#"{{"hook_event_name":"PostToolUse","session_id":"big","transcript_path":"{t}","cwd":"{project}","tool_name":"Read","tool_response":{{"content":"{}"}}}}"#,
        "x".repeat(3 * 1024 * 1024)
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not JSON", b"{\"hook_event_name\": \"PostToolUse\",".to_vec()),
        ("an array", b"[1,2]".to_vec()),
        ("binary", vec![0xff, 0x00, 0xfe, 0x7b]),
        (
            "another event",
            format!(r#"{{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"{t}"}}"#)
                .into_bytes(),
        ),
        (
            "wrong types",
            format!(r#"{{"hook_event_name":"PostToolUse","session_id":7,"transcript_path":["{t}"],"cwd":false}}"#)
                .into_bytes(),
        ),
        (
            "missing transcript",
            format!(r#"{{"hook_event_name":"PostToolUse","session_id":"s","transcript_path":"{project}/none.jsonl","cwd":"{project}"}}"#)
                .into_bytes(),
        ),
        // Codex CLI's PostToolUse: the same shape, and transcript_path may be null.
        (
            "Codex, transcript_path null",
            format!(r#"{{"session_id":"019a-codex","transcript_path":null,"cwd":"{project}","hook_event_name":"PostToolUse","model":"gpt-5-codex","turn_id":"t-1","tool_name":"shell","tool_input":{{"command":["ls"]}},"tool_response":"ok"}}"#)
                .into_bytes(),
        ),
        ("3 MiB tool response", huge.into_bytes()),
    ];
    for (what, stdin) in cases {
        let run = l.sb.run(&["hooks", "post-tool-use"], &stdin);
        assert_eq!(run.code, 0, "{what}: {}", run.stderr);
        if what == "3 MiB tool response" {
            // A long tool output is shortened, not refused: the tier is still measured.
            assert_eq!(tag(&run).0, "CRITICAL", "{what}");
        } else {
            silent(&run, what);
            assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
        }
    }
    // A Codex session without a transcript keeps no record: nothing to remember yet.
    assert!(!l.sb.path(".ctxmon/state/019a-codex.json").exists());
}

#[test]
fn an_unknown_flag_or_a_project_that_does_not_exist_still_exits_0() {
    let Some(l) = Loop::new(WINDOW) else { return };
    l.grow_to(CRITICAL_346.0);
    let input =
        l.sb.hook_input("PostToolUse", "s", &l.transcript, serde_json::json!({}));
    let run =
        l.sb.run(&["hooks", "post-tool-use", "--frobnicate"], &input);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let gone = Path::new("/nonexistent/ctxmon-project");
    let run = l.sb.run(
        &[
            "--project-dir",
            &gone.display().to_string(),
            "hooks",
            "post-tool-use",
        ],
        &input,
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
}

/// Its two keys are validated like every other: the switch is a boolean, the deadline ends
/// before the 5 s timeout install registers less the wrapper's margin; both are in the schema.
#[test]
fn its_configuration_keys_are_validated_and_in_the_schema() {
    let sb = Sandbox::new();
    let set = |key: &str, value: &str| sb.run(&["config", "set", key, value], "");
    let bad = set("context_monitor.post_tool_use", "maybe");
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("context_monitor.post_tool_use"),
        "{}",
        bad.stderr
    );
    assert_eq!(set("context_monitor.post_tool_use", "false").code, 0);
    // Past install's 5 s timeout: set, with a note (doctor checks the registered timeout).
    let late = set("hooks.post_tool_use_deadline_ms", "2500");
    assert_eq!(late.code, 0, "{}", late.stderr);
    assert!(
        late.stderr.contains("PostToolUse (5 s timeout)"),
        "{}",
        late.stderr
    );
    let out_of_range = set("hooks.post_tool_use_deadline_ms", "600001");
    assert_eq!(out_of_range.code, 2, "{}", out_of_range.stderr);
    assert_eq!(set("hooks.post_tool_use_deadline_ms", "2499").code, 0);
    let shown = sb.run(&["config", "get", "context_monitor.post_tool_use"], "");
    assert_eq!(shown.stdout.trim(), "false", "{}", shown.stderr);

    let schema: serde_json::Value =
        serde_json::from_str(&sb.run(&["config", "schema"], "").stdout).unwrap();
    let props = &schema["properties"];
    let switch = &props["context_monitor"]["properties"]["post_tool_use"];
    assert_eq!(
        (switch["type"].as_str(), switch["default"].as_bool()),
        (Some("boolean"), Some(true))
    );
    let deadline = &props["hooks"]["properties"]["post_tool_use_deadline_ms"];
    assert_eq!(
        (deadline["default"].as_u64(), deadline["maximum"].as_u64()),
        (Some(1_500), Some(600_000))
    );

    // A broken file: the hook says nothing rather than a tier computed on the defaults.
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\npost_tool_use = \"yes\"\n",
    );
    let t = sb.write("t.jsonl", common::transcript_with(&[170_000]));
    let run = sb.run(
        &["hooks", "post-tool-use"],
        sb.hook_input(
            "PostToolUse",
            "s",
            &t,
            serde_json::json!({"tool_name": "Bash"}),
        ),
    );
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert!(
        run.stderr.contains("context_monitor.post_tool_use"),
        "{}",
        run.stderr
    );
}
