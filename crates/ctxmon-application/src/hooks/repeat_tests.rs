//! Several compactions in one session: one alert about the newest checkpoint, which
//! acknowledges the older ones too (contract C7), and a state that after each compaction describes
//! the new context (contract C5, C9).

use crate::fakes::records;
use ctxmon_domain::DomainEvent;

use super::lifecycle::session_end;
use super::pre_compact::{PreCompactInput, pre_compact};
use super::test_world::World;
use crate::config::InjectPolicy;

/// Before the checkpoints the clock reads 2026-11-20T10:00Z; usage lines are a minute older.
const BEFORE: &str = "2026-11-20T09:59:00.000Z";
/// A response written after the compactions.
const AFTER: &str = "2026-11-20T11:00:00.000Z";

fn world() -> World {
    let w = World::new(InjectPolicy::Always);
    *w.tail.0.borrow_mut() = vec![records::request("Port the parser")];
    w.script.usage_at(170_000, Some(BEFORE));
    w
}

fn compact(w: &World) -> String {
    let out = w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    out.checkpoint.unwrap().checkpoint_id.to_string()
}

fn start(w: &World) -> Option<String> {
    w.start(Some("compact")).additional_context
}

fn acknowledged_ids(w: &World) -> Vec<String> {
    w.events
        .records
        .borrow()
        .iter()
        .filter_map(|r| match &r.event {
            DomainEvent::CheckpointAcknowledged { checkpoint_id } => Some(checkpoint_id.clone()),
            _ => None,
        })
        .collect()
}

/// Found by the audit: pre-compact → session-start → pre-compact → session-start → prompt ×3
/// alerted cx-002 on the first prompt, then cx-001 with its stale resumption context on the
/// second.
#[test]
fn two_compactions_before_a_prompt_give_one_alert_for_the_newest() {
    let w = world();
    assert_eq!(compact(&w), "cx-001");
    assert!(start(&w).unwrap().contains("checkpoint=\"cx-001\""));
    assert_eq!(compact(&w), "cx-002");
    let second = start(&w).unwrap();
    assert!(
        second.starts_with("<resumption-context checkpoint=\"cx-002\""),
        "SessionStart hands back the newest: {second}"
    );

    let first = w.prompt();
    let text = first.additional_context.unwrap();
    assert_eq!(text.matches("<compaction-alert").count(), 1, "{text}");
    assert!(
        text.contains("<compaction-alert checkpoint=\"cx-002\""),
        "{text}"
    );
    assert!(
        !text.contains("<resumption-context"),
        "delivered at SessionStart: {text}"
    );
    assert_eq!(first.acknowledged.as_deref(), Some("cx-002"));
    for _ in 0..2 {
        let later = w.prompt();
        assert_eq!(later.acknowledged, None);
        let text = later.additional_context.unwrap();
        assert!(!text.contains("<compaction-alert"), "{text}");
        assert!(!text.contains("<resumption-context"), "{text}");
    }
    assert_eq!(acknowledged_ids(&w), ["cx-002", "cx-001"], "one event each");
    assert!(w.checkpoints.stored.borrow().iter().all(|c| c.acknowledged));
}

#[test]
fn without_session_start_the_newest_checkpoints_context_is_delivered_once() {
    let w = world();
    compact(&w);
    compact(&w);
    let text = w.prompt().additional_context.unwrap();
    assert!(
        text.contains("<compaction-alert checkpoint=\"cx-002\""),
        "{text}"
    );
    assert!(
        text.contains("<resumption-context checkpoint=\"cx-002\""),
        "{text}"
    );
    let next = w.prompt().additional_context.unwrap();
    assert!(!next.contains("<compaction-alert") && !next.contains("<resumption-context"));
    assert_eq!(acknowledged_ids(&w), ["cx-002", "cx-001"]);
}

#[test]
fn another_sessions_checkpoints_are_left_alone() {
    let mut w = world();
    compact(&w);
    w.session = "s2".into();
    compact(&w);
    w.prompt();
    assert_eq!(acknowledged_ids(&w), ["cx-002"]);
    let stored = w.checkpoints.stored.borrow();
    assert!(!stored[0].acknowledged, "s1's checkpoint waits for s1");
}

/// The resume logs written so far, by trigger.
fn logs_written(w: &World) -> Vec<String> {
    w.events
        .records
        .borrow()
        .iter()
        .filter_map(|r| match &r.event {
            DomainEvent::ResumeLogGenerated { trigger, .. } => Some(trigger.clone()),
            _ => None,
        })
        .collect()
}

/// Found by the audit: PreCompact cleared `handoff_complete` and set it again when it saved
/// its own resume log, and `tier:critical` could never fire again after a compaction. The
/// state after a compaction describes the new context: no handoff yet, `tier:critical` (once
/// per context) and `pre_compact` (once per compaction) re-armed, `session_end` once per
/// session.
#[test]
fn a_compaction_starts_a_new_context_for_handoff_and_triggers() {
    let w = world();
    w.prompt();
    assert_eq!(logs_written(&w), ["tier:critical"]);
    assert!(
        w.state().handoff_complete,
        "the CRITICAL log hands this context over"
    );

    compact(&w);
    let st = w.state();
    assert_eq!(logs_written(&w), ["tier:critical", "pre_compact"]);
    assert!(
        !st.handoff_complete,
        "nothing hands the new context over yet"
    );
    assert_eq!(st.resume_log_triggers, ["pre_compact"]);
    assert_eq!(st.threshold_crossed_at, None);

    // The new context fills up to CRITICAL again: it gets its own log, once.
    w.script.usage_at(170_000, Some(AFTER));
    w.prompt();
    w.prompt();
    assert_eq!(
        logs_written(&w),
        ["tier:critical", "pre_compact", "tier:critical"]
    );
    assert!(w.state().handoff_complete);
    assert!(w.state().threshold_crossed_at.is_some());

    // Every compaction writes its pre-compact log.
    compact(&w);
    assert_eq!(logs_written(&w).len(), 4);
    assert_eq!(logs_written(&w)[3], "pre_compact");
    assert!(!w.state().handoff_complete);

    // The session ends once.
    for _ in 0..2 {
        w.with(|c, p| session_end(c, p, &w.logs, Some("prompt_input_exit")));
    }
    assert_eq!(logs_written(&w)[4..], ["session_end"]);
    assert_eq!(
        w.state().resume_log_triggers,
        ["pre_compact", "session_end"]
    );
    compact(&w);
    assert_eq!(
        w.state().resume_log_triggers,
        ["session_end", "pre_compact"],
        "session_end survives a compaction"
    );
}

/// A compaction Claude Code recorded without PreCompact (a boundary in the transcript) starts
/// a new context just the same.
#[test]
fn a_boundary_seen_by_prompt_submit_rearms_the_context_triggers() {
    let w = world();
    w.prompt();
    assert_eq!(w.state().resume_log_triggers, ["tier:critical"]);
    w.script.boundary("b-1", Some(20_000));
    w.prompt();
    let st = w.state();
    assert!(
        st.resume_log_triggers.is_empty(),
        "{:?}",
        st.resume_log_triggers
    );
    assert!(!st.handoff_complete);
    w.script.usage_at(170_000, Some(AFTER));
    w.prompt();
    assert_eq!(logs_written(&w), ["tier:critical", "tier:critical"]);
}

/// Found by the audit: the session-end log after a compaction reported the old context's
/// 170,000 tokens, though the hooks already showed the post-compaction baseline.
#[test]
fn a_session_end_log_after_a_compaction_reports_the_new_context() {
    use crate::ports::ResumeLogStore;
    let w = world();
    compact(&w);
    w.with(|c, p| session_end(c, p, &w.logs, Some("prompt_input_exit")));
    let log = w.logs.latest().unwrap().unwrap().log;
    assert_eq!(
        log.context_metrics.used_tokens, 51_000,
        "30% of the 170,000 before it"
    );

    // Once a response comes after the compaction, its usage is the figure again.
    w.script.usage_at(90_000, Some(AFTER));
    w.with(|c, p| crate::handoff::resume_log::generate_now(c, p, &w.logs, None).map(|_| ()))
        .unwrap();
    let log = w.logs.latest().unwrap().unwrap().log;
    assert_eq!(log.context_metrics.used_tokens, 90_000);
}
