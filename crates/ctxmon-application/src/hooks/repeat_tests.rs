//! Several compactions in one session: one alert about the newest checkpoint, which
//! acknowledges the older ones too (spec §7).

use ctxmon_domain::DomainEvent;
use serde_json::json;

use super::pre_compact::{PreCompactInput, pre_compact};
use super::session_start::session_start;
use super::test_world::World;
use crate::config::InjectPolicy;

/// Before the checkpoints the clock reads 2026-11-20T10:00Z; usage lines are a minute older.
const BEFORE: &str = "2026-11-20T09:59:00.000Z";

fn world() -> World {
    let w = World::new(InjectPolicy::Always);
    *w.tail.0.borrow_mut() = vec![
        json!({"type":"user","message":{"role":"user","content":"Port the parser"},"uuid":"u1"}),
    ];
    w.script.usage_at(170_000, Some(BEFORE));
    w
}

fn compact(w: &World) -> String {
    let out = w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    out.checkpoint.unwrap().checkpoint_id.to_string()
}

fn start(w: &World) -> Option<String> {
    w.with(|c, p| session_start(c, p, &w.logs, Some("compact")))
        .additional_context
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
