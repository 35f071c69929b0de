//! The session series: one point per response, sidechain rules, compactions, crossings, windows.

use ctxmon_domain::{ContextWindow, FillSource, ThresholdTier, TokenCount};

use super::series::{FillSeries, FillSeriesBuilder, SeriesScope};
use super::*;
use crate::config::Config;
use crate::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};

fn usage(id: Option<&str>, tokens: u64, sidechain: bool) -> TranscriptEvent {
    TranscriptEvent::Usage {
        sidechain,
        record: UsageRecord {
            version: None,
            tokens: TokenCount(tokens),
            model: Some("claude-sonnet-4-5".into()),
            message_id: id.map(str::to_string),
            timestamp: Some(format!("t{tokens}")),
            context_window: None,
        },
    }
}

fn main(id: &str, tokens: u64) -> TranscriptEvent {
    usage(Some(id), tokens, false)
}

fn boundary(post: Option<u64>, sidechain: bool) -> TranscriptEvent {
    TranscriptEvent::Boundary {
        sidechain,
        boundary: CompactionBoundary {
            version: None,
            uuid: None,
            timestamp: Some("tb".into()),
            trigger: Some("auto".into()),
            pre_tokens: Some(TokenCount(170_000)),
            post_tokens: post.map(TokenCount),
        },
    }
}

fn build_with(config: &Config, events: Vec<TranscriptEvent>, hint: Option<&str>) -> FillSeries {
    let settings = FillSettings::from_config(config).expect("valid thresholds");
    let mut builder = FillSeriesBuilder::new();
    for e in events {
        builder.push(e);
    }
    builder.finish(&settings, hint)
}

fn build(events: Vec<TranscriptEvent>) -> FillSeries {
    build_with(&Config::default(), events, None)
}

fn tokens(series: &FillSeries) -> Vec<u64> {
    series.points.iter().map(|p| p.tokens.get()).collect()
}

#[test]
fn one_point_per_response_first_line_of_an_id_wins() {
    let s = build(vec![
        main("a", 10_000),
        main("a", 10_000),
        main("b", 20_000),
        main("a", 99_999), // a stray late block of an earlier response adds nothing
        usage(None, 30_000, false),
        usage(None, 30_000, false), // no id: the simple format, one point per line
        main("b", 20_000),
    ]);
    assert_eq!(tokens(&s), [10_000, 20_000, 30_000, 30_000]);
    let indexes: Vec<usize> = s.points.iter().map(|p| p.index).collect();
    assert_eq!(indexes, [0, 1, 2, 3]);
    assert_eq!(s.points[1].message_id.as_deref(), Some("b"));
    assert_eq!(s.scope, SeriesScope::Main);
}

#[test]
fn sidechain_lines_are_left_out_of_a_session() {
    let s = build(vec![
        usage(Some("s1"), 90_000, true),
        main("a", 10_000),
        usage(Some("s2"), 95_000, true),
        boundary(Some(5_000), true),
        main("b", 12_000),
    ]);
    assert_eq!(tokens(&s), [10_000, 12_000]);
    assert!(
        s.compactions.is_empty(),
        "a subagent's compaction is not ours"
    );
}

#[test]
fn a_sidechain_only_file_is_charted_from_its_sidechain() {
    let s = build(vec![
        usage(Some("s1"), 9_000, true),
        usage(Some("s1"), 9_000, true),
        usage(Some("s2"), 11_000, true),
    ]);
    assert_eq!(s.scope, SeriesScope::Sidechain);
    assert_eq!(tokens(&s), [9_000, 11_000]);
}

#[test]
fn a_main_boundary_alone_makes_it_a_session() {
    let s = build(vec![
        boundary(Some(19_650), false),
        usage(Some("s"), 1, true),
    ]);
    assert_eq!(s.scope, SeriesScope::Main);
    assert!(s.points.is_empty());
    assert_eq!(s.compactions.len(), 1);
    assert_eq!(s.compactions[0].index, 0);
}

#[test]
fn compactions_sit_between_responses_and_crossings_follow_tiers() {
    // Window 200,000: 100k NOMINAL, 115k LOW, 150k WARNING, 170k CRITICAL, then compaction.
    let s = build(vec![
        main("a", 100_000),
        main("b", 115_000),
        main("c", 150_000),
        main("d", 170_000),
        boundary(Some(30_000), false),
        main("e", 40_000),
        main("f", 41_000),
    ]);
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(c.index, 4, "before the first response after it");
    assert_eq!(c.post_tokens, Some(TokenCount(30_000)));
    assert_eq!(c.trigger.as_deref(), Some("auto"));
    let crossings: Vec<(usize, ThresholdTier, ThresholdTier)> = s
        .crossings
        .iter()
        .map(|c| (c.index, c.from, c.to))
        .collect();
    assert_eq!(
        crossings,
        [
            (1, ThresholdTier::Nominal, ThresholdTier::Low),
            (2, ThresholdTier::Low, ThresholdTier::Warning),
            (3, ThresholdTier::Warning, ThresholdTier::Critical),
            (4, ThresholdTier::Critical, ThresholdTier::Nominal),
        ]
    );
    assert_eq!(s.crossings[1].timestamp.as_deref(), Some("t150000"));
    assert_eq!(s.max().map(|p| p.index), Some(3));
    assert_eq!(s.min().map(|p| p.index), Some(4));
    assert_eq!(s.last().map(|p| p.tokens.get()), Some(41_000));
    // 200,000 − 33,000 buffer.
    assert!((s.auto_compact_fill - 0.835).abs() < 1e-9);
}

#[test]
fn a_first_response_above_nominal_is_a_crossing() {
    let s = build(vec![main("a", 120_000)]);
    assert_eq!(s.crossings.len(), 1);
    assert_eq!(s.crossings[0].from, ThresholdTier::Nominal);
    assert_eq!(s.crossings[0].to, ThresholdTier::Low);
}

#[test]
fn one_response_beyond_the_window_moves_the_whole_session() {
    let s = build(vec![main("a", 150_000), main("b", 250_000)]);
    assert_eq!(s.window, ContextWindow::ONE_MILLION);
    assert!(
        s.points
            .iter()
            .all(|p| p.window == ContextWindow::ONE_MILLION)
    );
    assert!((s.points[0].fill - 0.15).abs() < 1e-9, "not 75% of 200k");
    assert!(
        s.window_note
            .as_deref()
            .unwrap_or("")
            .contains("250,000 tokens exceed the expected 200,000 window; assuming 1,000,000"),
        "{:?}",
        s.window_note
    );
    assert!(s.crossings.is_empty());
}

#[test]
fn window_rules_apply_configuration_and_hints() {
    let mut config = Config::default();
    config.context_monitor.context_window = Some(100_000);
    let s = build_with(&config, vec![main("a", 60_000)], None);
    assert_eq!(s.points[0].tier, ThresholdTier::Low);
    assert_eq!(s.window.get(), 100_000);
    let hinted = build_with(
        &Config::default(),
        vec![main("a", 60_000)],
        Some("claude-opus-4-6[1m]"),
    );
    assert_eq!(hinted.window, ContextWindow::ONE_MILLION);
    assert_eq!(hinted.window_note, None);
}

#[test]
fn nothing_in_gives_an_empty_series() {
    let s = build(vec![]);
    assert!(s.points.is_empty() && s.compactions.is_empty() && s.crossings.is_empty());
    assert_eq!(s.window, ContextWindow::DEFAULT);
    assert_eq!(s.model, None);
    assert!(s.max().is_none());
}

/// The session's end is what `status` would say: a compaction after the newest
/// response replaces its figure by what the compaction left, from the boundary's postTokens or,
/// without them, the post-compaction baseline; a response after the compaction wins again.
#[test]
fn the_final_fill_follows_a_compaction_after_the_last_response() {
    let s = build(vec![main("a", 100_000), main("b", 178_000)]);
    let end = s.final_fill.as_ref().unwrap();
    assert_eq!(
        (end.source, end.tokens, end.tier, end.note.as_deref()),
        (
            FillSource::Transcript,
            TokenCount(178_000),
            ThresholdTier::Emergency,
            None
        )
    );

    let s = build(vec![
        main("a", 100_000),
        main("b", 178_000),
        boundary(None, false),
    ]);
    let end = s.final_fill.as_ref().unwrap();
    assert_eq!(s.points.len(), 2, "the chart still ends at the response");
    // 30% (the default post_compaction_percent) of the 170,000 before it: less than 30% of
    // the window.
    assert_eq!(
        (end.source, end.tokens, end.tier, end.timestamp.as_deref()),
        (
            FillSource::Compaction,
            TokenCount(51_000),
            ThresholdTier::Nominal,
            Some("tb")
        )
    );
    assert!(end.note.as_deref().unwrap().contains("assuming 30%"));

    let s = build(vec![main("a", 178_000), boundary(Some(31_000), false)]);
    let end = s.final_fill.as_ref().unwrap();
    assert_eq!((end.tokens, end.fill), (TokenCount(31_000), 0.155));
    assert!(end.note.as_deref().unwrap().contains("recorded"));

    // A recorded 0 is no size: the estimate, not 0 tokens.
    let s = build(vec![main("a", 178_000), boundary(Some(0), false)]);
    assert_eq!(
        s.final_fill.as_ref().map(|e| e.tokens),
        Some(TokenCount(51_000))
    );

    let s = build(vec![
        main("a", 178_000),
        boundary(Some(31_000), false),
        main("b", 40_000),
    ]);
    let end = s.final_fill.as_ref().unwrap();
    assert_eq!(
        (end.source, end.tokens),
        (FillSource::Transcript, TokenCount(40_000))
    );
    // A session that is only a compaction so far still has an end.
    let s = build(vec![boundary(Some(19_650), false)]);
    assert_eq!(
        s.final_fill.as_ref().map(|e| e.tokens),
        Some(TokenCount(19_650))
    );
    assert!(build(Vec::new()).final_fill.is_none());
}
