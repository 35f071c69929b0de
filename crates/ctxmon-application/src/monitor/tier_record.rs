//! The session's record of the `<context-monitor>` tags it was given, shared by prompt-submit
//! and post-tool-use (contract C3), and the rule post-tool-use decides by.
//!
//! The record is two fields of the session state: `last_injected_tier`, the tier of the last
//! tag either hook injected, and `lowest_tier_since_injection`, the lowest tier measured since
//! that tag when the fill fell below it. The *bar* is the lower of the two (NOMINAL when no
//! tag was ever injected). Post-tool-use, after every tool call:
//!
//! - injects the tag when the measured tier is **above the bar** (and `context_monitor.inject`
//!   allows that tier: `warning-and-above` keeps LOW quiet), and records it — so a loop of 200
//!   tool calls gets at most one tag per tier it rises into;
//! - records a measured tier **below the bar** as the new lowest (no tag): the fill fell — a
//!   compaction, a larger window — and when it rises again, that is news again;
//! - otherwise does nothing and writes nothing (the common path: one state read).
//!
//! Every injected tag, by either hook, sets `last_injected_tier` and clears the lowest;
//! prompt-submit, when it measures without injecting, lowers the lowest like post-tool-use.
//! Prompt-submit's own policy (`always`, `on-change`, `warning-and-above`) is unchanged: it
//! compares with `last_injected_tier` as before.

use ctxmon_domain::{DomainEvent, FillEstimate, FillSource, SessionState, ThresholdTier};

use crate::config::InjectPolicy;
use crate::ports::Clock;

/// What post-tool-use does with a tier it measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolVerdict {
    /// Nothing to say and nothing to record: no answer, no write.
    Unchanged,
    /// The tier rose above the bar: inject the tag and record it.
    Inject,
    /// The tier fell below the bar: record it as the lowest, inject nothing.
    Lower,
}

/// The tier a tag must rise above to be news (see the module documentation).
pub fn bar(state: &SessionState) -> ThresholdTier {
    let told = state.last_injected_tier.unwrap_or(ThresholdTier::Nominal);
    match state.lowest_tier_since_injection {
        Some(lowest) if lowest < told => lowest,
        _ => told,
    }
}

/// Post-tool-use's decision for `tier` under `policy`.
pub fn verdict(state: &SessionState, tier: ThresholdTier, policy: InjectPolicy) -> ToolVerdict {
    let bar = bar(state);
    if tier > bar {
        if policy == InjectPolicy::WarningAndAbove && tier < ThresholdTier::Warning {
            ToolVerdict::Unchanged
        } else {
            ToolVerdict::Inject
        }
    } else if tier < bar {
        ToolVerdict::Lower
    } else {
        ToolVerdict::Unchanged
    }
}

/// A tag for `tier` showing `fill` (a ratio) was injected.
pub fn note_injected(state: &mut SessionState, tier: ThresholdTier, fill: f64) {
    state.last_injected_tier = Some(tier);
    state.last_injected_fill = Some(fill);
    state.lowest_tier_since_injection = None;
}

/// `tier` was measured and no tag injected: a tier below the bar becomes the lowest.
pub fn note_measured(state: &mut SessionState, tier: ThresholdTier) {
    if tier < bar(state) {
        state.lowest_tier_since_injection = Some(tier);
    }
}

/// Keeps the per-session fill figures and returns the tier change to record (a
/// `ContextThresholdReached` event), if any; nothing for an estimate that measured nothing.
pub fn track_tier(
    state: &mut SessionState,
    estimate: &FillEstimate,
    clock: &dyn Clock,
) -> Option<DomainEvent> {
    if estimate.source == FillSource::Unavailable {
        return None;
    }
    let tier = estimate.threshold_tier;
    let previous = state.last_tier.unwrap_or(ThresholdTier::Nominal);
    let change = (previous != tier).then(|| DomainEvent::ContextThresholdReached {
        previous_tier: previous,
        new_tier: tier,
        fill_percentage: estimate.fill_percentage,
        input_tokens: estimate.input_tokens.get(),
    });
    if tier >= ThresholdTier::Warning {
        if state.threshold_crossed_at.is_none() {
            state.threshold_crossed_at = Some(clock.now());
        }
    } else {
        state.threshold_crossed_at = None;
    }
    state.last_tier = Some(tier);
    state.last_fill = Some(estimate.fill_percentage);
    state.last_tokens = Some(estimate.input_tokens.get());
    change
}

#[cfg(test)]
mod tests {
    use super::*;
    use ThresholdTier::*;

    fn state(told: Option<ThresholdTier>, lowest: Option<ThresholdTier>) -> SessionState {
        SessionState {
            last_injected_tier: told,
            lowest_tier_since_injection: lowest,
            ..SessionState::default()
        }
    }

    #[test]
    fn only_a_rise_above_the_bar_injects_and_a_fall_lowers_it() {
        let always = InjectPolicy::Always;
        // A new session: NOMINAL is no news, LOW is.
        assert_eq!(
            verdict(&state(None, None), Nominal, always),
            ToolVerdict::Unchanged
        );
        assert_eq!(
            verdict(&state(None, None), Low, always),
            ToolVerdict::Inject
        );
        // Told WARNING: WARNING again is nothing, CRITICAL is news, LOW is a fall.
        let told = state(Some(Warning), None);
        assert_eq!(verdict(&told, Warning, always), ToolVerdict::Unchanged);
        assert_eq!(verdict(&told, Critical, always), ToolVerdict::Inject);
        assert_eq!(verdict(&told, Low, always), ToolVerdict::Lower);
        // After the fall to NOMINAL, LOW and WARNING are news again.
        let fell = state(Some(Warning), Some(Nominal));
        assert_eq!(bar(&fell), Nominal);
        assert_eq!(verdict(&fell, Nominal, always), ToolVerdict::Unchanged);
        assert_eq!(verdict(&fell, Low, always), ToolVerdict::Inject);
        assert_eq!(verdict(&fell, Warning, always), ToolVerdict::Inject);
        // A stale lowest above the told tier does not raise the bar.
        assert_eq!(bar(&state(Some(Low), Some(Critical))), Low);
    }

    #[test]
    fn warning_and_above_keeps_low_quiet_but_still_follows_a_fall() {
        let policy = InjectPolicy::WarningAndAbove;
        assert_eq!(
            verdict(&state(None, None), Low, policy),
            ToolVerdict::Unchanged
        );
        assert_eq!(
            verdict(&state(None, None), Warning, policy),
            ToolVerdict::Inject
        );
        assert_eq!(
            verdict(&state(Some(Critical), None), Nominal, policy),
            ToolVerdict::Lower
        );
    }

    #[test]
    fn a_tag_clears_the_lowest_and_a_measurement_only_lowers_it() {
        let mut s = state(Some(Critical), None);
        note_measured(&mut s, Emergency);
        assert_eq!(s.lowest_tier_since_injection, None, "a rise is not a fall");
        note_measured(&mut s, Low);
        assert_eq!(s.lowest_tier_since_injection, Some(Low));
        note_measured(&mut s, Warning);
        assert_eq!(s.lowest_tier_since_injection, Some(Low), "only lower");
        note_injected(&mut s, Warning, 0.7);
        assert_eq!(
            (s.last_injected_tier, s.lowest_tier_since_injection),
            (Some(Warning), None)
        );
    }
}
