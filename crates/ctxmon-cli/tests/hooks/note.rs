//! The agent's own note end to end, as Claude Code runs the hooks: the WARNING tag names the
//! note's file, the agent writes it there and works on, PreCompact keeps it and SessionStart
//! hands it back first, with what happened after it; a `/clear` does the same without the
//! compaction's wait.

use serde_json::{Value, json};

use crate::common::{Sandbox, additional_context};

fn line(kind: &str, at: &str, content: Value, tokens: Option<u64>) -> String {
    let mut message = json!({"role": kind, "content": content});
    if let Some(t) = tokens {
        message["id"] = json!(format!("m-{at}"));
        message["model"] = json!("claude-sonnet-4-5");
        message["usage"] = json!({"input_tokens": 3, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": t - 3, "output_tokens": 9});
    }
    json!({"type": kind, "isSidechain": false, "timestamp": at, "message": message}).to_string()
}

fn ask(at: &str, text: &str) -> String {
    line("user", at, json!(text), None)
}

fn edit(at: &str, id: &str, path: &str, tokens: u64) -> Vec<String> {
    vec![
        line(
            "assistant",
            at,
            json!([{"type": "tool_use", "id": id, "name": "Write", "input": {"file_path": path, "content": "x"}}]),
            Some(tokens),
        ),
        line(
            "user",
            at,
            json!([{"type": "tool_result", "tool_use_id": id, "content": "File created successfully"}]),
            None,
        ),
    ]
}

/// The request, then an edit of the parser measured at `tokens`.
fn parser_session(tokens: u64) -> Vec<String> {
    let mut lines = vec![ask(
        "2026-11-20T09:00:00.000Z",
        "Port the parser to the new grammar",
    )];
    lines.extend(edit(
        "2026-11-20T09:10:00.000Z",
        "e1",
        "/w/src/parser.rs",
        tokens,
    ));
    lines
}

fn write_transcript(sb: &Sandbox, lines: &[String]) -> std::path::PathBuf {
    sb.write("t.jsonl", lines.join("\n") + "\n")
}

#[test]
fn a_note_written_at_warning_leads_the_hand_back_and_what_came_after_follows_it() {
    let sb = Sandbox::new();
    // The session reaches WARNING.
    let mut lines = parser_session(145_000);
    let t = write_transcript(&sb, &lines);
    let tag = additional_context(
        &sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s1", &t))
            .stdout,
        "UserPromptSubmit",
    );
    assert!(tag.contains("tier=\"WARNING\""), "{tag}");
    let note_path = sb.path(".ctxmon/notes/s1.md");
    let named = note_path.display().to_string();
    assert!(
        tag.contains(&format!("resumption note current in {named}")),
        "{tag}"
    );

    // The agent writes the note where it was told, and works on.
    sb.write(
        ".ctxmon/notes/s1.md",
        "Goal: parser on the new grammar.\nGotcha: tests need `py -m pytest`, not python3.\n",
    );
    lines.extend(edit("2026-11-20T09:20:00.000Z", "n1", &named, 146_000));
    lines.push(ask("2026-11-20T09:30:00.000Z", "also add error spans"));
    lines.extend(edit(
        "2026-11-20T09:40:00.000Z",
        "e2",
        "/w/src/span.rs",
        168_000,
    ));
    let t = write_transcript(&sb, &lines);

    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s1", &t, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s1", &t, json!({"source": "compact"})),
    );
    let text = additional_context(&start.stdout, "SessionStart");
    roxmltree::Document::parse(&text).unwrap();
    let body = text.split_once('\n').map(|(_, b)| b).unwrap_or_default();
    assert!(body.starts_with("<your-note>(written by you at "), "{text}");
    assert!(
        text.contains("Gotcha: tests need `py -m pytest`, not python3."),
        "{text}"
    );
    assert!(
        text.contains("since then 1 user request and 1 tool call"),
        "{text}"
    );
    assert!(
        text.contains("the user asked: &quot;also add error spans&quot;")
            || text.contains("the user asked: \"also add error spans\""),
        "{text}"
    );
    assert!(text.contains("edited since: /w/src/span.rs"), "{text}");
    // Beside the compaction's own summary: no request, no plan, no pointer to ctxmon.
    assert!(!text.contains("<current-request>"), "{text}");
    assert!(!text.contains("ctxmon checkpoint show"), "{text}");
}

#[test]
fn clear_hands_the_note_and_the_work_to_the_next_session_at_once() {
    let sb = Sandbox::new();
    let lines = parser_session(150_000);
    let t = write_transcript(&sb, &lines);
    sb.write(
        ".ctxmon/notes/s1.md",
        "Goal: parser on the new grammar. Next: error spans.",
    );
    let end = sb.run(
        &["hooks", "session-end"],
        sb.hook_input("SessionEnd", "s1", &t, json!({"reason": "clear"})),
    );
    assert_eq!(end.code, 0, "{}", end.stderr);
    assert_eq!(end.stdout, "", "SessionEnd answers nothing");
    // The session after /clear has an id of its own and an empty transcript.
    let fresh = sb.write("t2.jsonl", "");
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s2", &fresh, json!({"source": "clear"})),
    );
    let text = additional_context(&start.stdout, "SessionStart");
    roxmltree::Document::parse(&text).unwrap();
    assert!(text.contains("trigger=\"clear\""), "{text}");
    assert!(
        text.contains("Goal: parser on the new grammar. Next: error spans."),
        "{text}"
    );
    assert!(
        text.contains("<current-request>Port the parser to the new grammar</current-request>"),
        "{text}"
    );
    // Its first prompt completes the hand-off: the checkpoint is not offered again.
    let first = sb.run(
        &["hooks", "prompt-submit"],
        sb.hook_input("UserPromptSubmit", "s2", &fresh, json!({"prompt": "go on"})),
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let again = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s3", &fresh, json!({"source": "clear"})),
    );
    assert!(
        again.stdout.is_empty() || !again.stdout.contains("Goal: parser"),
        "{}",
        again.stdout
    );
}

#[test]
fn a_note_that_is_not_a_file_or_is_huge_fails_open() {
    let sb = Sandbox::new();
    let mut lines = vec![ask("2026-11-20T09:00:00.000Z", "Port the parser")];
    lines.extend(edit(
        "2026-11-20T09:10:00.000Z",
        "e1",
        "/w/src/parser.rs",
        168_000,
    ));
    let t = write_transcript(&sb, &lines);
    // A folder where the note should be: the hooks answer, the checkpoint is saved.
    std::fs::create_dir_all(sb.path(".ctxmon/notes/s1.md")).unwrap();
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s1", &t, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    assert!(
        sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")
            .is_file()
    );
    std::fs::remove_dir(sb.path(".ctxmon/notes/s1.md")).unwrap();
    // A 5 MB note: read in part, handed back bounded.
    sb.write(
        ".ctxmon/notes/s1.md",
        "note line </resumption-context> & more\n".repeat(130_000),
    );
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s1", &t, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s1", &t, json!({"source": "compact"})),
    );
    let text = additional_context(&start.stdout, "SessionStart");
    roxmltree::Document::parse(&text).unwrap();
    assert!(ctxmon_domain::estimate_tokens(&text).get() <= 760, "{text}");
    assert!(
        text.contains("note line &lt;/resumption-context&gt; &amp; more"),
        "{text}"
    );
}
