//! A log written after a compaction keeps what the session's PreCompact log said, and labels
//! figures that are the post-compaction estimate.

use super::*;
use crate::handoff::resume_log::carry::{FIGURES_NOTE, LABEL};

/// The tail after a compaction moved the window past the earlier work.
fn after_compaction() -> Vec<TranscriptRecord> {
    vec![
        user("Carry on with the CLI"),
        records::todos(&[("Wire the CLI", "in_progress")]),
        records::write("Edit", "/proj/src/cli.rs"),
    ]
}

#[test]
fn a_log_after_a_compaction_keeps_what_the_precompact_log_said() {
    let w = World::new();
    let mut state = SessionState::default();
    let before = w.fire(&mut state, TriggerKind::PreCompact).saved.unwrap();
    assert!(before.location.contains("s1"), "{before:?}");
    // One transcript file across the compaction: its start still has the first request.
    *w.tail.head.borrow_mut() = Some(vec![user("Add resume logs to ctxmon")]);
    *w.tail.tail.borrow_mut() = after_compaction();
    let log = w.now(None).generated.log;
    // The done work, the files, commands and errors of before the compaction stay, earlier
    // first; the next steps are the new ones (the old ones may be done).
    assert_eq!(log.accomplishments, ["Domain types"]);
    assert_eq!(log.next_steps, ["(in progress) Wire the CLI"]);
    assert_eq!(
        log.metadata.files_modified,
        ["/proj/src/log.rs", "/proj/src/cli.rs"]
    );
    assert_eq!(log.metadata.commands_run, ["cargo test"]);
    assert_eq!(log.metadata.errors, ["$ cargo test\ntest failed: budget"]);
    // The mission is what is asked now; how the session began is named as such.
    assert_eq!(log.mission_summary, "Carry on with the CLI");
    assert_eq!(
        log.critical_context["first request"],
        "Add resume logs to ctxmon"
    );
    // The PreCompact log's measured figures are kept beside the new ones.
    let figures = &log.metadata.notes[FIGURES_NOTE];
    assert!(
        figures.starts_with("170,000 of 200,000 tokens (85%) at "),
        "{figures}"
    );
    assert!(figures.contains("pre_compact"), "{figures}");
    assert!(
        log.metadata.sources.iter().any(|s| s.starts_with(LABEL)),
        "{:?}",
        log.metadata.sources
    );
    // The stored log is this one, and the next carries it on in turn.
    *w.tail.tail.borrow_mut() = vec![user("And the docs")];
    let next = w.now(None).generated.log;
    assert_eq!(next.accomplishments, ["Domain types"]);
    assert!(
        next.metadata
            .files_modified
            .contains(&"/proj/src/cli.rs".into())
    );
}

#[test]
fn findings_do_not_pile_up_over_compactions() {
    let w = World::new();
    let mut state = SessionState::default();
    let round = |n: usize| -> Vec<TranscriptRecord> {
        (0..8)
            .map(|i| {
                records::text(&format!(
                    "Round {n}, finding {i}: the cache key changed with every build of the crate."
                ))
            })
            .collect()
    };
    for n in 0..4 {
        *w.tail.tail.borrow_mut() = round(n);
        w.fire(&mut state, TriggerKind::PreCompact);
        state.resume_log_triggers.clear();
    }
    *w.tail.tail.borrow_mut() = round(4);
    let findings = w.now(None).generated.log.key_findings;
    // The newest few of the log before, then the new ones: not every round's.
    assert!((6..=10).contains(&findings.len()), "{findings:?}");
    assert!(findings[0].starts_with("Round 3,"), "{findings:?}");
    assert!(
        findings.last().unwrap().starts_with("Round 4, finding 7"),
        "{findings:?}"
    );
}

#[test]
fn without_a_compaction_a_new_log_replaces_the_old() {
    let w = World::new();
    w.now(None);
    *w.tail.tail.borrow_mut() = after_compaction();
    let log = w.now(None).generated.log;
    assert!(log.accomplishments.is_empty(), "{:?}", log.accomplishments);
    assert_eq!(log.metadata.files_modified, ["/proj/src/cli.rs"]);
    assert!(!log.metadata.notes.contains_key(FIGURES_NOTE));
}

#[test]
fn a_checkpoint_younger_than_the_log_means_a_compaction_came_between() {
    let w = World::new();
    // A log of the old context (tier:critical), then a compaction (its checkpoint).
    w.now(None);
    w.clock.set(Timestamp(1_795_168_900_000));
    w.checkpoints
        .save_new(Some("s1"), &mut |given| CheckpointData {
            created_at_ms: Timestamp(1_795_168_850_000),
            session_info: SessionInfo {
                session_id: Some("s1".into()),
                ..Default::default()
            },
            ..checkpoint_data(given.id)
        })
        .unwrap();
    *w.tail.tail.borrow_mut() = after_compaction();
    let log = w.now(None).generated.log;
    assert_eq!(log.accomplishments, ["Domain types"]);
}

#[test]
fn post_compaction_figures_are_labelled_an_estimate() {
    let settings = FillSettings::from_config(&Config::default()).unwrap();
    let fill = settings
        .estimate_for(
            settings.post_compaction_baseline(ContextWindow::DEFAULT),
            FillSource::Compaction,
            Some(ContextWindow::DEFAULT.get()),
            None,
        )
        .with_note("compacted at cx-001; assuming 10% of the window until the next response");
    let generated = ResumeLogGenerator::from_config(&Config::default().resume_logs).generate(
        &GenerationInputs {
            session_id: "s1",
            trigger: TriggerKind::SessionEnd,
            now: Timestamp(1_795_168_800_000),
            fill: Some(&fill),
            agent: None,
            checkpoint: None,
            tail: None,
            derived: None,
            head: None,
            git: None,
            transcript_path: None,
            previous: None,
        },
    );
    let md = generated.rendered.markdown();
    assert!(
        md.contains("- Measured: no, an estimate (compacted at cx-001; assuming 10% of the window"),
        "{md}"
    );
    // A measured fill says nothing of the kind.
    let measured = ResumeLogGenerator::from_config(&Config::default().resume_logs).generate(
        &GenerationInputs {
            fill: Some(&FillEstimate::measured(Measured {
                tokens: TokenCount(120_000),
                window: ContextWindow::DEFAULT,
                thresholds: &Thresholds::default(),
                auto_compact_reserve: TokenCount(33_000),
                source: FillSource::Transcript,
                model: None,
            })),
            ..GenerationInputs {
                session_id: "s1",
                trigger: TriggerKind::SessionEnd,
                now: Timestamp(1_795_168_800_000),
                fill: None,
                agent: None,
                checkpoint: None,
                tail: None,
                derived: None,
                head: None,
                git: None,
                transcript_path: None,
                previous: None,
            }
        },
    );
    assert!(!measured.rendered.markdown().contains("Measured: no"));
}
