//! Golden snapshots of the `<context-monitor>` tag, one per tier (reviewed like code).

use ctxmon_application::monitor::tag::render_context_monitor;
use ctxmon_domain::{
    ContextWindow, FillEstimate, FillSource, Measured, ThresholdTier, Thresholds, TokenCount,
};

fn tag_at(tokens: u64) -> (ThresholdTier, String) {
    let t = Thresholds::default();
    let e = FillEstimate::measured(Measured {
        tokens: TokenCount(tokens),
        window: ContextWindow::DEFAULT,
        thresholds: &t,
        auto_compact_reserve: TokenCount(33_000),
        source: FillSource::Transcript,
        model: None,
    });
    (e.threshold_tier, render_context_monitor(&e, &t))
}

#[test]
fn one_snapshot_per_tier() {
    let cases = [
        (100_000, "nominal"),
        (115_000, "low"),
        (150_000, "warning"),
        (170_000, "critical"),
        (180_000, "emergency"),
    ];
    for (tokens, name) in cases {
        let (tier, tag) = tag_at(tokens);
        assert_eq!(tier.key(), name);
        insta::assert_snapshot!(format!("context_monitor_{name}"), tag);
    }
}
