//! The tier basis: thresholds as fractions of the window or of the agent's compaction point,
//! each agent's default, and what the tag says about where the next tier begins.

use ctxmon_domain::{ContextWindow, FillSource, ThresholdTier, TokenCount};

use super::*;
use crate::agents::AgentKind;
use crate::config::{Config, TierBasis};

fn settings(agent: AgentKind, basis: TierBasis) -> FillSettings {
    let mut c = Config::default();
    c.context_monitor.tier_basis = basis;
    let mut s = FillSettings::from_config(&c).expect("valid");
    s.agent = agent;
    s
}

fn tier(s: &FillSettings, tokens: u64, model: &str) -> ThresholdTier {
    s.estimate_for(
        TokenCount(tokens),
        FillSource::Transcript,
        None,
        Some(model),
    )
    .threshold_tier
}

#[test]
fn gemini_counts_towards_its_compression_at_half_the_window() {
    let s = settings(AgentKind::Gemini, TierBasis::Agent);
    let e = s.estimate_for(
        TokenCount(450_000),
        FillSource::Transcript,
        None,
        Some("gemini-2.5-pro"),
    );
    assert_eq!(e.context_window_size.get(), 1_048_576);
    // 450,000 of a compression at 524,288 is 85.8%: CRITICAL, though 42% of the window.
    assert_eq!(e.threshold_tier, ThresholdTier::Critical);
    assert_eq!(e.percent(), 42);
    assert_eq!(e.tokens_until_auto_compact, Some(TokenCount(74_288)));
    // Every tier comes before the compression.
    assert_eq!(
        tier(&s, 524_287, "gemini-2.5-pro"),
        ThresholdTier::Emergency
    );
    assert_eq!(tier(&s, 290_000, "gemini-2.5-pro"), ThresholdTier::Low);
    // The same chat measured against the window would never warn.
    let by_window = settings(AgentKind::Gemini, TierBasis::Window);
    assert_eq!(
        tier(&by_window, 450_000, "gemini-2.5-pro"),
        ThresholdTier::Nominal
    );
}

#[test]
fn a_compression_threshold_moves_the_point() {
    let mut s = settings(AgentKind::Gemini, TierBasis::Agent);
    s.share.share = Some(0.7);
    // 0.7 of 1,048,576 is 734,003: 450,000 is 61% of it, LOW.
    assert_eq!(tier(&s, 450_000, "gemini-2.5-pro"), ThresholdTier::Low);
}

#[test]
fn claude_code_keeps_the_window_unless_told() {
    let s = settings(AgentKind::ClaudeCode, TierBasis::Agent);
    assert_eq!(tier(&s, 150_000, "claude-sonnet-4"), ThresholdTier::Warning);
    assert_eq!(s.tier_point(ContextWindow::DEFAULT), None);
    let s = settings(AgentKind::ClaudeCode, TierBasis::AutoCompact);
    // 150,000 of 167,000 is 89.8%.
    assert_eq!(
        tier(&s, 150_000, "claude-sonnet-4"),
        ThresholdTier::Emergency
    );
}

#[test]
fn codex_takes_the_point_only_when_a_low_limit_would_hide_the_upper_tiers() {
    let w = ContextWindow::new(258_400).expect("window");
    let s = settings(AgentKind::Codex, TierBasis::Agent);
    // By default Codex compacts at 244,800 (94.7%), after EMERGENCY's 88%.
    assert_eq!(s.tier_point(w), None);
    let mut low = s.clone();
    low.codex.limit = Some(180_000);
    // 180,000 is 69.7% of the window: WARNING and above would never come; the point decides.
    assert_eq!(low.tier_point(w), Some(TokenCount(180_000)));
    let e = low.estimate_for(
        TokenCount(160_000),
        FillSource::Transcript,
        Some(258_400),
        None,
    );
    assert_eq!(e.threshold_tier, ThresholdTier::Emergency);
}

#[test]
fn the_tag_names_the_next_tier_in_shares_of_the_window() {
    let s = settings(AgentKind::Gemini, TierBasis::Agent);
    let w = ContextWindow::new(1_048_576).expect("window");
    let t = s.window_thresholds(w);
    assert!((t.critical() - 0.40).abs() < 1e-9, "{}", t.critical());
    let e = s.estimate_for(
        TokenCount(450_000),
        FillSource::Transcript,
        None,
        Some("gemini-2.5-pro"),
    );
    let tag = crate::monitor::tag::render_context_monitor_for(&e, &t, AgentKind::Gemini);
    assert!(tag.contains("tier=\"CRITICAL\""), "{tag}");
    assert!(tag.contains("EMERGENCY begins at 44%."), "{tag}");
}
