//! Estimator behaviour against an in-memory transcript reader: the tier examples of contract
//! C3, the fail-open paths and the compaction rules.

use std::path::Path;

use ctxmon_domain::{FillSource, ThresholdTier, TokenCount};

use super::*;
use crate::config::Config;
use crate::ports::{
    ChainScope, CompactionBoundary, ScanLimits, TranscriptError, TranscriptErrorKind,
    TranscriptReader, TranscriptReading, UsageRecord,
};

/// Answers every read with a fixed result.
struct FakeReader(Result<TranscriptReading, TranscriptError>);

impl TranscriptReader for FakeReader {
    fn read_latest(
        &self,
        _path: &Path,
        _limits: ScanLimits,
    ) -> Result<TranscriptReading, TranscriptError> {
        self.0.clone()
    }
}

fn reading(tokens: Option<u64>, boundary: Option<CompactionBoundary>) -> TranscriptReading {
    TranscriptReading {
        usage: tokens.map(|t| UsageRecord {
            version: None,
            tokens: TokenCount(t),
            model: Some("claude-sonnet-4".into()),
            message_id: None,
            timestamp: None,
            context_window: None,
        }),
        boundary,
        scope: ChainScope::Main,
        bytes_scanned: 100,
        hit_scan_limit: false,
        agent: Default::default(),
        agent_window: None,
        agent_model: None,
    }
}

fn settings() -> FillSettings {
    FillSettings::from_config(&Config::default()).unwrap()
}

fn estimate_with(reader: FakeReader, request: EstimateRequest<'_>) -> ctxmon_domain::FillEstimate {
    let s = settings();
    ContextFillEstimator::new(&reader, &s).estimate(request)
}

fn from_transcript(tokens: u64) -> ctxmon_domain::FillEstimate {
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        ..Default::default()
    };
    estimate_with(FakeReader(Ok(reading(Some(tokens), None))), req)
}

#[test]
fn the_tier_examples_of_the_contract() {
    let cases = [
        (100_000, 0.50, ThresholdTier::Nominal),
        (115_000, 0.575, ThresholdTier::Low),
        (150_000, 0.75, ThresholdTier::Warning),
        (170_000, 0.85, ThresholdTier::Critical),
        (180_000, 0.90, ThresholdTier::Emergency),
    ];
    for (tokens, ratio, tier) in cases {
        let e = from_transcript(tokens);
        assert!(
            (e.fill_percentage - ratio).abs() < 1e-12,
            "{tokens}: {}",
            e.fill_percentage
        );
        assert_eq!(e.threshold_tier, tier, "{tokens}");
        assert_eq!(e.source, FillSource::Transcript);
        assert_eq!(e.context_window_size.get(), 200_000);
        assert_eq!(
            e.tokens_until_auto_compact,
            Some(TokenCount(167_000u64.saturating_sub(tokens)))
        );
    }
}

#[test]
fn missing_file_fails_open_to_nominal() {
    let err = TranscriptError::new(TranscriptErrorKind::NotFound, "no file at t.jsonl");
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        ..Default::default()
    };
    let e = estimate_with(FakeReader(Err(err)), req);
    assert_eq!(e.threshold_tier, ThresholdTier::Nominal);
    assert_eq!(e.source, FillSource::Unavailable);
    assert!(
        e.note
            .as_deref()
            .unwrap_or("")
            .contains("no file at t.jsonl"),
        "{:?}",
        e.note
    );
}

#[test]
fn no_usage_record_fails_open() {
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        ..Default::default()
    };
    let e = estimate_with(FakeReader(Ok(reading(None, None))), req);
    assert_eq!(
        (e.threshold_tier, e.source),
        (ThresholdTier::Nominal, FillSource::Unavailable)
    );
    let e = estimate_with(
        FakeReader(Ok(reading(None, None))),
        EstimateRequest::default(),
    );
    assert_eq!(e.note.as_deref(), Some("no transcript path was given"));
}

#[test]
fn boundary_post_tokens_win_over_baseline() {
    let boundary = CompactionBoundary {
        version: None,
        uuid: Some("b1".into()),
        timestamp: None,
        trigger: Some("manual".into()),
        pre_tokens: Some(TokenCount(801_920)),
        post_tokens: Some(TokenCount(19_650)),
    };
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        ..Default::default()
    };
    let e = estimate_with(FakeReader(Ok(reading(None, Some(boundary.clone())))), req);
    assert_eq!(
        (e.input_tokens, e.source, e.threshold_tier),
        (
            TokenCount(19_650),
            FillSource::Compaction,
            ThresholdTier::Nominal
        )
    );

    let without_post = CompactionBoundary {
        version: None,
        post_tokens: None,
        ..boundary
    };
    let e = estimate_with(FakeReader(Ok(reading(None, Some(without_post)))), req);
    assert_eq!(e.input_tokens, TokenCount(60_000), "30% of 200k");
}

#[test]
fn payload_usage_wins_and_one_million_suffix_applies() {
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        payload_usage: Some(TokenCount(15_500)),
        payload_window: None,
        model_hint: Some("claude-opus-4-6[1m]"),
    };
    let e = estimate_with(FakeReader(Ok(reading(Some(190_000), None))), req);
    assert_eq!(
        (e.input_tokens, e.source, e.context_window_size.get()),
        (TokenCount(15_500), FillSource::Payload, 1_000_000)
    );
}

#[test]
fn null_payload_usage_falls_back_to_the_transcript() {
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        payload_usage: Some(TokenCount(0)),
        payload_window: Some(200_000),
        model_hint: None,
    };
    let e = estimate_with(FakeReader(Ok(reading(Some(150_000), None))), req);
    assert_eq!(
        (e.source, e.threshold_tier),
        (FillSource::Transcript, ThresholdTier::Warning)
    );
}

#[test]
fn over_full_window_is_corrected_and_said() {
    let e = from_transcript(250_000);
    assert_eq!(e.context_window_size.get(), 1_000_000);
    assert_eq!(e.threshold_tier, ThresholdTier::Nominal);
    assert!(
        e.note.as_deref().unwrap_or("").contains("exceed"),
        "{:?}",
        e.note
    );
}

/// The user's Claude Code settings reach every estimate: transcript, fail-open and payload.
#[test]
fn auto_compact_settings_move_or_clear_the_room() {
    let reader = FakeReader(Ok(reading(Some(60_000), None)));
    let req = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        ..Default::default()
    };
    let mut s = settings();
    s.auto_compact.pct_override = Some(50);
    let e = ContextFillEstimator::new(&reader, &s).estimate(req);
    assert_eq!(e.tokens_until_auto_compact, Some(TokenCount(40_000)));
    let p = s.estimate_for(TokenCount(60_000), FillSource::Payload, Some(200_000), None);
    assert_eq!(p.tokens_until_auto_compact, Some(TokenCount(40_000)));

    s.auto_compact.disabled = true;
    let e = ContextFillEstimator::new(&reader, &s).estimate(req);
    assert_eq!(e.tokens_until_auto_compact, None);
    assert_eq!(e.input_tokens, TokenCount(60_000));
    let missing = FakeReader(Err(TranscriptError::new(
        TranscriptErrorKind::NotFound,
        "gone",
    )));
    let e = ContextFillEstimator::new(&missing, &s).estimate(req);
    assert_eq!(e.source, FillSource::Unavailable);
    assert_eq!(e.tokens_until_auto_compact, None);
}

#[test]
fn the_default_settings_are_the_built_in_configurations() {
    assert_eq!(FillSettings::default(), settings());
}

/// A reader that knows the session's last model, as a file reader finds it past a boundary.
struct KnowsModel(TranscriptReading);

impl TranscriptReader for KnowsModel {
    fn read_latest(&self, _: &Path, _: ScanLimits) -> Result<TranscriptReading, TranscriptError> {
        Ok(self.0.clone())
    }

    fn last_model(&self, _: &Path, _: ScanLimits) -> Option<String> {
        Some("claude-sonnet-4-5[1m]".into())
    }
}

#[test]
fn a_session_measured_after_a_compaction_takes_the_model_it_last_answered_with() {
    let boundary = CompactionBoundary {
        version: None,
        post_tokens: Some(TokenCount(40_000)),
        ..CompactionBoundary::default()
    };
    let s = settings();
    let reader = KnowsModel(reading(None, Some(boundary)));
    let request = EstimateRequest {
        transcript_path: Some(Path::new("t.jsonl")),
        ..EstimateRequest::default()
    };
    let estimator = ContextFillEstimator::new(&reader, &s);
    assert_eq!(estimator.measure(request).estimate.model, None);
    let session = estimator.measure_session(request).estimate;
    assert_eq!(session.model.as_deref(), Some("claude-sonnet-4-5[1m]"));
    // The model decides the window: `[1m]` is a 1M context.
    assert_eq!(session.context_window_size.get(), 1_000_000);
    assert_eq!(session.input_tokens, TokenCount(40_000));
    // Without a compaction the reading's own model stands and nothing more is read.
    let plain = KnowsModel(reading(Some(90_000), None));
    let e = ContextFillEstimator::new(&plain, &s)
        .measure_session(request)
        .estimate;
    assert_eq!(e.context_window_size.get(), 200_000);
}

/// A Gemini CLI chat measured at 77,912 before a compression: 30% of its 1,048,576 window
/// (314,572) would show more after the compression than before it.
#[test]
fn after_a_compaction_the_estimate_never_exceeds_the_size_before_it() {
    let s = FillSettings::default().for_agent(crate::ports::AgentKind::Gemini);
    let window = ctxmon_domain::ContextWindow::new(1_048_576).expect("window");
    let (tokens, note) = s.after_compaction(None, Some(TokenCount(77_912)), window);
    assert_eq!(tokens, TokenCount(23_373), "{note}");
    assert!(note.contains("before it"), "{note}");
    // What the agent recorded wins, and a recorded 0 is unknown.
    let recorded = s.after_compaction(Some(TokenCount(12_040)), Some(TokenCount(77_912)), window);
    assert_eq!(recorded.0, TokenCount(12_040));
    let zero = s.after_compaction(Some(TokenCount(0)), Some(TokenCount(77_912)), window);
    assert_eq!(zero.0, TokenCount(23_373));
    // Without a size before it: the share of the window, as before.
    assert_eq!(
        s.after_compaction(None, None, window).0,
        TokenCount(314_572)
    );
}

proptest::proptest! {
    #[test]
    fn a_compaction_never_shows_more_than_it_found(
        pre in 0u64..3_000_000,
        post in proptest::option::of(0u64..4_000_000),
        window in 1_000u64..2_000_000,
        percent in 10u64..=60,
    ) {
        let s = FillSettings { post_compaction_percent: percent, ..FillSettings::default() };
        let window = ctxmon_domain::ContextWindow::new(window).expect("window");
        let (tokens, _) = s.after_compaction(post.map(TokenCount), Some(TokenCount(pre)), window);
        if pre > 0 {
            proptest::prop_assert!(tokens.get() <= pre);
        }
    }
}
