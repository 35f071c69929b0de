//! A snapshot of environment variables, taken once at the edge, so loading is hermetic.
//!
//! Configuration never reads the process environment itself: the composition root takes a
//! snapshot with [`EnvVars::from_process`] and tests build one from literal pairs. That keeps
//! tests independent of the machine they run on and of each other (no `set_var` races).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// The prefix of the variables that set configuration keys; matched case-insensitively, like
/// the rest of the name.
pub(crate) const ENV_PREFIX: &str = "CTXMON_";

/// True for a variable configuration reads.
fn is_read(name: &str) -> bool {
    name.get(..ENV_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(ENV_PREFIX))
        || name == "HOME"
        || name == "XDG_CONFIG_HOME"
}

/// Environment variables by name. Names that are not UTF-8 are dropped (no variable ctxmon reads
/// has one); values stay `OsString` because `HOME` may be any path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvVars {
    vars: BTreeMap<String, OsString>,
}

impl EnvVars {
    /// An empty environment.
    pub fn new() -> EnvVars {
        EnvVars::default()
    }

    /// The variables of the current process's environment that configuration reads. Call
    /// this once, in the composition root.
    pub fn from_process() -> EnvVars {
        EnvVars::read_from(std::env::vars_os())
    }

    /// Of `vars`, only what configuration reads: the `CTXMON_*` variables (in any case) and
    /// where the user's configuration file is (`HOME`, `XDG_CONFIG_HOME`). An agent runs its
    /// hooks with an environment of a hundred variables or more, and every hook call took a
    /// copy of all of them into this map.
    pub fn read_from(vars: impl IntoIterator<Item = (OsString, OsString)>) -> EnvVars {
        let vars = vars
            .into_iter()
            .filter_map(|(k, v)| k.into_string().ok().map(|k| (k, v)))
            .filter(|(k, _)| is_read(k))
            .collect();
        EnvVars { vars }
    }

    /// Adds or replaces one variable (builder style, for tests and callers that adjust a
    /// snapshot).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<OsString>) -> EnvVars {
        self.vars.insert(name.into(), value.into());
        self
    }

    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(name).map(OsString::as_os_str)
    }

    /// Every variable, sorted by name, so layering is deterministic.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OsStr)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_os_str()))
    }
}

impl<K: Into<String>, V: Into<OsString>> FromIterator<(K, V)> for EnvVars {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        EnvVars {
            vars: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_configuration_reads_is_kept() {
        let pair = |k: &str, v: &str| (OsString::from(k), OsString::from(v));
        let env = EnvVars::read_from([
            pair("PATH", "/usr/bin"),
            pair("HOME", "/home/u"),
            pair("XDG_CONFIG_HOME", "/home/u/.cfg"),
            pair("CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD", "0.6"),
            pair("ctxmon_hooks__deadline_ms", "900"),
            pair("CTXMONX", "1"),
            pair("CLAUDE_PROJECT_DIR", "/p"),
        ]);
        let names: Vec<&str> = env.iter().map(|(k, _)| k).collect();
        assert_eq!(
            names,
            [
                "CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD",
                "HOME",
                "XDG_CONFIG_HOME",
                "ctxmon_hooks__deadline_ms"
            ]
        );
        assert_eq!(env.get("HOME"), Some(OsStr::new("/home/u")));
    }
}
