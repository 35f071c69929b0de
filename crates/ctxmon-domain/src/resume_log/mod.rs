//! Resume logs: the handoff document written when a session is compacted, ends or turns
//! critical (contract C9).
//!
//! A [`ResumeLog`] is data — it round-trips through JSON exactly — and has one deterministic
//! markdown rendering ([`ResumeLog::render`]) in which every section stays within its token
//! budget and the document within 10,000 tokens. What the agent may write itself (`ctxmon
//! resume-log generate --from`) is a [`ResumeLogDraft`], which rejects unknown fields so that a
//! misspelt section is an error rather than silently lost work.

mod context;
mod draft;
mod fit;
mod fit_meta;
mod fit_plan;
mod meta_fields;
mod number;
mod pieces;
mod pieces_meta;
mod render;
mod section;
mod truncate;

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::{CheckpointId, FillEstimate, Timestamp};

pub use context::ContextValue;
pub use draft::{DraftMetadata, ResumeLogDraft};
pub use fit::METADATA_KEY;
pub use number::JsonNumber;
pub use render::{RenderedLog, RenderedSection};
pub use section::ResumeLogSection;
pub use truncate::{Truncated, cut_at_boundary, marker, truncate_chars};

/// Token usage at the moment the log was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ContextMetrics {
    /// The context window, in tokens.
    pub total_budget: u64,
    /// Tokens in the context (the fill of contract C2, not a cumulative count).
    pub used_tokens: u64,
    /// `used / total × 100`, rounded to hundredths (see [`round_percent`]).
    #[serde(deserialize_with = "percent_field")]
    pub percentage_used: f64,
    /// `total_budget - used_tokens`, never below 0.
    pub remaining_tokens: u64,
    /// Why the log was written: the trigger (`pre_compact`, `session_end`, `tier:critical`,
    /// `manual`). An API call's stop reason has no equivalent in a hook.
    pub stop_reason: String,
    /// The model id the fill was measured for; empty when unknown.
    pub model: String,
    /// RFC 3339, UTC.
    pub timestamp: String,
    /// Set when the figures are not a measurement but an assumption, and why: after a
    /// compaction the context's size is unknown until the next response, and ctxmon assumes
    /// the post-compaction baseline. Shown beside the figures, so no reader takes it for a
    /// measured fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<String>,
}

impl ContextMetrics {
    /// Metrics for `used_tokens` of `total_budget` (a budget of 0 gives 0 %), written for
    /// `stop_reason` at `at`.
    pub fn new(
        total_budget: u64,
        used_tokens: u64,
        stop_reason: impl Into<String>,
        model: impl Into<String>,
        at: Timestamp,
    ) -> ContextMetrics {
        let ratio = if total_budget == 0 {
            0.0
        } else {
            used_tokens as f64 / total_budget as f64
        };
        ContextMetrics {
            total_budget,
            used_tokens,
            percentage_used: round_percent(ratio * 100.0),
            remaining_tokens: total_budget.saturating_sub(used_tokens),
            stop_reason: stop_reason.into(),
            model: model.into(),
            timestamp: at.to_rfc3339(),
            estimate: None,
        }
    }

    /// The metrics of a fill estimate (an `unavailable` estimate gives zero used tokens). A
    /// post-compaction baseline (`FillSource::Compaction`) is labelled as an estimate.
    pub fn from_fill(
        fill: &FillEstimate,
        stop_reason: impl Into<String>,
        at: Timestamp,
    ) -> ContextMetrics {
        let mut metrics = ContextMetrics::new(
            fill.context_window_size.get(),
            fill.input_tokens.get(),
            stop_reason,
            fill.model.clone().unwrap_or_default(),
            at,
        );
        if fill.source == crate::FillSource::Compaction {
            metrics.estimate = Some(
                fill.note
                    .clone()
                    .unwrap_or_else(|| "after a compaction, before the next response".into()),
            );
        }
        metrics
    }
}

/// A percentage rounded down to hundredths (like every fill ctxmon shows, never fuller than
/// measured: `crate::fill::floor_scaled`), finite and within 0..=1e9.
///
/// Why round: JSON round-trips must be exact, and serde_json's default float parser is only
/// guaranteed exact for short decimals. Every value this returns is `n / 100` for an integer
/// `n` below 2^53, whose shortest decimal form parses back to the same `f64` (and rounds to
/// itself again).
pub fn round_percent(p: f64) -> f64 {
    if !p.is_finite() || p <= 0.0 {
        return 0.0;
    }
    crate::fill::floor_scaled(p.min(1e9), 100.0) as f64 / 100.0
}

fn percent_field<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    f64::deserialize(d).map(round_percent)
}

fn optional_percent<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d).map(|p| p.map(round_percent))
}

/// The figures an agent reported about its own context: `context_metrics` in a `--from`
/// document, every field optional. Shown beside ctxmon's measurement, never instead
/// of it: ctxmon reads the fill from the transcript's usage (contract C2), while an agent cannot
/// see its own token count, and an agent's `used_tokens` is often a cumulative count, not the
/// fill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ReportedMetrics {
    /// The context window the agent reported, in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_budget: Option<u64>,
    /// The tokens the agent reported as used (often a cumulative count, not the fill).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_tokens: Option<u64>,
    /// Rounded down to hundredths, as [`ContextMetrics::percentage_used`].
    #[serde(
        deserialize_with = "optional_percent",
        skip_serializing_if = "Option::is_none"
    )]
    pub percentage_used: Option<f64>,
    /// The tokens the agent reported as left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining_tokens: Option<u64>,
    /// An API stop reason (`end_turn`), as the agent wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The model the agent named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// As the agent wrote it (it may have no time zone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

impl ReportedMetrics {
    /// True when the agent reported none of the figures.
    pub fn is_empty(&self) -> bool {
        *self == ReportedMetrics::default()
    }
}

/// A choice made during the session and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// What was decided, one sentence.
    pub decision: String,
    /// Why; empty when the agent gave no reason.
    #[serde(default)]
    pub rationale: String,
}

/// Facts about the session that are not the agent's narrative: where the content came from,
/// what was touched and run, the git state. Rendered under "Session Metadata".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SessionMetadata {
    /// The trigger that wrote the log (same as `context_metrics.stop_reason`).
    pub trigger: String,
    /// The sources that contributed, highest priority first (`agent document`,
    /// `checkpoint cx-004`, `transcript`, `git`).
    pub sources: Vec<String>,
    /// The transcript the log was derived from, when one was read.
    pub transcript_path: Option<String>,
    /// The git branch when the log was written.
    pub git_branch: Option<String>,
    /// The checked-out commit when the log was written (full hash).
    pub git_head: Option<String>,
    /// When the session began and when it was last active (RFC 3339, as the transcript has
    /// them): the "Session Duration" line. Kept only when both parse, the second not earlier.
    pub started_at: Option<String>,
    /// See `started_at`.
    pub last_activity_at: Option<String>,
    /// `git status --porcelain` entries (`XY path`); empty when clean or unknown.
    pub git_dirty_files: Vec<String>,
    /// Files the main session wrote or edited, oldest first.
    pub files_modified: Vec<String>,
    /// Files only subagents (Task tool sidechains) wrote; the main session's are above.
    pub files_modified_by_subagents: Vec<String>,
    /// Shell commands the session ran, oldest first.
    pub commands_run: Vec<String>,
    /// Errors the session met (a failed command or tool and what it said), oldest first.
    pub errors: Vec<String>,
    /// The agents (or subagents) the session used, as the agent's own document lists them.
    pub agents_used: Vec<String>,
    /// Anything else the agent recorded, by name.
    pub notes: BTreeMap<String, String>,
    /// How long the session ran as the agent reported it (`session_duration_minutes`); shown beside
    /// the transcript's times, not instead of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_duration_minutes: Option<u64>,
    /// By list key (`commands_run`, `errors`, …): how many of the list's oldest entries were
    /// left out to fit the budget. The lists are oldest first and keep their newest entries;
    /// the list's label says how many older ones are not shown.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub older_left_out: BTreeMap<String, u64>,
}

impl SessionMetadata {
    /// True when nothing at all is recorded.
    pub fn is_empty(&self) -> bool {
        *self == SessionMetadata::default()
    }

    /// From `started_at` to `last_activity_at`, in whole minutes; `None` unless both parse and
    /// the second is not earlier.
    pub fn duration_minutes(&self) -> Option<i64> {
        let start = Timestamp::parse_rfc3339(self.started_at.as_deref()?)?;
        let end = Timestamp::parse_rfc3339(self.last_activity_at.as_deref()?)?;
        let ms = end.millis().checked_sub(start.millis())?;
        (ms >= 0).then_some(ms / 60_000)
    }
}

/// `.ctxmon/resume-logs/session-<id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeLog {
    /// The file format's version; [`ResumeLog::SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The agent's session id the log belongs to.
    pub session_id: String,
    /// ctxmon's measurement of the context when the log was written.
    pub context_metrics: ContextMetrics,
    /// What the session set out to do (its first request, or the agent's own words).
    #[serde(default)]
    pub mission_summary: String,
    /// What was done.
    #[serde(default)]
    pub accomplishments: Vec<String>,
    /// What was learnt that the next session should know.
    #[serde(default)]
    pub key_findings: Vec<String>,
    /// Choices made and why.
    #[serde(default)]
    pub decisions: Vec<Decision>,
    /// What to do next, in order.
    #[serde(default)]
    pub next_steps: Vec<String>,
    /// Paths, ids and values the next session must not lose: any JSON (nested maps and lists
    /// are shown as a nested list), ordered by key so the rendering is deterministic.
    #[serde(default)]
    pub critical_context: BTreeMap<String, ContextValue>,
    /// Facts about the session (sources, git state, files, commands, errors).
    #[serde(default)]
    pub metadata: SessionMetadata,
    /// The agent's own figures from its `--from` document ([`ReportedMetrics`]), shown under
    /// "Context Metrics" beside ctxmon's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_metrics: Option<ReportedMetrics>,
    /// Tokens each section lost when the log was fitted to its budget
    /// ([`ResumeLog::fit_to_budget`]), by section key (`session_metadata` for the metadata);
    /// the section's truncation marker shows them. Absent when nothing was cut.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub omitted_tokens: BTreeMap<String, u64>,
}

impl ResumeLog {
    /// The version this build writes.
    pub const SCHEMA_VERSION: u32 = 1;

    /// An empty log for `session_id` with the given metrics.
    pub fn new(session_id: impl Into<String>, context_metrics: ContextMetrics) -> ResumeLog {
        ResumeLog {
            schema_version: ResumeLog::SCHEMA_VERSION,
            session_id: session_id.into(),
            context_metrics,
            mission_summary: String::new(),
            accomplishments: Vec::new(),
            key_findings: Vec::new(),
            decisions: Vec::new(),
            next_steps: Vec::new(),
            critical_context: BTreeMap::new(),
            metadata: SessionMetadata::default(),
            agent_metrics: None,
            omitted_tokens: BTreeMap::new(),
        }
    }

    /// The markdown document (see [`ResumeLog::render`]).
    pub fn to_markdown(&self) -> String {
        self.render().markdown()
    }

    /// The checkpoints the log names, ascending and without repeats: the one it drew on, as
    /// its `checkpoint cx-004` source and its `checkpoint` critical context (`cx-004 (…)`)
    /// say. A checkpoint a stored log still names is one its reader may be told to open, so
    /// automatic checkpoint pruning spares it.
    pub fn named_checkpoints(&self) -> Vec<CheckpointId> {
        let from_sources = self
            .metadata
            .sources
            .iter()
            .filter_map(|s| s.strip_prefix("checkpoint "));
        let from_context = self
            .critical_context
            .get("checkpoint")
            .and_then(ContextValue::as_str);
        let mut ids: Vec<CheckpointId> = from_sources
            .chain(from_context)
            .filter_map(|text| text.split_whitespace().next())
            .filter_map(CheckpointId::parse)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod fit_tests;
#[cfg(test)]
mod tests;
