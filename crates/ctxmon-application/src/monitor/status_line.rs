//! The status line's estimate (the payload rules of contract C2): Claude Code's own
//! `current_usage` when it has one, else the transcript, with the post-compaction reset applied from the session's
//! state so the line drops right after a compaction instead of showing the old size.

use std::path::Path;

use ctxmon_domain::{FillEstimate, SessionState, TokenCount};

use crate::monitor::fill::{ContextFillEstimator, EstimateRequest, FillSettings, reset_if_stale};
use crate::ports::{TranscriptError, TranscriptReader};

/// What the status-line JSON carries that matters for the fill.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusPayload<'a> {
    /// `transcript_path`: read when the payload carries no usage.
    pub transcript_path: Option<&'a Path>,
    /// `context_window.current_usage`, summed (input + cache creation + cache read); `None`
    /// when null (before the first response and right after `/compact`) or malformed.
    pub current_usage: Option<TokenCount>,
    /// `context_window.context_window_size`.
    pub window: Option<u64>,
    /// `model.id`, which may carry `[1m]`.
    pub model_id: Option<&'a str>,
}

/// Never fails; `state` is the session's monitor state when it could be read (the status line
/// only reads it: it runs every 300 ms and must not write).
pub fn status_estimate(
    settings: &FillSettings,
    transcripts: &dyn TranscriptReader,
    state: Option<&SessionState>,
    payload: &StatusPayload<'_>,
) -> FillEstimate {
    status_measure(settings, transcripts, state, payload).estimate
}

/// The status line's estimate and, when the transcript could not be read, why (for stderr).
#[derive(Debug, Clone, PartialEq)]
pub struct StatusMeasurement {
    /// The estimate shown.
    pub estimate: FillEstimate,
    /// Why the transcript could not be read, when it could not.
    pub error: Option<TranscriptError>,
    /// The transcript has no response yet (a session's start): why a line shows no figure.
    pub awaits_first_response: bool,
    /// The reader gave up at `max_scan_bytes` before it met a response.
    pub hit_scan_limit: bool,
}

/// [`status_estimate`] with the transcript's error kept.
pub fn status_measure(
    settings: &FillSettings,
    transcripts: &dyn TranscriptReader,
    state: Option<&SessionState>,
    payload: &StatusPayload<'_>,
) -> StatusMeasurement {
    let request = EstimateRequest {
        transcript_path: payload.transcript_path,
        payload_usage: payload.current_usage,
        payload_window: payload.window,
        model_hint: payload.model_id,
    };
    let measurement = ContextFillEstimator::new(transcripts, settings).measure(request);
    let awaits_first_response = measurement.awaits_first_response();
    let hit_scan_limit = measurement
        .reading
        .as_ref()
        .is_some_and(|r| r.hit_scan_limit);
    let estimate = match state {
        Some(state) => reset_if_stale(
            measurement.estimate,
            measurement.reading.as_ref(),
            state,
            settings,
        ),
        None => measurement.estimate,
    };
    StatusMeasurement {
        estimate,
        error: measurement.error,
        awaits_first_response,
        hit_scan_limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::ports::{ChainScope, ScanLimits, TranscriptError, TranscriptReading, UsageRecord};
    use ctxmon_domain::{FillSource, Timestamp};

    struct Fixed(u64, &'static str);
    impl TranscriptReader for Fixed {
        fn read_latest(
            &self,
            _: &Path,
            _: ScanLimits,
        ) -> Result<TranscriptReading, TranscriptError> {
            Ok(TranscriptReading {
                usage: Some(UsageRecord {
                    version: None,
                    tokens: TokenCount(self.0),
                    model: Some("claude-opus-4-6".into()),
                    message_id: None,
                    timestamp: Some(self.1.into()),
                    context_window: None,
                }),
                boundary: None,
                scope: ChainScope::Main,
                bytes_scanned: 1,
                hit_scan_limit: false,
                agent: Default::default(),
                agent_window: None,
                agent_model: None,
            })
        }
    }

    fn settings() -> FillSettings {
        FillSettings::from_config(&Config::default()).unwrap()
    }

    #[test]
    fn payload_usage_wins_with_its_window() {
        let p = StatusPayload {
            transcript_path: Some(Path::new("t")),
            current_usage: Some(TokenCount(15_500)),
            window: Some(1_000_000),
            model_id: Some("claude-opus-4-6[1m]"),
        };
        let e = status_estimate(
            &settings(),
            &Fixed(190_000, "2026-01-01T00:00:00Z"),
            None,
            &p,
        );
        assert_eq!(
            (e.input_tokens, e.context_window_size.get(), e.source),
            (TokenCount(15_500), 1_000_000, FillSource::Payload)
        );
    }

    #[test]
    fn null_usage_falls_back_to_the_transcript_and_resets_after_a_checkpoint() {
        let p = StatusPayload {
            transcript_path: Some(Path::new("t")),
            current_usage: None,
            window: Some(200_000),
            model_id: None,
        };
        let reader = Fixed(170_000, "2026-11-20T09:00:00Z");
        assert_eq!(
            status_estimate(&settings(), &reader, None, &p).input_tokens,
            TokenCount(170_000)
        );
        let mut state = SessionState::default();
        state.compactions_seen.last_checkpoint_at =
            Some(Timestamp::parse_rfc3339("2026-11-20T10:00:00Z").unwrap());
        state.compactions_seen.last_checkpoint_id = Some("cx-001".into());
        let e = status_estimate(&settings(), &reader, Some(&state), &p);
        assert_eq!(
            (e.input_tokens, e.source),
            (TokenCount(51_000), FillSource::Compaction)
        );
    }
}
