//! The file `ctxmon install` and `uninstall` edit, and everything done to it on disk: where it
//! is for each agent and scope, reading it without trusting it, refusing before anything is
//! written when it cannot be replaced, and the backup, record and atomic write themselves.
//!
//! - Claude Code: `.claude/settings.json` (project), `.claude/settings.local.json` (local),
//!   `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json` (user).
//! - Codex: `.codex/hooks.json` (project), `$CODEX_HOME/hooks.json`, else
//!   `~/.codex/hooks.json` (user); Codex has no local scope. A `CODEX_HOME` that is set but
//!   empty counts as unset, as Codex reads it.

use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use ctxmon_infra_fs::fsutil::{self, Durability};

use super::leftovers;

use crate::bootstrap;
use crate::cli::{Agent, GlobalArgs, SettingsScope};
use crate::exit::Failure;
use crate::install::merge;

/// Far above any real settings file; a bigger one is something else and is not read whole.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// A status line ctxmon replaced, as found on disk for uninstall.
pub(super) enum SavedStatusLine {
    None,
    /// Its JSON text, where it came from, and whether that is the record (not the backup).
    Found {
        raw: String,
        source: String,
        record: bool,
    },
    /// A record exists but cannot be used: why.
    Unusable(String),
}

impl SavedStatusLine {
    pub(super) fn restore(&self) -> merge::Restore<'_> {
        match self {
            SavedStatusLine::None => merge::Restore::Nothing,
            SavedStatusLine::Found { raw, source, .. } => merge::Restore::From { raw, source },
            SavedStatusLine::Unusable(why) => merge::Restore::Unusable(why),
        }
    }
}

/// Replaces `path` atomically, its temp file named as only ctxmon names it
/// ([`leftovers::TEMP_PREFIX`]): killed mid-write, it is then recognisably ctxmon's to clean.
fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    fsutil::write_atomic_named(path, bytes, durability, leftovers::TEMP_PREFIX)
}

/// The text of a small file that may not exist; `Ok(None)` when it does not. Only a regular
/// file is read (a FIFO would hang uninstall).
fn read_small(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read;
    let file = match fsutil::open_regular(path) {
        Ok((file, _)) => file,
        Err(fsutil::OpenRegularError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(fsutil::OpenRegularError::Io(e)) => return Err(e.to_string()),
        Err(fsutil::OpenRegularError::NotAFile(what)) => return Err(format!("it is {what}")),
    };
    let mut bytes = Vec::new();
    file.take(MAX_SETTINGS_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "it is not UTF-8".to_string())
}

/// An agent's settings file: the path the user knows and where its bytes really are.
#[derive(Debug)]
pub(super) struct Target {
    pub agent: Agent,
    pub scope: SettingsScope,
    pub path: PathBuf,
    /// `path`, or the file its symlink resolves to.
    pub write_path: PathBuf,
    pub backup: PathBuf,
    /// Where a status line `--replace-statusline` replaced is kept until uninstall.
    pub record: PathBuf,
}

/// The folder of `var` when it is set and not empty, else `fallback` below `$HOME`.
fn config_home(var: &str, fallback: &str, what: &str) -> Result<PathBuf, Failure> {
    match bootstrap::env_var(var) {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => bootstrap::env_var("HOME")
            .map(|home| PathBuf::from(home).join(fallback))
            .ok_or_else(|| {
                Failure::usage(anyhow!(
                    "cannot find the {what}: neither {var} nor HOME is set"
                ))
            }),
    }
}

/// Where `agent` keeps the file of `scope` (its description's `settings`).
fn settings_path(
    agent: Agent,
    scope: SettingsScope,
    global: &GlobalArgs,
) -> Result<PathBuf, Failure> {
    let d = agent.description();
    let files = &d.settings;
    Ok(match scope {
        SettingsScope::Project => bootstrap::existing_project_dir(global)?
            .join(files.folder)
            .join(files.hooks_file),
        SettingsScope::Local => match files.local_file {
            Some(local) => bootstrap::existing_project_dir(global)?
                .join(files.folder)
                .join(local),
            None => {
                return Err(Failure::usage(anyhow!(
                    "--scope local is Claude Code's (.claude/settings.local.json); {} reads \
                     {}/{} (--scope project) and the user's (--scope user)",
                    d.name,
                    files.folder,
                    files.hooks_file
                )));
            }
        },
        SettingsScope::User => match files.user_dir_env {
            Some(var) => config_home(var, files.folder, &format!("{} folder", d.name))?,
            None => bootstrap::env_var("HOME")
                .map(|home| PathBuf::from(home).join(files.folder))
                .ok_or_else(|| {
                    Failure::usage(anyhow!(
                        "cannot find the {} folder: HOME is not set",
                        d.name
                    ))
                })?,
        }
        .join(files.hooks_file),
    })
}

/// The scopes `agent` reads hooks from.
fn scopes_of(agent: Agent) -> &'static [SettingsScope] {
    if agent.description().settings.local_file.is_some() {
        &[
            SettingsScope::Project,
            SettingsScope::Local,
            SettingsScope::User,
        ]
    } else {
        &[SettingsScope::Project, SettingsScope::User]
    }
}

/// True when the settings document `text` registers any `ctxmon hooks …` command. A file that
/// is not JSON registers nothing ctxmon can see (install refuses such a target anyway).
pub(super) fn registers_ctxmon_hooks(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Comments blanked: Gemini CLI's settings may have them.
    let text = ctxmon_application::readers::json::comments::blank_comments(text);
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    let Some(events) = value.get("hooks").and_then(serde_json::Value::as_object) else {
        return false;
    };
    events
        .values()
        .filter_map(serde_json::Value::as_array)
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(serde_json::Value::as_array))
        .flatten()
        .filter_map(|hook| hook.get("command").and_then(serde_json::Value::as_str))
        .any(|command| {
            crate::install::command_line::ctxmon_args(command)
                .is_some_and(|args| args.first() == Some(&"hooks"))
        })
}

impl Target {
    /// Another scope of this agent whose file already registers ctxmon's hooks: the agent runs
    /// the hooks of every file it reads, so registering here too would give it every tag
    /// twice. Its scope and path, the first found.
    pub(super) fn registered_elsewhere(
        &self,
        global: &GlobalArgs,
    ) -> Option<(SettingsScope, PathBuf)> {
        let here = fs::canonicalize(&self.write_path).unwrap_or_else(|_| self.path.clone());
        for &scope in scopes_of(self.agent).iter().filter(|s| **s != self.scope) {
            let Ok(path) = settings_path(self.agent, scope, global) else {
                continue;
            };
            let path = std::path::absolute(&path).unwrap_or(path);
            // Two scopes can name one file (a project whose folder is the Codex or Claude
            // home, a link): that is one registration, not two.
            if fs::canonicalize(&path).is_ok_and(|p| p == here) {
                continue;
            }
            if let Ok(Some(text)) = read_small(&path)
                && registers_ctxmon_hooks(&text)
            {
                return Some((scope, path));
            }
        }
        None
    }

    pub(super) fn resolve(
        agent: Agent,
        scope: SettingsScope,
        global: &GlobalArgs,
    ) -> Result<Target, Failure> {
        let path = settings_path(agent, scope, global)?;
        let path = std::path::absolute(&path).unwrap_or(path);
        let beside = |suffix: &str| {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            PathBuf::from(name)
        };
        let (backup, record) = (beside(".ctxmon-backup"), beside(".ctxmon-statusline"));
        let write_path = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                fs::canonicalize(&path).map_err(|e| {
                    let to = fs::read_link(&path).unwrap_or_default();
                    anyhow!(
                        "{} is a symlink to {}, which cannot be opened ({e}); fix or remove the link and run again",
                        path.display(),
                        to.display()
                    )
                })?
            }
            Ok(meta) if meta.is_dir() => {
                return Err(anyhow!("{} is a folder, not a settings file", path.display()).into());
            }
            _ => path.clone(),
        };
        Ok(Target {
            agent,
            scope,
            path,
            write_path,
            backup,
            record,
        })
    }

    /// The status line ctxmon replaced: from the record, else (installs older than records)
    /// from the backup, which is used only when it is readable and holds someone else's line.
    /// An agent without a status line has none, so nothing is looked for.
    pub(super) fn saved_statusline(&self) -> SavedStatusLine {
        if !self.agent.description().status_line {
            return SavedStatusLine::None;
        }
        let shown = self.record.display();
        match read_small(&self.record) {
            Ok(Some(text)) => match merge::statusline_in(&text) {
                Some(raw) => SavedStatusLine::Found {
                    raw,
                    source: shown.to_string(),
                    record: true,
                },
                None => SavedStatusLine::Unusable(format!(
                    "{shown} holds no status line ctxmon can put back (not strict JSON, or no \
                     `statusLine` that is not ctxmon's)"
                )),
            },
            Err(why) => SavedStatusLine::Unusable(format!("{shown} cannot be read ({why})")),
            Ok(None) => match read_small(&self.backup)
                .ok()
                .flatten()
                .as_deref()
                .and_then(merge::statusline_in)
            {
                Some(raw) => SavedStatusLine::Found {
                    raw,
                    source: self.backup.display().to_string(),
                    record: false,
                },
                None => SavedStatusLine::None,
            },
        }
    }

    /// The file's text, `None` when there is no file yet.
    pub(super) fn read(&self) -> Result<Option<String>, Failure> {
        let shown = self.path.display();
        let meta = match fs::metadata(&self.write_path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(anyhow!("cannot read {shown}: {e}").into()),
        };
        if !meta.is_file() {
            // Reading a FIFO would hang until a writer appears; a directory cannot be edited.
            return Err(anyhow!(
                "{shown} is {}, not a settings file; nothing was changed",
                fsutil::kind_of(&meta)
            )
            .into());
        }
        if meta.len() > MAX_SETTINGS_BYTES {
            return Err(anyhow!(
                "{shown} is {} bytes, too large for a settings file; nothing was changed",
                ctxmon_domain::human::thousands(meta.len())
            )
            .into());
        }
        let bytes = fs::read(&self.write_path).map_err(|e| anyhow!("cannot read {shown}: {e}"))?;
        String::from_utf8(bytes).map(Some).map_err(|_| {
            anyhow!("{shown} is not UTF-8 text; fix the file and run again (nothing was changed)")
                .into()
        })
    }

    /// Refuses before anything is written (backup included) when the file or its folder
    /// cannot be replaced, or the user marked the file read-only.
    fn check_writable(&self, exists: bool) -> Result<Option<fs::Permissions>, Failure> {
        let shown = self.path.display();
        let nothing = "nothing was changed";
        let mut permissions = None;
        if exists {
            let meta = fs::metadata(&self.write_path)
                .map_err(|e| anyhow!("cannot read {shown}: {e}; {nothing}"))?;
            if meta.permissions().readonly() {
                return Err(anyhow!(
                    "{shown} is read-only{}; make it writable (chmod u+w) or pick another --scope; {nothing}",
                    owner(&meta)
                )
                .into());
            }
            // Opening for writing (no truncation) asks the OS the real question: a file owned
            // by someone else fails here even where the folder would allow a rename over it.
            OpenOptions::new()
                .write(true)
                .open(&self.write_path)
                .map_err(|e| anyhow!("cannot write {shown}{}: {e}; {nothing}", owner(&meta)))?;
            permissions = Some(meta.permissions());
        }
        if let Some(dir) = self.write_path.parent().filter(|d| d.is_dir()) {
            tempfile::Builder::new()
                .prefix(leftovers::PROBE_PREFIX)
                .tempfile_in(dir)
                .map_err(|e| {
                    anyhow!(
                        "cannot write in {} (needed to replace {shown} atomically): {e}; {nothing}",
                        dir.display()
                    )
                })?;
        }
        Ok(permissions)
    }

    /// Saves `original` as the backup, once the file is known to be replaceable.
    fn back_up(&self, original: &str) -> Result<(), Failure> {
        write_atomic(&self.backup, original.as_bytes(), Durability::Fsync).map_err(|e| {
            anyhow!(
                "cannot save the backup {}: {e}; nothing was changed",
                self.backup.display()
            )
            .into()
        })
    }

    /// Writes the status-line record (when install replaced one), the backup (when `back_up`),
    /// then the file: each step only once the one before it is safely on disk.
    pub(super) fn write(
        &self,
        original: Option<&str>,
        text: &str,
        record: Option<&str>,
        back_up: bool,
    ) -> Result<(), Failure> {
        let permissions = self.check_writable(original.is_some())?;
        if let Some(record) = record {
            write_atomic(&self.record, record.as_bytes(), Durability::Fsync).map_err(|e| {
                anyhow!(
                    "cannot keep the replaced status line in {}: {e}; nothing was changed",
                    self.record.display()
                )
            })?;
        }
        if let (Some(original), true) = (original, back_up) {
            self.back_up(original)?;
        }
        write_atomic(&self.write_path, text.as_bytes(), Durability::Fsync)
            .map_err(|e| anyhow!("cannot write {}: {e}", self.path.display()))?;
        if let Some(permissions) = permissions {
            // write_atomic creates 0600; a file the user had shared keeps its mode.
            fs::set_permissions(&self.write_path, permissions).map_err(|e| {
                anyhow!(
                    "wrote {} but could not restore its permissions: {e}",
                    self.path.display()
                )
            })?;
        }
        Ok(())
    }

    /// Removes the file, after saving `original` as the backup when `back_up` (uninstall of a
    /// Codex `hooks.json` that held nothing but ctxmon's hooks). A symlinked file is not
    /// removed: its target gets `empty` instead, so neither the link nor the file it points to
    /// is lost.
    pub(super) fn remove(&self, original: &str, empty: &str, back_up: bool) -> Result<(), Failure> {
        if self.write_path != self.path {
            return self.write(Some(original), empty, None, back_up);
        }
        self.check_writable(true)?;
        if back_up {
            self.back_up(original)?;
        }
        fs::remove_file(&self.path)
            .map_err(|e| anyhow!("cannot remove {}: {e}", self.path.display()).into())
    }

    /// After a project's file was removed: its folder (`.codex/`), when nothing else is in it
    /// any more, is removed too and returned. A user's folder stays: it is the agent's home.
    pub(super) fn remove_empty_folder(&self) -> Option<PathBuf> {
        if self.scope == SettingsScope::User {
            return None;
        }
        let dir = self.path.parent()?;
        // remove_dir refuses a folder that holds anything, which is what keeps it.
        fs::remove_dir(dir).ok().map(|()| dir.to_path_buf())
    }

    /// What to do with a backup install keeps inside the project, where git would list it:
    /// the pattern for `.gitignore` of the agent's folder.
    pub(super) fn backup_hint(&self) -> Option<String> {
        if self.scope == SettingsScope::User {
            return None;
        }
        let folder = self.agent.description().settings.folder;
        Some(format!(
            "it is not for committing: delete it when the change is what you want, or add \
             `{folder}/*.ctxmon-*` to .gitignore"
        ))
    }

    /// The folders install writes in (the file's, and its link target's): where an
    /// interrupted run leaves its temp files.
    pub(super) fn folders(&self) -> Vec<&Path> {
        let mut dirs: Vec<&Path> = Vec::new();
        for path in [&self.path, &self.write_path] {
            if let Some(dir) = path.parent().filter(|d| !dirs.contains(d)) {
                dirs.push(dir);
            }
        }
        dirs
    }

    /// Install's backup, the file as it was before: `None` when there is none (install found no
    /// file) or it cannot be read.
    pub(super) fn backup_text(&self) -> Option<String> {
        read_small(&self.backup).ok().flatten()
    }

    /// Whether install's backup is there (a regular file: a link or folder by that name is not
    /// ctxmon's, and is left alone).
    pub(super) fn backup_exists(&self) -> bool {
        fs::symlink_metadata(&self.backup).is_ok_and(|m| m.is_file())
    }

    /// Deletes install's backup; `Ok(false)` when there is none.
    pub(super) fn delete_backup(&self) -> io::Result<bool> {
        if !self.backup_exists() {
            return Ok(false);
        }
        match fs::remove_file(&self.backup) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[cfg(unix)]
fn owner(meta: &fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    format!(
        " (owner uid {}, mode {:o})",
        meta.uid(),
        meta.mode() & 0o7777
    )
}

#[cfg(not(unix))]
fn owner(_meta: &fs::Metadata) -> String {
    String::new()
}
