//! Packing behaviour per source and strategy: shortening, limits, ranking, budget flow,
//! call/result pairing, event order, pinned memory, headers and diff fallbacks.

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

mod assembly_support;

use assembly_support::*;
use ctxmon_domain::assembly::{AssemblyStrategyType as S, JsonValue, MessageRole};

#[test]
fn greedy_fills_the_budget_by_shortening_the_best_file_that_did_not_fit() {
    let files = vec![
        big_file("huge.rs", 400_000, 0.9),
        big_file("small.rs", 400, 0.5),
    ];
    let bundle = builder()
        .build(&files_only(files, S::Greedy, 8000, true))
        .unwrap();
    assert!(
        bundle.token_estimate <= 8000 && bundle.token_estimate > 8000 - 50,
        "{}",
        bundle.token_estimate
    );
    let huge = bundle
        .messages
        .iter()
        .find(|m| m.content.contains("huge.rs"))
        .unwrap();
    assert!(huge.metadata.as_ref().unwrap().truncated);
    assert!(huge.content.contains("[truncated: showing the first"));
    assert!(
        bundle
            .messages
            .iter()
            .any(|m| m.content.contains("small.rs"))
    );
    assert_eq!(bundle.debug.unwrap().summarizations_applied, 1);
}

#[test]
fn without_summarization_nothing_is_shortened() {
    let files = vec![
        big_file("huge.rs", 400_000, 0.9),
        big_file("small.rs", 400, 0.5),
    ];
    let bundle = builder()
        .build(&files_only(files, S::Greedy, 8000, false))
        .unwrap();
    assert!(
        bundle
            .messages
            .iter()
            .all(|m| !m.content.contains("[truncated"))
    );
    let debug = bundle.debug.unwrap();
    assert_eq!(debug.included_files, ["small.rs"]);
    assert_eq!(debug.excluded_files, ["huge.rs"]);
    assert_eq!(debug.excluded_file_count, 1);
}

#[test]
fn max_files_caps_the_files_kept() {
    let files = (0..10)
        .map(|i| big_file(&format!("f{i}.rs"), 100, 0.5))
        .collect();
    let mut input = files_only(files, S::Greedy, 50_000, true);
    input.constraints.max_files = Some(4);
    let debug = builder().build(&input).unwrap().debug.unwrap();
    assert_eq!(debug.included_files, ["f0.rs", "f1.rs", "f2.rs", "f3.rs"]);
    assert_eq!(debug.excluded_file_count, 6);
}

#[test]
fn files_rank_by_relevance_then_recency_then_path() {
    let mut a = big_file("b.rs", 10, 0.5);
    a.last_modified = Some(NOW - 5);
    let mut b = big_file("a.rs", 10, 0.5);
    b.last_modified = Some(NOW - 5);
    let mut c = big_file("z.rs", 10, 0.5);
    c.last_modified = Some(NOW);
    let d = big_file("top.rs", 10, 0.95);
    let debug = builder()
        .build(&files_only(vec![a, b, c, d], S::Greedy, 50_000, true))
        .unwrap()
        .debug
        .unwrap();
    assert_eq!(debug.included_files, ["top.rs", "z.rs", "a.rs", "b.rs"]);
}

#[test]
fn balanced_passes_an_unused_share_on() {
    // Only files have content: their 35% share alone would leave most of the budget idle. The
    // shares of empty sources, and what files cannot use in the first pass, must reach them.
    let files = (0..40)
        .map(|i| big_file(&format!("f{i:02}.rs"), 1000, 0.5))
        .collect();
    let bundle = builder()
        .build(&files_only(files, S::Balanced, 6000, false))
        .unwrap();
    let debug = bundle.debug.unwrap();
    // 90% of the budget is usable (10% buffer); every file costs ~262 tokens.
    let usable = 6000 - debug.token_breakdown.reserved;
    assert!(
        bundle.token_estimate > usable - 270,
        "{} of {usable}",
        bundle.token_estimate
    );
    assert!(bundle.token_estimate <= usable);
}

#[test]
fn results_follow_their_calls_and_orphans_are_dropped() {
    let mut input = sample_input(S::Greedy, 20_000);
    input.recent_events.push(event(
        "tool_result",
        JsonValue::object([("toolCallId", "ghost".into()), ("toolName", "git".into())]),
        10,
        Some("evt-9"),
    ));
    let bundle = builder().build(&input).unwrap();
    assert_results_follow_calls(&bundle.messages);
    assert!(
        !bundle
            .messages
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some("ghost"))
    );
    // call-2's error has no call in the input either.
    assert!(
        !bundle
            .messages
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some("call-2"))
    );
    let events: Vec<_> = bundle
        .messages
        .iter()
        .filter(|m| m.tool_call_id.is_some())
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(
        (events[0].role, events[1].role),
        (MessageRole::Assistant, MessageRole::Tool)
    );
    let debug = bundle.debug.unwrap();
    assert_eq!(debug.sources["events"].excluded, 2);
    assert!(
        debug
            .notes
            .iter()
            .any(|n| n.contains("without its tool_call")),
        "{:?}",
        debug.notes
    );
}

#[test]
fn a_call_and_its_result_are_dropped_together_when_they_do_not_both_fit() {
    let mut input = sample_input(S::Greedy, 0);
    input.memory = None;
    input.repo = None;
    input.recent_events.truncate(2);
    input.constraints.max_tokens = 100_000;
    let full = builder().build(&input).unwrap();
    let fixed = full.debug.as_ref().unwrap().token_breakdown.system
        + full.debug.as_ref().unwrap().token_breakdown.tools;
    let pair = full.token_estimate - fixed;
    for max in [fixed, fixed + 1, fixed + pair / 2, fixed + pair - 1] {
        input.constraints.max_tokens = max;
        let bundle = builder().build(&input).unwrap();
        assert!(
            bundle.messages.is_empty(),
            "budget {max}: {:?}",
            bundle.messages
        );
    }
    input.constraints.max_tokens = fixed + pair;
    assert_eq!(builder().build(&input).unwrap().messages.len(), 2);
}

#[test]
fn events_older_than_the_age_limit_are_left_out() {
    let mut input = sample_input(S::Greedy, 20_000);
    input.recent_events.push(event(
        "checkpoint",
        JsonValue::Null,
        10_000_000,
        Some("old"),
    ));
    input.constraints.max_event_age_ms = Some(1_000_000);
    let bundle = builder().build(&input).unwrap();
    assert!(
        !bundle
            .messages
            .iter()
            .any(|m| m.content.contains("ID: old"))
    );
    // The three sample events are five minutes old: kept (bar the orphaned error).
    assert!(
        bundle
            .messages
            .iter()
            .any(|m| m.content.contains("ID: evt-1"))
    );
}

#[test]
fn events_are_shown_oldest_first() {
    let mut input = sample_input(S::Greedy, 20_000);
    input.recent_events = vec![
        event("checkpoint", JsonValue::Null, 10, Some("newest")),
        event("agent_switch", JsonValue::Null, 1000, Some("oldest")),
        event("user_interruption", JsonValue::Null, 500, Some("middle")),
    ];
    let bundle = builder().build(&input).unwrap();
    let order: Vec<_> = bundle
        .messages
        .iter()
        .filter_map(|m| {
            ["oldest", "middle", "newest"]
                .into_iter()
                .find(|id| m.content.contains(&format!("ID: {id}")))
        })
        .collect();
    assert_eq!(order, ["oldest", "middle", "newest"]);
}

#[test]
fn pinned_memory_is_kept_before_anything_else() {
    let mut input = sample_input(S::Balanced, 0);
    let pinned = "Never push to main without review. ".repeat(60);
    input.memory.as_mut().unwrap().pinned = vec![chunk("rule", &pinned, 0.1, 0)];
    input.repo.as_mut().unwrap().files = (0..30)
        .map(|i| big_file(&format!("f{i}.rs"), 2000, 1.0))
        .collect();
    input.constraints.max_tokens = 100_000;
    let fixed = {
        let b = builder()
            .build(&input)
            .unwrap()
            .debug
            .unwrap()
            .token_breakdown;
        b.system + b.tools
    };
    for strategy in S::ALL {
        input.constraints.strategy = Some(strategy);
        // Room for the pinned rule (~530 tokens) plus the buffer, little else.
        input.constraints.max_tokens = (fixed + 600) * 100 / 75;
        let bundle = builder().build(&input).unwrap();
        let rule = bundle
            .messages
            .iter()
            .find(|m| m.content.contains("[Memory: rule]"));
        assert!(
            rule.is_some_and(|m| !m.metadata.as_ref().unwrap().truncated),
            "{strategy}"
        );
    }
}

#[test]
fn headers_appear_only_with_their_items() {
    let mut input = sample_input(S::Greedy, 20_000);
    let with = builder().build(&input).unwrap();
    assert!(
        with.messages
            .iter()
            .any(|m| m.content == "## Uncommitted Changes")
    );
    assert!(with.messages.iter().any(|m| m.content == "## Code Symbols"));
    input.repo.as_mut().unwrap().diffs.clear();
    let without = builder().build(&input).unwrap();
    assert!(
        !without
            .messages
            .iter()
            .any(|m| m.content == "## Uncommitted Changes")
    );
}

#[test]
fn a_diff_that_does_not_fit_falls_back_to_its_stats() {
    let mut input = sample_input(S::Greedy, 0);
    input.memory = None;
    input.recent_events.clear();
    let repo = input.repo.as_mut().unwrap();
    repo.files.clear();
    repo.symbols.clear();
    repo.diffs[0].patch = "+x\n".repeat(5000);
    input.constraints.max_tokens = 100_000;
    let fixed = {
        let b = builder()
            .build(&input)
            .unwrap()
            .debug
            .unwrap()
            .token_breakdown;
        b.system + b.tools
    };
    input.constraints.max_tokens = fixed + 40;
    let bundle = builder().build(&input).unwrap();
    let stats = bundle
        .messages
        .iter()
        .find(|m| m.content.starts_with("File: src/index.ts"))
        .unwrap();
    assert!(
        stats
            .content
            .contains("[truncated: patch of 15,000 characters omitted]"),
        "{}",
        stats.content
    );
    assert!(stats.metadata.as_ref().unwrap().truncated);
}

#[test]
fn recent_history_has_no_gaps() {
    // The newest event is large; an older one is small. With room for the small one only, the
    // older event must not appear without the newer one.
    let mut input = sample_input(S::Greedy, 0);
    input.memory = None;
    input.repo = None;
    input.recent_events = vec![
        event("checkpoint", JsonValue::Null, 5000, Some("old")),
        event(
            "checkpoint",
            JsonValue::from("x".repeat(400)),
            10,
            Some("new"),
        ),
    ];
    input.constraints.max_tokens = 100_000;
    let b = builder()
        .build(&input)
        .unwrap()
        .debug
        .unwrap()
        .token_breakdown;
    let fixed = b.system + b.tools;
    input.constraints.max_tokens = fixed + 60;
    let bundle = builder().build(&input).unwrap();
    assert!(bundle.messages.is_empty(), "{:?}", bundle.messages);
    input.constraints.max_tokens = fixed + b.messages + b.overhead;
    assert_eq!(builder().build(&input).unwrap().messages.len(), 2);
}
