//! Reading and checking one value against its key's [`FieldKind`]: the single place that knows
//! what `true`, `0.72`, `a,b` or `{ opus = 1000000 }` mean for a given key.
//!
//! Files, environment variables, flags and `config set` all go through here, so the same value
//! is accepted or refused with the same message wherever it is written.

use ctxmon_application::config::{
    FIELDS, FieldKind, FieldSpec, MAX_DEADLINE_MS, MIN_DEADLINE_MS, expected_deadline, field,
};

/// The section of model rules; its entries are `context_monitor.models.<prefix>`.
pub(crate) const MODELS_KEY: &str = "context_monitor.models";

/// A dotted key the configuration knows.
#[derive(Debug, Clone)]
pub(crate) enum KeyRef {
    Field(&'static FieldSpec),
    /// One entry of `context_monitor.models`; the prefix may itself contain dots.
    ModelEntry(String),
}

impl PartialEq for KeyRef {
    fn eq(&self, other: &KeyRef) -> bool {
        match (self, other) {
            (KeyRef::Field(a), KeyRef::Field(b)) => a.key == b.key,
            (KeyRef::ModelEntry(a), KeyRef::ModelEntry(b)) => a == b,
            _ => false,
        }
    }
}

impl KeyRef {
    pub(crate) fn resolve(key: &str) -> Option<KeyRef> {
        if let Some(spec) = field(key) {
            return Some(KeyRef::Field(spec));
        }
        key.strip_prefix(MODELS_KEY)
            .and_then(|rest| rest.strip_prefix('.'))
            .filter(|prefix| !prefix.is_empty())
            .map(|prefix| KeyRef::ModelEntry(prefix.to_string()))
    }
}

/// Whether `name` is a top-level section of the configuration.
pub(crate) fn is_section(name: &str) -> bool {
    FIELDS
        .iter()
        .any(|f| f.key.split_once('.').is_some_and(|(s, _)| s == name))
}

/// What a raw string (environment variable, flag, `config set`) says to do with a key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Parsed {
    Set(toml::Value),
    /// `none` or empty for an optional key: leave it unset.
    Unset,
}

/// Describes what a key accepts, for messages ("must be …").
pub(crate) fn expected(key: &KeyRef) -> String {
    let kind = match key {
        KeyRef::ModelEntry(_) => {
            return "a window size in tokens (an integer of at least 1)".into();
        }
        KeyRef::Field(spec) => spec.kind,
    };
    match kind {
        FieldKind::Bool => "true or false".into(),
        FieldKind::Integer { min, max } => format!("an integer from {min} to {max}"),
        FieldKind::OptionalInteger { min } => format!("an integer of at least {min}"),
        FieldKind::Ratio => "a number greater than 0 and at most 1".into(),
        FieldKind::String => "a non-empty string".into(),
        FieldKind::Enum(values) => format!("one of {}", values.join(", ")),
        FieldKind::StringList => "a list of strings (comma-separated or a TOML array)".into(),
        FieldKind::IntegerMap => {
            "a table of model prefix = window size, e.g. { \"claude-opus-4\" = 1000000 }".into()
        }
        FieldKind::Deadline(_) => expected_deadline(),
    }
}

/// Checks a value (from a file, or parsed from a string) against its key. The error is the
/// sentence after "must be".
pub(crate) fn check(key: &KeyRef, value: &toml::Value) -> Result<(), String> {
    let ok = match key {
        KeyRef::ModelEntry(_) => value.as_integer().is_some_and(|n| n >= 1),
        KeyRef::Field(spec) => match spec.kind {
            FieldKind::Bool => value.is_bool(),
            FieldKind::Integer { min, max } => value
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .is_some_and(|n| (min..=max).contains(&n)),
            FieldKind::OptionalInteger { min } => value
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .is_some_and(|n| n >= min),
            FieldKind::Ratio => number(value).is_some_and(|x| x > 0.0 && x <= 1.0),
            FieldKind::String => value.as_str().is_some_and(|s| !s.trim().is_empty()),
            FieldKind::Enum(values) => value.as_str().is_some_and(|s| values.contains(&s)),
            FieldKind::StringList => value
                .as_array()
                .is_some_and(|items| items.iter().all(toml::Value::is_str)),
            FieldKind::IntegerMap => value.as_table().is_some_and(|t| {
                t.iter()
                    .all(|(k, v)| !k.is_empty() && v.as_integer().is_some_and(|n| n >= 1))
            }),
            FieldKind::Deadline(_) => value
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .is_some_and(|n| (MIN_DEADLINE_MS..=MAX_DEADLINE_MS).contains(&n)),
        },
    };
    if ok {
        Ok(())
    } else {
        Err(format!("must be {}", expected(key)))
    }
}

fn number(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Float(x) => Some(*x),
        toml::Value::Integer(n) => Some(*n as f64),
        _ => None,
    }
}

/// Reads a raw string as the key's type, then checks it. Numbers, booleans and lists are typed
/// by the key, not guessed from the text, so `resumption.source_file=2024.yaml` stays a string
/// and `CTXMON_…__WARNING_THRESHOLD=0.72` becomes a number.
pub(crate) fn parse(key: &KeyRef, raw: &str) -> Result<Parsed, String> {
    let fail = || format!("must be {}", expected(key));
    let text = raw.trim();
    let value = match key {
        KeyRef::ModelEntry(_) => integer(text).ok_or_else(fail)?,
        KeyRef::Field(spec) => match spec.kind {
            FieldKind::Bool => match text.to_ascii_lowercase().as_str() {
                "true" => toml::Value::Boolean(true),
                "false" => toml::Value::Boolean(false),
                _ => return Err(fail()),
            },
            FieldKind::Integer { .. } => integer(text).ok_or_else(fail)?,
            FieldKind::OptionalInteger { .. } | FieldKind::Deadline(_) => {
                if text.is_empty() || text.eq_ignore_ascii_case("none") {
                    return Ok(Parsed::Unset);
                }
                integer(text).ok_or_else(fail)?
            }
            FieldKind::Ratio => text
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .map(toml::Value::Float)
                .ok_or_else(fail)?,
            FieldKind::String | FieldKind::Enum(_) => toml::Value::String(unquote(raw)),
            FieldKind::StringList if text.starts_with('[') => {
                toml_literal(text).ok_or_else(fail)?
            }
            FieldKind::StringList => toml::Value::Array(
                text.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| toml::Value::String(s.to_string()))
                    .collect(),
            ),
            FieldKind::IntegerMap => toml_literal(text).ok_or_else(fail)?,
        },
    };
    check(key, &value)?;
    Ok(Parsed::Set(value))
}

/// An integer, allowing TOML's `_` digit separators (`33_000`).
fn integer(text: &str) -> Option<toml::Value> {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    digits.parse::<i64>().ok().map(toml::Value::Integer)
}

/// A TOML value written inline (`["a", "b"]`, `{ a = 1 }`).
fn toml_literal(text: &str) -> Option<toml::Value> {
    let mut table: toml::Table = toml::from_str(&format!("v = {text}")).ok()?;
    table.remove("v")
}

/// Accepts a string either bare or TOML-quoted (`"x.yaml"`), so both spellings mean the same.
fn unquote(raw: &str) -> String {
    let text = raw.trim();
    if text.len() >= 2
        && (text.starts_with('"') || text.starts_with('\''))
        && let Some(toml::Value::String(s)) = toml_literal(text)
    {
        return s;
    }
    text.to_string()
}

/// A value as it would be written in TOML, for messages.
pub(crate) fn render(value: &toml::Value) -> String {
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> KeyRef {
        KeyRef::resolve(k).unwrap_or_else(|| panic!("{k} should resolve"))
    }

    fn set(k: &str, raw: &str) -> toml::Value {
        match parse(&key(k), raw) {
            Ok(Parsed::Set(v)) => v,
            other => panic!("{k}={raw}: {other:?}"),
        }
    }

    #[test]
    fn keys_resolve_including_model_prefixes_with_dots() {
        assert!(matches!(key("hooks.deadline_ms"), KeyRef::Field(_)));
        assert_eq!(
            key("context_monitor.models.gpt-4.1"),
            KeyRef::ModelEntry("gpt-4.1".into())
        );
        assert_eq!(KeyRef::resolve("context_monitor.models."), None);
        assert_eq!(KeyRef::resolve("hooks.nope"), None);
    }

    #[test]
    fn raw_values_are_typed_by_their_key() {
        assert_eq!(
            set("context_monitor.warning_threshold", "0.72"),
            toml::Value::Float(0.72)
        );
        assert_eq!(
            set("context_monitor.emergency_threshold", "1"),
            toml::Value::Float(1.0)
        );
        assert_eq!(
            set("context_monitor.enabled", "FALSE"),
            toml::Value::Boolean(false)
        );
        assert_eq!(
            set("context_monitor.auto_compact_buffer", "33_000"),
            toml::Value::Integer(33_000)
        );
        assert_eq!(
            set("resumption.source_file", "2024.yaml"),
            toml::Value::String("2024.yaml".into())
        );
        assert_eq!(
            set("resumption.source_file", "\"a b.json\""),
            toml::Value::String("a b.json".into())
        );
        assert_eq!(
            set("context_monitor.inject", "on-change"),
            toml::Value::String("on-change".into())
        );
        let list = toml::Value::Array(vec!["manual".into(), "pre_compact".into()]);
        assert_eq!(set("resume_logs.triggers", "manual, pre_compact"), list);
        assert_eq!(
            set("resume_logs.triggers", r#"["manual", "pre_compact"]"#),
            list
        );
        assert_eq!(set("resume_logs.triggers", ""), toml::Value::Array(vec![]));
        assert_eq!(
            set("context_monitor.models.opus", "1000000"),
            toml::Value::Integer(1_000_000)
        );
        assert!(set("context_monitor.models", "{ opus = 5, \"a.b\" = 7 }").is_table());
        assert_eq!(
            parse(&key("context_monitor.context_window"), "none"),
            Ok(Parsed::Unset)
        );
    }

    #[test]
    fn bad_raw_values_say_what_is_expected() {
        let err = |k: &str, raw: &str| parse(&key(k), raw).err().unwrap_or_default();
        assert_eq!(
            err("context_monitor.post_compaction_percent", "5"),
            "must be an integer from 10 to 60"
        );
        assert_eq!(
            err("context_monitor.enabled", "yes"),
            "must be true or false"
        );
        assert!(err("context_monitor.warning_threshold", "high").contains("greater than 0"));
        assert!(err("context_monitor.warning_threshold", "NaN").contains("at most 1"));
        assert!(err("context_monitor.inject", "never").contains("always, on-change"));
        assert!(err("context_monitor.models.opus", "0").contains("at least 1"));
        assert!(err("context_monitor.models", "[1]").contains("table"));
        assert!(err("resume_logs.triggers", "[1, 2]").contains("list of strings"));
        assert!(err("hooks.deadline_ms", "-5").contains("from 50"));
        // One range for every deadline key: a hook's own and the fallback alike.
        for key in ["hooks.pre_compact_deadline_ms", "hooks.deadline_ms"] {
            assert_eq!(
                err(key, "600001"),
                "must be an integer from 50 to 600000 (milliseconds)"
            );
        }
    }

    #[test]
    fn deadlines_are_optional_and_range_checked() {
        assert_eq!(
            set("hooks.pre_compact_deadline_ms", "7499"),
            toml::Value::Integer(7_499)
        );
        assert_eq!(
            parse(&key("hooks.pre_compact_deadline_ms"), "none"),
            Ok(Parsed::Unset)
        );
        assert_eq!(parse(&key("hooks.deadline_ms"), ""), Ok(Parsed::Unset));
        // Every deadline key keeps the fallback's range, so no existing file becomes invalid.
        assert_eq!(
            set("hooks.deadline_ms", "60000"),
            toml::Value::Integer(60_000)
        );
        let k = key("hooks.session_start_deadline_ms");
        assert!(check(&k, &toml::Value::Integer(7_000)).is_ok());
        assert!(check(&k, &toml::Value::Integer(7_500)).is_ok());
        assert!(check(&k, &toml::Value::Integer(600_001)).is_err());
        assert!(check(&k, &toml::Value::String("7000".into())).is_err());
    }

    #[test]
    fn file_values_are_checked_by_type_and_range() {
        let k = key("context_monitor.warning_threshold");
        assert!(check(&k, &toml::Value::String("high".into())).is_err());
        assert!(check(&k, &toml::Value::Float(0.0)).is_err());
        assert!(check(&k, &toml::Value::Integer(1)).is_ok());
        assert!(is_section("resume_logs"));
        assert!(!is_section("warning_threshold"));
    }
}
