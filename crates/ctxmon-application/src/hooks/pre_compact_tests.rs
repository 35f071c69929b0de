//! PreCompact's numbering and housekeeping (contract C5): the compaction sequence
//! comes from the repository and survives a prune, the hook lists no checkpoint (its cost must
//! not grow with the folder), and old acknowledged checkpoints are pruned as configured.

use std::cell::Cell;

use ctxmon_domain::{
    CheckpointData, CheckpointId, ContextMetrics, DomainEvent, ResumeLog, Timestamp,
};

use super::pre_compact::{PreCompactInput, PreCompactOutcome, pre_compact};
use super::test_world::World;
use crate::config::InjectPolicy;
use crate::fakes::{FakeCheckpoints, records};
use crate::ports::{
    Allocation, AutoPrune, CheckpointListing, CheckpointRepository, PortError, PruneOutcome,
    ResumeLogStore, StoredCheckpoint,
};

/// The world's checkpoints, watched: counts `list` calls.
struct Watched<'a> {
    inner: &'a FakeCheckpoints,
    lists: Cell<usize>,
}

impl<'a> Watched<'a> {
    fn new(inner: &'a FakeCheckpoints) -> Watched<'a> {
        Watched {
            inner,
            lists: Cell::new(0),
        }
    }
}

impl CheckpointRepository for Watched<'_> {
    fn save_new(
        &self,
        session: Option<&str>,
        build: &mut dyn FnMut(Allocation) -> CheckpointData,
    ) -> Result<CheckpointData, PortError> {
        self.inner.save_new(session, build)
    }
    fn get(&self, id: CheckpointId) -> Result<Option<StoredCheckpoint>, PortError> {
        self.inner.get(id)
    }
    fn location(&self, id: CheckpointId) -> String {
        self.inner.location(id)
    }
    fn latest_unacknowledged(
        &self,
        session: Option<&str>,
    ) -> Result<Option<CheckpointData>, PortError> {
        self.inner.latest_unacknowledged(session)
    }
    fn acknowledge(&self, id: CheckpointId) -> Result<bool, PortError> {
        self.inner.acknowledge(id)
    }
    fn list(&self) -> Result<CheckpointListing, PortError> {
        self.lists.set(self.lists.get() + 1);
        self.inner.list()
    }
    fn prune(&self, keep: usize) -> Result<PruneOutcome, PortError> {
        self.inner.prune(keep)
    }
    fn prune_automatic(&self, policy: AutoPrune<'_>) -> Result<PruneOutcome, PortError> {
        self.inner.prune_automatic(policy)
    }
    fn of_session(
        &self,
        session: &str,
    ) -> Result<Vec<crate::ports::StoredCheckpoint>, crate::ports::PortError> {
        self.inner.of_session(session)
    }
    fn newest(&self) -> Result<Option<ctxmon_domain::CheckpointData>, crate::ports::PortError> {
        self.inner.newest()
    }
    fn is_acknowledged(
        &self,
        id: ctxmon_domain::CheckpointId,
    ) -> Result<bool, crate::ports::PortError> {
        self.inner.is_acknowledged(id)
    }
    fn claim_alert(
        &self,
        id: ctxmon_domain::CheckpointId,
        now: ctxmon_domain::Timestamp,
        until: ctxmon_domain::Timestamp,
    ) -> Result<bool, crate::ports::PortError> {
        self.inner.claim_alert(id, now, until)
    }
}

fn world() -> World {
    let w = World::new(InjectPolicy::Always);
    *w.tail.0.borrow_mut() = vec![records::request("Port the parser")];
    w.script.usage_at(170_000, Some("2026-11-20T09:59:00.000Z"));
    w
}

fn compact(w: &World) -> PreCompactOutcome {
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()))
}

/// Saves a checkpoint of `session` straight into the repository (as another session's
/// PreCompact would have).
fn seed(w: &World, session: &str) -> CheckpointId {
    let mut other = world();
    other.session = session.into();
    let saved = other.with_checkpoints(&w.checkpoints, |c, p| {
        pre_compact(c, p, &other.logs, PreCompactInput::default())
    });
    saved.checkpoint.unwrap().checkpoint_id
}

fn sequences_recorded(w: &World) -> Vec<u32> {
    w.events
        .records
        .borrow()
        .iter()
        .filter_map(|r| match &r.event {
            DomainEvent::CheckpointCreated {
                compaction_sequence,
                ..
            } => Some(*compaction_sequence),
            _ => None,
        })
        .collect()
}

#[test]
fn the_sequence_survives_a_prune() {
    let w = world();
    for _ in 0..5 {
        compact(&w);
    }
    w.checkpoints.prune(2).unwrap();
    let sixth = compact(&w).checkpoint.unwrap();
    assert_eq!(sixth.compaction_sequence, 6);
    assert_eq!(sequences_recorded(&w), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn pre_compact_lists_no_checkpoint_and_hands_the_new_one_to_its_resume_log() {
    let w = world();
    for i in 0..300 {
        seed(&w, &format!("other-{i}"));
    }
    let watched = Watched::new(&w.checkpoints);
    let out = w.with_checkpoints(&watched, |c, p| {
        pre_compact(c, p, &w.logs, PreCompactInput::default())
    });
    assert_eq!(
        watched.lists.get(),
        0,
        "its cost must not grow with the folder"
    );
    let saved = out.checkpoint.unwrap();
    assert_eq!(saved.checkpoint_id.to_string(), "cx-301");
    assert_eq!(saved.compaction_sequence, 1);
    let log = w.logs.latest().unwrap().unwrap().log;
    assert_eq!(log.session_id, "s1");
    assert_eq!(log.named_checkpoints(), [saved.checkpoint_id]);
}

/// Old checkpoints go once the agent no longer needs them: acknowledged ones, and
/// unacknowledged ones a newer checkpoint of their session supersedes (an alert about that one
/// acknowledges them). Pruning never removed an unacknowledged checkpoint, so a project's
/// folder grew with every session that ended between a compaction and its next prompt.
#[test]
fn old_checkpoints_the_agent_no_longer_needs_are_pruned_after_a_compaction() {
    let mut w = world();
    w.config.checkpoints.keep = 3;
    // cx-001: the only checkpoint of "lone", never acknowledged.
    let lone = seed(&w, "lone");
    // cx-002 to cx-007 of session "old": cx-005 never acknowledged; cx-003 named by a log.
    let old: Vec<CheckpointId> = (0..6).map(|_| seed(&w, "old")).collect();
    for n in [0, 1, 2, 4, 5] {
        w.checkpoints.acknowledge(old[n]).unwrap();
    }
    let mut log = ResumeLog::new(
        "old",
        ContextMetrics::new(200_000, 1, "manual", "m", Timestamp(0)),
    );
    log.metadata.sources = vec!["checkpoint cx-003".into()];
    w.logs.save(&log, &log.to_markdown()).unwrap();

    let out = compact(&w);
    let saved = out.checkpoint.unwrap();
    assert_eq!(saved.checkpoint_id.to_string(), "cx-008");
    // The newest 3 (cx-006, cx-007 and the new one) stay; of the older ones the acknowledged
    // and unnamed go, and so does cx-005, superseded by cx-007; "lone"'s only one stays.
    let ids = |cps: &[CheckpointId]| cps.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(ids(&out.pruned), ["cx-002", "cx-004", "cx-005"]);
    let left: Vec<CheckpointId> = w
        .checkpoints
        .list()
        .unwrap()
        .checkpoints
        .iter()
        .map(|c| c.data.checkpoint_id)
        .collect();
    assert_eq!(
        ids(&left),
        ["cx-001", "cx-003", "cx-006", "cx-007", "cx-008"]
    );
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);

    // Resume logs that cannot be read: nothing is pruned, the checkpoint is saved all the same.
    w.checkpoints.acknowledge(lone).unwrap();
    w.logs.fail.set(true);
    let out = compact(&w);
    assert!(out.checkpoint.is_some());
    assert_eq!(out.pruned, []);
    assert!(
        out.warnings
            .iter()
            .any(|m| m.to_string().starts_with("old checkpoints not pruned")),
        "{:?}",
        out.warnings
    );
}

/// A source file older than the newest checkpoint no longer describes the present: the
/// transcript's hand-back leads, and only the file's items that cannot contradict it are added.
#[test]
fn a_stale_source_file_adds_to_the_transcripts_hand_back_and_never_replaces_it() {
    use crate::ports::SourceDocument;
    let w = world();
    *w.tail.0.borrow_mut() = vec![
        records::request("Now port the lexer. Never touch the generated tables."),
        records::todos(&[("Port the lexer", "in_progress")]),
    ];
    let section = serde_json::json!({
        "summary": "Phase 1: parser done",
        "next_steps": ["Port the parser"],
        "decisions": ["Use a hand-written lexer"],
        "updated_at": "2026-11-01T00:00:00Z",
    });
    *w.source.0.borrow_mut() = Some(SourceDocument {
        path: "/proj/ORCHESTRATION.yaml".into(),
        section: Some(section.clone()),
        warnings: vec![],
    });
    // No checkpoint yet: nothing says the file is stale, so it is the hand-back.
    let first = compact(&w).checkpoint.unwrap().resumption_state.unwrap();
    assert_eq!(first.summary.as_deref(), Some("Phase 1: parser done"));
    // A checkpoint exists now, newer than the file's `updated_at`.
    let second = compact(&w).checkpoint.unwrap().resumption_state.unwrap();
    assert_eq!(second.origin, ctxmon_domain::ResumptionOrigin::Transcript);
    assert_eq!(
        second.last_user_requests,
        ["Now port the lexer. Never touch the generated tables."]
    );
    assert_eq!(second.decisions, ["Use a hand-written lexer"]);
    assert_eq!(
        second.summary, None,
        "the file's summary is of its own time"
    );
    // The transcript has an open item: the file's next steps would contradict it.
    assert!(second.next_steps.is_empty(), "{:?}", second.next_steps);
    assert_eq!(second.rules, ["Never touch the generated tables."]);
}

/// A rule said before the tail of a long session is carried by the session state from one
/// compaction to the next.
#[test]
fn rules_are_carried_from_one_compaction_to_the_next() {
    let w = world();
    *w.tail.0.borrow_mut() = vec![records::request("Fix the build. Never run git commands.")];
    let first = compact(&w).checkpoint.unwrap().resumption_state.unwrap();
    assert_eq!(first.rules, ["Never run git commands."]);
    *w.tail.0.borrow_mut() = vec![records::request("Now update the changelog for 2.0")];
    let second = compact(&w).checkpoint.unwrap().resumption_state.unwrap();
    assert_eq!(second.rules, ["Never run git commands."]);
    // Taken back later, it is dropped: the newer words are a permission, not a rule.
    *w.tail.0.borrow_mut() = vec![records::request(
        "Actually, you can now run git commands yourself",
    )];
    let third = compact(&w).checkpoint.unwrap().resumption_state.unwrap();
    assert!(third.rules.is_empty(), "{:?}", third.rules);
}
