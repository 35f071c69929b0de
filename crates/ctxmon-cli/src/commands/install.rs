//! `ctxmon install` and `ctxmon uninstall`: find the Claude Code settings file of the scope,
//! read it without trusting it, plan the edit (`crate::install::merge`), then show it
//! (`--dry-run`) or write it atomically after saving the previous version beside it.
//!
//! Decisions, so they are made once:
//! - A settings file that is not strict JSON, is shaped wrongly where ctxmon must write, is
//!   read-only or cannot be written is refused with exit 1 and left untouched: it is the user's
//!   file, not ctxmon's configuration (exit 2 is for ctxmon's own usage and configuration).
//! - A symlinked settings file is written through: the link stays, its target changes (dotfile
//!   managers link these files); a dangling link is refused.
//! - One backup, `<file>.ctxmon-backup` beside the path the user knows, holds the file as it
//!   was before ctxmon's latest change. A run that changes nothing writes nothing, backup
//!   included.
//! - An existing file keeps its permissions; a new one is private (0600, spec §15).

use std::fs::{self, OpenOptions};
use std::io;
use std::path::PathBuf;

use anyhow::anyhow;
use ctxmon_infra_fs::fsutil::{self, Durability, write_atomic};
use serde_json::json;

use crate::bootstrap;
use crate::cli::{GlobalArgs, InstallArgs, SettingsScope, UninstallArgs};
use crate::exit::{CmdResult, Failure};
use crate::install::command_line::shell_word;
use crate::install::diff::unified;
use crate::install::merge::{self, Change, Options, Outcome, PlanError};

/// Far above any real settings file; a bigger one is something else and is not read whole.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

pub fn install(args: &InstallArgs, global: &GlobalArgs) -> CmdResult {
    let target = Target::resolve(args.scope, global)?;
    let program = program()?;
    let current = target.read()?;
    let options = Options {
        program: &program,
        statusline: args.statusline,
        replace_statusline: args.replace_statusline,
    };
    let outcome =
        merge::install(current.as_deref(), &options).map_err(|e| plan_failure(&e, &target))?;
    if !global.json && (program.contains("/target/debug/") || program.contains("/target/release/"))
    {
        eprintln!(
            "ctxmon: note: registering a binary inside a cargo build folder ({program}); \
             `cargo install --locked --path crates/ctxmon-cli` gives it a stable path"
        );
    }
    finish(
        "install",
        &target,
        current.as_deref(),
        &outcome,
        args.dry_run,
        global,
    )
}

pub fn uninstall(args: &UninstallArgs, global: &GlobalArgs) -> CmdResult {
    let target = Target::resolve(args.scope, global)?;
    let Some(current) = target.read()? else {
        let empty = Outcome {
            text: String::new(),
            changes: Vec::new(),
        };
        return finish("uninstall", &target, None, &empty, args.dry_run, global);
    };
    // The backup only matters for putting back a replaced status line; unreadable is absent.
    let backup = read_backup(&target.backup);
    let outcome =
        merge::uninstall(&current, backup.as_deref()).map_err(|e| plan_failure(&e, &target))?;
    finish(
        "uninstall",
        &target,
        Some(&current),
        &outcome,
        args.dry_run,
        global,
    )
}

/// The backup's text; `None` when it is absent, unreadable, not a regular file (a FIFO would
/// hang uninstall) or not UTF-8.
fn read_backup(path: &std::path::Path) -> Option<String> {
    use std::io::Read;
    let (file, _) = fsutil::open_regular(path).ok()?;
    let mut text = String::new();
    file.take(MAX_SETTINGS_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The running binary as one shell word: Claude Code must find it from any directory and
/// whatever the hook's PATH is.
fn program() -> Result<String, Failure> {
    let exe = std::env::current_exe()
        .and_then(fs::canonicalize)
        .map_err(|e| anyhow!("cannot find the path of this ctxmon binary: {e}"))?;
    let path = exe.to_str().ok_or_else(|| {
        anyhow!(
            "the binary's path {} is not UTF-8; move ctxmon to a plain path and run again",
            exe.display()
        )
    })?;
    Ok(shell_word(path))
}

/// A settings file: the path the user knows and where its bytes really are.
#[derive(Debug)]
struct Target {
    scope: SettingsScope,
    path: PathBuf,
    /// `path`, or the file its symlink resolves to.
    write_path: PathBuf,
    backup: PathBuf,
}

impl Target {
    fn resolve(scope: SettingsScope, global: &GlobalArgs) -> Result<Target, Failure> {
        let path = match scope {
            SettingsScope::Project => {
                bootstrap::existing_project_dir(global)?.join(".claude/settings.json")
            }
            SettingsScope::Local => {
                bootstrap::existing_project_dir(global)?.join(".claude/settings.local.json")
            }
            SettingsScope::User => match bootstrap::env_var("CLAUDE_CONFIG_DIR") {
                Some(dir) => PathBuf::from(dir).join("settings.json"),
                None => bootstrap::env_var("HOME")
                    .map(|home| PathBuf::from(home).join(".claude/settings.json"))
                    .ok_or_else(|| {
                        Failure::usage(anyhow!(
                            "cannot find the user settings: neither CLAUDE_CONFIG_DIR nor HOME is set"
                        ))
                    })?,
            },
        };
        let path = std::path::absolute(&path).unwrap_or(path);
        let mut backup = path.clone().into_os_string();
        backup.push(".ctxmon-backup");
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
            scope,
            path,
            write_path,
            backup: PathBuf::from(backup),
        })
    }

    /// The file's text, `None` when there is no file yet.
    fn read(&self) -> Result<Option<String>, Failure> {
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
                meta.len()
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
                .prefix(".ctxmon-probe-")
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

    fn write(&self, original: Option<&str>, text: &str) -> Result<(), Failure> {
        let permissions = self.check_writable(original.is_some())?;
        if let Some(original) = original {
            write_atomic(&self.backup, original.as_bytes(), Durability::Fsync).map_err(|e| {
                anyhow!(
                    "cannot save the backup {}: {e}; nothing was changed",
                    self.backup.display()
                )
            })?;
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

fn plan_failure(error: &PlanError, target: &Target) -> Failure {
    let shown = target.path.display();
    let nothing = "nothing was changed";
    Failure::Other(match error {
        PlanError::Syntax(e) => anyhow!(
            "{shown} is not valid JSON (line {}, column {}: {}); ctxmon edits only strict JSON, \
             so fix the file and run again; {nothing}",
            e.line,
            e.column,
            e.message
        ),
        PlanError::Shape(m) => anyhow!("{shown}: {m}; fix it by hand and run again; {nothing}"),
        PlanError::StatusLineTaken(current) => anyhow!(
            "{shown} already has a status line that is not ctxmon's: {current}; run again with \
             --replace-statusline to replace it (it stays in the backup and `ctxmon uninstall` \
             puts it back), or without --statusline; {nothing}"
        ),
        PlanError::Internal(m) => {
            anyhow!("internal error while editing {shown} ({m}); please report it; {nothing}")
        }
    })
}

fn scope_name(scope: SettingsScope) -> &'static str {
    match scope {
        SettingsScope::Project => "project",
        SettingsScope::Local => "local",
        SettingsScope::User => "user",
    }
}

/// Shows the plan, writes it unless it is a dry run or a no-op, and reports.
fn finish(
    verb: &str,
    target: &Target,
    original: Option<&str>,
    outcome: &Outcome,
    dry_run: bool,
    global: &GlobalArgs,
) -> CmdResult {
    let changed = outcome.changes.iter().any(|c| c.action.is_change());
    let shown = target.path.display().to_string();
    let diff = if changed {
        let old_name = if original.is_some() {
            shown.clone()
        } else {
            "/dev/null".to_string()
        };
        unified(
            original.unwrap_or(""),
            &outcome.text,
            &old_name,
            &format!("{shown} (after ctxmon {verb})"),
        )
    } else {
        String::new()
    };
    let write = changed && !dry_run;
    if write {
        target.write(original, &outcome.text)?;
    }
    let backup = (write && original.is_some()).then(|| target.backup.display().to_string());
    if global.json {
        let changes: Vec<_> = outcome
            .changes
            .iter()
            .map(|c| json!({"target": c.target, "action": c.action.label(), "detail": c.detail}))
            .collect();
        println!(
            "{}",
            json!({
                "command": verb, "scope": scope_name(target.scope), "path": shown,
                "changed": changed, "written": write, "dry_run": dry_run, "backup": backup,
                "changes": changes, "diff": dry_run.then_some(diff),
            })
        );
        return Ok(());
    }
    if !changed {
        let state = if verb == "install" {
            "already installed"
        } else {
            "not installed"
        };
        println!("ctxmon is {state} in {shown}; nothing changed");
        return Ok(());
    }
    if dry_run {
        print!("{diff}");
    }
    println!(
        "ctxmon {verb} ({} scope): {shown}",
        scope_name(target.scope)
    );
    for Change {
        target,
        action,
        detail,
    } in &outcome.changes
    {
        println!("  {:<9} {target:<17} {detail}", action.label());
    }
    if dry_run {
        println!("dry run: nothing was written");
    } else if let Some(backup) = backup {
        println!("previous version saved as {backup}");
    }
    if target.write_path != target.path && !dry_run {
        println!(
            "(written through the symlink to {})",
            target.write_path.display()
        );
    }
    Ok(())
}
