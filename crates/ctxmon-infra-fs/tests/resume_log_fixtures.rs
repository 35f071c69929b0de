//! Resume logs generated from the real Claude Code transcripts in
//! `../shared/fixtures/claude-code-transcripts/`: every file, todo, command and request the log
//! names must really be in its transcript, the sessions known to use TodoWrite and Edit must
//! yield them, and every log must render within budget.
//!
//! The corpus lives outside the repository; without `../shared` these tests print a notice and
//! pass, and CI (where the corpus is present) runs them for real.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

#[path = "support/corpus.rs"]
mod corpus;

use corpus::{haystack, json_lines as lines, jsonl_files as fixtures};

use ctxmon_application::config::ResumeLogsConfig;
use ctxmon_application::handoff::resume_log::{GenerationInputs, ResumeLogGenerator, TriggerKind};
use ctxmon_application::handoff::resumption::{
    TranscriptHead, derive_from_tail, first_request_text,
};
use ctxmon_application::ports::TranscriptRecord;
use ctxmon_domain::{ContextValue, ResumeLog, ResumeLogSection, Timestamp};
use ctxmon_infra_fs::transcript::records_from_values;
use serde_json::Value;

fn generate(lines: &[Value]) -> ResumeLog {
    generate_with(&records_from_values(lines), None)
}

fn generate_with(lines: &[TranscriptRecord], head: Option<&TranscriptHead>) -> ResumeLog {
    let generator = ResumeLogGenerator::from_config(&ResumeLogsConfig::default());
    let generated = generator.generate(&GenerationInputs {
        session_id: "fixture",
        trigger: TriggerKind::PreCompact,
        now: Timestamp(1_795_000_000_000),
        fill: None,
        agent: None,
        checkpoint: None,
        tail: Some(lines),
        derived: None,
        head,
        git: None,
        transcript_path: None,
        previous: None,
    });
    // Sections may use room others leave unused; the whole is the bound, and nothing is left
    // out while the document has room (within an item of a transcript's size).
    let rendered = &generated.rendered;
    assert!(rendered.total_tokens() <= ResumeLogSection::TOTAL_BUDGET);
    if rendered.omitted_tokens() > 0 {
        assert!(
            rendered.total_tokens().get() > 9_000,
            "{} omitted at {} tokens",
            rendered.omitted_tokens(),
            rendered.total_tokens()
        );
    }
    generated.log
}

/// The text of a list item as the transcript has it: without the in-progress prefix and the
/// "…" of a capped item.
fn probe(item: &str) -> &str {
    item.strip_prefix("(in progress) ")
        .or_else(|| item.strip_prefix("(marked completed after a failure nothing resolved) "))
        .unwrap_or(item)
        .trim_end_matches('…')
}

#[test]
fn everything_a_log_names_is_in_its_transcript() {
    let Some(dir) = corpus::corpus("resume-log tests") else {
        return;
    };
    let all = fixtures(&dir);
    assert!(all.len() >= 10, "expected the whole corpus, found {all:?}");
    let (mut files, mut todos) = (0, 0);
    for path in all {
        let name = path.display();
        let lines = lines(&path);
        let text = haystack(&lines);
        let log = generate(&lines);
        for f in log
            .metadata
            .files_modified
            .iter()
            .chain(&log.metadata.files_modified_by_subagents)
        {
            assert!(
                text.contains(f.as_str()),
                "{name}: file {f} not in transcript"
            );
            files += 1;
        }
        for t in log.accomplishments.iter().chain(&log.next_steps) {
            assert!(
                text.contains(probe(t)),
                "{name}: todo {t:?} not in transcript"
            );
            todos += 1;
        }
        for c in &log.metadata.commands_run {
            assert!(text.contains(probe(c)), "{name}: command {c:?}");
        }
        // An error is its command (`$ …`, the command line or the tool and its target) and an
        // excerpt: each line of the excerpt (shortened ones up to their "…") is in the
        // transcript, "…" lines stand for the lines left out.
        for e in &log.metadata.errors {
            let excerpt = e.lines().filter(|l| !l.starts_with("$ "));
            for line in excerpt.map(probe).filter(|l| !l.is_empty()) {
                assert!(text.contains(line), "{name}: error {e:?}");
            }
        }
        if !log.mission_summary.is_empty() && !log.mission_summary.starts_with('/') {
            assert!(
                text.contains(probe(&log.mission_summary)),
                "{name}: mission"
            );
        }
    }
    assert!(files >= 10 && todos >= 10, "files {files}, todos {todos}");
}

#[test]
fn sessions_with_todo_write_and_edits_yield_them() {
    let Some(dir) = corpus::corpus("resume-log tests") else {
        return;
    };
    for name in [
        "cc-1.0.98-basic.jsonl",
        "cc-1.0.108-inline-sidechain.jsonl",
        "cc-1.0.98-heavy-inline-sidechain.jsonl",
        "cc-2.0.37-sonnet-4-5.jsonl",
    ] {
        let log = generate(&lines(&dir.join(name)));
        assert!(
            !(log.accomplishments.is_empty() && log.next_steps.is_empty()),
            "{name}: no todos"
        );
        assert!(!log.metadata.files_modified.is_empty(), "{name}: no files");
        assert!(!log.mission_summary.is_empty(), "{name}: no mission");
        assert_eq!(log.metadata.sources, ["transcript"], "{name}");
    }
    let basic = generate(&lines(&dir.join("cc-1.0.98-basic.jsonl")));
    // Every item the session's lists completed, not only what the newest list still shows.
    assert_eq!(
        basic.accomplishments,
        [
            "Analyze codebase structure and files",
            "Identify build, test, and lint commands",
            "Understand high-level architecture",
            "Check for existing CLAUDE.md, README.md, or rule files",
        ]
    );
    // The Write of CLAUDE.md was refused (no permission) and the item marked completed
    // anyway: it stays a next step, saying why.
    assert_eq!(
        basic.next_steps,
        [
            "(marked completed after a failure nothing resolved) Create CLAUDE.md with essential information"
        ]
    );
    assert_eq!(basic.metadata.files_modified, ["/path/to/Demo/CLAUDE.md"]);
    assert_eq!(basic.mission_summary, "/init");
    // A subagent's own file: nothing in it belongs to the main session.
    let agent = generate(&lines(&dir.join("cc-2.0.37-agent-file.jsonl")));
    assert!(agent.metadata.files_modified.is_empty() && agent.next_steps.is_empty());
    // Inline subagents wrote most of this session's files: they are listed apart.
    let heavy = generate(&lines(&dir.join("cc-1.0.98-heavy-inline-sidechain.jsonl")));
    let by_agents = &heavy.metadata.files_modified_by_subagents;
    assert!(by_agents.len() >= 10, "{by_agents:?}");
    assert!(
        by_agents.contains(&"/path/to/Demo/todo-app/src/hooks/useTodos.ts".to_string()),
        "{by_agents:?}"
    );
    assert!(
        by_agents
            .iter()
            .all(|f| !heavy.metadata.files_modified.contains(f))
    );
}

#[test]
fn a_long_transcripts_first_request_is_named_apart_and_the_mission_is_the_newest() {
    let Some(dir) = corpus::corpus("resume-log tests") else {
        return;
    };
    for name in [
        "cc-2.0.37-sonnet-4-5.jsonl",
        "cc-1.0.51-streaming-duplicates.jsonl",
        "cc-1.0.98-heavy-inline-sidechain.jsonl",
    ] {
        let all = records_from_values(&lines(&dir.join(name)));
        let expected = first_request_text(&all).unwrap();
        // A tail window that begins after the first request, as 8 MiB does in a long session.
        let at = all
            .iter()
            .position(|r| first_request_text(std::slice::from_ref(r)).as_ref() == Some(&expected))
            .unwrap();
        let tail = &all[(at + 1).max(all.len() / 2)..];
        assert_ne!(first_request_text(tail).as_deref(), Some(expected.as_str()));
        let mut head = TranscriptHead::default();
        for line in &all {
            if head.visit(line).is_break() {
                break;
            }
        }
        assert!(head.started_at.is_some(), "{name}");
        let log = generate_with(tail, Some(&head));
        // The mission is a request of the tail (the newest, or the one a short reply
        // answers), never the first request of the session.
        // A tail with no request of its own has no mission rather than a stale one.
        let requests = derive_from_tail(tail).last_user_requests;
        assert!(
            requests.contains(&log.mission_summary)
                || (requests.is_empty() && log.mission_summary.is_empty()),
            "{name}: {:?} {requests:?}",
            log.mission_summary
        );
        assert_ne!(log.mission_summary, expected, "{name}");
        // The first request, from the transcript's start far before the tail, under its name.
        let start: String = expected.chars().take(200).collect();
        match log.critical_context.get("first request") {
            Some(ContextValue::Text(first)) => {
                assert!(first.starts_with(&start), "{name}: {first}")
            }
            other => panic!("{name}: no first request: {other:?}"),
        }
        let minutes = log.metadata.duration_minutes();
        assert!(minutes.is_some_and(|m| m < 24 * 60), "{name}: {minutes:?}");
    }
}
