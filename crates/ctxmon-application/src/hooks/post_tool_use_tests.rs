//! Behaviour of the post-tool-use use case over in-memory ports: one tag per tier a loop rises
//! into, a record shared with prompt-submit, and a record that follows the fill down.

use ctxmon_domain::ThresholdTier;

use super::post_tool_use::assess;
use super::pre_compact::{PreCompactInput, pre_compact};
use super::test_world::World;
use crate::config::InjectPolicy;
use crate::monitor::tier_record::ToolVerdict;

/// The tier of the tag in an answer, or `None` for no answer.
fn tagged(w: &World) -> Option<String> {
    w.tool_call().additional_context.map(|text| {
        assert!(text.starts_with("<context-monitor "), "{text}");
        text.split("tier=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default()
            .to_string()
    })
}

#[test]
fn a_loop_gets_one_tag_per_tier_it_rises_into() {
    let w = World::new(InjectPolicy::Always);
    let mut answers = Vec::new();
    // 200 calls: NOMINAL, then LOW (55%), WARNING (70%), CRITICAL (80%).
    for call in 0..200u64 {
        w.script.usage(100_000 + call * 350);
        answers.push(tagged(&w));
    }
    let tags: Vec<(usize, String)> = answers
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .collect();
    // 110,150 at call 29, 140,250 at call 115, 160,200 at call 172 (the last is 169,650).
    assert_eq!(
        tags,
        vec![
            (29, "LOW".to_string()),
            (115, "WARNING".to_string()),
            (172, "CRITICAL".to_string())
        ]
    );
    let state = w.state();
    assert_eq!(state.last_injected_tier, Some(ThresholdTier::Critical));
    use ThresholdTier::*;
    assert_eq!(
        w.tier_events(),
        vec![(Nominal, Low), (Low, Warning), (Warning, Critical)],
        "each crossing is recorded once, when the tag goes"
    );
}

#[test]
fn an_unchanged_tier_writes_nothing() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage(150_000);
    assert_eq!(tagged(&w).as_deref(), Some("WARNING"));
    let saved = w.state();
    for tokens in [150_500, 151_000, 152_000] {
        w.script.usage(tokens);
        assert_eq!(w.with(assess), ToolVerdict::Unchanged);
        assert_eq!(tagged(&w), None);
    }
    assert_eq!(w.state(), saved, "not even updated_at moved");
}

#[test]
fn a_tier_prompt_submit_injected_is_not_repeated_and_a_rise_after_it_is() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage(150_000);
    assert!(w.prompt().additional_context.is_some());
    assert_eq!(w.with(assess), ToolVerdict::Unchanged);
    assert_eq!(tagged(&w), None);
    w.script.usage(165_000);
    assert_eq!(tagged(&w).as_deref(), Some("CRITICAL"));
    // And the other way round: on-change prompts skip what post-tool-use already said.
    let on_change = World::new(InjectPolicy::OnChange);
    on_change.script.usage(150_000);
    assert_eq!(tagged(&on_change).as_deref(), Some("WARNING"));
    assert_eq!(on_change.prompt().additional_context, None);
}

#[test]
fn after_a_fall_the_record_follows_and_the_next_rise_injects_again() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage(165_000);
    assert_eq!(tagged(&w).as_deref(), Some("CRITICAL"));
    // A /compact the hooks did not see (or a larger window): the fill drops.
    w.script.usage(40_000);
    assert_eq!(w.with(assess), ToolVerdict::Lower);
    assert_eq!(tagged(&w), None, "a fall is recorded, not announced");
    assert_eq!(
        w.state().lowest_tier_since_injection,
        Some(ThresholdTier::Nominal)
    );
    w.script.usage(41_000);
    assert_eq!(w.with(assess), ToolVerdict::Unchanged);
    w.script.usage(112_000);
    assert_eq!(tagged(&w).as_deref(), Some("LOW"));
    assert_eq!(w.state().lowest_tier_since_injection, None);
}

#[test]
fn a_compaction_drops_the_fill_to_the_baseline_and_rearms_every_tier() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage_at(170_000, Some("2026-11-20T09:59:00.000Z"));
    assert_eq!(tagged(&w).as_deref(), Some("CRITICAL"));
    // PreCompact records the checkpoint; the transcript still ends with the old figure.
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    assert_eq!(tagged(&w), None);
    assert_eq!(
        w.state().lowest_tier_since_injection,
        Some(ThresholdTier::Nominal),
        "the post-compaction baseline (30%) is a fall"
    );
    w.script.usage_at(145_000, Some("2026-11-20T11:00:00.000Z"));
    assert_eq!(tagged(&w).as_deref(), Some("WARNING"));
}

#[test]
fn warning_and_above_keeps_a_loop_quiet_below_warning() {
    let w = World::new(InjectPolicy::WarningAndAbove);
    w.script.usage(115_000);
    assert_eq!(tagged(&w), None);
    w.script.usage(145_000);
    assert_eq!(tagged(&w).as_deref(), Some("WARNING"));
}

#[test]
fn switched_off_unmeasured_or_on_a_broken_configuration_it_says_nothing() {
    let mut off = World::new(InjectPolicy::Always);
    off.config.context_monitor.post_tool_use = false;
    off.script.usage(170_000);
    assert_eq!(tagged(&off), None);
    assert_eq!(off.with(assess), ToolVerdict::Unchanged);

    let mut disabled = World::new(InjectPolicy::Always);
    disabled.config.context_monitor.enabled = false;
    disabled.script.usage(170_000);
    assert_eq!(tagged(&disabled), None);

    let mut broken = World::new(InjectPolicy::Always);
    broken.config_error = Some("context_monitor.low_threshold: bad".into());
    broken.script.usage(170_000);
    assert_eq!(tagged(&broken), None);

    let missing = World::new(InjectPolicy::Always);
    missing.script.missing();
    let out = missing.tool_call();
    assert_eq!((out.additional_context, out.warnings.len()), (None, 0));
    assert!(missing.states.states.borrow().is_empty(), "nothing stored");
}

#[test]
fn a_tag_whose_record_cannot_be_saved_is_not_sent() {
    let w = World::new(InjectPolicy::Always);
    w.states.fail.set(true);
    w.script.usage(170_000);
    let out = w.tool_call();
    assert_eq!(out.additional_context, None);
    assert!(
        out.warnings
            .iter()
            .any(|m| m.to_string().contains("repeated")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn a_fall_prompt_submit_saw_rearms_the_loop_too() {
    let w = World::new(InjectPolicy::WarningAndAbove);
    w.script.usage(170_000);
    assert!(w.prompt().additional_context.is_some());
    // A prompt at NOMINAL injects nothing under this policy but lowers the bar.
    w.script.usage(40_000);
    assert_eq!(w.prompt().additional_context, None);
    w.script.usage(145_000);
    assert_eq!(tagged(&w).as_deref(), Some("WARNING"));
}
