//! The typed configuration every use case reads, and its validation.
//!
//! These are plain serde types: loading and layering (defaults < user < project < local < env <
//! flags) is an adapter's job; this module only says what a valid configuration is. Every struct
//! rejects unknown keys so that a typo is an error, not a silently ignored setting.

mod deadlines;
mod schema;

use std::collections::BTreeMap;

use ctxmon_domain::{
    ContextWindow, DEFAULT_STATUS_FORMAT, StatusTemplate, ThresholdTier, Thresholds, TokenCount,
};
use serde::{Deserialize, Serialize};

pub use deadlines::{
    MAX_DEADLINE_MS, MIN_DEADLINE_MS, STATUS_LINE_DEADLINE_MS, TIMEOUT_MARGIN_MS, ends_before_ms,
    expected_deadline,
};
pub use schema::{FIELDS, FieldKind, FieldSpec, field, json_schema};

/// ctxmon's whole configuration, one section per table of `config.toml`; every key has a
/// default, and [`Config::validate`] says which values break a rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[context_monitor]`: measuring the fill and the `<context-monitor>` tag.
    pub context_monitor: ContextMonitorConfig,
    /// `[hooks]`: the hooks' deadlines and their log.
    pub hooks: HooksConfig,
    /// `[resumption]`: what is handed back after a compaction.
    pub resumption: ResumptionConfig,
    /// `[resume_logs]`: when resume logs are written and how many are kept.
    pub resume_logs: ResumeLogsConfig,
    /// `[checkpoints]`: how many checkpoints are kept.
    pub checkpoints: CheckpointsConfig,
    /// `[codex]`: Codex CLI sessions.
    pub codex: CodexConfig,
    /// `[statusline]`: what `ctxmon statusline` prints.
    pub statusline: StatusLineConfig,
}

/// When the `<context-monitor>` tag is injected. Every tag stays in the conversation and is
/// read again on every later API call, so a tag that tells the agent nothing new costs tokens
/// for the rest of the context (docs/inject-policy.md measures each policy on real sessions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InjectPolicy {
    /// Every prompt.
    Always,
    /// Only when the tier differs from the last one injected for this session.
    OnChange,
    /// Only at WARNING or above.
    WarningAndAbove,
    /// Every prompt from LOW up; at NOMINAL only when the tier differs from the last tag's or
    /// the fill moved [`NOMINAL_STEP`] of the window since it. Warns every time it matters at
    /// the least cost: the default.
    #[default]
    Tiered,
}

/// What the tier thresholds are fractions of (`context_monitor.tier_basis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TierBasis {
    /// The agent's own default (its description's `tier_basis`): Claude Code's window, Gemini
    /// CLI's compaction point, for Codex whichever lets every tier come before it compacts.
    #[default]
    Agent,
    /// The context window: 0.70 is 70% of the window.
    Window,
    /// The point where the agent compacts on its own: 0.70 is 70% of the way to it.
    AutoCompact,
}

/// How far the fill moves (as a share of the window, either way) before `tiered` says it
/// again at NOMINAL: the agent keeps a picture of its room within ten points.
pub const NOMINAL_STEP: f64 = 0.10;

/// `[context_monitor]`: how the fill is measured and when it is told to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextMonitorConfig {
    /// Inject the `<context-monitor>` tag at all (default true).
    pub enabled: bool,
    /// Fill ratio (fraction of the window) where LOW begins; default 0.55.
    pub low_threshold: f64,
    /// Fill ratio where WARNING begins; default 0.70.
    pub warning_threshold: f64,
    /// Fill ratio where CRITICAL begins; default 0.80.
    pub critical_threshold: f64,
    /// Fill ratio where EMERGENCY begins (at most 1); default 0.88.
    pub emergency_threshold: f64,
    /// Overrides every other way of choosing the window when set.
    pub context_window: Option<u64>,
    /// Tokens Claude Code keeps free before auto-compacting (default 33,000).
    pub auto_compact_buffer: u64,
    /// How far back from the transcript's end the reader looks for a usage record, in bytes
    /// (default 32 MiB).
    pub max_scan_bytes: u64,
    /// When the tag is injected (default `tiered`).
    pub inject: InjectPolicy,
    /// What the thresholds are fractions of (default: the agent's own).
    pub tier_basis: TierBasis,
    /// Also warn inside tool loops: `hooks post-tool-use` injects the tag when the tier rose
    /// since the last one (see `monitor::tier_record`).
    pub post_tool_use: bool,
    /// After a compaction without a recorded size, the percent of the window (or of the size
    /// before it, when smaller) assumed used (default 30; clamped to 10–60 when used).
    pub post_compaction_percent: u64,
    /// Model id prefix → window size; the longest matching prefix wins.
    pub models: BTreeMap<String, u64>,
}

impl Default for ContextMonitorConfig {
    fn default() -> Self {
        ContextMonitorConfig {
            enabled: true,
            low_threshold: 0.55,
            warning_threshold: 0.70,
            critical_threshold: 0.80,
            emergency_threshold: 0.88,
            context_window: None,
            auto_compact_buffer: 33_000,
            max_scan_bytes: 32 * 1024 * 1024,
            inject: InjectPolicy::Tiered,
            tier_basis: TierBasis::Agent,
            post_tool_use: true,
            post_compaction_percent: 30,
            models: BTreeMap::new(),
        }
    }
}

/// The hooks' deadlines (every one optional: see `deadlines.rs` for which wins) and their log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// Every hook without its own deadline, and the status line.
    pub deadline_ms: Option<u64>,
    /// UserPromptSubmit's deadline in milliseconds, stdin read included; `None`: `deadline_ms`,
    /// else its built-in default.
    pub prompt_submit_deadline_ms: Option<u64>,
    /// SessionStart's deadline in milliseconds (as above).
    pub session_start_deadline_ms: Option<u64>,
    /// PreCompact's deadline in milliseconds (as above); long by default, because a lost
    /// checkpoint is the worst failure.
    pub pre_compact_deadline_ms: Option<u64>,
    /// PreToolUse's deadline in milliseconds (as above).
    pub pre_tool_use_deadline_ms: Option<u64>,
    /// PostToolUse's deadline in milliseconds (as above).
    pub post_tool_use_deadline_ms: Option<u64>,
    /// PostCompact's deadline in milliseconds (as above).
    pub post_compact_deadline_ms: Option<u64>,
    /// SessionEnd's deadline in milliseconds (as above).
    pub session_end_deadline_ms: Option<u64>,
    /// Size in bytes at which `.ctxmon/logs/hooks.log` is rotated (default 1 MiB).
    pub log_max_bytes: u64,
}

impl Default for HooksConfig {
    fn default() -> Self {
        HooksConfig {
            deadline_ms: None,
            prompt_submit_deadline_ms: None,
            session_start_deadline_ms: None,
            pre_compact_deadline_ms: None,
            pre_tool_use_deadline_ms: None,
            post_tool_use_deadline_ms: None,
            post_compact_deadline_ms: None,
            session_end_deadline_ms: None,
            log_max_bytes: 1024 * 1024,
        }
    }
}

/// `[resumption]`: where the resumption state comes from and how long it is handed back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResumptionConfig {
    /// The resumption source file, relative to the project (or absolute); `.yaml`, `.yml` or
    /// `.json`. Empty: none. See [`ResumptionConfig::source_candidates`].
    pub source_file: String,
    /// Without a source file, derive the resumption state from the transcript tail (default
    /// true).
    pub derive_from_transcript: bool,
    /// At startup or `/clear`, hand back only checkpoints younger than this many hours
    /// (default 24).
    pub max_age_hours: u64,
    /// Warn when the source file's `updated_at` is older than this many minutes (default 120).
    pub stale_after_minutes: u64,
    /// How many bytes of the transcript's end the derivation reads (default 8 MiB).
    pub tail_bytes: u64,
    /// Source files larger than this many bytes are ignored with a warning (default 1 MiB).
    pub max_source_bytes: u64,
}

impl ResumptionConfig {
    /// The default `source_file`.
    pub const DEFAULT_SOURCE_FILE: &'static str = "ORCHESTRATION.yaml";
    /// What the default also accepts, in the order looked for (contract C5: JSON as well
    /// as YAML; `.yml` because it is the same format under its other common name).
    pub const DEFAULT_SOURCE_FILES: [&'static str; 3] = [
        Self::DEFAULT_SOURCE_FILE,
        "ORCHESTRATION.yml",
        "ORCHESTRATION.json",
    ];

    /// The names the resumption source file may have, relative to the project (or absolute),
    /// in the order they are looked for; the first that exists is the file in use. With the
    /// default setting these are [`Self::DEFAULT_SOURCE_FILES`]; a configured name is the only
    /// one. Empty when no file is configured.
    pub fn source_candidates(&self) -> Vec<&str> {
        match self.source_file.trim() {
            "" => Vec::new(),
            Self::DEFAULT_SOURCE_FILE => Self::DEFAULT_SOURCE_FILES.to_vec(),
            name => vec![name],
        }
    }
}

impl Default for ResumptionConfig {
    fn default() -> Self {
        ResumptionConfig {
            source_file: Self::DEFAULT_SOURCE_FILE.into(),
            derive_from_transcript: true,
            max_age_hours: 24,
            stale_after_minutes: 120,
            tail_bytes: 8 * 1024 * 1024,
            max_source_bytes: 1024 * 1024,
        }
    }
}

/// `[resume_logs]`: the 10,000-token handoff documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResumeLogsConfig {
    /// Write resume logs on the configured triggers (default true).
    pub enabled: bool,
    /// When to write one: `pre_compact`, `session_end`, `manual`, `tier:<tier>` (that tier and
    /// every one above it). Default: `pre_compact`, `session_end`, `tier:critical`.
    pub triggers: Vec<String>,
    /// How many resume logs cleanup keeps (default 10).
    pub keep: u64,
}

impl Default for ResumeLogsConfig {
    fn default() -> Self {
        ResumeLogsConfig {
            enabled: true,
            triggers: vec![
                "pre_compact".into(),
                "session_end".into(),
                "tier:critical".into(),
            ],
            keep: 10,
        }
    }
}

/// `.ctxmon/checkpoints/` retention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckpointsConfig {
    /// After each PreCompact, acknowledged checkpoints older than the newest `keep` are
    /// deleted (a few per compaction; never the session's newest, never one a resume log
    /// names, never an unacknowledged one).
    pub keep: u64,
}

impl CheckpointsConfig {
    /// The bounds `checkpoints.keep` is validated against (also the schema's).
    pub const KEEP_MIN: u64 = 1;
    /// The largest `checkpoints.keep` accepted.
    pub const KEEP_MAX: u64 = 1_000_000;
}

impl Default for CheckpointsConfig {
    fn default() -> Self {
        // Generous: a checkpoint is a few KB, and 50 covers many sessions' recent history.
        CheckpointsConfig { keep: 50 }
    }
}

/// Codex CLI sessions: where Codex compacts, when its own `config.toml` does not say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct CodexConfig {
    /// Codex's auto-compaction point in tokens. Unset: Codex's own `config.toml`
    /// (`model_auto_compact_token_limit`), else Codex's default rule (90% of the model's raw
    /// window). Like Codex's own setting it can only lower that default.
    pub auto_compact_token_limit: Option<u64>,
}

/// `ctxmon statusline`'s shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatusLineConfig {
    /// The template (`ctxmon_domain::status_template`); `--format` overrides it. Checked like
    /// every value, so a typo in a field name is named with its file, not shown as text.
    pub format: String,
}

impl Default for StatusLineConfig {
    fn default() -> Self {
        StatusLineConfig {
            format: DEFAULT_STATUS_FORMAT.into(),
        }
    }
}

/// A rule a configuration breaks; `key` is the dotted key so the loader can say which file or
/// variable the bad value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    /// The dotted key, e.g. `context_monitor.low_threshold`.
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl std::fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl Config {
    /// Checks every rule the types alone cannot express. Returns all problems, not just the
    /// first, so a user fixes their file in one go.
    pub fn validate(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        let mut bad = |key: &str, message: String| {
            issues.push(ConfigIssue {
                key: key.to_string(),
                message,
            })
        };
        let cm = &self.context_monitor;
        if let Err(e) = self.thresholds() {
            let keys = e
                .keys
                .split(" < ")
                .map(|k| format!("context_monitor.{k}"))
                .collect::<Vec<_>>()
                .join(", ");
            bad(&keys, e.message);
        }
        if self.codex.auto_compact_token_limit == Some(0) {
            bad(
                "codex.auto_compact_token_limit",
                "must be greater than 0".into(),
            );
        }
        if cm.context_window == Some(0) {
            bad(
                "context_monitor.context_window",
                "must be greater than 0".into(),
            );
        }
        if !(10..=60).contains(&cm.post_compaction_percent) {
            bad(
                "context_monitor.post_compaction_percent",
                format!(
                    "must be between 10 and 60, got {}",
                    cm.post_compaction_percent
                ),
            );
        }
        if cm.max_scan_bytes < 64 * 1024 {
            bad(
                "context_monitor.max_scan_bytes",
                format!("must be at least 65536, got {}", cm.max_scan_bytes),
            );
        }
        for (prefix, window) in &cm.models {
            if *window == 0 || prefix.is_empty() {
                bad(
                    &format!("context_monitor.models.{prefix}"),
                    "model prefixes must be non-empty and windows greater than 0".into(),
                );
            }
        }
        for issue in deadlines::issues(&self.hooks) {
            bad(&issue.key, issue.message);
        }
        if self.resumption.source_file.trim().is_empty() {
            bad("resumption.source_file", "must not be empty".into());
        }
        for trigger in &self.resume_logs.triggers {
            if parse_trigger(trigger).is_none() {
                bad(
                    "resume_logs.triggers",
                    format!(
                        "unknown trigger {trigger:?}: use pre_compact, session_end, manual or tier:<tier>"
                    ),
                );
            }
        }
        if self.resume_logs.keep == 0 {
            bad("resume_logs.keep", "must be at least 1".into());
        }
        let keep = self.checkpoints.keep;
        if !(CheckpointsConfig::KEEP_MIN..=CheckpointsConfig::KEEP_MAX).contains(&keep) {
            bad(
                "checkpoints.keep",
                format!(
                    "must be between {} and {}, got {keep}",
                    CheckpointsConfig::KEEP_MIN,
                    CheckpointsConfig::KEEP_MAX
                ),
            );
        }
        if let Err(e) = StatusTemplate::parse(&self.statusline.format) {
            bad("statusline.format", e.0);
        }
        issues
    }

    /// The four thresholds, validated together (`0 < low < warning < critical < emergency <= 1`).
    pub fn thresholds(&self) -> Result<Thresholds, ctxmon_domain::ThresholdError> {
        let cm = &self.context_monitor;
        Thresholds::new(
            cm.low_threshold,
            cm.warning_threshold,
            cm.critical_threshold,
            cm.emergency_threshold,
        )
    }

    /// `context_monitor.auto_compact_buffer` as a token count.
    pub fn auto_compact_buffer(&self) -> TokenCount {
        TokenCount(self.context_monitor.auto_compact_buffer)
    }

    /// `context_monitor.context_window` when set and not 0: it overrides every other way of
    /// choosing the window.
    pub fn window_override(&self) -> Option<ContextWindow> {
        self.context_monitor
            .context_window
            .and_then(ContextWindow::new)
    }
}

/// A resume-log trigger as written in `resume_logs.triggers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerSpec {
    /// `pre_compact`: before every compaction.
    PreCompact,
    /// `session_end`: when the session ends (once per session).
    SessionEnd,
    /// `manual`: `ctxmon resume-log generate`.
    Manual,
    /// `tier:<tier>`: when the fill reaches that tier or a higher one.
    Tier(ThresholdTier),
}

/// Reads one entry of `resume_logs.triggers`; `None` for anything else.
pub fn parse_trigger(s: &str) -> Option<TriggerSpec> {
    match s.trim() {
        "pre_compact" => Some(TriggerSpec::PreCompact),
        "session_end" => Some(TriggerSpec::SessionEnd),
        "manual" => Some(TriggerSpec::Manual),
        other => other
            .strip_prefix("tier:")
            .and_then(ThresholdTier::parse)
            .map(TriggerSpec::Tier),
    }
}

/// True for the trigger keys recorded once per session (`session_end`: a session ends once).
/// Every other key fires once per context and is re-armed by a compaction: `tier:*` when the
/// new context fills up again, `pre_compact` at the next compaction, and custom triggers too.
/// It sits with the triggers' spelling because both a compaction (which re-arms the others)
/// and the resume log's triggers need it.
pub fn fires_once_per_session(key: &str) -> bool {
    key == "session_end"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(Config::default().validate(), vec![]);
        assert_eq!(
            Config::default().thresholds().unwrap(),
            Thresholds::default()
        );
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let err = serde_json::from_str::<Config>(r#"{"context_monitor":{"warning_treshold":0.7}}"#)
            .unwrap_err();
        assert!(err.to_string().contains("warning_treshold"), "{err}");
    }

    #[test]
    fn invalid_values_name_their_keys() {
        let mut c = Config::default();
        c.context_monitor.warning_threshold = 0.9;
        c.context_monitor.post_compaction_percent = 5;
        c.resume_logs.triggers.push("tier:severe".into());
        c.checkpoints.keep = 0;
        c.statusline.format = "{percent} {brach}".into();
        let keys: Vec<_> = c.validate().into_iter().map(|i| i.key).collect();
        assert_eq!(
            keys,
            vec![
                "context_monitor.warning_threshold, context_monitor.critical_threshold",
                "context_monitor.post_compaction_percent",
                "resume_logs.triggers",
                "checkpoints.keep",
                "statusline.format"
            ]
        );
        let format = c.validate().pop().unwrap().message;
        assert!(format.starts_with("unknown field `{brach}`"), "{format}");
    }

    #[test]
    fn triggers_parse() {
        assert_eq!(
            parse_trigger("tier:critical"),
            Some(TriggerSpec::Tier(ThresholdTier::Critical))
        );
        assert_eq!(parse_trigger("session_end"), Some(TriggerSpec::SessionEnd));
        assert_eq!(parse_trigger("95%"), None);
    }
}
