//! The context builder and its pipeline (contract C10): strategies, sources, filters, shortening,
//! pairing and budget flow.

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

mod assembly_support;

use assembly_support::*;
use ctxmon_application::assembly::{
    AssemblyErrorKind, CapabilityBasedFilter, RoleBasedFilter, ToolFilter, default_tools,
};
use ctxmon_domain::assembly::{
    AssemblyStrategyType as S, ContextBuildInput, JsonValue, ToolDescriptor,
};

fn names(tools: &[ToolDescriptor]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn returns_a_bundle_with_every_part() {
    let bundle = builder().build(&sample_input(S::Balanced, 10_000)).unwrap();
    assert!(!bundle.system.is_empty());
    assert!(!bundle.messages.is_empty());
    assert!(!bundle.tools.is_empty());
    assert!(bundle.token_estimate > 0);
    assert!(bundle.debug.is_some());
}

#[test]
fn system_prompt_names_role_and_goal() {
    let input = sample_input(S::Balanced, 10_000);
    let bundle = builder().build(&input).unwrap();
    assert!(bundle.system.starts_with("# Agent\n\nRole: coder"));
    // No persona nobody asked for: the caller's own prompt says who the agent is.
    assert!(!bundle.system.contains("You are"), "{}", bundle.system);
    assert!(bundle.system.contains("Current Goal"));
    assert!(
        bundle
            .system
            .contains(input.goal.normalized.as_deref().unwrap())
    );
    assert!(bundle.system.contains("Branch: main\nCommit: abc123d"));
}

#[test]
fn filters_tools_by_role() {
    let bundle = builder().build(&sample_input(S::Balanced, 10_000)).unwrap();
    assert_eq!(
        names(&bundle.tools),
        ["read_files", "write_files", "search"]
    );
}

#[test]
fn messages_come_from_sources() {
    let bundle = builder().build(&sample_input(S::Balanced, 10_000)).unwrap();
    assert!(bundle.messages.iter().all(|m| !m.content.is_empty()));
    let debug = bundle.debug.unwrap();
    assert_eq!(
        debug.included_files,
        ["src/index.ts", "src/utils.ts", "README.md"]
    );
    for source in [
        "files",
        "diffs",
        "memory_pinned",
        "memory_recent",
        "memory_summaries",
        "events",
        "symbols",
    ] {
        assert!(debug.sources[source].included > 0, "{source}");
    }
}

#[test]
fn respects_the_budget_and_reports_the_breakdown() {
    let bundle = builder().build(&sample_input(S::Balanced, 10_000)).unwrap();
    assert!(bundle.token_estimate <= 10_000);
    assert_eq!(recount(&bundle), bundle.token_estimate);
    let debug = bundle.debug.unwrap();
    let b = &debug.token_breakdown;
    assert_eq!(debug.strategy_used, "balanced");
    assert_eq!(b.system + b.messages + b.tools + b.overhead, b.total);
    assert_eq!(b.total, bundle.token_estimate);
    assert_eq!(b.remaining, 10_000 - b.total);
    assert_eq!(
        b.system + b.tools + b.by_source.values().sum::<u64>(),
        b.total
    );
    assert_eq!(debug.assembled_at, Some(NOW));
}

#[test]
fn debug_is_always_present_even_without_summarization() {
    // The breakdown is what lets a caller check the budget, so it is there with or without
    // summarization (contract C10).
    let mut input = sample_input(S::Balanced, 10_000);
    input.constraints.allow_summarization = false;
    assert!(builder().build(&input).unwrap().debug.is_some());
}

#[test]
fn same_input_same_bytes() {
    let input = sample_input(S::Balanced, 10_000);
    let a = serde_json::to_string(&builder().build(&input).unwrap()).unwrap();
    let b = serde_json::to_string(&builder().build(&input).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn minimal_input_gives_an_empty_bundle_without_tools() {
    let input = ContextBuildInput {
        run_id: "minimal".into(),
        goal: ctxmon_domain::assembly::UserGoal {
            raw: "Test".into(),
            ..Default::default()
        },
        agent: agent("generic", &[]),
        repo: None,
        memory: None,
        recent_events: Vec::new(),
        constraints: ctxmon_domain::assembly::ContextConstraints::new(1000),
    };
    let bundle = builder().build(&input).unwrap();
    assert!(bundle.system.contains("Test"));
    assert!(bundle.messages.is_empty());
    assert!(bundle.tools.is_empty());
}

#[test]
fn a_budget_too_small_for_the_system_prompt_is_an_error_not_an_overrun() {
    // A bundle within 100 tokens cannot be made: the system prompt alone is larger, so the
    // only honest answer is an error that says what would fit.
    let err = builder()
        .build(&sample_input(S::Balanced, 100))
        .unwrap_err();
    assert_eq!(err.kind, AssemblyErrorKind::BudgetTooSmall);
    assert!(
        err.message.contains("raise maxTokens to at least"),
        "{}",
        err.message
    );
}

#[test]
fn each_strategy_runs_and_is_reported() {
    for strategy in S::ALL {
        let bundle = builder().build(&sample_input(strategy, 5000)).unwrap();
        assert_eq!(bundle.debug.unwrap().strategy_used, strategy.as_str());
        assert!(bundle.token_estimate > 0 && bundle.token_estimate <= 5000);
    }
}

#[test]
fn conservative_leaves_its_buffer() {
    let mut input = sample_input(S::Conservative, 5000);
    input.repo.as_mut().unwrap().files = (0..50)
        .map(|i| big_file(&format!("f{i}.rs"), 4000, 0.5))
        .collect();
    let bundle = builder().build(&input).unwrap();
    assert!(
        bundle.token_estimate < 5000 * 85 / 100,
        "{}",
        bundle.token_estimate
    );
    let debug = bundle.debug.unwrap();
    assert_eq!(debug.token_breakdown.reserved, 1000);
    assert!(debug.sources["files"].included >= 3);
}

/// The conservative strategy's core: the three most relevant files are there even when the second
/// one only fits shortened and smaller, less relevant files would fit whole.
#[test]
fn conservative_keeps_the_three_most_relevant_files() {
    let files = vec![
        big_file("small-best.rs", 400, 0.9),
        big_file("huge-second.rs", 200_000, 0.85),
        big_file("small-third.rs", 400, 0.8),
        big_file("small-fourth.rs", 400, 0.7),
        big_file("small-fifth.rs", 400, 0.6),
    ];
    let bundle = builder()
        .build(&files_only(files, S::Conservative, 3000, true))
        .unwrap();
    let debug = bundle.debug.unwrap();
    for path in ["small-best.rs", "huge-second.rs", "small-third.rs"] {
        assert!(
            debug.included_files.iter().any(|f| f == path),
            "{path} missing from {:?}",
            debug.included_files
        );
    }
    assert_eq!(debug.sources["files"].summarized, 1);
}

/// Past its core, conservative spends its usable 80% on whole items, so a large budget is used
/// rather than left empty; nothing outside the core is shown in part.
#[test]
fn conservative_fills_its_usable_budget_with_whole_items() {
    let mut input = sample_input(S::Conservative, 200_000);
    input.repo.as_mut().unwrap().files = (0..2000)
        .map(|i| big_file(&format!("src/f{i:04}.rs"), 2000, 0.5))
        .collect();
    let bundle = builder().build(&input).unwrap();
    let used = bundle.token_estimate as f64 / 200_000.0;
    assert!(
        (0.75..=0.80).contains(&used),
        "conservative used {:.1}% of the budget",
        used * 100.0
    );
    let debug = bundle.debug.as_ref().unwrap();
    assert!(debug.sources["files"].included > 100);
    assert_eq!(debug.sources["files"].summarized, 0);
}

/// Pinned memory outranks every strategy's buffer: it is kept whole while it fits the budget
/// left after the system prompt and tools, whatever the buffer would have held back.
#[test]
fn pinned_memory_comes_before_the_buffer() {
    for strategy in S::ALL {
        let mut input = sample_input(strategy, 2000);
        input.constraints.allow_summarization = false;
        let fixed = {
            let mut bare = input.clone();
            bare.memory = None;
            bare.repo = None;
            bare.recent_events.clear();
            let debug = builder().build(&bare).unwrap().debug.unwrap();
            debug.token_breakdown.system + debug.token_breakdown.tools
        };
        // A pinned chunk that fits after the fixed costs but not inside any buffer's remainder.
        let chars = usize::try_from((2000 - fixed - 120) * 4).unwrap();
        let memory = input.memory.as_mut().unwrap();
        memory.pinned = vec![chunk("pin-1", &"p".repeat(chars), 1.0, 0)];
        let bundle = builder().build(&input).unwrap();
        assert!(bundle.token_estimate <= 2000);
        let debug = bundle.debug.unwrap();
        assert_eq!(
            debug.sources["memory_pinned"].included, 1,
            "{strategy:?} dropped pinned memory that fits"
        );
        assert_eq!(debug.sources["memory_pinned"].summarized, 0, "{strategy:?}");
    }
}

#[test]
fn a_coding_task_gets_a_complete_context() {
    let mut input = sample_input(S::Balanced, 5000);
    input.agent = agent(
        "coder",
        &["read_files", "write_files", "search", "git", "run_tests"],
    );
    let bundle = builder().build(&input).unwrap();
    assert!(bundle.system.contains("Role: coder"));
    assert_eq!(
        names(&bundle.tools),
        ["read_files", "write_files", "search", "run_tests"]
    );
    assert!(bundle.token_estimate <= 5000);
}

#[test]
fn a_planner_gets_read_only_tools() {
    let mut input = sample_input(S::Balanced, 5000);
    input.agent = agent("planner", &["read_files", "search"]);
    let bundle = builder().build(&input).unwrap();
    assert_eq!(names(&bundle.tools), ["read_files", "search"]);
    assert!(bundle.system.contains("planner"));
}

#[test]
fn capability_filter_uses_requirements_then_categories() {
    let mut tools = default_tools();
    tools.push(ToolDescriptor {
        name: "deploy".into(),
        description: "Ship it".into(),
        schema: JsonValue::Null,
        required_capabilities: vec!["deploy".into()],
        category: None,
        read_only: None,
    });
    tools.push(ToolDescriptor {
        name: "grep".into(),
        description: "Search text".into(),
        schema: JsonValue::Null,
        required_capabilities: Vec::new(),
        category: Some("search".into()),
        read_only: Some(true),
    });
    tools.push(ToolDescriptor {
        name: "clock".into(),
        description: "Tell the time".into(),
        schema: JsonValue::Null,
        required_capabilities: Vec::new(),
        category: Some("utility".into()),
        read_only: Some(true),
    });
    let a = agent("wizard", &["search", "deploy"]);
    assert_eq!(
        names(&CapabilityBasedFilter.filter(&tools, &a)),
        ["search", "deploy", "grep", "clock"]
    );
    // The role filter treats the unknown role as generic: only its two tools, if capable.
    assert_eq!(names(&RoleBasedFilter.filter(&tools, &a)), ["search"]);
}

/// A candidate left out is never left out silently: the notes say how many of each source and
/// why, and name the switch that would have kept a shortened copy.
#[test]
fn the_notes_say_why_candidates_were_left_out() {
    let notes_of = |allow: bool, max_files: Option<u64>| {
        let mut input = sample_input(S::Balanced, 700);
        input.constraints.allow_summarization = allow;
        input.constraints.max_files = max_files;
        let bundle = builder().build(&input).unwrap();
        let debug = bundle.debug.unwrap();
        let left_out: u64 = debug.sources.values().map(|s| s.excluded).sum();
        (debug.notes, left_out)
    };
    let (notes, left_out) = notes_of(false, None);
    assert!(left_out > 0, "the budget is too small for everything");
    let off: Vec<&String> = notes
        .iter()
        .filter(|n| n.contains("allowSummarization is false"))
        .collect();
    assert!(!off.is_empty(), "{notes:#?}");
    assert!(off.iter().all(|n| n.contains(" left out: ")), "{off:#?}");
    // With shortening allowed, what is still out did not fit even shortened.
    let (notes, _) = notes_of(true, None);
    assert!(
        notes.iter().all(|n| !n.contains("allowSummarization")),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("did not fit the budget")),
        "{notes:#?}"
    );
    // A file count of zero leaves every file out for the count, not the budget.
    let (notes, _) = notes_of(true, Some(0));
    let files = notes.iter().find(|n| n.starts_with("files: ")).unwrap();
    assert!(files.contains("beyond the most items"), "{files}");
}
