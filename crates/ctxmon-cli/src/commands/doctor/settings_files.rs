//! Where Claude Code keeps its settings files (project, local, user) and how doctor reads one:
//! only a regular file, and no more than a settings file can be.

use std::path::{Path, PathBuf};

use ctxmon_infra_fs::fsutil::{self, OpenRegularError};

/// Settings files are small; anything bigger is not a settings file and is not read whole.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// A Claude Code settings file and how to name it to the user.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    pub label: String,
    pub path: PathBuf,
}

/// Project, local and user settings; the user file honours `CLAUDE_CONFIG_DIR`.
pub fn settings_files(project_dir: &Path, env: &[(String, String)]) -> Vec<SettingsFile> {
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| PathBuf::from(v))
    };
    let mut files = vec![
        SettingsFile {
            label: ".claude/settings.json".into(),
            path: project_dir.join(".claude/settings.json"),
        },
        SettingsFile {
            label: ".claude/settings.local.json".into(),
            path: project_dir.join(".claude/settings.local.json"),
        },
    ];
    if let Some(dir) = var("CLAUDE_CONFIG_DIR") {
        let path = dir.join("settings.json");
        files.push(SettingsFile {
            label: path.display().to_string(),
            path,
        });
    } else if let Some(home) = var("HOME") {
        files.push(SettingsFile {
            label: "~/.claude/settings.json".into(),
            path: home.join(".claude/settings.json"),
        });
    }
    files
}

/// The text of a settings file, `None` when there is none; why not, as a phrase.
pub fn read_text(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read;
    // Only a regular file is opened: a FIFO would hang doctor until a writer appears.
    let file = match fsutil::open_regular(path) {
        Ok((f, _)) => f,
        Err(OpenRegularError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(OpenRegularError::Io(e)) => return Err(format!("cannot be read ({e})")),
        Err(OpenRegularError::NotAFile(what)) => {
            return Err(format!("cannot be read (it is {what}, not a file)"));
        }
    };
    let mut text = String::new();
    file.take(MAX_SETTINGS_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot be read ({e})"))?;
    Ok(Some(text))
}
