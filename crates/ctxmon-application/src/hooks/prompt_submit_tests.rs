//! Behaviour of the prompt-submit use case over in-memory ports.

use ctxmon_domain::{ThresholdTier, TokenCount};

use super::test_world::World;
use crate::config::InjectPolicy;

#[test]
fn always_injects_and_records_tier_changes_once() {
    let w = World::new(InjectPolicy::Always);
    for tokens in [100_000, 120_000, 121_000, 150_000, 180_000] {
        w.script.usage(tokens);
        let out = w.prompt();
        assert!(
            out.additional_context
                .unwrap()
                .starts_with("<context-monitor")
        );
    }
    use ThresholdTier::*;
    assert_eq!(
        w.tier_events(),
        vec![(Nominal, Low), (Low, Warning), (Warning, Emergency)]
    );
    let state = w.state();
    assert_eq!(state.last_tier, Some(Emergency));
    assert!(state.threshold_crossed_at.is_some());
}

#[test]
fn on_change_injects_only_when_the_tier_moves() {
    let w = World::new(InjectPolicy::OnChange);
    let injected: Vec<bool> = [100_000, 101_000, 115_000, 116_000, 150_000, 100_000]
        .into_iter()
        .map(|t| {
            w.script.usage(t);
            w.prompt().additional_context.is_some()
        })
        .collect();
    assert_eq!(injected, vec![true, false, true, false, true, true]);
}

/// The default: a tag on every prompt from LOW up and on every tier change; at NOMINAL only
/// when the fill moved ten points of the window (either way) since the last tag.
#[test]
fn tiered_is_quiet_only_while_nominal_and_steady() {
    let w = World::new(InjectPolicy::Tiered);
    let fills = [
        20_000, 30_000, 39_000, 60_000, 58_000, 38_000, 110_000, 111_000, 115_000, 116_000,
        150_000, 100_000, 100_500, 30_000,
    ];
    let injected: Vec<bool> = fills
        .into_iter()
        .map(|t| {
            w.script.usage(t);
            w.prompt().additional_context.is_some()
        })
        .collect();
    assert_eq!(
        injected,
        vec![
            true,  // 10%: the session's first tag
            false, // 15%: five points from the last tag
            false, // 19.5%: nine and a half
            true,  // 30%: twenty
            false, // 29%
            true,  // 19%: moved down eleven points
            true,  // 55%: LOW, a tier change
            true,  // 55.5%: LOW, every prompt
            true,  // 57.5%
            true,  // 58%
            true,  // 75%: WARNING
            true,  // 50%: back to NOMINAL, a tier change
            false, // 50.25%
            true,  // 15%: moved down 35 points
        ]
    );
    assert_eq!(w.state().last_injected_fill, Some(0.15));
}

#[test]
fn warning_and_above_stays_quiet_below_warning() {
    let w = World::new(InjectPolicy::WarningAndAbove);
    let injected: Vec<bool> = [100_000, 115_000, 150_000, 170_000]
        .into_iter()
        .map(|t| {
            w.script.usage(t);
            w.prompt().additional_context.is_some()
        })
        .collect();
    assert_eq!(injected, vec![false, false, true, true]);
}

#[test]
fn unmeasured_fill_injects_nothing_and_says_why() {
    let w = World::new(InjectPolicy::Always);
    w.script.missing();
    // A session's first prompt may come before its transcript is written: nothing to say.
    let first = w.prompt();
    assert_eq!(first.additional_context, None);
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let out = w.prompt();
    assert_eq!(out.additional_context, None);
    assert_eq!(out.estimate.threshold_tier, ThresholdTier::Nominal);
    assert!(
        out.warnings
            .iter()
            .any(|m| m.to_string().contains("no file")),
        "{:?}",
        out.warnings
    );
    assert!(w.tier_events().is_empty());
}

/// Every session's first prompt comes before any usage record (the transcript empty,
/// or only the user's line). Nothing to measure yet is not a problem: no warning, which the
/// hook log and `doctor` would count. Usage beyond the scan limit still is one.
#[test]
fn a_transcript_without_a_response_yet_is_not_a_warning() {
    let w = World::new(InjectPolicy::Always);
    // The script's default reading is the reader's `Empty` error.
    let empty = w.prompt();
    w.script.no_response_yet();
    let user_only = w.prompt();
    for out in [empty, user_only] {
        assert_eq!(out.additional_context, None);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    }
    w.script.nothing_within_the_scan_limit();
    let beyond = w.prompt();
    assert!(
        beyond
            .warnings
            .iter()
            .any(|m| m.to_string().contains("no usage record in the last")),
        "{:?}",
        beyond.warnings
    );
}

#[test]
fn a_boundary_resets_the_session_once() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage(180_000);
    w.prompt();
    assert!(w.state().threshold_crossed_at.is_some());
    w.script.boundary("b-1", Some(19_650));
    let out = w.prompt();
    assert_eq!(out.estimate.threshold_tier, ThresholdTier::Nominal);
    assert_eq!(out.estimate.input_tokens, TokenCount(19_650));
    let state = w.state();
    assert_eq!(state.compactions_seen.count, 1);
    assert_eq!(state.threshold_crossed_at, None);
    w.prompt();
    assert_eq!(
        w.state().compactions_seen.count,
        1,
        "the same boundary is handled once"
    );
    use ThresholdTier::*;
    assert_eq!(
        w.tier_events(),
        vec![(Nominal, Emergency), (Emergency, Nominal)]
    );
}

#[test]
fn broken_stores_do_not_stop_the_answer() {
    let w = World::new(InjectPolicy::Always);
    w.states.fail.set(true);
    w.events.fail.set(true);
    w.script.usage(150_000);
    let out = w.prompt();
    assert!(out.additional_context.is_some());
    assert_eq!(out.warnings.len(), 3, "{:?}", out.warnings);
}

#[test]
fn disabled_monitor_injects_nothing_but_still_tracks() {
    let mut w = World::new(InjectPolicy::Always);
    w.config.context_monitor.enabled = false;
    w.script.usage(150_000);
    assert_eq!(w.prompt().additional_context, None);
    assert_eq!(w.state().last_tier, Some(ThresholdTier::Warning));
}

/// The world's checkpoints, but `latest_unacknowledged` answers as a read made just before a
/// concurrent prompt acknowledged the checkpoint would: the newest, acknowledged or not.
struct StalePending<'a>(&'a crate::fakes::FakeCheckpoints);

impl crate::ports::CheckpointRepository for StalePending<'_> {
    fn save_new(
        &self,
        session: Option<&str>,
        build: &mut dyn FnMut(crate::ports::Allocation) -> ctxmon_domain::CheckpointData,
    ) -> Result<ctxmon_domain::CheckpointData, crate::ports::PortError> {
        self.0.save_new(session, build)
    }
    fn get(
        &self,
        id: ctxmon_domain::CheckpointId,
    ) -> Result<Option<crate::ports::StoredCheckpoint>, crate::ports::PortError> {
        self.0.get(id)
    }
    fn location(&self, id: ctxmon_domain::CheckpointId) -> String {
        self.0.location(id)
    }
    fn latest_unacknowledged(
        &self,
        _session: Option<&str>,
    ) -> Result<Option<ctxmon_domain::CheckpointData>, crate::ports::PortError> {
        Ok(self.0.stored.borrow().last().map(|s| s.data.clone()))
    }
    fn acknowledge(
        &self,
        id: ctxmon_domain::CheckpointId,
    ) -> Result<bool, crate::ports::PortError> {
        self.0.acknowledge(id)
    }
    fn list(&self) -> Result<crate::ports::CheckpointListing, crate::ports::PortError> {
        self.0.list()
    }
    fn prune(&self, keep: usize) -> Result<crate::ports::PruneOutcome, crate::ports::PortError> {
        self.0.prune(keep)
    }
    fn prune_automatic(
        &self,
        policy: crate::ports::AutoPrune<'_>,
    ) -> Result<crate::ports::PruneOutcome, crate::ports::PortError> {
        self.0.prune_automatic(policy)
    }
    fn of_session(
        &self,
        session: &str,
    ) -> Result<Vec<crate::ports::StoredCheckpoint>, crate::ports::PortError> {
        self.0.of_session(session)
    }
    fn newest(&self) -> Result<Option<ctxmon_domain::CheckpointData>, crate::ports::PortError> {
        self.0.newest()
    }
    fn is_acknowledged(
        &self,
        id: ctxmon_domain::CheckpointId,
    ) -> Result<bool, crate::ports::PortError> {
        self.0.is_acknowledged(id)
    }
    fn claim_alert(
        &self,
        id: ctxmon_domain::CheckpointId,
        now: ctxmon_domain::Timestamp,
        until: ctxmon_domain::Timestamp,
    ) -> Result<bool, crate::ports::PortError> {
        self.0.claim_alert(id, now, until)
    }
}

/// Found by running many hooks at once against one project: prompts running at once (unlocked, past
/// the session lock's wait) all read the same pending checkpoint and all alerted it, up to 4 times.
#[test]
fn a_prompt_that_lost_the_race_to_acknowledge_does_not_alert_again() {
    use super::pre_compact::{PreCompactInput, pre_compact};
    let w = World::new(InjectPolicy::Always);
    w.script.usage(170_000);
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    let first = w.prompt();
    assert_eq!(first.acknowledged.as_deref(), Some("cx-001"));
    assert!(
        first
            .additional_context
            .unwrap()
            .contains("<compaction-alert checkpoint=\"cx-001\"")
    );
    // A second prompt read cx-001 as pending before the first acknowledged it.
    let stale = StalePending(&w.checkpoints);
    let second = w.with_checkpoints(&stale, |c, p| {
        super::prompt_submit::prompt_submit(c, p, &w.logs)
    });
    let text = second.additional_context.unwrap_or_default();
    assert!(!text.contains("compaction-alert"), "{text}");
    assert_eq!(second.acknowledged, None);
    let acks = w
        .event_names()
        .into_iter()
        .filter(|n| *n == "CheckpointAcknowledged")
        .count();
    assert_eq!(acks, 1);
}

/// An answer that never reached the agent (the deadline passed, stdout was closed) carried the
/// alert: the checkpoint stays unacknowledged and the next prompt gives the alert. Marking it
/// acknowledged before the answer was written lost the alert for good.
#[test]
fn an_alert_that_was_not_written_is_given_by_the_next_prompt() {
    use super::pre_compact::{PreCompactInput, pre_compact};
    let w = World::new(InjectPolicy::Always);
    w.script.usage(170_000);
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    let lost = w.prompt_unwritten();
    assert!(lost.alert.is_some());
    assert!(!w.checkpoints.stored.borrow()[0].acknowledged);
    // The lost prompt's claim runs out with its deadline; the next prompt comes later.
    let now = ctxmon_domain::Timestamp(w.clock.now_ms() + 60_000);
    w.clock.set(now);
    let next = w.prompt();
    assert!(
        next.additional_context
            .unwrap_or_default()
            .contains("<compaction-alert checkpoint=\"cx-001\"")
    );
    assert_eq!(next.acknowledged.as_deref(), Some("cx-001"));
    assert!(w.checkpoints.stored.borrow()[0].acknowledged);
    assert!(w.prompt().alert.is_none());
}

/// A session's own checkpoint, its alert, history and acknowledgement are found without
/// reading the checkpoints of thousands of other sessions.
#[test]
fn a_prompt_reads_only_its_own_sessions_checkpoints() {
    use super::pre_compact::{PreCompactInput, pre_compact};
    let mut w = World::new(InjectPolicy::Always);
    w.script.usage(170_000);
    for n in 0..2_000 {
        w.session = format!("other-{n}");
        w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    }
    w.session = "s1".into();
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    w.checkpoints.reads.set(0);
    let out = w.prompt();
    assert_eq!(out.acknowledged.as_deref(), Some("cx-2002"));
    assert!(
        w.checkpoints.reads.get() <= 8,
        "{} checkpoints read",
        w.checkpoints.reads.get()
    );
}

/// The WARNING tag says the turns left at the recent pace; from CRITICAL up the tag also names
/// the largest items in the context; below WARNING the transcript is not read for either, so
/// a prompt costs what it did.
#[test]
fn the_critical_tag_names_what_fills_the_context_and_lower_tags_read_nothing_more() {
    use crate::ports::{ContextItem, ItemKind, RecentContext};
    let w = World::new(InjectPolicy::Always);
    w.script.recent(RecentContext {
        largest: vec![
            ContextItem {
                kind: ItemKind::FileRead,
                tool: "Read".into(),
                target: Some("src/big.rs".into()),
                tokens: 18_000,
            },
            ContextItem {
                kind: ItemKind::ToolOutput,
                tool: "Bash".into(),
                target: Some("cargo test".into()),
                tokens: 9_000,
            },
        ],
        fills: vec![100_000, 102_000, 104_000, 106_000, 108_000],
        complete: true,
    });
    for tokens in [20_000, 115_000] {
        w.script.usage(tokens);
        let tag = w.prompt().additional_context.unwrap_or_default();
        assert!(!tag.contains("Largest") && !tag.contains("turn"), "{tag}");
    }
    assert_eq!(w.script.recent_reads(), 0);
    w.script.usage(150_000);
    let tag = w.prompt().additional_context.unwrap_or_default();
    assert!(tag.contains("tier=\"WARNING\""), "{tag}");
    assert!(
        tag.contains("turns left at the recent pace (2k tokens a turn).\n</context-monitor>"),
        "{tag}"
    );
    assert!(!tag.contains("Largest"), "{tag}");
    assert_eq!(w.script.recent_reads(), 1);
    w.script.usage(162_000);
    let tag = w.prompt().additional_context.unwrap_or_default();
    assert!(tag.contains("tier=\"CRITICAL\""), "{tag}");
    assert!(
        tag.contains("turns left at the recent pace (2k tokens a turn).\nLargest in context: Read src/big.rs 18k, Bash `cargo test` output 9k.\n</context-monitor>"),
        "{tag}"
    );
    assert_eq!(w.script.recent_reads(), 2);
    // A transcript that gives no reading: the tag without the lines, nothing else lost.
    w.script.forget_recent();
    w.script.usage(180_000);
    let tag = w.prompt().additional_context.unwrap_or_default();
    assert!(
        tag.contains("tier=\"EMERGENCY\"") && !tag.contains("Largest"),
        "{tag}"
    );
}
