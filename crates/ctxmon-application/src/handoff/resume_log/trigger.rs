//! When a resume log is due: trigger conditions (an extension point) and the configured ones.
//!
//! Each condition has a key that the caller records in the session's state once it fires, so
//! a log is written at most once per trigger per context however often the hook runs; a
//! compaction re-arms every key but `session_end`, which fires once per session.

use ctxmon_domain::ThresholdTier;

use crate::config::{ResumeLogsConfig, TriggerSpec, parse_trigger};

/// What happened that may call for a resume log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerKind {
    /// PreCompact: the context is about to be compacted.
    PreCompact,
    /// SessionEnd.
    SessionEnd,
    /// The fill is in this tier now (the prompt-submit hook reports it on every prompt).
    Tier(ThresholdTier),
    /// Someone asked (`ctxmon resume-log generate`).
    Manual,
}

impl TriggerKind {
    /// `pre_compact`, `session_end`, `tier:critical`, `manual`: the configuration's spelling,
    /// recorded as the log's stop reason.
    pub fn key(self) -> String {
        match self {
            TriggerKind::PreCompact => "pre_compact".into(),
            TriggerKind::SessionEnd => "session_end".into(),
            TriggerKind::Tier(t) => format!("tier:{}", t.key()),
            TriggerKind::Manual => "manual".into(),
        }
    }
}

/// A condition under which a log is written: an extension point, for triggers of your own.
pub trait TriggerCondition {
    /// Identifies the condition in the session's list of fired triggers.
    fn key(&self) -> String;
    /// True when this condition fires on `trigger`.
    fn matches(&self, trigger: TriggerKind) -> bool;
}

/// One entry of `resume_logs.triggers`. `tier:critical` matches CRITICAL and every tier above
/// it: a fill that jumps from WARNING straight to EMERGENCY has still passed CRITICAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfiguredTrigger(pub TriggerSpec);

impl TriggerCondition for ConfiguredTrigger {
    fn key(&self) -> String {
        match self.0 {
            TriggerSpec::PreCompact => TriggerKind::PreCompact.key(),
            TriggerSpec::SessionEnd => TriggerKind::SessionEnd.key(),
            TriggerSpec::Manual => TriggerKind::Manual.key(),
            TriggerSpec::Tier(t) => TriggerKind::Tier(t).key(),
        }
    }

    fn matches(&self, trigger: TriggerKind) -> bool {
        match (self.0, trigger) {
            (TriggerSpec::PreCompact, TriggerKind::PreCompact)
            | (TriggerSpec::SessionEnd, TriggerKind::SessionEnd)
            | (TriggerSpec::Manual, TriggerKind::Manual) => true,
            (TriggerSpec::Tier(at_least), TriggerKind::Tier(now)) => now >= at_least,
            _ => false,
        }
    }
}

/// The configured triggers, each once; entries that do not parse were already rejected by
/// configuration validation and are skipped here.
pub fn configured(config: &ResumeLogsConfig) -> Vec<ConfiguredTrigger> {
    let mut out: Vec<ConfiguredTrigger> = Vec::new();
    for spec in config.triggers.iter().filter_map(|t| parse_trigger(t)) {
        if !out.iter().any(|c| c.0 == spec) {
            out.push(ConfiguredTrigger(spec));
        }
    }
    out
}
