//! Every kind of bad input the issue lists, each answered with a clear error or a sensible,
//! noted interpretation, never a panic or an over-budget bundle.

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

mod assembly_support;

use assembly_support::*;
use ctxmon_application::assembly::{AssemblyErrorKind, CapabilityBasedFilter, ToolFilter};
use ctxmon_domain::assembly::{
    AssemblyStrategyType as S, ContextBuildInput, ContextBundle, FileDescriptor, JsonValue,
    MemorySnapshot, RepoSnapshot, ToolDescriptor,
};

fn build(input: &ContextBuildInput) -> ContextBundle {
    let bundle = builder().build(input).unwrap();
    assert!(bundle.token_estimate <= input.constraints.max_tokens);
    assert_eq!(recount(&bundle), bundle.token_estimate);
    bundle
}

fn notes(bundle: &ContextBundle) -> &[String] {
    &bundle.debug.as_ref().unwrap().notes
}

#[test]
fn max_tokens_zero_is_a_clear_error() {
    let err = builder().build(&sample_input(S::Balanced, 0)).unwrap_err();
    assert_eq!(err.kind, AssemblyErrorKind::InvalidBudget);
    assert!(
        err.message.starts_with("constraints.maxTokens is 0"),
        "{}",
        err.message
    );
}

#[test]
fn max_tokens_below_the_system_prompt_is_a_clear_error_at_every_size() {
    let roomy = build(&sample_input(S::Balanced, 100_000));
    let b = roomy.debug.unwrap().token_breakdown;
    let fixed = b.system + b.tools;
    for max in [1, b.system - 1, b.system, fixed - 1] {
        let err = builder()
            .build(&sample_input(S::Balanced, max))
            .unwrap_err();
        assert_eq!(err.kind, AssemblyErrorKind::BudgetTooSmall, "{max}");
        assert!(
            err.message.contains(&format!("at least {fixed}")),
            "{}",
            err.message
        );
    }
    // Exactly the fixed part: a bundle with no messages.
    let bundle = build(&sample_input(S::Balanced, fixed));
    assert!(bundle.messages.is_empty());
    assert_eq!(bundle.token_estimate, fixed);
}

#[test]
fn empty_snapshots_give_an_empty_bundle() {
    let mut input = sample_input(S::Greedy, 10_000);
    input.repo = Some(RepoSnapshot::default());
    input.memory = Some(MemorySnapshot::default());
    input.recent_events.clear();
    let bundle = build(&input);
    assert!(bundle.messages.is_empty());
    assert!(!bundle.system.contains("Memory Items"));
    let debug = bundle.debug.unwrap();
    assert!(
        debug
            .sources
            .values()
            .all(|s| s.included == 0 && s.excluded == 0)
    );
    assert_eq!(debug.excluded_file_count, 0);
}

#[test]
fn a_hundred_thousand_files() {
    let files: Vec<FileDescriptor> = (0..100_000)
        .map(|i| FileDescriptor {
            path: format!("src/m{i:06}.rs"),
            size: 40,
            content: Some(format!("pub fn f{i}() -> u32 {{ {i} }}\n")),
            relevance_score: Some((i % 1000) as f64 / 1000.0),
            ..Default::default()
        })
        .collect();
    for strategy in S::ALL {
        let bundle = build(&files_only(files.clone(), strategy, 50_000, true));
        let debug = bundle.debug.unwrap();
        assert!(!debug.included_files.is_empty());
        assert_eq!(debug.excluded_files.len(), 100);
        assert_eq!(
            debug.excluded_file_count,
            100_000 - debug.included_files.len() as u64
        );
        // The most relevant (999/1000), then by path.
        assert_eq!(debug.included_files[0], "src/m000999.rs");
    }
}

#[test]
fn a_fifty_megabyte_file() {
    let content = "fn padding() {}\n".repeat(50 * 1024 * 1024 / 16);
    let file = FileDescriptor {
        path: "huge.rs".into(),
        size: content.len() as u64,
        content: Some(content),
        relevance_score: Some(1.0),
        ..Default::default()
    };
    let shortened = build(&files_only(vec![file.clone()], S::Greedy, 20_000, true));
    let message = &shortened.messages[0];
    assert!(message.content.contains("[truncated: showing the first"));
    assert!(message.content.contains("of 52,428,800 characters]"));
    assert!(shortened.token_estimate > 19_900);
    assert_eq!(
        message.metadata.as_ref().unwrap().original_size,
        Some(50 * 1024 * 1024)
    );

    let left_out = build(&files_only(vec![file], S::Greedy, 20_000, false));
    assert!(left_out.messages.is_empty());
    assert_eq!(left_out.debug.unwrap().excluded_files, ["huge.rs"]);
}

#[test]
fn duplicate_paths_ids_and_events_keep_the_first() {
    let mut input = sample_input(S::Greedy, 20_000);
    let repo = input.repo.as_mut().unwrap();
    let mut copy = repo.files[0].clone();
    copy.content = Some("the second copy".into());
    repo.files.push(copy);
    let memory = input.memory.as_mut().unwrap();
    memory
        .recent
        .push(chunk("mem-1", "recent copy of a pinned id", 1.0, 0));
    input
        .recent_events
        .push(event("checkpoint", JsonValue::Null, 1, Some("evt-1")));
    let bundle = build(&input);
    assert!(
        !bundle
            .messages
            .iter()
            .any(|m| m.content.contains("the second copy"))
    );
    assert!(
        !bundle
            .messages
            .iter()
            .any(|m| m.content.contains("recent copy"))
    );
    assert!(
        !bundle
            .messages
            .iter()
            .any(|m| m.content.contains("[Event: checkpoint]"))
    );
    let notes = notes(&bundle);
    assert!(
        notes.contains(
            &"repo.files[3].path: \"src/index.ts\" repeats repo.files[0], left out".to_owned()
        ),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"memory.recent[1].id: \"mem-1\" appears earlier, left out".to_owned()),
        "{notes:?}"
    );
    assert!(
        notes.contains(
            &"recentEvents[3].eventId: \"evt-1\" repeats recentEvents[0], left out".to_owned()
        ),
        "{notes:?}"
    );
}

#[test]
fn nan_infinite_and_negative_scores_are_neutral_or_clamped() {
    let mut input = sample_input(S::Greedy, 20_000);
    let files = &mut input.repo.as_mut().unwrap().files;
    files[0].relevance_score = Some(f64::NAN);
    files[1].relevance_score = Some(-3.0);
    files[2].relevance_score = Some(f64::INFINITY);
    let memory = input.memory.as_mut().unwrap();
    memory
        .pinned
        .push(chunk("nan", "not a number", f64::NAN, 0));
    memory.pinned.push(chunk("neg", "negative", -1.0, 0));
    memory.pinned.push(chunk("big", "too large", 9.0, 0));
    input.constraints.buffer_percentage = Some(f64::NAN);
    let bundle = build(&input);
    // NaN and infinity read as 0.5 (ties broken by recency), -3 as 0.
    assert_eq!(
        bundle.debug.as_ref().unwrap().included_files,
        ["src/index.ts", "README.md", "src/utils.ts"]
    );
    let pinned: Vec<_> = bundle
        .messages
        .iter()
        .filter_map(|m| m.content.strip_prefix("[Memory: "))
        .map(|s| &s[..s.find(']').unwrap()])
        .collect();
    assert_eq!(&pinned[..4], ["big", "mem-1", "nan", "neg"]);
    assert!(bundle.messages.iter().all(|m| {
        m.metadata
            .as_ref()
            .and_then(|x| x.priority)
            .is_none_or(f64::is_finite)
    }));
    let notes = notes(&bundle);
    for expected in [
        "repo.files[0].relevanceScore: NaN is not a number, treated as 0.5",
        "repo.files[1].relevanceScore: -3.0 is outside 0-1, treated as 0.0",
        "repo.files[2].relevanceScore: inf is not a number, treated as 0.5",
        "memory.pinned[1].importance: NaN is not a number, treated as 0.5",
        "memory.pinned[2].importance: -1.0 is outside 0-1, treated as 0.0",
        "constraints.bufferPercentage: NaN is not a number, the strategy's default is used",
    ] {
        assert!(
            notes.contains(&expected.to_owned()),
            "{expected} not in {notes:?}"
        );
    }
    // The whole bundle still serializes: no NaN reaches the JSON.
    assert!(!serde_json::to_string(&bundle).unwrap().contains("null"));
}

#[test]
fn negative_numbers_in_json_are_read_and_clamped() {
    let json = r#"{"runId":"r","goal":{"raw":"g"},"agent":{"id":"a","role":"coder","capabilities":[]},
        "repo":{"root":"/r","files":[{"path":"a","size":1,"content":"x","relevanceScore":-0.5}]},
        "memory":{"pinned":[{"id":"m","content":"c","importance":-2}]},
        "constraints":{"maxTokens":5000,"strategy":"greedy","allowSummarization":true,"bufferPercentage":-7}}"#;
    let input: ContextBuildInput = serde_json::from_str(json).unwrap();
    let bundle = build(&input);
    assert_eq!(bundle.messages.len(), 2);
    let notes = notes(&bundle);
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("repo.files[0].relevanceScore: -0.5")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("constraints.bufferPercentage: -7.0 is outside")),
        "{notes:?}"
    );
}

#[test]
fn events_from_the_future_count_as_now() {
    let mut input = sample_input(S::Greedy, 20_000);
    input.recent_events.push(event(
        "user_interruption",
        JsonValue::Null,
        -3_600_000,
        Some("future"),
    ));
    input.constraints.max_event_age_ms = Some(600_000);
    let bundle = build(&input);
    let last = bundle.messages.last().unwrap();
    assert!(last.content.contains("ID: future"), "{}", last.content);
    // Shown with its real time, ordered as "now".
    assert!(last.content.contains("Time: 2026-01-01T01:00:00.000Z"));
    assert!(
        notes(&bundle)
            .iter()
            .any(|n| n.starts_with("recentEvents[3].timestamp: 1767229200000 is after nowMs"))
    );
}

#[test]
fn without_now_the_newest_event_is_now() {
    let mut input = sample_input(S::Greedy, 20_000);
    input.constraints.now_ms = None;
    input.constraints.max_event_age_ms = Some(6_000);
    // evt-1 is 300 s, evt-2 295 s old: 5 s apart, within 6 s of the newest (evt-3, an orphan).
    let bundle = build(&input);
    assert!(
        bundle
            .messages
            .iter()
            .any(|m| m.content.contains("ID: evt-2"))
    );
    assert_eq!(bundle.debug.unwrap().assembled_at, None);
}

#[test]
fn unknown_roles_capabilities_and_event_types_are_read_leniently() {
    let json = r#"{"runId":"r","goal":{"raw":"g","intentType":"haiku"},
        "agent":{"id":"a","role":"wizard","capabilities":["read_files","teleport"]},
        "recentEvents":[{"type":"telepathy","payload":{"x":1},"timestamp":5}],
        "constraints":{"maxTokens":5000}}"#;
    let input: ContextBuildInput = serde_json::from_str(json).unwrap();
    assert_eq!(input.agent.role.as_str(), "wizard");
    let bundle = build(&input);
    assert!(bundle.system.starts_with("# Agent\n\nRole: wizard"));
    assert!(bundle.system.contains("- teleport: teleport"));
    assert_eq!(
        bundle
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["read_files"]
    );
    assert!(bundle.messages[0].content.starts_with("[Event: telepathy]"));
    let notes = notes(&bundle);
    assert!(notes.contains(&"agent.role: unknown role \"wizard\", treated as generic".to_owned()));
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("agent.capabilities[1]: unknown capability \"teleport\""))
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("recentEvents[0].type: unknown event type \"telepathy\""))
    );
    // A custom tool may require the unknown capability by name.
    let tool = ToolDescriptor {
        name: "teleport".into(),
        description: "Move".into(),
        schema: JsonValue::Null,
        required_capabilities: vec!["teleport".into()],
        category: None,
        read_only: None,
    };
    assert_eq!(CapabilityBasedFilter.filter(&[tool], &input.agent).len(), 1);
}

#[test]
fn the_documented_json_shape_is_accepted_and_typos_are_not() {
    let json = r#"{"runId":"session-123","goal":{"raw":"Fix the login bug","intentType":"debugging"},
        "agent":{"id":"coder-1","role":"coder","capabilities":["read_files","write_files"],"specializations":["auth"]},
        "repo":{"root":"/w","files":[{"path":"a.ts","size":3,"language":"typescript","lastModified":1,"content":"x","relevanceScore":0.9}],
            "symbols":[{"name":"f","kind":"function","file":"a.ts","range":[1,2],"documentation":"d"}],
            "diffs":[{"file":"a.ts","patch":"+x","changeType":"modified","additions":1,"deletions":0}],
            "metadata":{"branch":"main","commit":"abc","dirty":true,"remoteUrl":"u"}},
        "memory":{"summaries":[],"pinned":[{"id":"m","content":"c","importance":0.5,"timestamp":1,"source":"user","type":"fact","relatedTo":["a.ts"]}],"recent":[]},
        "recentEvents":[{"type":"tool_call","payload":{"toolName":"git","toolCallId":"c","args":{}},"timestamp":1,"eventId":"e"}],
        "constraints":{"maxTokens":120000,"strategy":"balanced","allowSummarization":true,"bufferPercentage":10,"maxFiles":10,"maxEventAge":60000}}"#;
    let input: ContextBuildInput = serde_json::from_str(json).unwrap();
    assert_eq!(input.constraints.max_event_age_ms, Some(60_000));
    build(&input);
    let typo = json.replace("\"maxTokens\"", "\"maxToken\"");
    let err = serde_json::from_str::<ContextBuildInput>(&typo)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `maxToken`"), "{err}");
}

/// Prices like `CharsPerFour` but answers `fit_prefix` off its contract: one byte into a
/// multi-byte character, or past the end of the text.
#[derive(Debug)]
struct OffBoundary {
    past_the_end: bool,
}

impl ctxmon_domain::assembly::TokenCounter for OffBoundary {
    fn count(&self, text: &str) -> u64 {
        ctxmon_domain::assembly::CharsPerFour.count(text)
    }

    fn fit_prefix(&self, text: &str, budget: u64) -> usize {
        let honest = ctxmon_domain::assembly::CharsPerFour.fit_prefix(text, budget);
        if self.past_the_end {
            text.len() + 7
        } else {
            honest + 1
        }
    }
}

#[test]
fn a_counter_that_breaks_fit_prefix_cannot_panic_the_assembly() {
    // Two-byte characters everywhere: an honest offset plus one is never a char boundary.
    let mut file = big_file("src/é.rs", 0, 0.9);
    file.content = Some("é".repeat(40_000));
    file.size = 80_000;
    let input = files_only(vec![file], S::Balanced, 6_000, true);
    for past_the_end in [false, true] {
        let bundle = builder()
            .with_counter(Box::new(OffBoundary { past_the_end }))
            .build(&input)
            .unwrap();
        assert!(bundle.token_estimate <= 6_000, "{past_the_end}");
    }
}
