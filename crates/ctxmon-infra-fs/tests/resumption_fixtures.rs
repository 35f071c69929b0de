//! Resumption derivation against real Claude Code transcripts
//! (`../shared/fixtures/claude-code-transcripts/`): everything extracted must really occur in
//! the transcript, the sessions known to use TodoWrite and Edit must yield todos and files, and
//! a few values are pinned exactly (looked up by hand with jq).
//!
//! The corpus lives outside the repository; on a fresh clone without `../shared` these tests
//! print a notice and pass, and CI (where the corpus is present) runs them for real.

use std::path::Path;

#[path = "support/corpus.rs"]
mod corpus;

use corpus::{haystack, json_lines as lines, jsonl_files as all_fixtures};

use ctxmon_application::handoff::resumption;
use ctxmon_domain::{ResumptionOrigin, ResumptionState, Todo};
use ctxmon_infra_fs::transcript::records_from_values;
use serde_json::Value;

fn derive_from_tail(lines: &[Value]) -> ResumptionState {
    resumption::derive_from_tail(&records_from_values(lines))
}

fn commands_run(lines: &[Value]) -> Vec<String> {
    resumption::commands_run(&records_from_values(lines))
}

fn errors_seen(lines: &[Value]) -> Vec<String> {
    resumption::errors_seen(&records_from_values(lines))
}

fn derive(dir: &Path, name: &str) -> (ResumptionState, Vec<Value>) {
    let lines = lines(&dir.join(name));
    (derive_from_tail(&lines), lines)
}

#[test]
fn everything_extracted_occurs_in_its_transcript() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    let fixtures = all_fixtures(&dir);
    assert!(
        fixtures.len() >= 10,
        "expected the whole corpus, found {fixtures:?}"
    );
    for path in fixtures {
        let name = path.display();
        let lines = lines(&path);
        let text = haystack(&lines);
        let s = derive_from_tail(&lines);
        assert_eq!(s.origin, ResumptionOrigin::Transcript);
        for f in &s.files_touched {
            assert!(
                text.contains(f.as_str()),
                "{name}: file {f} not in transcript"
            );
        }
        for t in &s.todos {
            assert!(
                text.contains(t.content.as_str()),
                "{name}: todo {t:?} not in transcript"
            );
        }
        for r in &s.last_user_requests {
            // A slash command is rebuilt as "/name args"; its name must be there.
            // A long one is its head and tail around "[… N characters cut …]": its head.
            let probe = if r.starts_with('/') {
                r.split_whitespace().next().unwrap_or(r)
            } else {
                r.split("\n[… ").next().unwrap_or(r).trim_end_matches('…')
            };
            assert!(
                text.contains(probe),
                "{name}: request {r:?} not in transcript"
            );
            for wrapper in [
                "<command-",
                "<local-command",
                "<system-reminder>",
                "<ide_",
                "Caveat:",
            ] {
                assert!(
                    !r.starts_with(wrapper),
                    "{name}: wrapper kept as request: {r:?}"
                );
            }
        }
        if let Some(t) = &s.last_assistant_text {
            assert!(
                text.contains(t.trim_end_matches('…')),
                "{name}: assistant text"
            );
        }
        for c in commands_run(&lines) {
            assert!(
                text.contains(c.trim_end_matches('…')),
                "{name}: command {c:?}"
            );
        }
        assert!(errors_seen(&lines).len() <= lines.len(), "{name}");
    }
}

#[test]
fn sessions_with_todo_write_and_edits_yield_them() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    for name in [
        "cc-1.0.98-basic.jsonl",
        "cc-1.0.108-inline-sidechain.jsonl",
        "cc-1.0.98-heavy-inline-sidechain.jsonl",
        "cc-2.0.37-sonnet-4-5.jsonl",
    ] {
        let (s, _) = derive(&dir, name);
        assert!(!s.todos.is_empty(), "{name}: no todos");
        assert!(!s.files_touched.is_empty(), "{name}: no files touched");
        assert!(!s.last_user_requests.is_empty(), "{name}: no requests");
        assert!(s.last_assistant_text.is_some(), "{name}: no assistant text");
    }
    // Edits but no TodoWrite call (the string only appears inside file contents); files in
    // the order of their last edit.
    let (s, _) = derive(&dir, "cc-1.0.51-streaming-duplicates.jsonl");
    assert!(s.todos.is_empty());
    let root = "/Users/dain/workspace/claude-code-log";
    assert_eq!(
        s.files_touched,
        [
            "claude_code_log/templates/components/session_nav_styles.css",
            "test_combined_link.py",
            "claude_code_log/renderer.py",
            "test/test_combined_transcript_link.py",
            "claude_code_log/templates/transcript.html",
        ]
        .map(|f| format!("{root}/{f}"))
    );
    // A subagent file: every line is sidechain, so nothing belongs to the main session.
    let (s, _) = derive(&dir, "cc-2.0.37-agent-file.jsonl");
    assert!(s.is_empty(), "{s:?}");
}

#[test]
fn basic_session_values() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    let (s, lines) = derive(&dir, "cc-1.0.98-basic.jsonl");
    // `/init` is a slash command; its expanded prompt is an isMeta line and not repeated.
    assert_eq!(s.last_user_requests, ["/init"]);
    // Its Write was refused for want of permission and the item marked completed anyway.
    assert_eq!(
        s.todos,
        [Todo {
            content: "Create CLAUDE.md with essential information".into(),
            status: "completed_after_failure".into()
        }]
    );
    assert_eq!(s.files_touched, ["/path/to/Demo/CLAUDE.md"]);
    assert!(
        s.last_assistant_text
            .as_deref()
            .is_some_and(|t| t.starts_with("I've created a basic CLAUDE.md file"))
    );
    assert_eq!(
        commands_run(&lines).last().map(String::as_str),
        Some("ls -la")
    );
    assert_eq!(
        errors_seen(&lines),
        [
            "$ Write /path/to/Demo/CLAUDE.md\nClaude requested permissions to write to /path/to/Demo/CLAUDE.md, but you haven't granted it yet."
        ]
    );
}

#[test]
fn sonnet_4_5_session_values() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    let (s, lines) = derive(&dir, "cc-2.0.37-sonnet-4-5.jsonl");
    // The IDE-selection block before each prompt is dropped; the prompt is kept.
    assert_eq!(s.last_user_requests.len(), 3);
    assert!(s.last_user_requests[0].starts_with("Can you please change the default command"));
    assert!(s.last_user_requests[1].starts_with("We need to find a cleaner way to reinstall"));
    assert_eq!(
        s.last_user_requests[2],
        "Let's update readme with the working reinstall"
    );
    assert_eq!(s.todos.len(), 5);
    assert_eq!(
        s.todos[0],
        Todo {
            content: "Add function to get current branch PR URL".into(),
            status: "completed".into()
        }
    );
    let root = "/Users/dain/workspace/coderabbit-review-helper";
    assert_eq!(
        s.files_touched,
        [
            format!("{root}/pyproject.toml"),
            format!("{root}/extract-coderabbit-feedback.py"),
            format!("{root}/README.md"),
        ]
    );
    // Every failure of this session was resolved or is not one: the AskUserQuestion call the
    // tool did not have (agent mechanics), the `ModuleNotFoundError` fixed by a reinstall, the
    // "No PR found" run followed by successful runs of the same program, and the two refused
    // calls (decisions, not errors).
    let errors = errors_seen(&lines);
    assert!(errors.is_empty(), "{errors:?}");
    let commands = commands_run(&lines);
    assert_eq!(
        commands.last().map(String::as_str),
        Some("coderabbit-extract 2>&1 | head -3")
    );
    // Run four times, listed once.
    let reinstall = "uv tool uninstall coderabbit-review-extractor && uv tool install .";
    assert_eq!(commands.iter().filter(|c| *c == reinstall).count(), 1);
}

#[test]
fn heavy_sidechain_session_keeps_the_main_chain_only() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    let (s, _) = derive(&dir, "cc-1.0.98-heavy-inline-sidechain.jsonl");
    // Subagents wrote dozens of files; the main agent wrote one.
    assert_eq!(s.files_touched, ["/path/to/Demo/CLAUDE.md"]);
    assert_eq!(
        s.last_user_requests,
        [
            "/orchestrator create TODO app by Next.js",
            "Thanks! Please update CLAUDE.md for current changes"
        ]
    );
    assert_eq!(s.todos.len(), 5);
    assert_eq!(
        s.todos[0].content,
        "Set up Next.js project structure and dependencies"
    );
    assert!(s.todos.iter().all(|t| t.status == "completed"));
}

#[test]
fn local_commands_and_caveats_are_not_requests() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    let (s, _) = derive(&dir, "cc-2.1.42-opus-4-6.jsonl");
    // The session ends with a caveat, `/exit` and its output; the requests before them count.
    assert_eq!(
        s.last_user_requests,
        [
            "I actually don't like much this idea, and I somewhat struggled with it in the clmail project. Can you list, in 5 bullet points, what are the weak points, risks, or caveats of this proposal?",
            "Ok, so, to be fair, maybe also list 5 strengths of this proposal.",
            "Fair enough. Can you write a balanced opinion on this approach? Keep it same overall length as the pros or cons."
        ]
    );
    assert!(s.todos.is_empty() && s.files_touched.is_empty());
}

#[test]
fn compact_summary_is_not_a_request() {
    let Some(dir) = corpus::corpus("resumption tests") else {
        return;
    };
    let (s, _) = derive(&dir, "synthetic-compact-after-rewind.jsonl");
    assert_eq!(
        s.last_user_requests,
        ["Second attempt", "Keep going", "After compaction"]
    );
}
