//! The session's previous log, carried across a compaction.
//!
//! One log is kept per session, and every log after a compaction is built from less: the
//! transcript's tail may have moved past the early work, and the fill is the post-compaction
//! baseline, an assumption until the next response. Replacing the richer PreCompact log with
//! it would lose what the session did before. So a log written after a compaction keeps what
//! the log before it said: the done work and decisions of both and the earlier log's newest
//! few findings (the earlier first),
//! the earlier next steps only when the new log has none (they may be done since), critical
//! context and notes the new log does not set, every fact list of both, and the earlier
//! measured figures as a note beside the new ones (which say when they are an estimate).

use ctxmon_domain::human::{percent_of_100, thousands};
use ctxmon_domain::{ResumeLog, Timestamp};

use super::providers::{GenerationInputs, SectionProvider};
use crate::resumption::CONCLUSIONS;

/// The label this provider records in `metadata.sources`; a log that carries it has carried
/// pre-compaction content, which the next log carries on in turn.
pub const LABEL: &str = "resume log before compaction";

/// The note that keeps the previous log's measured figures.
pub const FIGURES_NOTE: &str = "context before compaction";

/// Carries the session's previous log into the new one when a compaction came between them.
#[derive(Debug, Clone, Copy, Default)]
pub struct BeforeCompaction;

impl SectionProvider for BeforeCompaction {
    fn contribute(&self, inputs: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String> {
        let prev = inputs.previous.filter(|p| p.session_id == log.session_id)?;
        if !compaction_since(prev, inputs) {
            return None;
        }
        if log.mission_summary.trim().is_empty() {
            log.mission_summary.clone_from(&prev.mission_summary);
        }
        earlier_first(&mut log.accomplishments, &prev.accomplishments);
        // Findings are the last few conclusions: the earlier log's newest few, not all it
        // carried, so findings do not pile up over compactions and push the new ones out.
        let skip = prev.key_findings.len().saturating_sub(CONCLUSIONS);
        earlier_first(&mut log.key_findings, &prev.key_findings[skip..]);
        if log.next_steps.iter().all(|s| s.trim().is_empty()) {
            log.next_steps.clone_from(&prev.next_steps);
        }
        let mut decisions = prev.decisions.clone();
        decisions.extend(std::mem::take(&mut log.decisions));
        log.decisions = decisions;
        for (k, v) in &prev.critical_context {
            log.critical_context
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        let (m, old) = (&mut log.metadata, &prev.metadata);
        earlier_first(&mut m.files_modified, &old.files_modified);
        earlier_first(
            &mut m.files_modified_by_subagents,
            &old.files_modified_by_subagents,
        );
        earlier_first(&mut m.commands_run, &old.commands_run);
        earlier_first(&mut m.errors, &old.errors);
        earlier_first(&mut m.agents_used, &old.agents_used);
        if m.started_at.is_none() {
            m.started_at.clone_from(&old.started_at);
        }
        for (k, v) in &old.notes {
            m.notes.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let c = &prev.context_metrics;
        if c.estimate.is_none() && c.total_budget > 0 {
            m.notes.insert(
                FIGURES_NOTE.into(),
                format!(
                    "{} of {} tokens ({}) at {} ({}), measured",
                    thousands(c.used_tokens),
                    thousands(c.total_budget),
                    percent_of_100(c.percentage_used),
                    c.timestamp,
                    c.stop_reason
                ),
            );
        }
        Some(format!("{LABEL} ({})", prev.context_metrics.timestamp))
    }
}

/// True when a compaction came after `prev` was written: it was the PreCompact log, it carried
/// an earlier one, or the session's newest checkpoint (written at each compaction) is younger.
fn compaction_since(prev: &ResumeLog, inputs: &GenerationInputs<'_>) -> bool {
    let written = Timestamp::parse_rfc3339(&prev.context_metrics.timestamp);
    prev.metadata.trigger == "pre_compact"
        || prev.metadata.sources.iter().any(|s| s.starts_with(LABEL))
        || inputs
            .checkpoint
            .zip(written)
            .is_some_and(|(cp, at)| cp.created_at_ms > at)
}

/// `list` as `earlier` followed by its own items (the generator removes duplicates, keeping
/// the first).
fn earlier_first(list: &mut Vec<String>, earlier: &[String]) {
    if earlier.is_empty() {
        return;
    }
    let mut merged = earlier.to_vec();
    merged.append(list);
    *list = merged;
}
