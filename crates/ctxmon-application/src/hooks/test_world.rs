//! A world of in-memory ports for the hook use-case tests.

use std::cell::{Cell, RefCell};
use std::path::Path;

use ctxmon_domain::{DomainEvent, SessionKey, SessionState, ThresholdTier, Timestamp, TokenCount};

use crate::config::{Config, InjectPolicy};
use crate::fakes::FakeResumeLogs;
use crate::fakes::{
    FakeCheckpoints, FakeEvents, FakeFiles, FakeGit, FakeSource, FakeStates, FakeTail, FixedClock,
};
use crate::monitor::fill::FillSettings;
use crate::ports::{
    ChainScope, CheckpointRepository, CompactionBoundary, GitHead, RecentContext, ScanLimits,
    TranscriptError, TranscriptErrorKind, TranscriptReader, TranscriptReading, UsageRecord,
};
use crate::run::{HookContext, HookPorts};

/// A transcript whose next reading the test sets; and what its recent context holds, with
/// how often it was asked for.
#[derive(Default)]
pub struct Script(
    RefCell<Option<Result<TranscriptReading, TranscriptError>>>,
    RefCell<Option<RecentContext>>,
    Cell<u32>,
);

impl Script {
    /// What the context holds since the last compaction.
    pub fn recent(&self, recent: RecentContext) {
        *self.1.borrow_mut() = Some(recent);
    }
    /// A transcript that gives no recent context.
    pub fn forget_recent(&self) {
        *self.1.borrow_mut() = None;
    }
    /// How many times the hooks asked for the recent context.
    pub fn recent_reads(&self) -> u32 {
        self.2.get()
    }
    pub fn usage_at(&self, tokens: u64, timestamp: Option<&str>) {
        *self.0.borrow_mut() = Some(Ok(TranscriptReading {
            usage: Some(UsageRecord {
                version: None,
                tokens: TokenCount(tokens),
                model: None,
                message_id: None,
                timestamp: timestamp.map(str::to_string),
                context_window: None,
            }),
            boundary: None,
            scope: ChainScope::Main,
            bytes_scanned: 10,
            hit_scan_limit: false,
            agent: Default::default(),
            agent_window: None,
            agent_model: None,
        }));
    }
    pub fn usage(&self, tokens: u64) {
        self.usage_at(tokens, None);
    }
    pub fn boundary(&self, uuid: &str, post: Option<u64>) {
        *self.0.borrow_mut() = Some(Ok(TranscriptReading {
            usage: None,
            boundary: Some(CompactionBoundary {
                version: None,
                uuid: Some(uuid.into()),
                timestamp: None,
                trigger: Some("auto".into()),
                pre_tokens: None,
                post_tokens: post.map(TokenCount),
            }),
            scope: ChainScope::Main,
            bytes_scanned: 10,
            hit_scan_limit: false,
            agent: Default::default(),
            agent_window: None,
            agent_model: None,
        }));
    }
    /// A transcript read to its start without a response in it (only the user's first line).
    pub fn no_response_yet(&self) {
        self.nothing_found(false);
    }
    /// A transcript whose scan stopped at its limit without a usage record.
    pub fn nothing_within_the_scan_limit(&self) {
        self.nothing_found(true);
    }
    fn nothing_found(&self, hit_scan_limit: bool) {
        *self.0.borrow_mut() = Some(Ok(TranscriptReading {
            usage: None,
            boundary: None,
            scope: ChainScope::Main,
            bytes_scanned: 10,
            hit_scan_limit,
            agent: Default::default(),
            agent_window: None,
            agent_model: None,
        }));
    }
    pub fn missing(&self) {
        *self.0.borrow_mut() = Some(Err(TranscriptError::new(
            TranscriptErrorKind::NotFound,
            "no file",
        )));
    }
}

impl TranscriptReader for Script {
    fn read_latest(&self, _: &Path, _: ScanLimits) -> Result<TranscriptReading, TranscriptError> {
        self.0
            .borrow()
            .clone()
            .unwrap_or_else(|| Err(TranscriptError::new(TranscriptErrorKind::Empty, "empty")))
    }

    fn recent_context(&self, _: &Path, _: u64, keep: usize) -> Option<RecentContext> {
        self.2.set(self.2.get() + 1);
        let mut recent = self.1.borrow().clone()?;
        recent.largest.truncate(keep);
        Some(recent)
    }
}

pub struct World {
    pub config: Config,
    pub script: Script,
    pub tail: FakeTail,
    pub states: FakeStates,
    pub events: FakeEvents,
    pub clock: FixedClock,
    pub checkpoints: FakeCheckpoints,
    pub source: FakeSource,
    pub git: FakeGit,
    pub files: FakeFiles,
    pub logs: FakeResumeLogs,
    pub session: String,
    /// What the CLI passes when the configuration did not load (`config` is then the defaults).
    pub config_error: Option<String>,
}

impl World {
    pub fn new(policy: InjectPolicy) -> World {
        let mut config = Config::default();
        config.context_monitor.inject = policy;
        World {
            config,
            script: Script::default(),
            tail: FakeTail::default(),
            states: FakeStates::default(),
            events: FakeEvents::default(),
            // 2026-11-20T10:00:00Z, one millisecond per clock read.
            clock: FixedClock::new(Timestamp(1_795_168_800_000), 1),
            checkpoints: FakeCheckpoints::default(),
            source: FakeSource::default(),
            files: FakeFiles::default(),
            git: FakeGit(Some(GitHead {
                branch: Some("main".into()),
                head: Some("0123abcd".into()),
            })),
            logs: FakeResumeLogs::default(),
            session: "s1".into(),
            config_error: None,
        }
    }

    pub fn with<T>(&self, f: impl FnOnce(&HookContext<'_>, &HookPorts<'_>) -> T) -> T {
        self.with_checkpoints(&self.checkpoints, f)
    }

    /// Like [`World::with`], with another checkpoint repository (a wrapper around
    /// `self.checkpoints` that counts or misreports).
    pub fn with_checkpoints<T>(
        &self,
        checkpoints: &dyn CheckpointRepository,
        f: impl FnOnce(&HookContext<'_>, &HookPorts<'_>) -> T,
    ) -> T {
        let settings = FillSettings::from_config(&self.config).unwrap();
        let ports = HookPorts {
            checkpoints,
            ..self.ports()
        };
        let ctx = HookContext {
            config: &self.config,
            settings: &settings,
            project_dir: Path::new("/proj"),
            session_id: Some(&self.session),
            transcript_path: Some(Path::new("/proj/t.jsonl")),
            cwd: Some("/proj"),
            config_error: self.config_error.as_deref(),
        };
        f(&ctx, &ports)
    }

    /// The world's ports.
    pub fn ports(&self) -> HookPorts<'_> {
        HookPorts {
            transcripts: &self.script,
            tail: &self.tail,
            states: &self.states,
            events: &self.events,
            clock: &self.clock,
            checkpoints: &self.checkpoints,
            source: &self.source,
            git: &self.git,
            files: &self.files,
        }
    }

    /// A prompt whose answer was written: the alert it carries is then acknowledged, as the
    /// CLI does once stdout took the answer (`acknowledged` says which checkpoint).
    pub fn prompt(&self) -> super::prompt_submit::PromptSubmitOutcome {
        let mut outcome = self.prompt_unwritten();
        if let Some(given) = &outcome.alert {
            let ack = crate::handoff::checkpoint_ack::acknowledge_given(
                given,
                &self.checkpoints,
                &self.events,
                &self.clock,
            );
            outcome.acknowledged = ack.acknowledged.filter(|_| !ack.already_acknowledged);
            outcome.warnings.extend(ack.warnings);
            if let Some(delivery) = &given.delivery {
                outcome.warnings.extend(self.record(delivery));
            }
        }
        outcome
    }

    /// A SessionStart whose answer was written: its hand-back is then recorded as delivered,
    /// as the CLI does once stdout took the answer.
    pub fn start(&self, source: Option<&str>) -> super::session_start::SessionStartOutcome {
        let mut outcome =
            self.with(|c, p| super::session_start::session_start(c, p, &self.logs, source));
        if let Some(delivery) = &outcome.delivery {
            outcome.warnings.extend(self.record(delivery));
        }
        outcome
    }

    fn record(&self, delivery: &crate::handoff::delivery::Delivery) -> Vec<crate::run::Warning> {
        crate::handoff::delivery::record_delivery(delivery, &self.states, &self.events, &self.clock)
    }

    /// A prompt whose answer never reached the agent (the deadline, a closed stdout).
    pub fn prompt_unwritten(&self) -> super::prompt_submit::PromptSubmitOutcome {
        self.with(|c, p| super::prompt_submit::prompt_submit(c, p, &self.logs))
    }

    pub fn tool_call(&self) -> super::post_tool_use::PostToolUseOutcome {
        self.with(super::post_tool_use::post_tool_use)
    }

    pub fn event_names(&self) -> Vec<&'static str> {
        self.events
            .records
            .borrow()
            .iter()
            .map(|r| r.event.name())
            .collect()
    }

    pub fn tier_events(&self) -> Vec<(ThresholdTier, ThresholdTier)> {
        self.events
            .records
            .borrow()
            .iter()
            .filter_map(|r| match r.event {
                DomainEvent::ContextThresholdReached {
                    previous_tier,
                    new_tier,
                    ..
                } => Some((previous_tier, new_tier)),
                _ => None,
            })
            .collect()
    }

    pub fn state(&self) -> SessionState {
        self.states
            .states
            .borrow()
            .get(&SessionKey::from_raw(&self.session))
            .cloned()
            .unwrap()
    }
}
