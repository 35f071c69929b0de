//! Shared fixtures, generators and checks for the assembly tests: a sample repository,
//! memory and events (with fixed times instead of `Date.now()`), random inputs for properties,
//! and an independent recount of a bundle.

#![allow(clippy::unwrap_used)] // helpers for tests: a panic fails the test, as it should
#![allow(dead_code)]

use ctxmon_application::assembly::{
    ContextBuilder, ContextBuilderOptions, create_context_builder, message_tokens,
};
use ctxmon_domain::assembly::{
    AgentDescriptor, AssemblyStrategyType, CharsPerFour, ContextBuildInput, ContextBundle,
    ContextConstraints, ContextMessage, FileDescriptor, GitDiff, JsonValue, MemoryChunk,
    MemorySnapshot, MessageRole, RepoMetadata, RepoSnapshot, RuntimeEvent, SymbolIndex,
    TokenCounter, UserGoal,
};

/// 2026-01-01T00:00:00Z: "now" in every fixture.
pub const NOW: i64 = 1_767_225_600_000;

pub fn builder() -> ContextBuilder {
    create_context_builder(ContextBuilderOptions::default())
}

pub fn sample_repo() -> RepoSnapshot {
    RepoSnapshot {
        root: "/workspace/project".into(),
        files: vec![
            FileDescriptor {
                path: "src/index.ts".into(),
                size: 1024,
                language: Some("typescript".into()),
                last_modified: Some(NOW - 1000),
                content: Some("export const foo = \"bar\"".into()),
                relevance_score: Some(0.9),
            },
            FileDescriptor {
                path: "src/utils.ts".into(),
                size: 512,
                language: Some("typescript".into()),
                last_modified: Some(NOW - 5000),
                content: Some("export function helper() { return true }".into()),
                relevance_score: Some(0.7),
            },
            FileDescriptor {
                path: "README.md".into(),
                size: 256,
                language: Some("markdown".into()),
                last_modified: Some(NOW - 10000),
                content: Some("# Project\n\nDescription".into()),
                relevance_score: Some(0.3),
            },
        ],
        symbols: vec![SymbolIndex {
            name: "foo".into(),
            kind: "variable".into(),
            file: "src/index.ts".into(),
            range: (1, 1),
            documentation: Some("Exported constant".into()),
        }],
        diffs: vec![GitDiff {
            file: "src/index.ts".into(),
            patch: "diff --git a/src/index.ts b/src/index.ts\n+export const foo = \"bar\"".into(),
            change_type: Some("modified".into()),
            additions: Some(1),
            deletions: Some(0),
        }],
        metadata: Some(RepoMetadata {
            branch: Some("main".into()),
            commit: Some("abc123def456".into()),
            dirty: Some(true),
            remote_url: None,
        }),
    }
}

pub fn chunk(id: &str, content: &str, importance: f64, age_ms: i64) -> MemoryChunk {
    MemoryChunk {
        id: id.into(),
        content: content.into(),
        importance,
        timestamp: Some(NOW - age_ms),
        source: Some("user".into()),
        kind: Some("fact".into()),
        related_to: Vec::new(),
    }
}

pub fn sample_memory() -> MemorySnapshot {
    MemorySnapshot {
        pinned: vec![chunk(
            "mem-1",
            "User prefers TypeScript over JavaScript",
            0.9,
            3_600_000,
        )],
        recent: vec![chunk(
            "mem-2",
            "Project uses pnpm for package management",
            0.7,
            7_200_000,
        )],
        summaries: vec![chunk(
            "mem-3",
            "Focus on clean architecture and DRY principles",
            0.8,
            86_400_000,
        )],
    }
}

pub fn event(kind: &str, payload: JsonValue, age_ms: i64, id: Option<&str>) -> RuntimeEvent {
    RuntimeEvent {
        event_type: kind.into(),
        payload,
        timestamp: NOW - age_ms,
        event_id: id.map(str::to_owned),
    }
}

/// Three sample events, with the call ids their payload types require.
pub fn sample_events() -> Vec<RuntimeEvent> {
    vec![
        event(
            "tool_call",
            JsonValue::object([
                ("toolName", "read_files".into()),
                ("toolCallId", "call-1".into()),
                ("args", JsonValue::object([("path", "src/index.ts".into())])),
            ]),
            300_000,
            Some("evt-1"),
        ),
        event(
            "tool_result",
            JsonValue::object([
                ("toolName", "read_files".into()),
                ("toolCallId", "call-1".into()),
                ("result", "export const foo = \"bar\"".into()),
            ]),
            295_000,
            Some("evt-2"),
        ),
        event(
            "tool_error",
            JsonValue::object([
                ("toolName", "write_files".into()),
                ("toolCallId", "call-2".into()),
                ("error", "Permission denied".into()),
                ("retryable", false.into()),
            ]),
            290_000,
            Some("evt-3"),
        ),
    ]
}

pub fn agent(role: &str, capabilities: &[&str]) -> AgentDescriptor {
    AgentDescriptor {
        id: format!("{role}-agent"),
        role: role.into(),
        capabilities: capabilities.iter().map(|c| (*c).into()).collect(),
        specializations: Vec::new(),
    }
}

/// The sample input of the builder's tests: the sample repository, memory and events.
pub fn sample_input(strategy: AssemblyStrategyType, max_tokens: u64) -> ContextBuildInput {
    ContextBuildInput {
        run_id: "test-run-123".into(),
        goal: UserGoal {
            raw: "Fix the login bug".into(),
            normalized: Some("Debug and fix authentication issue in login flow".into()),
            intent_type: None,
        },
        agent: agent("coder", &["read_files", "write_files", "search"]),
        repo: Some(sample_repo()),
        memory: Some(sample_memory()),
        recent_events: sample_events(),
        constraints: ContextConstraints {
            strategy: Some(strategy),
            allow_summarization: true,
            now_ms: Some(NOW),
            ..ContextConstraints::new(max_tokens)
        },
    }
}

/// Counts a bundle from scratch, the way a consumer would: system, messages with overhead, and
/// each tool's JSON.
pub fn recount(bundle: &ContextBundle) -> u64 {
    let c = CharsPerFour;
    c.count(&bundle.system)
        + bundle
            .messages
            .iter()
            .map(|m| message_tokens(&c, m))
            .sum::<u64>()
        + bundle
            .tools
            .iter()
            .map(|t| c.count(&serde_json::to_string(t).unwrap()))
            .sum::<u64>()
}

/// Panics unless every tool result directly follows its call (other results of the same call
/// may sit between them).
pub fn assert_results_follow_calls(messages: &[ContextMessage]) {
    for (i, m) in messages.iter().enumerate() {
        if m.role != MessageRole::Tool {
            continue;
        }
        let id = m
            .tool_call_id
            .as_deref()
            .expect("a tool message carries its call id");
        let mut j = i;
        loop {
            assert!(j > 0, "tool result {id:?} at {i} has no call before it");
            j -= 1;
            let prev = &messages[j];
            if prev.role == MessageRole::Assistant && prev.tool_call_id.as_deref() == Some(id) {
                break;
            }
            assert!(
                prev.role == MessageRole::Tool && prev.tool_call_id.as_deref() == Some(id),
                "tool result {id:?} at {i} is separated from its call by {prev:?}"
            );
        }
    }
}

pub fn big_file(path: &str, chars: usize, relevance: f64) -> FileDescriptor {
    FileDescriptor {
        path: path.into(),
        size: chars as u64,
        language: None,
        last_modified: Some(NOW),
        content: Some("let x = 1;\n".repeat(chars / 11 + 1)),
        relevance_score: Some(relevance),
    }
}

pub fn files_only(
    files: Vec<FileDescriptor>,
    strategy: AssemblyStrategyType,
    max_tokens: u64,
    allow: bool,
) -> ContextBuildInput {
    let mut input = sample_input(strategy, max_tokens);
    input.memory = None;
    input.recent_events.clear();
    input.repo = Some(RepoSnapshot {
        root: "/r".into(),
        files,
        ..Default::default()
    });
    input.constraints.allow_summarization = allow;
    input
}

/// The importance assembly uses for sorting and display.
pub fn effective_importance(v: f64) -> f64 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.5
    }
}

/// Where two strings first differ, with some context, for readable property failures.
pub fn first_difference(a: &str, b: &str) -> String {
    let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let window = |s: &str| {
        let mut start = at.saturating_sub(120);
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + 120).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s[start..end].to_owned()
    };
    format!(
        "at byte {at}:\n  left:  {}\n  right: {}",
        window(a),
        window(b)
    )
}

mod generators;
#[allow(unused_imports)] // only the property tests generate inputs
pub use generators::arb_input;
