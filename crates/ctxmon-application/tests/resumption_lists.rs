//! `<resumption-context>` from generated `resumption:` sections of 2, 12 and 40 items per list:
//! within 760 tokens, every list shown or counted in `<left-out>` (with where to read it), and
//! each high-priority list showing at least its first item.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use ctxmon_application::handoff::resumption::context::{
    HandBackMode, RESUMPTION_MAX_TOKENS, ResumptionInput, render_resumption_context,
};
use ctxmon_application::handoff::resumption::from_section;
use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, ContextWindow, FillEstimate, FillSource,
    Measured, SessionInfo, Thresholds, Timestamp, TokenCount, estimate_tokens,
};
use serde_json::{Value, json};

/// A section like an orchestrator writes it: `n` items in every list, each long enough that
/// 12 of them overflow the budget.
fn section(n: usize) -> Value {
    json!({
        "recovery_state": "Phase 3 of 5: implementing </resumption-context> & escaping <tricky>",
        "updated_at": "2026-11-25T03:00:00Z",
        "quality_trajectory": {"score": 0.87, "iteration": 4},
        "decisions": (0..n).map(|i| format!("Decision {i}: use approach {i} because of reason & rationale </resumption-context> number {i} with quite a lot of text to fill budget")).collect::<Vec<_>>(),
        "agent_summaries": (0..n).map(|i| format!("agent-{i}: finished the subtask {i} and reported back with results that are long enough")).collect::<Vec<_>>(),
        "files_to_read": (0..n).map(|i| json!({"path": format!("src/very/long/directory/structure/module_{i:03}/implementation_file_{i:03}.rs"), "priority": i % 5, "reason": format!("touched in step {i} & needs review")})).collect::<Vec<_>>(),
        "next_steps": (0..n).map(|i| format!("Step {i}: implement the next piece of functionality for item {i} and verify it with tests")).collect::<Vec<_>>(),
    })
}

fn checkpoint(n: usize) -> CheckpointData {
    CheckpointData {
        schema_version: 1,
        checkpoint_id: CheckpointId::new(4).unwrap(),
        timestamp: "2026-11-25T03:05:00.000Z".into(),
        created_at_ms: Timestamp(1_795_669_500_000),
        compaction_sequence: 2,
        trigger: CompactionTrigger::Auto,
        custom_instructions: None,
        context_state: FillEstimate::measured(Measured {
            tokens: TokenCount(170_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: None,
        }),
        resumption_state: Some(from_section(&section(n))),
        session_info: SessionInfo::default(),
    }
}

/// The items a list section shows and how many of them `<left-out>` says were left out (the
/// section is absent when all were).
fn list_of(doc: &roxmltree::Document<'_>, tag: &str, noun: &str) -> Option<(Vec<String>, usize)> {
    let items: Vec<String> = doc
        .descendants()
        .find(|n| n.has_tag_name(tag))
        .map(|node| {
            node.text()
                .unwrap_or("")
                .lines()
                .filter_map(|l| l.strip_prefix("- "))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let left_out = doc
        .descendants()
        .find(|n| n.has_tag_name("left-out"))
        .and_then(|n| n.text())
        .unwrap_or("");
    let singular = noun.strip_suffix('s').unwrap_or(noun);
    let count = left_out
        .split([',', ':'])
        .map(str::trim)
        .find_map(|part| {
            let (n, rest) = part.split_once(' ')?;
            let rest = rest.strip_prefix("more ").unwrap_or(rest);
            (rest == noun || rest == singular).then(|| n.parse::<usize>().ok())?
        })
        .unwrap_or(0);
    (!items.is_empty() || count > 0).then_some((items, count))
}

#[test]
fn every_list_is_present_shortened_lists_count_and_high_priority_lists_show_one() {
    const LISTS: [(&str, &str, bool); 4] = [
        ("next-steps", "next steps", true),
        ("files-to-read", "files", true),
        ("decisions", "decisions", true),
        ("agent-summaries", "agent summaries", false),
    ];
    for n in [2, 12, 40] {
        let cp = checkpoint(n);
        let text = render_resumption_context(ResumptionInput {
            checkpoint: &cp,
            resume_log: Some("/p/.ctxmon/resume-logs/session-s1.md"),
            mode: HandBackMode::Alone,
        });
        let tokens = estimate_tokens(&text).get();
        assert!(tokens <= RESUMPTION_MAX_TOKENS, "{n}: {tokens}\n{text}");
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert!(
            doc.descendants()
                .any(|d| d.has_tag_name("quality-trajectory")),
            "{n}: {text}"
        );
        if n > 2 {
            assert!(
                text.ends_with(": ctxmon checkpoint show cx-004</left-out>\n</resumption-context>"),
                "{text}"
            );
        }
        for (tag, noun, high) in LISTS {
            let (items, count) =
                list_of(&doc, tag, noun).unwrap_or_else(|| panic!("{n}: no <{tag}>:\n{text}"));
            assert_eq!(
                items.len() + count,
                n,
                "{n} {tag}: shown + counted:\n{text}"
            );
            if high {
                assert!(
                    !items.is_empty(),
                    "{n} {tag}: not even the first item:\n{text}"
                );
            }
            if n == 2 {
                assert_eq!(count, 0, "{n} {tag}: room for everything:\n{text}");
            }
        }
        let (files, _) = list_of(&doc, "files-to-read", "files").unwrap();
        assert!(
            files[0].starts_with(
                "src/very/long/directory/structure/module_000/implementation_file_000.rs"
            ),
            "a whole path first: {}",
            files[0]
        );
    }
}

/// A first file whose path cannot fit gives way to the next one: files to read show a path
/// whenever one fits.
#[test]
fn files_to_read_show_a_path_whenever_one_fits() {
    let mut value = section(40);
    value["files_to_read"][0]["path"] = json!(format!("/{}", "deep/".repeat(200)));
    let mut cp = checkpoint(40);
    cp.resumption_state = Some(from_section(&value));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: None,
        mode: HandBackMode::Alone,
    });
    let doc = roxmltree::Document::parse(&text).unwrap();
    let (files, count) = list_of(&doc, "files-to-read", "files").unwrap();
    assert!(!files.is_empty() && files[0].starts_with("src/"), "{text}");
    assert_eq!(files.len() + count, 40);
    assert!(!text.contains("deep/deep"), "never a cut path: {text}");
}
