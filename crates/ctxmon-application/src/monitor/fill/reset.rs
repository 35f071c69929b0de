//! The fill after a compaction (contract C5): until the next response the transcript's
//! newest usage record still shows the old context, so the estimate drops to the
//! post-compaction baseline. Prompt-submit, post-tool-use, the status line and resume logs all
//! report the fill this way.

use ctxmon_domain::{FillEstimate, FillSource, SessionState, Timestamp};

use super::FillSettings;
use crate::ports::TranscriptReading;

/// After a checkpoint, the newest usage record still shows the pre-compaction size until the
/// next response. When the record is older than the session's last checkpoint, the estimate
/// drops to the post-compaction baseline (`post_compaction_percent` of the window, or of the
/// record's size when that is smaller).
pub fn reset_if_stale(
    estimate: FillEstimate,
    reading: Option<&TranscriptReading>,
    state: &SessionState,
    settings: &FillSettings,
) -> FillEstimate {
    // An agent whose pre-compaction hook fires also when nothing is compacted shows the
    // compaction in its transcript, which the reader reports itself.
    if estimate.source != FillSource::Transcript
        || settings
            .agent
            .description()
            .hand_back
            .transcript_shows_compaction()
    {
        return estimate;
    }
    let Some(checkpoint_at) = state.compactions_seen.last_checkpoint_at else {
        return estimate;
    };
    let usage_at = reading
        .and_then(|r| r.usage.as_ref())
        .and_then(|u| u.timestamp.as_deref())
        .and_then(Timestamp::parse_rfc3339);
    // A record without a timestamp cannot be placed in time; it is taken as current rather
    // than hiding a real fill behind a guess.
    match usage_at {
        Some(at) if at < checkpoint_at => {
            let window = estimate.context_window_size;
            // The stale record is the size before the compaction: the estimate stays below it.
            let (baseline, note) =
                settings.after_compaction(None, Some(estimate.input_tokens), window);
            let id = state
                .compactions_seen
                .last_checkpoint_id
                .clone()
                .unwrap_or_default();
            let why = note.strip_prefix("compacted; ").unwrap_or(&note);
            settings
                .estimate_for(
                    baseline,
                    FillSource::Compaction,
                    Some(window.get()),
                    estimate.model.as_deref(),
                )
                .with_note(format!("compacted at {id}; {why}"))
        }
        _ => estimate,
    }
}
