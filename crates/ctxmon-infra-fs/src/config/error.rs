//! The configuration error: what went wrong, with the key and the file or variable it came from.
//!
//! One type covers loading and `config set`, so the CLI maps every configuration problem to the
//! same exit code (2) and every message has the same shape:
//! `invalid configuration: <key> = <value> from <source>: <what is wrong>`.

use std::fmt;

use ctxmon_application::config::FIELDS;

/// What kind of problem it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigErrorKind {
    /// The file is not TOML (or not UTF-8, or absurdly large).
    Parse,
    /// A key that the configuration does not have.
    UnknownKey,
    /// A known key with a value of the wrong type or out of range, or values that break a rule
    /// together (thresholds out of order).
    InvalidValue,
    /// A file could not be read or written.
    Io,
}

/// One offending setting: the key, its value as TOML, and where the value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub key: String,
    pub value: String,
    pub source: String,
}

/// A configuration problem. When there are several, the first is in the fields and the rest are
/// in `more`, so a user can fix a file in one go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub kind: ConfigErrorKind,
    /// The dotted key; a rule spanning keys joins them with ", ".
    pub key: Option<String>,
    /// A file path, `environment variable CTXMON_…`, `command line` or `the built-in default` (empty only
    /// for an I/O error with no file, such as the user scope without a home). For a rule
    /// spanning keys, the highest-precedence source among them (the value most likely to be the
    /// new, wrong one).
    pub source: String,
    pub message: String,
    /// The values involved, for the message; empty when there are none (unknown keys, I/O).
    pub settings: Box<[Setting]>,
    /// Further problems (boxed slices keep `Result<_, ConfigError>` small).
    pub more: Box<[ConfigError]>,
}

impl ConfigError {
    pub(crate) fn new(
        kind: ConfigErrorKind,
        key: Option<String>,
        source: impl Into<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError {
            kind,
            key,
            source: source.into(),
            message: message.into(),
            settings: Box::default(),
            more: Box::default(),
        }
    }

    pub(crate) fn invalid(setting: Setting, message: impl Into<String>) -> ConfigError {
        ConfigError {
            kind: ConfigErrorKind::InvalidValue,
            key: Some(setting.key.clone()),
            source: setting.source.clone(),
            message: message.into(),
            settings: Box::new([setting]),
            more: Box::default(),
        }
    }

    /// An unknown key, with the nearest known key as a suggestion. `env_style` spells the
    /// suggestion as an environment variable.
    pub(crate) fn unknown_key(
        key: &str,
        source: impl Into<String>,
        env_style: bool,
    ) -> ConfigError {
        let message = match suggest_key(key) {
            Some(s) if env_style => format!("did you mean {}?", env_var_name(s)),
            Some(s) => format!("did you mean {s}?"),
            None => "`ctxmon config schema` lists every key".to_string(),
        };
        ConfigError::new(
            ConfigErrorKind::UnknownKey,
            Some(key.to_string()),
            source,
            message,
        )
    }

    /// Folds several errors into one (the first, with the others in `more`).
    pub(crate) fn combine(errors: Vec<ConfigError>) -> Option<ConfigError> {
        let mut flat = Vec::new();
        for mut e in errors {
            let more = std::mem::take(&mut e.more);
            flat.push(e);
            flat.extend(more.into_vec());
        }
        let mut iter = flat.into_iter();
        let mut first = iter.next()?;
        first.more = iter.collect();
        Some(first)
    }

    /// This error and every further one, in order.
    pub fn all(&self) -> impl Iterator<Item = &ConfigError> {
        std::iter::once(self).chain(self.more.iter())
    }

    fn fmt_one(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ConfigErrorKind::Io if self.source.is_empty() => {
                write!(f, "cannot use configuration file: {}", self.message)
            }
            ConfigErrorKind::Io => write!(
                f,
                "cannot use configuration file {}: {}",
                self.source, self.message
            ),
            ConfigErrorKind::Parse => write!(
                f,
                "invalid configuration: cannot parse {}: {}",
                self.source, self.message
            ),
            ConfigErrorKind::UnknownKey => write!(
                f,
                "invalid configuration: unknown key {} from {}: {}",
                self.key.as_deref().unwrap_or("?"),
                self.source,
                self.message
            ),
            ConfigErrorKind::InvalidValue if !self.settings.is_empty() => {
                f.write_str("invalid configuration: ")?;
                for (i, s) in self.settings.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} = {} from {}", s.key, s.value, s.source)?;
                }
                write!(f, ": {}", self.message)
            }
            ConfigErrorKind::InvalidValue => write!(
                f,
                "invalid configuration: {} from {}: {}",
                self.key.as_deref().unwrap_or("?"),
                self.source,
                self.message
            ),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_one(f)?;
        for e in self.more.iter() {
            f.write_str("\n")?;
            e.fmt_one(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// `context_monitor.warning_threshold` → `CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD`.
pub(crate) fn env_var_name(key: &str) -> String {
    format!("CTXMON_{}", key.replace('.', "__").to_ascii_uppercase())
}

/// The known key a user most likely meant: one with the same last segment (a key put in the
/// wrong section), else the nearest by edit distance when it is close enough to be a typo.
pub fn suggest_key(key: &str) -> Option<&'static str> {
    let last = key.rsplit('.').next().unwrap_or(key);
    if let Some(spec) = FIELDS
        .iter()
        .find(|f| f.key.rsplit('.').next() == Some(last) && f.key != key)
    {
        return Some(spec.key);
    }
    let limit = 3.max(key.len() / 5);
    // The distance is at least the difference in length, so a key that differs from every
    // known key by more than `limit` in length needs no quadratic comparison (found by fuzzing:
    // a 900 KB key in config.toml took a hook 1.3 s in a release build).
    let (best, distance) = FIELDS
        .iter()
        .filter(|f| f.key.len().abs_diff(key.len()) <= limit)
        .map(|f| (f.key, edit_distance(key, f.key)))
        .min_by_key(|(_, d)| *d)?;
    (distance <= limit).then_some(best)
}

/// Levenshtein distance over bytes; keys are ASCII.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn suggestions_catch_typos_and_wrong_sections() {
        assert_eq!(
            suggest_key("context_monitor.warning_treshold"),
            Some("context_monitor.warning_threshold")
        );
        assert_eq!(
            suggest_key("context_monitor.deadline_ms"),
            Some("hooks.deadline_ms")
        );
        assert_eq!(suggest_key("completely.unrelated_thing_here"), None);
    }

    #[test]
    fn a_huge_unknown_key_is_answered_at_once() {
        // Before the length bound, each of the ~30 comparisons cost len × 40 steps: seconds.
        let key = format!("hooks.deadline_ms_{}", "x".repeat(900_000));
        let started = std::time::Instant::now();
        assert_eq!(suggest_key(&key), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // Keys near a known one's length are still compared.
        assert_eq!(suggest_key("hooks.dedline_ms"), Some("hooks.deadline_ms"));
    }

    #[test]
    fn display_lists_every_error() {
        let a = ConfigError::unknown_key("hooks.deadline", "/p/c.toml", false);
        let b = ConfigError::unknown_key("hooks.deadline", "environment variable X", true);
        let all = ConfigError::combine(vec![a, b]).map(|e| e.to_string());
        assert_eq!(
            all.as_deref(),
            Some(
                "invalid configuration: unknown key hooks.deadline from /p/c.toml: did you mean hooks.deadline_ms?\n\
                 invalid configuration: unknown key hooks.deadline from environment variable X: did you mean CTXMON_HOOKS__DEADLINE_MS?"
            )
        );
    }
}
