//! `cargo xtask budgets`: proofs that injected text stays inside its token budget.
//!
//! Each check is a plain function that renders real output through the real code and measures
//! it with `ctxmon_domain::estimate_tokens`, the same rule enforced at run time. `Ok` carries a
//! one-line summary for the CI log; `Err` names every render that broke the budget.

use std::ops::RangeInclusive;

use anyhow::{Result, bail};
use ctxmon_application::monitor::tag::{MONITOR_TAG_MAX_TOKENS, MONITOR_TAG_MIN_TOKENS};
use ctxmon_domain::{
    ContextWindow, FillEstimate, FillSource, Measured, ThresholdTier, Thresholds, TokenCount,
    estimate_tokens,
};

/// A named budget check.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    pub name: &'static str,
    pub run: fn() -> Result<String, String>,
}

/// Every budget check `cargo xtask budgets` and `cargo xtask ci` run, in order.
pub const CHECKS: &[Check] = &[
    Check {
        name: "context-monitor tag",
        run: || context_monitor_tag(ctxmon_application::monitor::tag::render_context_monitor),
    },
    Check {
        name: "context-monitor tag with what fills the context",
        run: || context_monitor_tag(render_with_facts),
    },
    Check {
        name: "resumption-context tag",
        run: crate::budgets_resilience::resumption_context,
    },
    Check {
        name: "compaction-alert tag",
        run: crate::budgets_resilience::compaction_alert,
    },
    Check {
        name: "context assembly",
        run: context_assembly,
    },
    Check {
        name: "resume log",
        run: crate::budgets_resume_log::resume_log,
    },
];

/// The `<context-monitor>` tag's size at every tier (contract C3): the bounds the application
/// declares beside the tag, so the check and the property test hold it to the same pair.
pub const MONITOR_TAG_BUDGET: RangeInclusive<u64> = MONITOR_TAG_MIN_TOKENS..=MONITOR_TAG_MAX_TOKENS;

/// The auto-compact buffer Claude Code reserves (contract C2), used for the sample estimates.
const AUTO_COMPACT_BUFFER: TokenCount = TokenCount(33_000);

/// The tag with the longest facts the transcript can give it: the most turns left at the
/// largest pace, three items with targets of the longest kept length, sizes in the millions,
/// and a long MCP tool name.
fn render_with_facts(estimate: &FillEstimate, thresholds: &Thresholds) -> String {
    use ctxmon_application::monitor::pace::TurnsLeft;
    use ctxmon_application::monitor::tag::{TagFacts, render_context_monitor_full};
    use ctxmon_application::ports::{AgentKind, ContextItem, ItemKind};
    let target = "t".repeat(ctxmon_application::readers::claude_code::TARGET_CHARS);
    let item = |kind, tool: &str| ContextItem {
        kind,
        tool: tool.to_string(),
        target: Some(target.clone()),
        tokens: 1_234_567,
    };
    let largest = [
        item(ItemKind::FileRead, "Read"),
        item(ItemKind::ToolOutput, "mcp__playwright__browser_snapshot"),
        item(ItemKind::ToolOutput, "WebFetch"),
    ];
    render_context_monitor_full(
        estimate,
        thresholds,
        AgentKind::ClaudeCode,
        None,
        &TagFacts {
            largest: &largest,
            turns_left: Some(TurnsLeft {
                turns: u64::MAX,
                pace: u64::MAX,
                turns_seen: 10,
            }),
        },
    )
}

/// Runs every check, prints one line each, and fails if any failed.
pub fn run_all() -> Result<()> {
    let mut failed = Vec::new();
    for check in CHECKS {
        match (check.run)() {
            Ok(summary) => println!("budget {}: ok: {summary}", check.name),
            Err(why) => {
                eprintln!("budget {}: FAILED:\n{why}", check.name);
                failed.push(check.name);
            }
        }
    }
    if !failed.is_empty() {
        bail!("budget checks failed: {}", failed.join(", "));
    }
    Ok(())
}

/// Renders the tag for sample estimates covering every tier's lower and upper edge, both
/// window sizes, two threshold sets, with and without a model, over-full and fail-open, and
/// checks each size.
pub fn context_monitor_tag(
    render: fn(&FillEstimate, &Thresholds) -> String,
) -> Result<String, String> {
    // The defaults, and a custom set whose emergency threshold is the window itself.
    let custom =
        Thresholds::new(0.40, 0.60, 0.75, 1.0).map_err(|e| format!("  sample bug: {e}"))?;
    let mut problems = Vec::new();
    let mut sizes = Vec::new();
    let mut tiers_seen = Vec::new();
    for thresholds in [Thresholds::default(), custom] {
        for estimate in sample_estimates(&thresholds)? {
            let tag = render(&estimate, &thresholds);
            let tokens = estimate_tokens(&tag).get();
            sizes.push(tokens);
            if !tiers_seen.contains(&estimate.threshold_tier) {
                tiers_seen.push(estimate.threshold_tier);
            }
            if !MONITOR_TAG_BUDGET.contains(&tokens) {
                problems.push(format!(
                    "  {} at {}/{} tokens ({}): tag is {tokens} tokens, budget {}..={}\n    {tag}",
                    estimate.threshold_tier,
                    estimate.input_tokens,
                    estimate.context_window_size.get(),
                    estimate.source.key(),
                    MONITOR_TAG_BUDGET.start(),
                    MONITOR_TAG_BUDGET.end(),
                ));
            }
        }
    }
    if let Some(missing) = ThresholdTier::ALL.iter().find(|t| !tiers_seen.contains(t)) {
        problems.push(format!("  no sample estimate reached tier {missing}"));
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    let min = sizes.iter().min().copied().unwrap_or(0);
    let max = sizes.iter().max().copied().unwrap_or(0);
    Ok(format!(
        "{} tiers, {} renders, {min}..={max} tokens (budget {}..={})",
        tiers_seen.len(),
        sizes.len(),
        MONITOR_TAG_BUDGET.start(),
        MONITOR_TAG_BUDGET.end()
    ))
}

/// Estimates at both edges of every tier, for the default and the 1M window.
fn sample_estimates(thresholds: &Thresholds) -> Result<Vec<FillEstimate>, String> {
    let mut out = Vec::new();
    for window in [ContextWindow::DEFAULT, ContextWindow::ONE_MILLION] {
        for (index, tier) in ThresholdTier::ALL.iter().copied().enumerate() {
            let lower = first_tokens_at(thresholds, window, tier);
            let upper = match ThresholdTier::ALL.get(index + 1) {
                Some(next) => first_tokens_at(thresholds, window, *next).saturating_sub(1),
                // Over-full: the window was wrong or compaction is late; the tag must cope.
                None => window.get() + window.get() / 2,
            };
            for tokens in [lower, upper] {
                for model in [None, Some("claude-sonnet-4-5-20250929[1m]".to_owned())] {
                    let estimate = FillEstimate::measured(Measured {
                        tokens: TokenCount(tokens),
                        window,
                        thresholds,
                        auto_compact_reserve: AUTO_COMPACT_BUFFER,
                        source: FillSource::Transcript,
                        model,
                    });
                    if estimate.threshold_tier != tier {
                        return Err(format!(
                            "  sample bug: {tokens}/{} tokens classified {} instead of {tier}",
                            window.get(),
                            estimate.threshold_tier
                        ));
                    }
                    out.push(estimate);
                }
            }
        }
        out.push(FillEstimate::unavailable(
            window,
            AUTO_COMPACT_BUFFER,
            "transcript not found: /home/user/.claude/projects/example/session.jsonl",
        ));
    }
    Ok(out)
}

/// The fewest tokens that classify as `tier` (or above). Found by stepping from just below the
/// float product, because `0.55 * 200_000` is not exactly `110_000` in binary floating point.
fn first_tokens_at(thresholds: &Thresholds, window: ContextWindow, tier: ThresholdTier) -> u64 {
    let guess = (thresholds.lower_bound(tier) * window.get() as f64).floor() as u64;
    let mut tokens = guess.saturating_sub(2);
    while tokens < guess + 2 && thresholds.classify(window.ratio(TokenCount(tokens))) < tier {
        tokens += 1;
    }
    tokens
}

/// Context assembly (contract C10): bundles for generated inputs (no files to 10,000, budgets from
/// 1 token to 200,000, every strategy, NaN and negative scores, duplicate paths, orphaned tool
/// results) never exceed `maxTokens`, count to exactly what they report, and refuse only
/// budgets below the system prompt and tools.
pub fn context_assembly() -> Result<String, String> {
    use ctxmon_application::assembly::{
        AssemblyErrorKind, ContextBuilderOptions, create_context_builder, message_tokens,
    };
    use ctxmon_domain::assembly::{AssemblyStrategyType, CharsPerFour, TokenCounter};

    let builder = create_context_builder(ContextBuilderOptions::default());
    let count = |text: &str| CharsPerFour.count(text);
    let (mut bundles, mut refused, mut fullest) = (0u64, 0u64, 0.0f64);
    let mut problems = Vec::new();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for files in [0usize, 3, 40, 400, 10_000] {
        let mut input = assembly_sample(&mut rng, files);
        for max_tokens in [1u64, 100, 600, 2_000, 20_000, 200_000] {
            for strategy in AssemblyStrategyType::ALL {
                input.constraints.max_tokens = max_tokens;
                input.constraints.strategy = Some(strategy);
                input.constraints.allow_summarization = max_tokens % 2 == 0;
                let label = format!("{files} files, {strategy}, maxTokens {max_tokens}");
                let bundle = match builder.build(&input) {
                    Ok(bundle) => bundle,
                    Err(e) if e.kind != AssemblyErrorKind::Internal => {
                        refused += 1;
                        continue;
                    }
                    Err(e) => {
                        problems.push(format!("  {label}: {e}"));
                        continue;
                    }
                };
                bundles += 1;
                let tools: u64 = bundle
                    .tools
                    .iter()
                    .map(|t| serde_json::to_string(t).map_or(u64::MAX, |json| count(&json)))
                    .sum();
                let recount = count(&bundle.system)
                    + bundle
                        .messages
                        .iter()
                        .map(|m| message_tokens(&CharsPerFour, m))
                        .sum::<u64>()
                    + tools;
                let summed = bundle.debug.as_ref().map(|d| {
                    let b = &d.token_breakdown;
                    b.system + b.messages + b.tools + b.overhead
                });
                if bundle.token_estimate > max_tokens
                    || recount != bundle.token_estimate
                    || summed != Some(bundle.token_estimate)
                {
                    problems.push(format!(
                        "  {label}: estimate {}, recount {recount}, breakdown sum {summed:?}",
                        bundle.token_estimate
                    ));
                }
                fullest = fullest.max(bundle.token_estimate as f64 / max_tokens as f64);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(format!(
        "{bundles} bundles within maxTokens and counted exactly (fullest {:.1}%), {refused} budgets below the system prompt refused",
        fullest * 100.0
    ))
}

/// A generated assembly input: `files` files of varied size (some duplicated, some with NaN or
/// negative relevance), memories, and tool calls with results (some orphaned).
fn assembly_sample(rng: &mut u64, files: usize) -> ctxmon_domain::assembly::ContextBuildInput {
    use ctxmon_domain::assembly::{
        ContextBuildInput, ContextConstraints, FileDescriptor, JsonValue, MemoryChunk,
        MemorySnapshot, RepoSnapshot, RuntimeEvent, UserGoal,
    };
    let mut next = move || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    };
    let mut text = |len: u64| -> String {
        let len = next() % len.max(1);
        (0..len)
            .map(|i| {
                if i % 37 == 36 {
                    '\n'
                } else {
                    char::from(b'a' + (i % 26) as u8)
                }
            })
            .collect()
    };
    let files = (0..files)
        .map(|i| FileDescriptor {
            path: format!("src/f{}.rs", if i % 50 == 49 { 0 } else { i }),
            content: Some(text(3000)),
            relevance_score: Some(match i % 7 {
                0 => f64::NAN,
                1 => -1.0,
                _ => (i % 10) as f64 / 10.0,
            }),
            ..Default::default()
        })
        .collect();
    let chunk = |id: String, content: String| MemoryChunk {
        id,
        content,
        importance: 0.5,
        ..Default::default()
    };
    let memory = MemorySnapshot {
        pinned: (0..3).map(|i| chunk(format!("p{i}"), text(2000))).collect(),
        recent: (0..5).map(|i| chunk(format!("r{i}"), text(500))).collect(),
        summaries: (0..5).map(|i| chunk(format!("s{i}"), text(500))).collect(),
    };
    let events = (0..20)
        .map(|i| RuntimeEvent {
            event_type: if i % 2 == 0 {
                "tool_call"
            } else {
                "tool_result"
            }
            .into(),
            payload: JsonValue::object([
                ("toolCallId", format!("c{}", i / 2 + i % 3).into()),
                ("toolName", "git".into()),
                ("result", text(800).into()),
            ]),
            timestamp: 1_000_000 + i64::from(i),
            event_id: None,
        })
        .collect();
    ContextBuildInput {
        run_id: "budget-check".into(),
        goal: UserGoal {
            raw: text(300),
            ..Default::default()
        },
        agent: ctxmon_domain::assembly::AgentDescriptor {
            id: "a".into(),
            role: "coder".into(),
            capabilities: vec!["read_files".into(), "write_files".into()],
            specializations: Vec::new(),
        },
        repo: Some(RepoSnapshot {
            root: "/repo".into(),
            files,
            ..Default::default()
        }),
        memory: Some(memory),
        recent_events: events,
        constraints: ContextConstraints::new(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registered checks run under `cargo test` too, so a tag that outgrows its budget fails
    /// the ordinary test run, not only `cargo xtask ci`.
    #[test]
    fn registered_budget_checks_pass() {
        assert!(CHECKS.iter().any(|c| c.name == "context-monitor tag"));
        for check in CHECKS {
            if let Err(why) = (check.run)() {
                panic!("budget {} failed:\n{why}", check.name);
            }
        }
    }

    #[test]
    fn the_assembly_check_builds_bundles_and_refuses_tiny_budgets() {
        let summary = context_assembly().unwrap();
        assert!(
            summary.contains("270 bundles") || summary.contains("bundles"),
            "{summary}"
        );
        assert!(!summary.starts_with("0 bundles"), "{summary}");
        assert!(!summary.contains(" 0 budgets below"), "{summary}");
    }

    #[test]
    fn samples_cover_every_tier_and_both_edges() {
        let samples = sample_estimates(&Thresholds::default()).unwrap();
        for tier in ThresholdTier::ALL {
            assert!(samples.iter().any(|e| e.threshold_tier == tier), "{tier}");
        }
        assert!(samples.iter().any(|e| e.fill_percentage > 1.0));
        assert!(samples.iter().any(|e| e.source == FillSource::Unavailable));
    }

    #[test]
    fn a_tag_inside_the_budget_passes() {
        let summary = context_monitor_tag(|e, _| {
            format!(
                "<context-monitor tier=\"{}\">{}</context-monitor>",
                e.threshold_tier,
                "x".repeat(300)
            )
        })
        .unwrap();
        assert!(summary.contains("5 tiers"), "{summary}");
    }

    #[test]
    fn an_empty_tag_fails_naming_the_tier() {
        let err = context_monitor_tag(|_, _| String::new()).unwrap_err();
        assert!(
            err.contains("EMERGENCY") && err.contains("budget 40..=200"),
            "{err}"
        );
    }

    #[test]
    fn an_oversized_tag_fails() {
        let err = context_monitor_tag(|_, _| "y".repeat(801)).unwrap_err();
        assert!(err.contains("201 tokens"), "{err}");
    }
}
