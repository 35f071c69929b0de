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
//! - A status line `--replace-statusline` replaced is kept in `<file>.ctxmon-statusline`,
//!   written before the settings and never touched by a later install (the backup is replaced
//!   by every change, so it cannot be trusted to still hold it). Uninstall puts it back from
//!   there (from the backup only when there is no record, as before records existed), then
//!   deletes the record; a record it cannot read stops uninstall rather than lose the line.
//! - An existing file keeps its permissions; a new one is private (0600, spec §15).

use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use ctxmon_infra_fs::fsutil::{self, Durability, write_atomic};
use serde_json::json;

use crate::bootstrap;
use crate::cli::{GlobalArgs, InstallArgs, SettingsScope, UninstallArgs};
use crate::diag::diag;
use crate::exit::{CmdResult, Failure};
use crate::install::command_line::shell_word;
use crate::install::diff::unified;
use crate::install::merge::{self, Action, Change, Options, Outcome, PlanError};

/// Far above any real settings file; a bigger one is something else and is not read whole.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

pub fn install(args: &InstallArgs, global: &GlobalArgs) -> CmdResult {
    with_json_error("install", args.scope, global, || {
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
        if !global.json {
            if program.contains("/target/debug/") || program.contains("/target/release/") {
                diag!(
                    "ctxmon: note: registering a binary inside a cargo build folder ({program}); \
                     `cargo install --locked --path crates/ctxmon-cli` gives it a stable path"
                );
            }
            // `npx ctxmon install` without an install runs the binary from npm's exec cache,
            // which `npm cache clean` may empty under the hooks.
            if program.contains("/_npx/") {
                diag!(
                    "ctxmon: note: registering a binary in npx's cache ({program}); \
                     `npm install -g ctxmon` and `ctxmon install` give it a stable path"
                );
            }
            if current.as_deref().is_some_and(merge::has_bom) {
                diag!("ctxmon: note: {}", bom_note(&target));
            }
        }
        finish(
            "install",
            &target,
            current.as_deref(),
            &outcome,
            args.dry_run,
            global,
            false,
        )
    })
}

pub fn uninstall(args: &UninstallArgs, global: &GlobalArgs) -> CmdResult {
    with_json_error("uninstall", args.scope, global, || {
        let target = Target::resolve(args.scope, global)?;
        let Some(current) = target.read()? else {
            let empty = Outcome::new(String::new(), Vec::new());
            return finish(
                "uninstall",
                &target,
                None,
                &empty,
                args.dry_run,
                global,
                false,
            );
        };
        let saved = target.saved_statusline();
        let outcome =
            merge::uninstall(&current, saved.restore()).map_err(|e| plan_failure(&e, &target))?;
        let from_record = matches!(saved, SavedStatusLine::Found { record: true, .. });
        finish(
            "uninstall",
            &target,
            Some(&current),
            &outcome,
            args.dry_run,
            global,
            from_record,
        )
    })
}

/// Runs `body`; with `--json`, a refusal also prints a JSON object on stdout (the message
/// still goes to stderr), so a program reading stdout never gets nothing.
fn with_json_error(
    verb: &str,
    scope: SettingsScope,
    global: &GlobalArgs,
    body: impl FnOnce() -> CmdResult,
) -> CmdResult {
    let result = body();
    if let (Err(failure), true) = (&result, global.json) {
        let code = match failure {
            Failure::Usage(_) => 2,
            Failure::Other(_) => 1,
        };
        println!(
            "{}",
            json!({
                "command": verb, "scope": scope_name(scope), "changed": false,
                "written": false, "exit_code": code, "error": format!("{:#}", failure.error()),
            })
        );
    }
    result
}

fn bom_note(target: &Target) -> String {
    format!(
        "{} starts with a UTF-8 byte-order mark; it was kept. Claude Code's CLI reads such a \
         file, but the Claude desktop app ignores it (anthropics/claude-code#81355): save it \
         as UTF-8 without BOM if you use the app",
        target.path.display()
    )
}

/// A status line ctxmon replaced, as found on disk for uninstall.
enum SavedStatusLine {
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
    fn restore(&self) -> merge::Restore<'_> {
        match self {
            SavedStatusLine::None => merge::Restore::Nothing,
            SavedStatusLine::Found { raw, source, .. } => merge::Restore::From { raw, source },
            SavedStatusLine::Unusable(why) => merge::Restore::Unusable(why),
        }
    }
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
    /// Where a status line `--replace-statusline` replaced is kept until uninstall.
    record: PathBuf,
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
            scope,
            path,
            write_path,
            backup,
            record,
        })
    }

    /// The status line ctxmon replaced: from the record, else (installs older than records)
    /// from the backup, which is used only when it is readable and holds someone else's line.
    fn saved_statusline(&self) -> SavedStatusLine {
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

    /// Writes the status-line record (when install replaced one), the backup, then the file:
    /// each step only once the one before it is safely on disk.
    fn write(
        &self,
        original: Option<&str>,
        text: &str,
        record: Option<&str>,
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
             --replace-statusline to replace it (it is kept in {} and `ctxmon uninstall` puts \
             it back), or without --statusline; {nothing}",
            target.record.display()
        ),
        PlanError::SavedStatusLineUnusable(why) => anyhow!(
            "{shown} has ctxmon's status line, which replaced yours, but {why}; fix that file \
             (or delete it to have uninstall simply remove ctxmon's status line) and run \
             again; {nothing}"
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

/// Shows the plan, writes it unless it is a dry run or a no-op, and reports. `record_used`:
/// uninstall restored the status line from the record, which is deleted once written.
fn finish(
    verb: &str,
    target: &Target,
    original: Option<&str>,
    outcome: &Outcome,
    dry_run: bool,
    global: &GlobalArgs,
    record_used: bool,
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
    let record = outcome
        .replaced_statusline
        .as_deref()
        .map(|raw| merge::statusline_record(raw, &shown));
    let restored = outcome.changes.iter().any(|c| c.action == Action::Restored);
    if write {
        target.write(original, &outcome.text, record.as_deref())?;
    }
    let mut warning = None;
    if write && restored && record_used {
        // Its job is done; a leftover would only mislead. The settings are already right, so
        // a failure here is a warning, not an error.
        if let Err(e) = fs::remove_file(&target.record) {
            warning = Some(format!(
                "restored the status line but could not delete {}: {e}; delete it by hand",
                target.record.display()
            ));
        }
    }
    let backup = (write && original.is_some()).then(|| target.backup.display().to_string());
    let kept = (write && record.is_some()).then(|| target.record.display().to_string());
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
                "statusline_record": kept, "changes": changes, "diff": dry_run.then_some(diff),
            })
        );
        if let Some(warning) = warning {
            diag!("ctxmon: warning: {warning}");
        }
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
    if let Some(kept) = kept {
        println!("the status line it replaced is kept in {kept}; `ctxmon uninstall` puts it back");
    }
    if let Some(warning) = warning {
        diag!("ctxmon: warning: {warning}");
    }
    if target.write_path != target.path && !dry_run {
        println!(
            "(written through the symlink to {})",
            target.write_path.display()
        );
    }
    Ok(())
}
