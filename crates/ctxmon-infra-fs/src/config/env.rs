//! A snapshot of environment variables, taken once at the edge, so loading is hermetic.
//!
//! Configuration never reads the process environment itself: the composition root takes a
//! snapshot with [`EnvVars::from_process`] and tests build one from literal pairs. That keeps
//! tests independent of the machine they run on and of each other (no `set_var` races).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

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

    /// The current process's environment. Call this once, in the composition root.
    pub fn from_process() -> EnvVars {
        std::env::vars_os()
            .filter_map(|(k, v)| k.into_string().ok().map(|k| (k, v)))
            .collect()
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
