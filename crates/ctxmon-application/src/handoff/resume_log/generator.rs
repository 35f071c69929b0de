//! `ResumeLogGenerator`: decides whether a log is due and builds it from gathered inputs.
//! Pure: no port is called here, so every rule runs in tests on plain values.

use ctxmon_domain::resume_log::RenderedLog;
use ctxmon_domain::{ContextMetrics, FillSource, ResumeLog};

use super::carry::BeforeCompaction;
use super::providers::{
    AgentDocument, GenerationInputs, Git, LatestCheckpoint, SectionProvider, SessionTranscript,
};
use super::trigger::{ConfiguredTrigger, TriggerCondition, TriggerKind, configured};
use crate::config::ResumeLogsConfig;
use crate::handoff::resumption::{MAX_LIST_ITEMS, MAX_PATH_CHARS};

/// The built-in providers in priority order; the previous log last, so what the session says
/// now comes first. Here rather than beside the providers, because the previous log's
/// provider (`carry`) is built on theirs.
fn built_in() -> Vec<Box<dyn SectionProvider>> {
    vec![
        Box::new(AgentDocument),
        Box::new(LatestCheckpoint),
        Box::new(SessionTranscript),
        Box::new(Git),
        Box::new(BeforeCompaction),
    ]
}

/// A generated log and its rendering.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedLog {
    /// The log as data.
    pub log: ResumeLog,
    /// Its markdown, section by section.
    pub rendered: RenderedLog,
}

/// Builds resume logs: decides whether a trigger fires, then fills the sections from its
/// providers in priority order and fits the result to the 10,000-token budget. Does no I/O.
pub struct ResumeLogGenerator<'a> {
    enabled: bool,
    triggers: Vec<Box<dyn TriggerCondition + 'a>>,
    providers: Vec<Box<dyn SectionProvider + 'a>>,
}

impl std::fmt::Debug for ResumeLogGenerator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResumeLogGenerator")
            .field("enabled", &self.enabled)
            .field(
                "triggers",
                &self.triggers.iter().map(|t| t.key()).collect::<Vec<_>>(),
            )
            .field("providers", &self.providers.len())
            .finish()
    }
}

impl<'a> ResumeLogGenerator<'a> {
    /// The configured triggers and the built-in providers (agent document, checkpoint,
    /// transcript, git, in that priority).
    pub fn from_config(config: &ResumeLogsConfig) -> ResumeLogGenerator<'a> {
        ResumeLogGenerator {
            enabled: config.enabled,
            triggers: configured(config)
                .into_iter()
                .map(|t: ConfiguredTrigger| Box::new(t) as Box<dyn TriggerCondition + 'a>)
                .collect(),
            providers: built_in()
                .into_iter()
                .map(|p| p as Box<dyn SectionProvider + 'a>)
                .collect(),
        }
    }

    /// Adds a trigger condition besides the configured ones.
    pub fn register_trigger(&mut self, trigger: impl TriggerCondition + 'a) {
        self.triggers.push(Box::new(trigger));
    }

    /// Adds a provider after the built-in ones: it fills what they left empty.
    pub fn register_section_provider(&mut self, provider: impl SectionProvider + 'a) {
        self.providers.push(Box::new(provider));
    }

    /// True when a log is due for `trigger`, given the triggers that already fired for this
    /// session (`SessionState::resume_log_triggers`).
    pub fn should_generate(&self, trigger: TriggerKind, fired: &[String]) -> bool {
        !self.due(trigger, fired).is_empty()
    }

    /// The keys of the conditions `trigger` satisfies that have not fired yet; the caller
    /// records them as fired. Empty when resume logs are disabled.
    pub fn due(&self, trigger: TriggerKind, fired: &[String]) -> Vec<String> {
        if !self.enabled {
            return Vec::new();
        }
        let mut keys: Vec<String> = Vec::new();
        for t in &self.triggers {
            let key = t.key();
            if t.matches(trigger) && !fired.contains(&key) && !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// Builds the log from every provider, normalises it, fits it to its budget (what the
    /// markdown cannot show is dropped from the data too) and renders it.
    pub fn generate(&self, inputs: &GenerationInputs<'_>) -> GeneratedLog {
        let stop_reason = inputs.trigger.key();
        // An `unavailable` estimate is the fail-open NOMINAL answer, not a measurement: the
        // log says "not measured" instead of an empty context.
        let metrics = match inputs.fill.filter(|f| f.source != FillSource::Unavailable) {
            Some(fill) => ContextMetrics::from_fill(fill, stop_reason.clone(), inputs.now),
            None => ContextMetrics::new(0, 0, stop_reason.clone(), "", inputs.now),
        };
        let mut log = ResumeLog::new(inputs.session_id, metrics);
        log.metadata.trigger = stop_reason;
        log.metadata.transcript_path = inputs.transcript_path.map(str::to_string);
        for provider in &self.providers {
            if let Some(label) = provider.contribute(inputs, &mut log) {
                log.metadata.sources.push(label);
            }
        }
        normalise(&mut log);
        // What the markdown cannot show is not kept: the JSON and the markdown are one log.
        let rendered = log.fit_and_render();
        GeneratedLog { log, rendered }
    }
}

/// Trimmed items, no empty ones, each list without duplicates (first occurrence kept: the
/// higher-priority source) and at most [`MAX_LIST_ITEMS`] long, so a hostile document cannot
/// make the stored JSON huge through repetition. The narrative lists keep their first items
/// (the author's order); the metadata lists, oldest first, keep their newest.
fn normalise(log: &mut ResumeLog) {
    log.mission_summary = log.mission_summary.trim().to_string();
    for list in [
        &mut log.accomplishments,
        &mut log.key_findings,
        &mut log.next_steps,
        &mut log.metadata.sources,
    ] {
        tidy(list, Keep::First);
    }
    // By their JSON keys: the older entries the cap drops are counted where the list's label
    // shows them, as fitting's are.
    let m = &mut log.metadata;
    for (key, list) in [
        ("files_modified", &mut m.files_modified),
        (
            "files_modified_by_subagents",
            &mut m.files_modified_by_subagents,
        ),
        ("commands_run", &mut m.commands_run),
        ("errors", &mut m.errors),
        ("agents_used", &mut m.agents_used),
    ] {
        let dropped = tidy(list, Keep::Newest);
        if dropped > 0 {
            let count = m.older_left_out.entry(key.to_string()).or_insert(0);
            *count = count.saturating_add(dropped as u64);
        }
    }
    // Porcelain entries keep their leading space: ` M` (unstaged) is not `M ` (staged).
    log.metadata.git_dirty_files.truncate(MAX_LIST_ITEMS);
    for files in [
        &mut log.metadata.files_modified,
        &mut log.metadata.files_modified_by_subagents,
    ] {
        files.retain(|p| p.chars().nth(MAX_PATH_CHARS).is_none());
    }
    log.decisions
        .retain(|d| !(d.decision.trim().is_empty() && d.rationale.trim().is_empty()));
    for d in &mut log.decisions {
        d.decision = d.decision.trim().to_string();
        d.rationale = d.rationale.trim().to_string();
    }
    log.decisions.truncate(MAX_LIST_ITEMS);
}

/// Which end of a list the cap at [`MAX_LIST_ITEMS`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    First,
    Newest,
}

/// Returns how many items the cap dropped.
fn tidy(list: &mut Vec<String>, keep: Keep) -> usize {
    let mut seen = std::collections::HashSet::new();
    let items = std::mem::take(list);
    for item in items {
        let t = item.trim();
        if !t.is_empty() && seen.insert(t.to_string()) {
            list.push(t.to_string());
            if keep == Keep::First && list.len() == MAX_LIST_ITEMS {
                break;
            }
        }
    }
    let over = list.len().saturating_sub(MAX_LIST_ITEMS);
    drop(list.drain(..over));
    over
}
