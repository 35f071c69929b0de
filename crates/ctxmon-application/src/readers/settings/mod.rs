//! The agents' own settings that move their auto-compaction point, read as the agents read
//! them, so a figure an embedder computes equals `ctxmon status`'s, overrides included:
//! `claude_code` layers Claude Code's environment and `settings.json` files, `codex` Codex's
//! `config.toml` layers, `gemini` Gemini CLI's `model.compressionThreshold`. Both fail open: a file or value that cannot be used is a warning and
//! is ignored, never an error.
//!
//! The files are reached through a [`SettingsSource`] (this crate reads no file): the binary's
//! reads regular files only, bounded; an embedder's can be a closure over `std::fs::read`.

pub mod claude_code;
pub mod codex;
pub mod gemini;

use std::path::Path;

use crate::agents::{AgentKind, AutoCompactRule};
use crate::monitor::fill::FillSettings;

/// The most bytes of a settings file that are read: the agents' files are small.
pub const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// Where the settings readers get a file's bytes.
pub trait SettingsSource {
    /// The bytes of the file at `path` (at most [`MAX_SETTINGS_BYTES`] are used): `Ok(None)`
    /// when there is no file there (the usual case, not worth a word), `Err(why)` when there
    /// is one that cannot be read; `why` becomes a warning and the file is ignored.
    fn read(&mut self, path: &Path) -> Result<Option<Vec<u8>>, String>;

    /// Whether `a` and `b` name the same folder (Codex trusts a project by its path). Equal
    /// paths by default; the binary's source resolves links first.
    fn same_folder(&self, a: &Path, b: &Path) -> bool {
        a == b
    }
}

/// A closure that reads a path is a [`SettingsSource`] that compares folders by their paths.
impl<F> SettingsSource for F
where
    F: FnMut(&Path) -> Result<Option<Vec<u8>>, String>,
{
    fn read(&mut self, path: &Path) -> Result<Option<Vec<u8>>, String> {
        self(path)
    }
}

impl FillSettings {
    /// Sets the agent being served and applies its own auto-compaction settings, read as
    /// `ctxmon status` reads them, by the agent's rule: for Claude Code its environment
    /// variables and settings files (`claude_code`), for Codex `model_auto_compact_token_limit`
    /// from its `config.toml` layers (`codex`, unless ctxmon's own
    /// `codex.auto_compact_token_limit` is set), for Gemini CLI `model.compressionThreshold`
    /// (`gemini`). `env` is the process environment as name/value pairs; `project_dir` the
    /// project the session runs in. Returns the warnings about what was ignored.
    ///
    /// ```
    /// use std::path::Path;
    ///
    /// use ctxmon_application::monitor::fill::FillSettings;
    /// use ctxmon_application::ports::AgentKind;
    ///
    /// let mut settings = FillSettings::default();
    /// let env = [("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE".to_string(), "60".to_string())];
    /// let mut no_files = |_: &Path| Ok(None);
    /// let warnings =
    ///     settings.apply_agent_settings(AgentKind::ClaudeCode, Path::new("/p"), &env, &mut no_files);
    /// assert!(warnings.is_empty());
    /// assert_eq!(settings.auto_compact.pct_override, Some(60));
    /// ```
    pub fn apply_agent_settings(
        &mut self,
        agent: AgentKind,
        project_dir: &Path,
        env: &[(String, String)],
        source: &mut dyn SettingsSource,
    ) -> Vec<String> {
        self.agent = agent;
        match agent.description().auto_compact {
            AutoCompactRule::ReserveBelowWindow { .. } => {
                let read = claude_code::read_auto_compact(project_dir, env, source);
                self.auto_compact = read.settings;
                read.warnings
            }
            AutoCompactRule::TokenLimit { .. } => {
                if self.codex.limit.is_some() {
                    return Vec::new();
                }
                let read = codex::read_auto_compact(project_dir, env, source);
                self.codex.limit = read.auto_compact_token_limit;
                read.warnings
            }
            AutoCompactRule::ShareOfWindow { .. } => {
                let read = gemini::read_compression(project_dir, env, source);
                self.share.share = read.share;
                read.warnings
            }
        }
    }
}

/// A file's bytes through `source`, with a warning when it exists but cannot be read; bytes
/// past [`MAX_SETTINGS_BYTES`] are dropped.
fn read_file(
    source: &mut dyn SettingsSource,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Option<Vec<u8>> {
    match source.read(path) {
        Ok(Some(mut bytes)) => {
            bytes.truncate(usize::try_from(MAX_SETTINGS_BYTES).unwrap_or(usize::MAX));
            Some(bytes)
        }
        Ok(None) => None,
        Err(why) => {
            warnings.push(why);
            None
        }
    }
}

/// The value of variable `name` in `env` when it is set and not empty.
fn env_var<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter()
        .find(|(k, v)| k == name && !v.is_empty())
        .map(|(_, v)| v.as_str())
}
