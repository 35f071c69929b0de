//! Claude Code's own figure against ctxmon's (contract C2, "Status-line payload"). Recent
//! status-line payloads carry `context_window.used_percentage`; when it and ctxmon's fill are more
//! than two points apart, one of them counts differently (another window, a post-compaction
//! estimate, a payload that lags the transcript) and the user should know. The status line compares
//! on every run and reports it in `--json`; it keeps the latest comparison per session through the
//! [`PayloadCheckStore`] port so that `ctxmon doctor`, which has no payload, can report it.
//!
//! The status line runs every 300 ms, so the record is rewritten only when it says something
//! new: when the verdict (agree or disagree) changes, or once the record is older than
//! [`REFRESH_MS`] (so doctor can tell a current disagreement from one of last week).
//! `since` keeps when the current verdict began.

use ctxmon_domain::{FillEstimate, FillSource, PayloadCheck, SessionKey, Timestamp};

use crate::ports::{PayloadCheckStore, PortError};

/// A record this old is rewritten even when nothing changed (one write an hour per session).
pub const REFRESH_MS: i64 = 60 * 60 * 1000;

/// The comparison of `used_percentage` (Claude Code's) with `estimate` (ctxmon's), made at
/// `now`; `None` when ctxmon measured nothing or Claude Code's figure is not a percentage.
pub fn compare(
    used_percentage: f64,
    estimate: &FillEstimate,
    payload_window: Option<u64>,
    session_id: Option<&str>,
    now: Timestamp,
) -> Option<PayloadCheck> {
    if estimate.source == FillSource::Unavailable
        || !used_percentage.is_finite()
        || used_percentage < 0.0
    {
        return None;
    }
    let ctxmon_percentage = estimate.fill_percentage * 100.0;
    Some(PayloadCheck {
        schema_version: PayloadCheck::SCHEMA_VERSION,
        session_id: session_id.map(str::to_string),
        used_percentage,
        ctxmon_percentage,
        tokens: estimate.input_tokens.get(),
        window: estimate.context_window_size.get(),
        source: estimate.source,
        payload_window,
        disagrees: PayloadCheck::disagree(used_percentage, ctxmon_percentage),
        since: now,
        checked_at: now,
    })
}

/// Keeps `check` as the session's latest comparison when it says something the stored one
/// does not (see the module documentation). Returns whether it wrote.
pub fn record(
    store: &dyn PayloadCheckStore,
    session: &SessionKey,
    mut check: PayloadCheck,
) -> Result<bool, PortError> {
    // An unreadable record is replaced: it is derived data, rebuilt by the next run.
    let previous = store.load(session).ok().flatten();
    if let Some(previous) = previous
        && previous.disagrees == check.disagrees
    {
        let age = check
            .checked_at
            .millis()
            .saturating_sub(previous.checked_at.millis());
        if (0..REFRESH_MS).contains(&age) {
            return Ok(false);
        }
        check.since = previous.since;
    }
    store.save(session, &check)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::monitor::fill::FillSettings;
    use ctxmon_domain::TokenCount;

    fn estimate(tokens: u64, source: FillSource) -> FillEstimate {
        let settings = FillSettings::from_config(&Config::default()).unwrap();
        settings.estimate_for(TokenCount(tokens), source, Some(200_000), None)
    }

    #[test]
    fn more_than_two_points_apart_disagrees() {
        let e = estimate(90_000, FillSource::Transcript); // 45%
        let at = Timestamp(1_000);
        let close = compare(46.0, &e, Some(200_000), Some("s"), at).unwrap();
        assert!(!close.disagrees);
        let far = compare(50.0, &e, Some(200_000), Some("s"), at).unwrap();
        assert!(far.disagrees);
        assert_eq!(far.difference_points(), 5.0);
        assert_eq!((far.tokens, far.window), (90_000, 200_000));
        let unmeasured = estimate(0, FillSource::Unavailable);
        assert_eq!(compare(45.0, &unmeasured, None, None, at), None);
        assert_eq!(compare(f64::NAN, &e, None, None, at), None);
        assert_eq!(compare(-1.0, &e, None, None, at), None);
    }
}
