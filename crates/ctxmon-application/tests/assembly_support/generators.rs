//! Random assembly inputs for the properties: every source, odd scores, duplicates, unknown
//! roles and event types, future timestamps, tight and loose budgets.

use ctxmon_domain::assembly::{
    AssemblyStrategyType, ContextBuildInput, ContextConstraints, FileDescriptor, GitDiff,
    JsonValue, MemoryChunk, MemorySnapshot, RepoSnapshot, RuntimeEvent, SymbolIndex, UserGoal,
};
use proptest::prelude::*;

use super::{NOW, agent};
/// Text up to `max` characters: mostly code-like ASCII with newlines, sometimes any Unicode
/// (control characters, right-to-left marks, astral planes). Built from a random seed with a
/// cheap generator, because proptest's regex strings dominate a debug-build run.
fn text(max: usize) -> impl Strategy<Value = String> {
    (0..=max, any::<u64>(), prop::bool::weighted(0.2)).prop_map(|(len, seed, unicode)| {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        const CODE: &[u8] = b"abcdefghijklmnopqrstuvwxyz    ;(){}\n";
        (0..len)
            .map(|_| {
                let r = next();
                if unicode && r % 3 == 0 {
                    char::from_u32((r >> 8) as u32 % 0x11_0000).unwrap_or('\u{fffd}')
                } else {
                    CODE[(r % CODE.len() as u64) as usize] as char
                }
            })
            .collect()
    })
}

fn score() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => 0.0..=1.0f64,
        1 => any::<f64>(),
        1 => Just(f64::NAN),
        1 => -5.0..0.0f64,
    ]
}

fn file(index: usize) -> impl Strategy<Value = FileDescriptor> {
    (
        prop::option::weighted(0.9, text(1500)),
        prop::option::of(score()),
        prop::option::of(NOW - 100_000..NOW),
        // A small path pool makes duplicates common.
        prop_oneof![3 => Just(format!("src/f{index}.rs")), 1 => (0..4usize).prop_map(|i| format!("dup/{i}.rs"))],
    )
        .prop_map(|(content, relevance_score, last_modified, path)| FileDescriptor {
            size: content.as_ref().map_or(0, |c| c.len() as u64),
            path,
            language: Some("rust".into()),
            last_modified,
            content,
            relevance_score,
        })
}

fn chunks(prefix: &'static str, max_chars: usize) -> impl Strategy<Value = Vec<MemoryChunk>> {
    proptest::collection::vec(
        (
            0..8usize,
            text(max_chars),
            score(),
            prop::option::of(NOW - 1_000_000..NOW + 1000),
        ),
        0..5,
    )
    .prop_map(move |items| {
        items
            .into_iter()
            .map(|(id, content, importance, timestamp)| MemoryChunk {
                id: format!("{prefix}{id}"),
                content,
                importance,
                timestamp,
                source: None,
                kind: None,
                related_to: Vec::new(),
            })
            .collect()
    })
}

fn runtime_event() -> impl Strategy<Value = RuntimeEvent> {
    // Calls and results are weighted up so that pairs are common.
    let kinds = prop::sample::select(vec![
        "tool_call",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "tool_result",
        "tool_error",
        "execution_result",
        "user_interruption",
        "agent_switch",
        "checkpoint",
        "telepathy",
    ]);
    (
        kinds,
        prop::option::weighted(0.85, prop::sample::select(vec!["c1", "c2", "c3", "c4"])),
        text(300),
        NOW - 2_000_000..NOW + 500_000,
        prop::option::of(prop::sample::select(vec![
            "e1", "e2", "e3", "e4", "e5", "e6",
        ])),
    )
        .prop_map(|(kind, call, body, timestamp, id)| {
            let mut payload = vec![
                ("toolName", JsonValue::from("git")),
                ("result", body.into()),
            ];
            if let Some(call) = call {
                payload.push(("toolCallId", call.into()));
            }
            RuntimeEvent {
                event_type: kind.into(),
                payload: JsonValue::object(payload),
                timestamp,
                event_id: id.map(str::to_owned),
            }
        })
}

fn diff() -> impl Strategy<Value = GitDiff> {
    ((0..6usize), text(800)).prop_map(|(i, patch)| GitDiff {
        file: format!("src/f{i}.rs"),
        patch,
        change_type: Some("modified".into()),
        additions: Some(1),
        deletions: None,
    })
}

fn symbol() -> impl Strategy<Value = SymbolIndex> {
    ((0..6usize), "[a-z]{1,8}", prop::option::of(text(150))).prop_map(|(i, name, documentation)| {
        SymbolIndex {
            name,
            kind: "function".into(),
            file: format!("src/f{i}.rs"),
            range: (1, 9),
            documentation,
        }
    })
}

fn constraints() -> impl Strategy<Value = ContextConstraints> {
    (
        prop_oneof![1 => 0..700u64, 6 => 700..6000u64, 2 => 6000..40_000u64],
        prop::sample::select(AssemblyStrategyType::ALL.to_vec()),
        any::<bool>(),
        prop::option::weighted(
            0.2,
            prop_oneof![0.0..100.0f64, Just(f64::NAN), -10.0..200.0f64],
        ),
        prop::option::weighted(0.2, 0..5u64),
        prop::option::weighted(0.3, 0..1_500_000u64),
        prop::option::weighted(0.8, Just(NOW)),
    )
        .prop_map(
            |(max_tokens, strategy, allow, buffer, max_files, max_age, now)| ContextConstraints {
                max_tokens,
                strategy: Some(strategy),
                allow_summarization: allow,
                buffer_percentage: buffer,
                max_files,
                max_event_age_ms: max_age,
                now_ms: now,
            },
        )
}

/// Random inputs: every source, odd scores, duplicates, unknown roles and event types, future
/// timestamps, tight and loose budgets.
pub fn arb_input() -> impl Strategy<Value = ContextBuildInput> {
    let files = proptest::collection::vec(0..1usize, 0..14).prop_flat_map(|slots| {
        slots
            .iter()
            .enumerate()
            .map(|(i, _)| file(i))
            .collect::<Vec<_>>()
    });
    (
        prop::sample::select(vec![
            "planner", "coder", "reviewer", "executor", "generic", "wizard",
        ]),
        prop::sample::subsequence(
            vec![
                "read_files",
                "write_files",
                "git",
                "run_tests",
                "search",
                "execute_code",
                "deploy",
            ],
            0..=7,
        ),
        text(200),
        files,
        proptest::collection::vec(diff(), 0..4),
        proptest::collection::vec(symbol(), 0..5),
        // Pinned chunks can be large, so that some do not fit.
        (chunks("p", 6000), chunks("r", 600), chunks("s", 600)),
        proptest::collection::vec(runtime_event(), 0..12),
        constraints(),
    )
        .prop_map(
            |(
                role,
                caps,
                goal,
                files,
                diffs,
                symbols,
                (pinned, recent, summaries),
                events,
                constraints,
            )| {
                ContextBuildInput {
                    run_id: "prop".into(),
                    goal: UserGoal {
                        raw: goal,
                        normalized: None,
                        intent_type: None,
                    },
                    agent: agent(role, &caps),
                    repo: Some(RepoSnapshot {
                        root: "/repo".into(),
                        files,
                        symbols,
                        diffs,
                        metadata: None,
                    }),
                    memory: Some(MemorySnapshot {
                        summaries,
                        pinned,
                        recent,
                    }),
                    recent_events: events,
                    constraints,
                }
            },
        )
}
