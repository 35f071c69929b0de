//! Resume-log generation over in-memory ports: triggers, source priority, fail-open saving.

use std::cell::RefCell;
use std::path::Path;

use ctxmon_domain::{
    CheckpointData, CompactionTrigger, ContextWindow, DomainEvent, FileToRead, FillEstimate,
    FillSource, Measured, ResumeLog, ResumeLogDraft, ResumptionOrigin, ResumptionState,
    SessionInfo, SessionKey, SessionState, ThresholdTier, Thresholds, Timestamp, TokenCount,
};
use serde_json::json;

use super::*;
use crate::config::Config;
use crate::fakes::records;
use crate::fakes::{
    FakeCheckpoints, FakeEvents, FakeResumeLogs, FakeSource, FakeStates, FixedClock,
};
use crate::monitor::fill::FillSettings;
use crate::ports::{
    ChainScope, CheckpointRepository, GitHead, GitInfo, RecordBody, ResumeLogStore, ScanLimits,
    TranscriptError, TranscriptReader, TranscriptReading, TranscriptRecord, TranscriptTail,
    UsageRecord,
};
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// A transcript whose newest usage is 170,000 tokens.
struct Usage;

impl TranscriptReader for Usage {
    fn read_latest(&self, _: &Path, _: ScanLimits) -> Result<TranscriptReading, TranscriptError> {
        Ok(TranscriptReading {
            usage: Some(UsageRecord {
                version: None,
                tokens: TokenCount(170_000),
                model: Some("claude-opus-4-6".into()),
                message_id: None,
                timestamp: None,
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

struct DirtyGit;

impl GitInfo for DirtyGit {
    fn head(&self, _: &Path) -> Option<GitHead> {
        Some(GitHead {
            branch: Some("feature/logs".into()),
            head: Some("c0ffee".repeat(6) + "c0ff"),
        })
    }
    fn dirty_files(&self, _: &Path) -> Option<Vec<String>> {
        Some(vec![" M src/lib.rs".into(), "?? notes.md".into()])
    }
}

/// A transcript whose start (`head`, when set) is not in its tail, as in a long session.
#[derive(Default)]
struct Transcript {
    tail: RefCell<Vec<TranscriptRecord>>,
    head: RefCell<Option<Vec<TranscriptRecord>>>,
}

impl TranscriptTail for Transcript {
    fn read_tail(&self, _: &Path, _: u64) -> Result<Vec<TranscriptRecord>, TranscriptError> {
        Ok(self.tail.borrow().clone())
    }

    fn read_head(
        &self,
        _: &Path,
        _: u64,
        visit: &mut dyn FnMut(&TranscriptRecord) -> std::ops::ControlFlow<()>,
    ) -> Result<(), TranscriptError> {
        let head = self.head.borrow();
        let tail = self.tail.borrow();
        for line in head.as_ref().unwrap_or(&tail) {
            if visit(line).is_break() {
                break;
            }
        }
        Ok(())
    }
}

struct World {
    config: Config,
    tail: Transcript,
    states: FakeStates,
    events: FakeEvents,
    clock: FixedClock,
    checkpoints: FakeCheckpoints,
    source: FakeSource,
    store: FakeResumeLogs,
    session: Option<String>,
}

/// What a trigger did, with the warnings of its run.
#[derive(Debug, Default, PartialEq)]
struct Fired {
    saved: Option<crate::ports::SavedResumeLog>,
    fired: Vec<String>,
    warnings: Vec<Warning>,
}

impl World {
    fn new() -> World {
        World {
            config: Config::default(),
            tail: Transcript {
                tail: RefCell::new(transcript()),
                head: RefCell::new(None),
            },
            states: FakeStates::default(),
            events: FakeEvents::default(),
            clock: FixedClock::new(Timestamp(1_795_168_800_000), 1),
            checkpoints: FakeCheckpoints::default(),
            source: FakeSource::default(),
            store: FakeResumeLogs::default(),
            session: Some("s1".into()),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&HookContext<'_>, &HookPorts<'_>) -> T) -> T {
        let settings = FillSettings::from_config(&self.config).unwrap();
        let ports = HookPorts {
            transcripts: &Usage,
            tail: &self.tail,
            states: &self.states,
            events: &self.events,
            clock: &self.clock,
            checkpoints: &self.checkpoints,
            source: &self.source,
            git: &DirtyGit,
            files: &crate::fakes::FakeFiles::default(),
        };
        let ctx = HookContext {
            config: &self.config,
            settings: &settings,
            project_dir: Path::new("/proj"),
            session_id: self.session.as_deref(),
            transcript_path: Some(Path::new("/proj/t.jsonl")),
            cwd: Some("/proj"),
            config_error: None,
        };
        f(&ctx, &ports)
    }

    /// A trigger on a run whose session state is `state` (updated in place), with the run's
    /// warnings.
    fn fire(&self, state: &mut SessionState, trigger: TriggerKind) -> Fired {
        self.with(|ctx, ports| {
            let mut run = HookRun::with_state(*ctx, *ports, std::mem::take(state));
            let outcome =
                generate_for_trigger(&mut run, &self.store, trigger, AlreadyRead::default());
            *state = run.state().clone();
            Fired {
                saved: outcome.saved,
                fired: outcome.fired,
                // The state is the test's to keep: the run is not finished (nothing saved).
                warnings: run.warnings().to_vec(),
            }
        })
    }

    fn now(&self, agent: Option<&ResumeLogDraft>) -> GenerateOutcome {
        self.with(|ctx, ports| generate_now(ctx, ports, &self.store, agent))
            .unwrap()
    }

    fn checkpoint(&self, session: &str, state: ResumptionState) {
        self.checkpoints
            .save_new(Some(session), &mut |given| CheckpointData {
                resumption_state: Some(state.clone()),
                session_info: SessionInfo {
                    session_id: Some(session.into()),
                    ..Default::default()
                },
                ..checkpoint_data(given.id)
            })
            .unwrap();
    }
}

/// A checkpoint taken at 83% full, of no session and no state.
fn checkpoint_data(id: ctxmon_domain::CheckpointId) -> CheckpointData {
    CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: id,
        timestamp: String::new(),
        created_at_ms: Timestamp(0),
        compaction_sequence: 1,
        trigger: CompactionTrigger::Auto,
        custom_instructions: None,
        context_state: FillEstimate::measured(Measured {
            tokens: TokenCount(166_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: None,
        }),
        resumption_state: None,
        session_info: SessionInfo::default(),
    }
}

fn user(text: &str) -> TranscriptRecord {
    records::request(text)
}

fn transcript() -> Vec<TranscriptRecord> {
    vec![
        user("Add resume logs to ctxmon"),
        records::write("Write", "/proj/src/log.rs"),
        records::shell("t", "cargo test"),
        records::result_record(records::result("t", true, "test failed: budget")),
        records::todos(&[
            ("Domain types", "completed"),
            ("File store", "in_progress"),
            ("CLI", "pending"),
        ]),
        user("Now wire the CLI"),
    ]
}

fn curated_state() -> ResumptionState {
    ResumptionState {
        origin: ResumptionOrigin::SourceFile,
        summary: Some("Phase 3 of 5: storage".into()),
        decisions: vec!["One log per session".into()],
        next_steps: vec!["Write the fs store".into()],
        files_to_read: vec![
            FileToRead {
                path: "b.rs".into(),
                priority: Some(2),
                reason: None,
            },
            FileToRead {
                path: "a.rs".into(),
                priority: Some(1),
                reason: Some("the port".into()),
            },
        ],
        todos: vec![ctxmon_domain::Todo {
            content: "stale todo".into(),
            status: "pending".into(),
        }],
        ..Default::default()
    }
}

#[test]
fn triggers_follow_configuration_and_fire_once_per_session() {
    let mut config = Config::default().resume_logs;
    let g = ResumeLogGenerator::from_config(&config);
    assert!(g.should_generate(TriggerKind::PreCompact, &[]));
    assert!(g.should_generate(TriggerKind::SessionEnd, &[]));
    assert!(!g.should_generate(TriggerKind::Tier(ThresholdTier::Warning), &[]));
    assert_eq!(
        g.due(TriggerKind::Tier(ThresholdTier::Emergency), &[]),
        ["tier:critical"]
    );
    assert!(!g.should_generate(
        TriggerKind::Tier(ThresholdTier::Critical),
        &["tier:critical".into()]
    ));
    assert!(!g.should_generate(TriggerKind::Manual, &[]));

    config.triggers = vec![
        "tier:warning".into(),
        "tier:emergency".into(),
        "tier:warning".into(),
    ];
    let g = ResumeLogGenerator::from_config(&config);
    assert_eq!(
        g.due(
            TriggerKind::Tier(ThresholdTier::Emergency),
            &["tier:warning".into()]
        ),
        ["tier:emergency"]
    );
    assert!(!g.should_generate(TriggerKind::PreCompact, &[]));

    config.enabled = false;
    assert!(
        !ResumeLogGenerator::from_config(&config).should_generate(TriggerKind::PreCompact, &[])
    );
}

#[test]
fn a_due_trigger_writes_once_and_records_the_event() {
    let w = World::new();
    let mut state = SessionState::default();
    let first = w.fire(&mut state, TriggerKind::PreCompact);
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let saved = first.saved.unwrap();
    assert_eq!(saved.location, "memory:session-s1.md");
    assert_eq!(first.fired, ["pre_compact"]);
    assert_eq!(state.resume_log_triggers, ["pre_compact"]);
    match &w.events.records.borrow()[0].event {
        DomainEvent::ResumeLogGenerated {
            trigger,
            path,
            tokens,
        } => {
            assert_eq!(trigger, "pre_compact");
            assert_eq!(path, "memory:session-s1.md");
            assert!(*tokens > 100);
        }
        other => panic!("{other:?}"),
    }
    let again = w.fire(&mut state, TriggerKind::PreCompact);
    assert_eq!(again, Fired::default());
    // A different trigger of the same session still fires.
    assert!(w.fire(&mut state, TriggerKind::SessionEnd).saved.is_some());
    assert_eq!(w.events.records.borrow().len(), 2);
}

#[test]
fn an_unconfigured_trigger_costs_nothing() {
    let w = World::new();
    w.store.fail.set(true);
    let mut state = SessionState::default();
    let outcome = w.fire(&mut state, TriggerKind::Tier(ThresholdTier::Warning));
    assert_eq!(outcome, Fired::default());
    assert!(w.events.records.borrow().is_empty());
}

#[test]
fn a_failing_store_is_a_warning_and_is_not_retried() {
    let w = World::new();
    w.store.fail.set(true);
    let mut state = SessionState::default();
    let outcome = w.fire(&mut state, TriggerKind::Tier(ThresholdTier::Critical));
    assert_eq!(outcome.saved, None);
    assert_eq!(outcome.fired, ["tier:critical"]);
    // (Reading the log it replaces failed too: another warning, before it.)
    assert!(
        outcome.warnings.iter().any(|w| w
            .to_string()
            .starts_with("resume log not saved (tier:critical): ")),
        "{:?}",
        outcome.warnings
    );
    assert!(
        w.fire(&mut state, TriggerKind::Tier(ThresholdTier::Critical))
            .warnings
            .is_empty()
    );
    // The explicit path reports the same failure as an error.
    assert!(
        w.with(|ctx, ports| generate_now(ctx, ports, &w.store, None))
            .is_err()
    );
}

#[test]
fn a_hook_without_a_session_id_writes_nothing() {
    let mut w = World::new();
    w.session = None;
    let mut state = SessionState::default();
    let outcome = w.fire(&mut state, TriggerKind::SessionEnd);
    assert_eq!(outcome.saved, None);
    assert_eq!(outcome.warnings.len(), 1);
    assert_eq!(state.resume_log_triggers, ["session_end"]);
    assert!(
        w.fire(&mut state, TriggerKind::SessionEnd)
            .warnings
            .is_empty()
    );
}

#[test]
fn sources_apply_in_priority_order() {
    let w = World::new();
    w.checkpoint(
        "other",
        ResumptionState {
            summary: Some("not ours".into()),
            ..Default::default()
        },
    );
    w.checkpoint("s1", curated_state());
    let agent: ResumeLogDraft = serde_json::from_value(json!({
        "accomplishments": ["Agent's own list"],
        "critical_context": {"checkpoint": "agent says"},
        "metadata": {"files_modified": ["/proj/README.md"]}
    }))
    .unwrap();
    let log = w.now(Some(&agent)).generated.log;
    assert_eq!(log.accomplishments, ["Agent's own list"]);
    assert_eq!(log.mission_summary, "Phase 3 of 5: storage");
    assert_eq!(log.decisions[0].decision, "One log per session");
    assert_eq!(log.next_steps, ["Write the fs store"]);
    assert_eq!(log.critical_context["checkpoint"], "agent says");
    assert_eq!(
        log.critical_context["files to read"],
        "a.rs (the port); b.rs"
    );
    // Facts are merged: the agent's file and the transcript's.
    assert_eq!(
        log.metadata.files_modified,
        ["/proj/README.md", "/proj/src/log.rs"]
    );
    assert_eq!(
        log.metadata.sources,
        ["agent document", "checkpoint cx-002", "transcript", "git"]
    );
    // The checkpoint's (older) todo list lost to the transcript's.
    assert!(!log.next_steps.iter().any(|s| s.contains("stale")));
}

#[test]
fn a_checkpoint_decision_keeps_its_rationale() {
    let w = World::new();
    let section = json!({"decisions": [
        {"decision": "Round per line", "rationale": "Matches the ledger"},
        "Keep f64 out of money",
        {"id": "D-3", "summary": "One log per session", "why": "Retention by session"}
    ]});
    w.checkpoint("s1", crate::handoff::resumption::from_section(&section));
    let generated = w.now(None).generated;
    let decision = |d: &str, r: &str| ctxmon_domain::Decision {
        decision: d.into(),
        rationale: r.into(),
    };
    assert_eq!(
        generated.log.decisions,
        [
            decision("Round per line", "Matches the ledger"),
            decision("Keep f64 out of money", ""),
            decision("D-3: One log per session", "Retention by session"),
        ]
    );
    assert!(
        generated
            .rendered
            .markdown()
            .contains("1. Round per line\n   - Rationale: Matches the ledger\n2. Keep f64"),
        "{}",
        generated.rendered.markdown()
    );
}

#[test]
fn the_checkpoint_stands_in_for_an_unreadable_transcript() {
    let w = World::new();
    w.checkpoint(
        "s1",
        ResumptionState {
            files_touched: vec!["/proj/x.rs".into()],
            ..curated_state()
        },
    );
    let inputs_tail: Option<&[TranscriptRecord]> = None;
    let cp = w
        .checkpoints
        .latest_unacknowledged(Some("s1"))
        .unwrap()
        .unwrap();
    let g = ResumeLogGenerator::from_config(&w.config.resume_logs);
    let log = g
        .generate(&GenerationInputs {
            session_id: "s1",
            trigger: TriggerKind::SessionEnd,
            now: Timestamp(0),
            fill: None,
            agent: None,
            checkpoint: Some(&cp),
            tail: inputs_tail,
            derived: None,
            head: None,
            git: None,
            transcript_path: None,
            previous: None,
        })
        .log;
    assert_eq!(log.next_steps, ["Write the fs store"]);
    assert_eq!(log.metadata.files_modified, ["/proj/x.rs"]);
    assert_eq!(log.context_metrics.stop_reason, "session_end");
}

#[test]
fn retention_keeps_the_newest_and_the_store_lists_newest_first() {
    let mut w = World::new();
    w.config.resume_logs.keep = 2;
    for s in ["a", "b", "c"] {
        w.session = Some(s.into());
        w.now(None);
    }
    let listing = w.store.list().unwrap();
    let keys: Vec<&str> = listing.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["c", "b"]);
    assert_eq!(w.store.latest().unwrap().unwrap().log.session_id, "c");
    let stats = w.store.stats().unwrap();
    assert_eq!(stats.count, 2);
    assert!(stats.oldest < stats.newest);
    assert_eq!(w.store.cleanup(1).unwrap(), [SessionKey::from_raw("b")]);
}

#[test]
fn extension_points_plug_in() {
    struct Findings;
    impl SectionProvider for Findings {
        fn contribute(&self, _: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String> {
            fill_list(&mut log.key_findings, &["custom finding".into()]);
            Some("custom".into())
        }
    }
    struct Always;
    impl TriggerCondition for Always {
        fn key(&self) -> String {
            "always".into()
        }
        fn matches(&self, _: TriggerKind) -> bool {
            true
        }
    }
    let mut g = ResumeLogGenerator::from_config(&Config::default().resume_logs);
    g.register_section_provider(Findings);
    g.register_trigger(Always);
    assert_eq!(g.due(TriggerKind::Manual, &[]), ["always"]);
    let log = g
        .generate(&GenerationInputs {
            session_id: "s",
            trigger: TriggerKind::Manual,
            now: Timestamp(0),
            fill: None,
            agent: None,
            checkpoint: None,
            tail: None,
            derived: None,
            head: None,
            git: None,
            transcript_path: None,
            previous: None,
        })
        .log;
    assert_eq!(log.key_findings, ["custom finding"]);
    assert_eq!(log.metadata.sources, ["custom"]);
}

#[path = "transcript_tests.rs"]
mod transcript;

#[path = "agent_document_tests.rs"]
mod agent_document;

#[path = "work_log_tests.rs"]
mod work_log;

#[path = "carry_tests.rs"]
mod carry;

/// The rule of what a compaction re-arms is spelled with the configuration's keys: it must
/// agree with the keys the triggers record, or a compaction would re-arm `session_end` too.
#[test]
fn only_the_session_end_trigger_fires_once_per_session() {
    let once: Vec<String> = [
        TriggerKind::PreCompact,
        TriggerKind::SessionEnd,
        TriggerKind::Manual,
        TriggerKind::Tier(ThresholdTier::Critical),
    ]
    .into_iter()
    .map(TriggerKind::key)
    .filter(|key| fires_once_per_session(key))
    .collect();
    assert_eq!(once, ["session_end"]);
}
