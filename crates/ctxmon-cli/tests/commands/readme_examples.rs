//! The "what the agent sees" examples of README.md and `docs/` are real output: this runs the
//! session they tell (a prompt at 75%, a compaction at 85%, SessionStart, the next prompt, an
//! edit of a stale ORCHESTRATION.yaml, the session's end and the next session's start) through
//! the real binary. docs/hooks.md tells the whole session: its ```xml blocks must be, in order,
//! exactly what the hooks injected. Any other page (the README shows the first two) may show
//! fewer, but each of its blocks must be one of them, in the session's order. Only what differs
//! between runs is set aside: the project folder (shown as /home/you/shop) and timestamps. A
//! block fenced as ```` ```xml <fixture>:<lines> ```` is the hand-back of a real session
//! instead: the first `<lines>` lines of that shared Claude Code transcript through PreCompact
//! and SessionStart(compact).

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;
use crate::common::{Sandbox, additional_context};

const SESSION: &str = "3f2c9a4e-8b1d-4c7e-9f60-2a5d8e1b7c43";
const SHOWN_PROJECT: &str = "/home/you/shop";

fn line(value: &Value) -> String {
    value.to_string() + "\n"
}

/// The user's request and the todo list, then a response at `tokens`.
fn request_and_todos(tokens: u64) -> String {
    line(
        &json!({"type": "user", "uuid": "u1", "timestamp": "2026-11-22T03:00:00.000Z",
        "message": {"role": "user", "content": "Refactor billing and add tax.rs. Never change the ledger export format."}}),
    ) + &line(
        &json!({"type": "assistant", "uuid": "a1", "timestamp": "2026-11-22T03:00:05.000Z",
        "message": {"model": "claude-sonnet-4-5", "id": "m1", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "TodoWrite", "input": {"todos": [
                {"content": "Split billing.rs", "status": "completed"},
                {"content": "Write tax.rs", "status": "in_progress"},
                {"content": "Run cargo test", "status": "pending"}]}}],
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": tokens - 1003}}}),
    )
}

/// An edit of tax.rs, then a test run that passed, in a response at `tokens`.
fn edit(tokens: u64) -> String {
    let usage = json!({"input_tokens": 3, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": tokens - 1003});
    let done = |id: &str| {
        line(
            &json!({"type": "user", "timestamp": "2026-11-22T03:00:06.000Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}}),
        )
    };
    line(
        &json!({"type": "assistant", "uuid": "a2", "timestamp": "2026-11-22T03:00:06.000Z",
        "message": {"model": "claude-sonnet-4-5", "id": "m2", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t2", "name": "Edit", "input": {
                "file_path": "/home/you/shop/src/tax.rs", "old_string": "a", "new_string": "b"}}],
            "usage": usage}}),
    ) + &done("t2")
        + &line(
            &json!({"type": "assistant", "uuid": "a3", "timestamp": "2026-11-22T03:00:07.000Z",
            "message": {"model": "claude-sonnet-4-5", "id": "m3", "role": "assistant",
                "content": [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {
                    "command": "cargo test -p billing"}}],
                "usage": usage}}),
        )
        + &done("t3")
}

fn hook(sb: &Sandbox, name: &str, event: &str, transcript: &Path, extra: Value) -> String {
    hook_in(sb, SESSION, name, event, transcript, extra)
}

fn hook_in(
    sb: &Sandbox,
    session: &str,
    name: &str,
    event: &str,
    transcript: &Path,
    extra: Value,
) -> String {
    let mut input = json!({"session_id": session, "transcript_path": transcript, "cwd": sb.dir(),
        "hook_event_name": event});
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let run = sb.run(&["hooks", name], input.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// The additional contexts the documented session produces, in the order docs/hooks.md shows them.
fn injected() -> (Sandbox, Vec<String>) {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", request_and_todos(150_000));
    let mut out = Vec::new();
    let prompt = json!({"prompt": "go on"});
    let stdout = hook(&sb, "prompt-submit", "UserPromptSubmit", &t, prompt.clone());
    out.push(additional_context(&stdout, "UserPromptSubmit"));

    // The agent keeps its note where the tag said, then works on.
    let note = sb.write(
        &format!(".ctxmon/notes/{SESSION}.md"),
        "Goal: billing split, tax in tax.rs.\nGotcha: VAT rounds per line, not per invoice.\n",
    );
    // Written just before the edit and the test run that follow it in the transcript.
    let written = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_795_316_405_500);
    std::fs::File::options()
        .write(true)
        .open(&note)
        .and_then(|f| f.set_modified(written))
        .unwrap();
    sb.write("t.jsonl", request_and_todos(150_000) + &edit(170_000));
    let stdout = hook(
        &sb,
        "pre-compact",
        "PreCompact",
        &t,
        json!({"trigger": "auto"}),
    );
    assert!(
        stdout.contains("Checkpoint cx-001 saved at 85%"),
        "{stdout}"
    );
    let stdout = hook(
        &sb,
        "session-start",
        "SessionStart",
        &t,
        json!({"source": "compact"}),
    );
    out.push(additional_context(&stdout, "SessionStart"));
    let stdout = hook(&sb, "prompt-submit", "UserPromptSubmit", &t, prompt);
    out.push(additional_context(&stdout, "UserPromptSubmit"));

    let source = sb.write(
        "ORCHESTRATION.yaml",
        "resumption:\n  updated_at: \"2026-11-22T01:00:00Z\"\n  next_steps: [\"Write tax.rs\"]\n",
    );
    let stdout = hook(
        &sb,
        "pre-tool-use",
        "PreToolUse",
        &t,
        json!({"tool_name": "Edit", "tool_input": {"file_path": source, "old_string": "a", "new_string": "b"}}),
    );
    out.push(additional_context(&stdout, "PreToolUse"));

    // The session ends (its resume log is written); the next one starts with a pointer to it.
    hook(
        &sb,
        "session-end",
        "SessionEnd",
        &t,
        json!({"reason": "prompt_input_exit"}),
    );
    let next = sb.write("next.jsonl", "");
    let stdout = hook_in(
        &sb,
        "9d41b7e2-5c3a-4f08-b6e1-0a7c2d9f4e15",
        "session-start",
        "SessionStart",
        &next,
        json!({"source": "startup"}),
    );
    out.push(additional_context(&stdout, "SessionStart"));
    (sb, out)
}

/// `text` with the sandbox's folder shown as the docs' project.
fn as_in_readme(sb: &Sandbox, text: &str) -> String {
    let dir = sb.dir().display().to_string();
    let canonical = std::fs::canonicalize(sb.dir())
        .unwrap()
        .display()
        .to_string();
    text.replace(&canonical, SHOWN_PROJECT)
        .replace(&dir, SHOWN_PROJECT)
}

/// The page that tells the whole session, block by block.
const WHOLE_SESSION: &str = "docs/hooks.md";

/// README.md, then every page of `docs/`, by name: (shown name, text).
pub fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    let mut docs = vec![(
        "README.md".to_string(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    )];
    for page in pages {
        let name = format!("docs/{}", page.file_name().unwrap().to_string_lossy());
        docs.push((name, std::fs::read_to_string(&page).unwrap()));
    }
    docs
}

/// Every ```` ```xml ```` block of `text`, in order, with the rest of its fence line (empty
/// for the hooks' session, `<fixture>:<lines>` for a real session's hand-back).
fn xml_fences(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```xml") {
        let after = &rest[start + "```xml".len()..];
        let (info, body) = after.split_once('\n').unwrap();
        let end = body.find("\n```").unwrap();
        blocks.push((info.trim().to_string(), body[..end].to_string()));
        rest = &body[end..];
    }
    blocks
}

/// The ```xml blocks of the hooks' session (no fixture named) in `text`, in order.
fn session_blocks(text: &str) -> Vec<String> {
    xml_fences(text)
        .into_iter()
        .filter(|(info, _)| info.is_empty())
        .map(|(_, body)| body)
        .collect()
}

/// The indices in `real` of `shown`'s blocks, matched in order (each after the one before), or
/// the first block that matches none.
fn in_order(shown: &[String], real: &[String]) -> Result<Vec<usize>, String> {
    let mut next = 0;
    let mut found = Vec::new();
    for block in shown {
        let Some(i) = (next..real.len())
            .find(|&i| common::without_times(block) == common::without_times(&real[i]))
        else {
            return Err(block.clone());
        };
        found.push(i);
        next = i + 1;
    }
    Ok(found)
}

#[test]
fn the_docs_show_what_the_hooks_really_inject() {
    let (sb, injected) = injected();
    let real: Vec<String> = injected.iter().map(|t| as_in_readme(&sb, t)).collect();
    let real_text = real.join("\n\n---\n\n");
    let mut shown_anywhere = 0;
    for (doc, text) in documents() {
        let shown = session_blocks(&text);
        shown_anywhere += shown.len();
        let found = in_order(&shown, &real).unwrap_or_else(|block| {
            panic!(
                "{doc} shows an ```xml block the hooks did not inject (or not in the session's \
                 order):\n\n{block}\n\nthe real output, in order:\n\n{real_text}"
            )
        });
        if doc == WHOLE_SESSION {
            assert_eq!(
                found,
                (0..real.len()).collect::<Vec<_>>(),
                "{doc} must show every tag of the session, in order; the real output:\n\n{real_text}"
            );
        }
        if doc == "README.md" {
            assert!(!shown.is_empty(), "README.md shows no tag the agent sees");
        }
    }
    assert!(shown_anywhere >= real.len(), "{WHOLE_SESSION} is missing");
    // One example of every tag ctxmon injects.
    let whole = documents()
        .into_iter()
        .find(|(doc, _)| doc == WHOLE_SESSION)
        .unwrap()
        .1;
    let all = session_blocks(&whole).concat();
    for tag in [
        "<context-monitor ",
        "<resumption-context ",
        "<compaction-alert ",
        "<resumption-staleness ",
    ] {
        assert!(all.contains(tag), "{WHOLE_SESSION} has no example of {tag}");
    }
}

#[test]
fn blocks_match_in_order_or_not_at_all() {
    let real: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let shown = |blocks: &[&str]| blocks.iter().map(|b| b.to_string()).collect::<Vec<_>>();
    assert_eq!(in_order(&shown(&["a", "c"]), &real), Ok(vec![0, 2]));
    assert_eq!(in_order(&shown(&[]), &real), Ok(vec![]));
    assert_eq!(in_order(&shown(&["c", "a"]), &real), Err("a".to_string()));
    assert_eq!(in_order(&shown(&["d"]), &real), Err("d".to_string()));
}

#[test]
fn times_are_set_aside_and_nothing_else() {
    assert_eq!(
        common::without_times(
            "created=\"2026-11-22T04:59:04.463Z\" at 2026-11-22T01:00:00Z; 2026-11 ok"
        ),
        "created=\"[TIME]\" at [TIME]; 2026-11 ok"
    );
}

/// The ```` ```xml <fixture>:<lines> ```` blocks of README.md and `docs/`: (page, fixture,
/// lines, body).
fn fixture_blocks() -> Vec<(String, String, usize, String)> {
    let mut blocks = Vec::new();
    for (doc, text) in documents() {
        for (info, body) in xml_fences(&text) {
            if info.is_empty() {
                continue;
            }
            let (fixture, lines) = info.rsplit_once(':').unwrap();
            blocks.push((
                doc.clone(),
                fixture.to_string(),
                lines.parse().unwrap(),
                body,
            ));
        }
    }
    blocks
}

#[test]
fn the_docs_show_a_real_sessions_hand_back() {
    let blocks = fixture_blocks();
    assert!(
        !blocks.is_empty(),
        "neither README.md nor docs/ shows a real session's hand-back"
    );
    let Some(fixtures) = common::shared_fixtures() else {
        return;
    };
    for (doc, fixture, lines, shown) in blocks {
        let text = std::fs::read_to_string(fixtures.join(&fixture)).unwrap();
        let head: String = text.lines().take(lines).map(|l| format!("{l}\n")).collect();
        let sb = Sandbox::new();
        let t = sb.write("t.jsonl", head);
        let saved = hook(
            &sb,
            "pre-compact",
            "PreCompact",
            &t,
            json!({"trigger": "auto"}),
        );
        assert!(saved.contains("Checkpoint cx-001 saved"), "{saved}");
        let stdout = hook(
            &sb,
            "session-start",
            "SessionStart",
            &t,
            json!({"source": "compact"}),
        );
        let real = as_in_readme(&sb, &additional_context(&stdout, "SessionStart"));
        assert_eq!(
            common::without_times(&shown),
            common::without_times(&real),
            "{doc}'s block for {fixture}:{lines} is not what the hooks inject; the real output:\n\n{real}"
        );
    }
}
