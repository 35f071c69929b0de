//! The compaction-resilience cycle over in-memory ports: PreCompact → SessionStart →
//! prompt-submit, the fallback when SessionStart never ran, the post-compaction reset and the
//! staleness check.

use crate::fakes::records;
use crate::ports::TranscriptRecord;
use ctxmon_domain::{FillSource, ThresholdTier, TokenCount, estimate_tokens};
use serde_json::json;

use super::lifecycle::{post_compact, session_end};
use super::pre_compact::{PreCompactInput, pre_compact};
use super::pre_tool_use::pre_tool_use;
use super::test_world::World;
use crate::config::InjectPolicy;
use crate::fakes::FakeGit;
use crate::ports::{GitHead, SourceDocument};

/// Before the checkpoint the clock reads 2026-11-20T10:00Z; usage lines are a minute older.
const BEFORE: &str = "2026-11-20T09:59:00.000Z";
const AFTER: &str = "2026-11-20T11:00:00.000Z";

fn tail_lines() -> Vec<TranscriptRecord> {
    vec![
        records::request("Refactor the billing module & keep tests green"),
        records::todos(&[
            ("Split billing.rs", "completed"),
            ("Move tax rules into tax.rs", "in_progress"),
            ("Run cargo test", "pending"),
        ]),
        records::write("Edit", "/proj/src/billing/tax.rs"),
        records::text("Tax rules moved; next I run the tests."),
    ]
}

fn compacted_world() -> World {
    let w = World::new(InjectPolicy::Always);
    *w.tail.0.borrow_mut() = tail_lines();
    w.script.usage_at(170_000, Some(BEFORE));
    let first = w.prompt();
    assert!(
        first
            .additional_context
            .as_deref()
            .unwrap_or("")
            .contains("CRITICAL")
    );
    let out = w.with(|c, p| {
        pre_compact(
            c,
            p,
            &w.logs,
            PreCompactInput {
                trigger: Some("auto"),
                custom_instructions: None,
            },
        )
    });
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    assert_eq!(
        out.system_message.as_deref(),
        Some("Checkpoint cx-001 saved at 85% context fill")
    );
    w
}

#[test]
fn pre_compact_builds_a_complete_checkpoint() {
    let w = compacted_world();
    let stored = w.checkpoints.stored.borrow();
    let cp = &stored[0].data;
    assert_eq!(cp.checkpoint_id.to_string(), "cx-001");
    assert_eq!(cp.compaction_sequence, 1);
    assert_eq!(cp.context_state.input_tokens, TokenCount(170_000));
    assert_eq!(cp.session_info.git_branch.as_deref(), Some("main"));
    let state = cp.resumption_state.as_ref().unwrap();
    assert_eq!(
        state.last_user_requests.last().map(String::as_str),
        Some("Refactor the billing module & keep tests green")
    );
    assert_eq!(state.todos.len(), 3);
    assert_eq!(
        state.files_touched,
        vec!["/proj/src/billing/tax.rs".to_string()]
    );
    // The 85% prompt fired tier:critical's resume log; PreCompact fires pre_compact's.
    assert_eq!(
        w.event_names(),
        [
            "ResumeLogGenerated",
            "ContextThresholdReached",
            "ResumeLogGenerated",
            "CompactionDetected",
            "CheckpointCreated",
            "SessionAbandoned"
        ]
    );
    // The state now describes the context after the compaction: tier:critical is re-armed
    // for it, and the pre-compact log handed over the old context, not this one.
    assert_eq!(w.state().resume_log_triggers, ["pre_compact"]);
    assert!(!w.state().handoff_complete);
    let st = w.state();
    assert_eq!(
        st.compactions_seen.last_checkpoint_id.as_deref(),
        Some("cx-001")
    );
    assert_eq!(st.threshold_crossed_at, None);
}

#[test]
fn the_whole_cycle_alerts_once_and_drops_the_fill() {
    let w = compacted_world();
    let start = w.start(Some("compact"));
    let ctx = start.additional_context.expect("resumption context");
    assert!(
        ctx.starts_with("<resumption-context checkpoint=\"cx-001\""),
        "{ctx}"
    );
    // Beside the compaction's own summary, which always restates the request and the plan,
    // neither is repeated.
    assert!(!ctx.contains("Move tax rules into tax.rs"), "{ctx}");
    assert!(!ctx.contains("Refactor the billing module"), "{ctx}");
    assert!(estimate_tokens(&ctx).get() <= 760);
    roxmltree::Document::parse(&ctx).unwrap();

    // The transcript still ends with the pre-compaction usage: the estimate must not scream.
    let after = w.prompt();
    assert_eq!(after.estimate.source, FillSource::Compaction);
    assert_eq!(after.estimate.input_tokens, TokenCount(51_000));
    assert_eq!(after.estimate.threshold_tier, ThresholdTier::Nominal);
    let text = after.additional_context.unwrap();
    assert_eq!(text.matches("<compaction-alert").count(), 1, "{text}");
    assert!(
        !text.contains("<resumption-context"),
        "already delivered at SessionStart"
    );
    assert_eq!(after.acknowledged.as_deref(), Some("cx-001"));

    // Once a new response exists, the transcript is believed again; no second alert.
    w.script.usage_at(64_000, Some(AFTER));
    let later = w.prompt();
    assert_eq!(
        (later.estimate.source, later.estimate.input_tokens),
        (FillSource::Transcript, TokenCount(64_000))
    );
    assert!(
        !later
            .additional_context
            .unwrap()
            .contains("compaction-alert")
    );
    let names = w.event_names();
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "CheckpointAcknowledged")
            .count(),
        1
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "ResumptionDelivered")
            .count(),
        1
    );
}

/// With the configuration broken (the defaults stand in for it), the prompt shows no tier, not
/// even NOMINAL, and records no tier change; the compaction alert and the resumption context,
/// which need no window, still go.
#[test]
fn a_configuration_error_drops_the_tier_but_not_the_alert() {
    let mut w = compacted_world();
    w.config_error = Some("invalid configuration: hooks.deadline_ms = 20 from x".into());
    let tiers_before = w.tier_events().len();
    w.script.usage_at(180_000, Some(AFTER));
    let out = w.prompt();
    let text = out.additional_context.unwrap_or_default();
    assert!(
        text.contains("<compaction-alert") && text.contains("<resumption-context"),
        "{text}"
    );
    assert!(!text.contains("<context-monitor"), "{text}");
    assert_eq!(out.estimate.source, FillSource::Unavailable);
    assert!(
        out.warnings
            .iter()
            .any(|m| m.to_string().contains("configuration is invalid")),
        "{:?}",
        out.warnings
    );
    assert_eq!(w.tier_events().len(), tiers_before);
    // Nothing is pending any more: a later prompt answers nothing at all.
    assert_eq!(w.prompt().additional_context, None);
}

#[test]
fn without_session_start_the_first_prompt_delivers_the_resumption_context() {
    let w = compacted_world();
    let text = w.prompt().additional_context.unwrap();
    assert!(
        text.contains("<compaction-alert") && text.contains("<resumption-context"),
        "{text}"
    );
    let wrapped = format!("<all>{text}</all>");
    let doc = roxmltree::Document::parse(&wrapped).unwrap_or_else(|e| panic!("{e}: {text}"));
    let tags: Vec<&str> = doc
        .root_element()
        .children()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name())
        .collect();
    assert_eq!(
        tags,
        ["context-monitor", "compaction-alert", "resumption-context"]
    );
    let via: Vec<String> = w
        .events
        .records
        .borrow()
        .iter()
        .filter_map(|r| match &r.event {
            ctxmon_domain::DomainEvent::ResumptionDelivered { via, .. } => Some(via.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(via, vec!["prompt_submit".to_string()]);
}

#[test]
fn a_source_file_wins_over_the_transcript() {
    let w = World::new(InjectPolicy::Always);
    *w.tail.0.borrow_mut() = tail_lines();
    *w.source.0.borrow_mut() = Some(SourceDocument {
        path: "/proj/ORCHESTRATION.yaml".into(),
        section: Some(
            json!({"summary": "Phase 2 of 3", "next_steps": ["Write the migration"], "decisions": ["Use sqlx"], "updated_at": AFTER}),
        ),
        warnings: vec![],
    });
    w.script.usage_at(170_000, Some(BEFORE));
    w.with(|c, p| {
        pre_compact(
            c,
            p,
            &w.logs,
            PreCompactInput {
                trigger: Some("manual"),
                custom_instructions: Some("keep the plan"),
            },
        )
    });
    let cp = w.checkpoints.stored.borrow()[0].data.clone();
    let state = cp.resumption_state.unwrap();
    assert_eq!(state.next_steps, vec!["Write the migration".to_string()]);
    assert!(state.todos.is_empty(), "the transcript is not mixed in");
    assert_eq!(cp.custom_instructions.as_deref(), Some("keep the plan"));
}

#[test]
fn startup_hands_back_only_recent_checkpoints() {
    let mut w = compacted_world();
    w.session = "s2".into();
    let fresh = w.start(Some("startup"));
    let text = fresh.additional_context.unwrap();
    assert!(
        text.contains("<resume-log>memory:session-s1.md</resume-log>"),
        "{text}"
    );
    // The new session's first prompt completes the handoff: the next start gets only a
    // pointer to the (recent) resume log.
    w.script.usage_at(20_000, Some(AFTER));
    assert_eq!(w.prompt().acknowledged.as_deref(), Some("cx-001"));
    let pointer = w.start(Some("startup")).additional_context.unwrap();
    assert!(
        pointer.starts_with("<resumption-context source=\"resume-log\" session=\"s1\""),
        "{pointer}"
    );

    let old = compacted_world();
    old.clock
        .set(ctxmon_domain::Timestamp(1_795_168_800_000 + 25 * 3_600_000));
    assert!(
        old.start(Some("clear")).additional_context.is_none(),
        "older than 24 h"
    );
}

#[test]
fn nothing_to_resume_means_no_context() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage_at(170_000, Some(BEFORE));
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    let start = w.start(Some("compact"));
    assert_eq!(start.additional_context, None);
    assert!(!w.event_names().contains(&"ResumptionDelivered"));
}

#[test]
fn a_failing_repository_fails_open() {
    let w = World::new(InjectPolicy::Always);
    w.checkpoints.fail.set(true);
    w.script.usage(150_000);
    let out = w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    assert!(out.checkpoint.is_none() && !out.warnings.is_empty());
    assert!(w.start(Some("compact")).additional_context.is_none());
    assert!(w.prompt().additional_context.unwrap().contains("WARNING"));
}

#[test]
fn an_unreadable_git_head_is_reported_and_the_checkpoint_still_saved() {
    let mut w = World::new(InjectPolicy::Always);
    // Inside a work tree whose HEAD could not be read (a FIFO, garbage): both fields unknown.
    w.git = FakeGit(Some(GitHead::default()));
    w.script.usage(150_000);
    let out = w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    let cp = out.checkpoint.expect("checkpoint saved");
    assert_eq!(cp.session_info.git_branch, None);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.to_string().contains("git HEAD unreadable")),
        "{:?}",
        out.warnings
    );
    // Outside any repository there is nothing to report.
    let mut w = World::new(InjectPolicy::Always);
    w.git = FakeGit(None);
    w.script.usage(150_000);
    let out = w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    assert!(
        !out.warnings.iter().any(|w| w.to_string().contains("git")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn staleness_warns_only_for_the_source_file() {
    let w = compacted_world();
    let stale_at = |updated: Option<&str>, path: &str| {
        *w.source.0.borrow_mut() = Some(SourceDocument {
            path: "ORCHESTRATION.yaml".into(),
            section: Some(json!({"updated_at": updated})),
            warnings: vec![],
        });
        w.with(|c, p| pre_tool_use(c, p, Some("Edit"), Some(path)))
            .additional_context
    };
    let stale = |updated: Option<&str>| stale_at(updated, "ORCHESTRATION.yaml");
    assert!(
        stale(None)
            .unwrap()
            .contains("resumption.updated_at is missing")
    );
    assert!(
        stale(Some("yesterday"))
            .unwrap()
            .contains("not an RFC 3339 time")
    );
    assert!(
        stale(Some(BEFORE))
            .unwrap()
            .contains("older than checkpoint cx-001")
    );
    assert_eq!(
        stale(Some(AFTER)),
        None,
        "fresh and newer than every checkpoint"
    );
    assert!(
        w.with(|c, p| pre_tool_use(c, p, Some("Edit"), Some("/proj/src/main.rs")))
            .additional_context
            .is_none()
    );
    assert!(
        w.with(|c, p| pre_tool_use(c, p, Some("Read"), Some("ORCHESTRATION.yaml")))
            .additional_context
            .is_none()
    );
    assert!(
        stale_at(Some(BEFORE), "/proj/./docs/../ORCHESTRATION.yaml").is_some(),
        "the same file by another spelling"
    );
    let too_old = stale_at(Some("2026-11-20T07:00:00.000Z"), "ORCHESTRATION.yaml").unwrap();
    assert!(too_old.contains("older than checkpoint"), "{too_old}");
}

#[test]
fn lifecycle_hooks_record_events() {
    let w = World::new(InjectPolicy::Always);
    assert!(
        w.with(|c, p| post_compact(c, p, Some("manual"), Some("Summary…")))
            .is_empty()
    );
    assert!(
        w.with(|c, p| session_end(c, p, &w.logs, Some("prompt_input_exit")))
            .is_empty()
    );
    assert_eq!(
        w.event_names(),
        vec!["CompactionCompleted", "ResumeLogGenerated", "SessionEnded"]
    );
    assert!(
        w.logs
            .logs
            .borrow()
            .contains_key(&ctxmon_domain::SessionKey::from_raw("s1"))
    );
    w.events.fail.set(true);
    assert_eq!(
        w.with(|c, p| session_end(c, p, &w.logs, None)).len(),
        1,
        "a warning, not a failure"
    );
}

#[test]
fn pre_tool_use_passes_on_why_the_source_file_was_ignored() {
    let w = compacted_world();
    *w.source.0.borrow_mut() = Some(SourceDocument {
        path: "/proj/ORCHESTRATION.yaml".into(),
        section: None,
        warnings: vec!["ignored: not a regular file (a FIFO)".into()],
    });
    let out = w.with(|c, p| pre_tool_use(c, p, Some("Write"), Some("ORCHESTRATION.yaml")));
    assert_eq!(
        out.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["/proj/ORCHESTRATION.yaml: ignored: not a regular file (a FIFO)"]
    );
    assert!(
        out.additional_context
            .unwrap()
            .contains("resumption.updated_at is missing")
    );
}

/// Contract C5 accepts `.json` beside the default `ORCHESTRATION.yaml`: the staleness check
/// follows whichever of the default's names is in use, and only that one.
#[test]
fn staleness_follows_the_source_file_in_use() {
    let mut w = compacted_world();
    assert_eq!(
        w.config.resumption.source_candidates(),
        [
            "ORCHESTRATION.yaml",
            "ORCHESTRATION.yml",
            "ORCHESTRATION.json"
        ]
    );
    let edit = |w: &World, path: &str| {
        w.with(|c, p| pre_tool_use(c, p, Some("Write"), Some(path)))
            .additional_context
    };
    *w.source.0.borrow_mut() = Some(SourceDocument {
        path: "/proj/ORCHESTRATION.json".into(),
        section: Some(json!({"updated_at": BEFORE})),
        warnings: vec![],
    });
    let warned = edit(&w, "ORCHESTRATION.json").unwrap();
    assert!(
        warned.contains("file=\"ORCHESTRATION.json\"") && warned.contains("older than checkpoint"),
        "{warned}"
    );
    assert_eq!(edit(&w, "ORCHESTRATION.yaml"), None, "not the file in use");
    assert_eq!(edit(&w, "/proj/ORCHESTRATION.yml"), None);
    // While none exists, writing any of the names creates the source.
    *w.source.0.borrow_mut() = None;
    assert!(edit(&w, "ORCHESTRATION.yml").unwrap().contains("missing"));
    // A configured name is the only one.
    w.config.resumption.source_file = "plan.yaml".into();
    assert_eq!(w.config.resumption.source_candidates(), ["plan.yaml"]);
    assert_eq!(edit(&w, "ORCHESTRATION.json"), None);
    assert!(edit(&w, "plan.yaml").is_some());
}

/// A SessionStart answer that never reached the agent (its deadline, a closed stdout) was
/// still recorded as delivered, so the first prompt gave the alert without the work: the
/// hand-back was lost. Now only a written answer counts.
#[test]
fn a_session_start_answer_never_written_leaves_the_hand_back_to_the_first_prompt() {
    let w = compacted_world();
    let lost = w.with(|c, p| super::session_start::session_start(c, p, &w.logs, Some("compact")));
    assert!(lost.delivery.is_some());
    assert!(
        lost.additional_context
            .unwrap()
            .starts_with("<resumption-context checkpoint=\"cx-001\"")
    );
    assert_eq!(w.state().resumption_delivered, None);
    assert!(!w.event_names().contains(&"ResumptionDelivered"));

    let text = w.prompt().additional_context.unwrap();
    assert!(text.contains("<compaction-alert"), "{text}");
    assert!(
        text.contains("<resumption-context checkpoint=\"cx-001\""),
        "the work is handed back at the first prompt: {text}"
    );
    assert_eq!(w.state().resumption_delivered.as_deref(), Some("cx-001"));
    assert!(w.event_names().contains(&"ResumptionDelivered"));
}

/// A prompt's answer that was lost leaves both the alert and the hand-back to the next one.
#[test]
fn a_prompt_answer_never_written_hands_the_work_back_at_the_next_prompt() {
    let w = compacted_world();
    let lost = w.prompt_unwritten();
    let given = lost.alert.expect("an alert");
    assert!(given.delivery.is_some());
    assert_eq!(w.state().resumption_delivered, None);
    // What the CLI does when stdout did not take the answer.
    crate::handoff::checkpoint_ack::release_given(&given, &w.checkpoints);
    let text = w.prompt().additional_context.unwrap();
    assert!(text.contains("<compaction-alert"), "{text}");
    assert!(text.contains("<resumption-context"), "{text}");
    // Written this time: the next prompt says neither again.
    let next = w.prompt().additional_context.unwrap_or_default();
    assert!(!next.contains("<resumption-context"), "{next}");
    assert!(!next.contains("<compaction-alert"), "{next}");
}
