//! The agents' own settings files on disk (Claude Code's `settings.json` layers, Codex's
//! `config.toml` layers) for the library's settings readers
//! (`ctxmon_application::readers::settings`), which decide what they say. Reading is bounded
//! and fails open: regular files only (a FIFO never blocks), at most `MAX_SETTINGS_BYTES` each,
//! and a file that cannot be read is a warning, ignored.

use std::path::Path;

use ctxmon_application::readers::settings::{MAX_SETTINGS_BYTES, SettingsSource};

use crate::fsutil;

/// The agents' settings files as the settings readers ask for them.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentSettingsFiles;

impl SettingsSource for AgentSettingsFiles {
    fn read(&mut self, path: &Path) -> Result<Option<Vec<u8>>, String> {
        // No file (or a path through a file) is the usual case, not a problem worth a warning.
        let absent = [
            std::io::ErrorKind::NotFound,
            std::io::ErrorKind::NotADirectory,
        ];
        let mut warnings = Vec::new();
        match fsutil::read_consulted_bytes(path, MAX_SETTINGS_BYTES, &absent, &mut warnings) {
            Some(bytes) => Ok(Some(bytes)),
            None => match warnings.pop() {
                Some(why) => Err(why),
                None => Ok(None),
            },
        }
    }

    /// Both resolved through links first, as Codex compares a trusted project's path.
    fn same_folder(&self, a: &Path, b: &Path) -> bool {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        canonical(a) == canonical(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_application::readers::settings::codex::read_auto_compact;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// A project trusted by its real path is trusted when named through a link to it.
    #[cfg(unix)]
    #[test]
    fn a_project_is_trusted_through_a_link_to_its_folder() {
        let home = tempfile::tempdir().expect("tmp");
        let project = tempfile::tempdir().expect("tmp");
        let link = home.path().join("link");
        std::os::unix::fs::symlink(project.path(), &link).expect("link");
        let key = std::fs::canonicalize(project.path()).expect("canonical");
        write(
            &home.path().join("config.toml"),
            &format!(
                "[projects.{:?}]\ntrust_level = \"trusted\"\n",
                key.display().to_string()
            ),
        );
        write(
            &project.path().join(".codex/config.toml"),
            "model_auto_compact_token_limit = 150000\n",
        );
        let env = [("CODEX_HOME".to_string(), home.path().display().to_string())];
        let read = read_auto_compact(&link, &env, &mut AgentSettingsFiles);
        assert_eq!(read.auto_compact_token_limit, Some(150_000), "{read:?}");
    }

    #[test]
    fn missing_files_are_quiet_and_unreadable_ones_warn() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut files = AgentSettingsFiles;
        assert_eq!(files.read(&dir.path().join("none.toml")), Ok(None));
        assert_eq!(files.read(&dir.path().join("none.toml/x")), Ok(None));
        let why = files.read(dir.path()).expect_err("a folder is no file");
        assert!(why.contains("not a file"), "{why}");
        write(&dir.path().join("c.toml"), "x = 1\n");
        assert_eq!(
            files.read(&dir.path().join("c.toml")),
            Ok(Some(b"x = 1\n".to_vec()))
        );
    }
}
