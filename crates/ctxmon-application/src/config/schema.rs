//! One table describing every configuration key; the JSON Schema, `config get` validation and
//! documentation are all derived from it, and a test keeps it in step with the structs.

use serde_json::{Map, Value, json};

use super::deadlines::{MAX_DEADLINE_MS, MIN_DEADLINE_MS};
use super::{CheckpointsConfig, Config};
use crate::agents::Hook;

/// What values a configuration key takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldKind {
    /// `true` or `false`.
    Bool,
    /// An integer within the inclusive range.
    Integer {
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
    },
    /// An optional integer (absent means "not set").
    OptionalInteger {
        /// The smallest value allowed.
        min: u64,
    },
    /// A fill ratio, greater than 0 and at most 1.
    Ratio,
    /// A non-empty string.
    String,
    /// One of the listed strings.
    Enum(&'static [&'static str]),
    /// A list of strings.
    StringList,
    /// A table of string → positive integer.
    IntegerMap,
    /// An optional deadline in milliseconds: a hook's own (its range ends below the timeout
    /// `ctxmon install` registers for it), or with `None` the fallback `hooks.deadline_ms`.
    Deadline(Option<Hook>),
}

/// One configuration key: its dotted name, what it takes, what it does.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    /// The dotted key, e.g. `context_monitor.inject`.
    pub key: &'static str,
    /// What values it takes.
    pub kind: FieldKind,
    /// What it does, in a sentence or two: the JSON Schema's `description`.
    pub description: &'static str,
}

const MIB: u64 = 1024 * 1024;

/// Every configuration key, in the order of the configuration's sections.
pub const FIELDS: &[FieldSpec] = &[
    FieldSpec {
        key: "context_monitor.enabled",
        kind: FieldKind::Bool,
        description: "Inject the <context-monitor> tag at all (on prompts and, with post_tool_use, after tool calls).",
    },
    FieldSpec {
        key: "context_monitor.low_threshold",
        kind: FieldKind::Ratio,
        description: "Fill ratio where LOW begins (0 < low < warning).",
    },
    FieldSpec {
        key: "context_monitor.warning_threshold",
        kind: FieldKind::Ratio,
        description: "Fill ratio where WARNING begins.",
    },
    FieldSpec {
        key: "context_monitor.critical_threshold",
        kind: FieldKind::Ratio,
        description: "Fill ratio where CRITICAL begins.",
    },
    FieldSpec {
        key: "context_monitor.emergency_threshold",
        kind: FieldKind::Ratio,
        description: "Fill ratio where EMERGENCY begins (at most 1).",
    },
    FieldSpec {
        key: "context_monitor.context_window",
        kind: FieldKind::OptionalInteger { min: 1 },
        description: "Window size in tokens; overrides the status-line payload and the model rules.",
    },
    FieldSpec {
        key: "context_monitor.auto_compact_buffer",
        kind: FieldKind::Integer {
            min: 0,
            max: 1_000_000,
        },
        description: "Tokens Claude Code reserves before auto-compacting; the default, 33,000, lets its version and your own compactions decide.",
    },
    FieldSpec {
        key: "context_monitor.max_scan_bytes",
        kind: FieldKind::Integer {
            min: 65_536,
            max: 64 * 1024 * MIB,
        },
        description: "How far back from the end the transcript reader looks for a usage record.",
    },
    FieldSpec {
        key: "context_monitor.inject",
        kind: FieldKind::Enum(&["tiered", "always", "on-change", "warning-and-above"]),
        description: "When the <context-monitor> tag is injected: tiered (every prompt from LOW up; at NOMINAL when the tier changes or the fill moved 10 points), always, on-change (the tier differs from the last tag's), warning-and-above.",
    },
    FieldSpec {
        key: "context_monitor.tier_basis",
        kind: FieldKind::Enum(&["agent", "window", "auto_compact"]),
        description: "What the tier thresholds are fractions of: window, auto_compact (the point where the agent compacts on its own), or agent (its default: Claude Code window, Gemini CLI auto_compact, Codex whichever keeps every tier before its compaction).",
    },
    FieldSpec {
        key: "context_monitor.post_tool_use",
        kind: FieldKind::Bool,
        description: "Also inject the <context-monitor> tag after a tool call when the tier rose above the last one injected (warnings inside long tool loops, where no prompt is submitted).",
    },
    FieldSpec {
        key: "context_monitor.post_compaction_percent",
        kind: FieldKind::Integer { min: 10, max: 60 },
        description: "After a compaction without a recorded size, assume this percent of the window (or of the size before it, when smaller) is used.",
    },
    FieldSpec {
        key: "context_monitor.models",
        kind: FieldKind::IntegerMap,
        description: "Model id prefix to window size; the longest prefix wins.",
    },
    FieldSpec {
        key: "hooks.deadline_ms",
        kind: FieldKind::Deadline(None),
        description: "When set: the deadline of every hook whose own *_deadline_ms key is not set, and of the status line (1500 ms without it). Not set by default.",
    },
    FieldSpec {
        key: "hooks.prompt_submit_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::PromptSubmit)),
        description: "UserPromptSubmit answers with what it has after this many milliseconds (stdin read included); the user waits for it.",
    },
    FieldSpec {
        key: "hooks.session_start_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::SessionStart)),
        description: "SessionStart answers with what it has after this many milliseconds (stdin read included).",
    },
    FieldSpec {
        key: "hooks.pre_compact_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::PreCompact)),
        description: "PreCompact gives up after this many milliseconds (stdin read included); long, because a lost checkpoint is the worst failure.",
    },
    FieldSpec {
        key: "hooks.pre_tool_use_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::PreToolUse)),
        description: "PreToolUse answers with what it has after this many milliseconds (stdin read included); the agent waits for it.",
    },
    FieldSpec {
        key: "hooks.post_tool_use_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::PostToolUse)),
        description: "PostToolUse answers with what it has after this many milliseconds (stdin read included); it runs after every tool call and the agent waits for it.",
    },
    FieldSpec {
        key: "hooks.post_compact_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::PostCompact)),
        description: "PostCompact gives up after this many milliseconds (stdin read included).",
    },
    FieldSpec {
        key: "hooks.session_end_deadline_ms",
        kind: FieldKind::Deadline(Some(Hook::SessionEnd)),
        description: "SessionEnd gives up after this many milliseconds (stdin read included).",
    },
    FieldSpec {
        key: "hooks.log_max_bytes",
        kind: FieldKind::Integer {
            min: 0,
            max: 1024 * MIB,
        },
        description: "Size at which .ctxmon/logs/hooks.log is rotated.",
    },
    FieldSpec {
        key: "resumption.source_file",
        kind: FieldKind::String,
        description: "Resumption source file, relative to the project directory (.yaml or .json). With the default, ORCHESTRATION.yaml, the first of ORCHESTRATION.yaml, ORCHESTRATION.yml and ORCHESTRATION.json that exists is used.",
    },
    FieldSpec {
        key: "resumption.derive_from_transcript",
        kind: FieldKind::Bool,
        description: "Without a source file, derive resumption state from the transcript tail.",
    },
    FieldSpec {
        key: "resumption.max_age_hours",
        kind: FieldKind::Integer {
            min: 0,
            max: 100_000,
        },
        description: "At startup/clear, hand back checkpoints younger than this.",
    },
    FieldSpec {
        key: "resumption.stale_after_minutes",
        kind: FieldKind::Integer {
            min: 0,
            max: 100_000,
        },
        description: "Warn when the source file's updated_at is older than this.",
    },
    FieldSpec {
        key: "resumption.tail_bytes",
        kind: FieldKind::Integer {
            min: 4096,
            max: 1024 * MIB,
        },
        description: "How much of the transcript's end derivation reads.",
    },
    FieldSpec {
        key: "resumption.max_source_bytes",
        kind: FieldKind::Integer {
            min: 1,
            max: 64 * MIB,
        },
        description: "Source files larger than this are ignored with a warning.",
    },
    FieldSpec {
        key: "resume_logs.enabled",
        kind: FieldKind::Bool,
        description: "Write resume logs on the configured triggers.",
    },
    FieldSpec {
        key: "resume_logs.triggers",
        kind: FieldKind::StringList,
        description: "pre_compact, session_end, manual, tier:<tier> (e.g. tier:critical).",
    },
    FieldSpec {
        key: "resume_logs.keep",
        kind: FieldKind::Integer {
            min: 1,
            max: 100_000,
        },
        description: "How many resume logs cleanup keeps.",
    },
    FieldSpec {
        key: "checkpoints.keep",
        kind: FieldKind::Integer {
            min: CheckpointsConfig::KEEP_MIN,
            max: CheckpointsConfig::KEEP_MAX,
        },
        description: "After each compaction, acknowledged checkpoints older than the newest this many are deleted (never the session's newest, one a resume log names, or an unacknowledged one).",
    },
    FieldSpec {
        key: "codex.auto_compact_token_limit",
        kind: FieldKind::OptionalInteger { min: 1 },
        description: "Codex CLI's auto-compaction point in tokens; overrides model_auto_compact_token_limit from Codex's config.toml. Unset: that setting, else Codex's default (90% of the model's raw window, 244,800 when Codex reports 258,400). Can only lower Codex's default.",
    },
    FieldSpec {
        key: "statusline.format",
        kind: FieldKind::String,
        description: "What `ctxmon statusline` prints: text with fields in braces ({percent}, {bar}, {tokens}, {window}, {tier}, {until-compact}, {turns-left}, {model}, {branch}; {{ and }} for braces). A narrow line drops branch, model, until-compact and turns-left, tokens and window, bar, tier, in that order. `--format` overrides it.",
    },
];

/// Looks up a key's description.
pub fn field(key: &str) -> Option<&'static FieldSpec> {
    FIELDS.iter().find(|f| f.key == key)
}

/// A JSON Schema (draft 2020-12) of the whole configuration, with each key's default.
pub fn json_schema() -> Value {
    let defaults = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
    let mut sections: Map<String, Value> = Map::new();
    for spec in FIELDS {
        let (section, name) = spec.key.split_once('.').unwrap_or(("", spec.key));
        let mut default = defaults
            .get(section)
            .and_then(|s| s.get(name))
            .cloned()
            .unwrap_or(Value::Null);
        // A hook's deadline key is unset by default, and the hook then runs on its built-in
        // deadline (or on `hooks.deadline_ms`, when that is set).
        if let FieldKind::Deadline(Some(hook)) = spec.kind {
            default = json!(hook.built_in_ms());
        }
        let mut prop = kind_schema(spec.kind);
        if let Value::Object(obj) = &mut prop {
            obj.insert("description".into(), Value::String(spec.description.into()));
            if !default.is_null() {
                obj.insert("default".into(), default);
            }
        }
        let entry = sections.entry(section.to_string()).or_insert_with(
            || json!({"type": "object", "additionalProperties": false, "properties": {}}),
        );
        if let Some(props) = entry.get_mut("properties").and_then(Value::as_object_mut) {
            props.insert(name.to_string(), prop);
        }
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ctxmon configuration",
        "description": "Layered: defaults < user < .ctxmon/config.toml < .ctxmon/config.local.toml < CTXMON_* env < flags",
        "type": "object",
        "additionalProperties": false,
        "properties": sections,
    })
}

fn kind_schema(kind: FieldKind) -> Value {
    match kind {
        FieldKind::Bool => json!({"type": "boolean"}),
        FieldKind::Integer { min, max } => {
            json!({"type": "integer", "minimum": min, "maximum": max})
        }
        FieldKind::OptionalInteger { min } => json!({"type": ["integer", "null"], "minimum": min}),
        FieldKind::Ratio => json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}),
        FieldKind::String => json!({"type": "string", "minLength": 1}),
        FieldKind::Enum(values) => json!({"type": "string", "enum": values}),
        FieldKind::StringList => json!({"type": "array", "items": {"type": "string"}}),
        FieldKind::IntegerMap => {
            json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}})
        }
        FieldKind::Deadline(_) => json!({
            "type": ["integer", "null"],
            "minimum": MIN_DEADLINE_MS,
            "maximum": MAX_DEADLINE_MS,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf_keys(prefix: &str, v: &Value, out: &mut Vec<String>) {
        match v {
            // `models` is a map the user fills, so it is a leaf of the schema.
            Value::Object(map) if !prefix.ends_with("models") => {
                for (k, child) in map {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    leaf_keys(&key, child, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }

    #[test]
    fn table_covers_every_config_key_exactly() {
        let mut keys = Vec::new();
        leaf_keys(
            "",
            &serde_json::to_value(Config::default()).unwrap(),
            &mut keys,
        );
        keys.sort();
        let mut table: Vec<String> = FIELDS.iter().map(|f| f.key.to_string()).collect();
        table.sort();
        assert_eq!(keys, table);
    }

    #[test]
    fn every_hook_has_its_deadline_key_with_its_limit_and_built_in_default() {
        let s = json_schema();
        for hook in Hook::ALL {
            let spec = field(hook.key()).unwrap();
            assert_eq!(spec.kind, FieldKind::Deadline(Some(hook)));
            let name = hook.key().strip_prefix("hooks.").unwrap();
            let p = &s["properties"]["hooks"]["properties"][name];
            assert_eq!(p["maximum"], MAX_DEADLINE_MS, "{p}");
            assert_eq!(p["default"], hook.built_in_ms(), "{p}");
        }
        let fallback = &s["properties"]["hooks"]["properties"]["deadline_ms"];
        assert_eq!(fallback["maximum"], 600_000);
        assert_eq!(
            fallback.get("default"),
            None,
            "unset by default: {fallback}"
        );
    }

    #[test]
    fn schema_carries_post_compaction_percent_bounds() {
        let s = json_schema();
        let p = &s["properties"]["context_monitor"]["properties"]["post_compaction_percent"];
        assert_eq!(p["minimum"], 10);
        assert_eq!(p["maximum"], 60);
        assert_eq!(p["default"], 30);
    }
}
