//! The status line's record of Claude Code's figure against ctxmon's, kept through the
//! payload-check port: rewritten only when it says something new. (Beside the code it tests,
//! these would make the fill monitor depend on the in-memory fakes, which depend on the
//! readers, which depend on the monitor.)

use ctxmon_application::domain::{FillEstimate, FillSource, SessionKey, Timestamp, TokenCount};
use ctxmon_application::fakes::FakePayloadChecks;
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::monitor::payload_check::{REFRESH_MS, compare, record};
use ctxmon_application::ports::{PayloadCheckStore, PortErrorKind};

fn estimate(tokens: u64, source: FillSource) -> FillEstimate {
    let settings = FillSettings::default();
    settings.estimate_for(TokenCount(tokens), source, Some(200_000), None)
}

#[test]
fn the_record_is_rewritten_on_a_new_verdict_or_after_an_hour_keeping_since() {
    let store = FakePayloadChecks::default();
    let key = SessionKey::from_raw("s");
    let e = estimate(90_000, FillSource::Transcript);
    let at = |ms: i64| Timestamp(1_000_000 + ms);
    let check = |pct: f64, ms: i64| compare(pct, &e, None, Some("s"), at(ms)).unwrap();
    assert_eq!(record(&store, &key, check(50.0, 0)), Ok(true));
    // Still disagreeing, 300 ms later and half an hour later: nothing new.
    assert_eq!(record(&store, &key, check(51.0, 300)), Ok(false));
    assert_eq!(record(&store, &key, check(51.0, REFRESH_MS / 2)), Ok(false));
    // An hour on: refreshed, and the disagreement is still dated from its start.
    assert_eq!(record(&store, &key, check(52.0, REFRESH_MS)), Ok(true));
    let kept = store.load(&key).unwrap().unwrap();
    assert_eq!((kept.since, kept.checked_at), (at(0), at(REFRESH_MS)));
    assert_eq!(kept.used_percentage, 52.0);
    // They agree again: written at once, a new `since`.
    assert_eq!(
        record(&store, &key, check(45.0, REFRESH_MS + 300)),
        Ok(true)
    );
    let kept = store.load(&key).unwrap().unwrap();
    assert!(!kept.disagrees);
    assert_eq!(kept.since, at(REFRESH_MS + 300));
    // A clock that went backwards rewrites rather than trusting the old record.
    assert_eq!(record(&store, &key, check(45.0, 0)), Ok(true));
}

#[test]
fn a_failing_store_is_reported_and_the_next_write_works() {
    let store = FakePayloadChecks::default();
    let key = SessionKey::from_raw("s");
    let e = estimate(90_000, FillSource::Transcript);
    let check = compare(50.0, &e, None, Some("s"), Timestamp(1_000)).unwrap();
    store.fail.set(true);
    let err = record(&store, &key, check.clone()).unwrap_err();
    assert_eq!(err.kind, PortErrorKind::PermissionDenied);
    store.fail.set(false);
    assert_eq!(record(&store, &key, check), Ok(true));
    assert!(store.checks.borrow().contains_key(&key));
}
