//! `ctxmon install` and `ctxmon uninstall`: find the agent's settings file of the scope
//! (`target`), read it without trusting it, plan the edit (`crate::install::merge`), then show
//! it (`--dry-run`) or write it atomically after saving the previous version beside it.
//!
//! Decisions, so they are made once:
//! - A settings file that is not strict JSON, is shaped wrongly where ctxmon must write, is
//!   read-only or cannot be written is refused with exit 1 and left untouched: it is the user's
//!   file, not ctxmon's configuration (exit 2 is for ctxmon's own usage and configuration).
//! - A symlinked settings file is written through: the link stays, its target changes (dotfile
//!   managers link these files); a dangling link is refused.
//! - One backup, `<file>.ctxmon-backup` beside the path the user knows, holds the file as it
//!   was before ctxmon's latest change. A run that changes nothing writes nothing, backup
//!   included. A full uninstall writes none and deletes the one install left: the file then
//!   holds nothing of ctxmon's, so the backup could only bring back ctxmon's entries (which
//!   `ctxmon install` does) or undo the user's edits since; it says so. `uninstall
//!   --statusline` leaves the hooks, so it keeps a backup as install does.
//! - At project scope the hooks name the binary `ctxmon` when that is what PATH finds
//!   (`program`), so the committed file works on every machine with ctxmon installed.
//! - Install ends with what to do next: restart Claude Code (a running session keeps the hooks
//!   it started with; `/hooks` lists them), or trust the hooks in Codex's `/hooks`; then
//!   `ctxmon doctor`.
//! - A status line `--replace-statusline` replaced is kept in `<file>.ctxmon-statusline`,
//!   written before the settings and never touched by a later install (the backup is replaced
//!   by every change, so it cannot be trusted to still hold it). Uninstall puts it back from
//!   there (from the backup only when there is no record, as before records existed), then
//!   deletes the record; a record it cannot read stops uninstall rather than lose the line.
//! - An existing file keeps its permissions; a new one is private (0600, contract C15).
//! - A run killed while writing leaves its temp copy and write probe, named as only ctxmon
//!   names them; every later run that writes removes its stale ones first (`leftovers`).
//! - Codex (`--agent codex`) gets the same edit of `.codex/hooks.json` or
//!   `$CODEX_HOME/hooks.json`, with these differences: no status line (Codex has no command
//!   status line), no local scope, a file starting with a byte-order mark is refused by
//!   install (Codex parses `hooks.json` with serde_json, which rejects the mark, so no hook in
//!   it would run), and uninstall removes a file it leaves as `{}` (Codex reads that as no
//!   hooks; when install created the file, the round trip ends with no file, as it began).
//!   Codex runs a new or changed hook only once the user trusts it in `/hooks`, so every
//!   install that writes says so.

use std::fs;

use anyhow::anyhow;
use ctxmon_application::agents::DuplicateHooks;
use serde_json::json;

use crate::cli::{Agent, GlobalArgs, InstallArgs, SettingsScope, UninstallArgs, agent_flag};
use crate::diag::diag;
use crate::exit::{CmdResult, Failure};
use crate::install::diff::unified;
use crate::install::merge::{self, Action, Change, Options, Outcome, PlanError};
use crate::json_out;
use crate::out::{out, outln};

pub(crate) mod leftovers;
mod program;
mod target;

use target::{SavedStatusLine, Target};

pub fn install(args: &InstallArgs, global: &GlobalArgs) -> CmdResult {
    with_json_error("install", args.agent, args.scope, || {
        if !args.agent.description().status_line && args.statusline {
            return Err(Failure::usage(anyhow!(
                "--statusline is Claude Code's: {} has no command status line (`ctxmon \
                 status` shows the fill in a shell)",
                args.agent.name()
            )));
        }
        let target = Target::resolve(args.agent, args.scope, global)?;
        let program = program::program(args.agent, args.scope, &target.path)?;
        let current = target.read()?;
        // Where the target already registers ctxmon, this run is an update; elsewhere it would
        // be a second registration for the same agent.
        if !args.force
            && !current
                .as_deref()
                .is_some_and(target::registers_ctxmon_hooks)
            && let Some((scope, other)) = target.registered_elsewhere(global)
        {
            let name = args.agent.name();
            // How the agent runs the same hook from two files decides what the second costs.
            let twice = match args.agent.description().install.duplicates {
                DuplicateHooks::EveryCopyRuns => format!(
                    "would make {name} run each hook twice, so the agent would see every tag \
                     twice"
                ),
                DuplicateHooks::IdenticalRunOnce => format!(
                    "would register each hook twice: {name} runs two identical commands once, \
                     but the two files' commands differ as soon as their paths to ctxmon do \
                     (the project's may be portable, the user's absolute), and then the agent \
                     sees every tag twice"
                ),
            };
            return Err(anyhow!(
                "ctxmon's hooks are already registered for {name} in {} (--scope {}); \
                 registering them in {} too {twice}. Keep that registration (nothing to do), \
                 or move it: `ctxmon uninstall{} --scope {}` first; --force registers both; \
                 nothing was changed",
                other.display(),
                scope_name(scope),
                target.path.display(),
                agent_flag(args.agent),
                scope_name(scope),
            )
            .into());
        }
        let has_bom = current.as_deref().is_some_and(merge::has_bom);
        if has_bom && args.agent.description().install.bom_unreadable {
            return Err(anyhow!(
                "{} starts with a UTF-8 byte-order mark, which {} cannot read (it ignores \
                 every hook in such a file); save it as UTF-8 without BOM and run again; \
                 nothing was changed",
                target.path.display(),
                args.agent.name()
            )
            .into());
        }
        let options = Options {
            agent: args.agent,
            program: &program.word,
            statusline: args.statusline,
            replace_statusline: args.replace_statusline,
        };
        let outcome =
            merge::install(current.as_deref(), &options).map_err(|e| plan_failure(&e, &target))?;
        if !global.json {
            let word = &program.word;
            if word.contains("/target/debug/") || word.contains("/target/release/") {
                diag!(
                    "ctxmon: note: registering a binary inside a cargo build folder ({word}); \
                     `cargo install --locked --path crates/ctxmon-cli` gives it a stable path"
                );
            }
            // `npx ctxmon install` without an install runs the binary from npm's exec cache,
            // which `npm cache clean` may empty under the hooks.
            if word.contains("/_npx/") {
                diag!(
                    "ctxmon: note: registering a binary in npx's cache ({word}); \
                     `npm install -g ctxmon` and `ctxmon install` give it a stable path"
                );
            }
            if has_bom {
                diag!("ctxmon: note: {}", bom_note(&target, args.agent));
            }
        }
        finish(
            &Plan {
                verb: "install",
                original: current.as_deref(),
                outcome: &outcome,
                record_used: false,
                remove_file: false,
                full_uninstall: false,
                program: Some(&program),
            },
            &target,
            args.dry_run,
            global,
        )
    })
}

pub fn uninstall(args: &UninstallArgs, global: &GlobalArgs) -> CmdResult {
    let verb = if args.statusline {
        "uninstall --statusline"
    } else {
        "uninstall"
    };
    with_json_error(verb, args.agent, args.scope, || {
        if !args.agent.description().status_line && args.statusline {
            return Err(Failure::usage(anyhow!(
                "--statusline is Claude Code's: {} has no command status line, so ctxmon \
                 never set one there",
                args.agent.name()
            )));
        }
        let target = Target::resolve(args.agent, args.scope, global)?;
        let Some(current) = target.read()? else {
            let empty = Outcome::new(String::new(), Vec::new());
            let plan = Plan {
                verb,
                original: None,
                outcome: &empty,
                record_used: false,
                remove_file: false,
                full_uninstall: false,
                program: None,
            };
            return finish(&plan, &target, args.dry_run, global);
        };
        let saved = target.saved_statusline();
        let mut outcome = if args.statusline {
            merge::uninstall_statusline_only(&current, saved.restore())
        } else {
            merge::uninstall(&current, saved.restore(), args.agent)
        }
        .map_err(|e| plan_failure(&e, &target))?;
        let changed = outcome.changes.iter().any(|c| c.action.is_change());
        // Nothing left but `{}`, which install wrote into a file that was not there or blank:
        // the file goes back as it was. Install's backup says which (none: there was no file).
        let emptied = changed && merge::is_empty_object(&outcome.text);
        let before = emptied.then(|| target.backup_text()).flatten();
        let was_absent = emptied && before.is_none();
        if let Some(blank) = before.filter(|b| b.trim().is_empty()) {
            outcome.text = blank;
        }
        let plan = Plan {
            verb,
            original: Some(&current),
            outcome: &outcome,
            record_used: matches!(saved, SavedStatusLine::Found { record: true, .. }),
            remove_file: emptied
                && (args.agent.description().install.hooks_file_is_hooks_only || was_absent),
            full_uninstall: !args.statusline,
            program: None,
        };
        finish(&plan, &target, args.dry_run, global)
    })
}

/// Runs `body`; a refusal's `--json` error object (printed by the dispatcher, the message still
/// on stderr) also names the command, agent and scope and says nothing was changed.
fn with_json_error(
    verb: &str,
    agent: Agent,
    scope: SettingsScope,
    body: impl FnOnce() -> CmdResult,
) -> CmdResult {
    body().map_err(|failure| {
        let fields = json!({
            "command": verb, "agent": agent.description().flag, "scope": scope_name(scope),
            "changed": false, "written": false,
        });
        match fields {
            serde_json::Value::Object(fields) => failure.with_json_fields(fields),
            _ => failure,
        }
    })
}

fn bom_note(target: &Target, agent: Agent) -> String {
    let kept = format!(
        "{} starts with a UTF-8 byte-order mark; it was kept",
        target.path.display()
    );
    match agent.description().install.bom_note {
        Some(more) => format!("{kept}. {more}"),
        None => kept,
    }
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

/// What one run decided, for [`finish`].
struct Plan<'a> {
    verb: &'static str,
    /// The file's text before the run, `None` when there was no file.
    original: Option<&'a str>,
    outcome: &'a Outcome,
    /// Uninstall restored the status line from the record, which is deleted once written.
    record_used: bool,
    /// Uninstall of a Codex `hooks.json` left nothing in it: the file goes.
    remove_file: bool,
    /// Uninstall of everything (not `--statusline`): no backup is written, and install's goes.
    full_uninstall: bool,
    /// Install: how the hooks name the binary.
    program: Option<&'a program::Program>,
}

/// What a run did, for its report.
struct Done {
    changed: bool,
    /// The backup written.
    backup: Option<String>,
    /// Install's backup, deleted by a full uninstall (or, in a dry run, that would be).
    backup_removed: Option<String>,
    /// Where a replaced status line is kept.
    kept: Option<String>,
    file_removed: bool,
    /// The project's agent folder that removing the file left empty, removed too.
    folder_removed: Option<String>,
    /// The project's `.ctxmon` folder, which a full uninstall keeps.
    data_kept: Option<String>,
    next_step: Option<String>,
    warnings: Vec<String>,
    /// Leftovers of an interrupted run removed first (`leftovers`).
    leftovers: Vec<String>,
}

/// Shows the plan, writes it unless it is a dry run or a no-op, and reports.
fn finish(plan: &Plan<'_>, target: &Target, dry_run: bool, global: &GlobalArgs) -> CmdResult {
    let Plan {
        verb,
        original,
        outcome,
        record_used,
        remove_file,
        full_uninstall,
        program,
    } = *plan;
    let changed = outcome.changes.iter().any(|c| c.action.is_change());
    let shown = target.path.display().to_string();
    // Before this run's own temp files exist: only an interrupted run's stale ones go.
    let leftovers: Vec<String> = if dry_run {
        Vec::new()
    } else {
        leftovers::remove_stale(&target.folders())
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    };
    let diff = if changed {
        let old_name = if original.is_some() {
            shown.clone()
        } else {
            "/dev/null".to_string()
        };
        let (new_text, new_name) = if remove_file {
            ("", "/dev/null".to_string())
        } else {
            (
                outcome.text.as_str(),
                format!("{shown} (after ctxmon {verb})"),
            )
        };
        unified(original.unwrap_or(""), new_text, &old_name, &new_name)
    } else {
        String::new()
    };
    let write = changed && !dry_run;
    let record = outcome
        .replaced_statusline
        .as_deref()
        .map(|raw| merge::statusline_record(raw, &shown));
    let restored = outcome.changes.iter().any(|c| c.action == Action::Restored);
    // A full uninstall leaves nothing of ctxmon's in the file, so it keeps no backup of it.
    let back_up = !full_uninstall;
    match (write, remove_file, original) {
        (true, true, Some(original)) => target.remove(original, &outcome.text, back_up)?,
        (true, _, _) => target.write(original, &outcome.text, record.as_deref(), back_up)?,
        (false, _, _) => {}
    }
    let mut warnings = Vec::new();
    if write && restored && record_used {
        // Its job is done; a leftover would only mislead. The settings are already right, so
        // a failure here is a warning, not an error.
        if let Err(e) = fs::remove_file(&target.record) {
            warnings.push(format!(
                "restored the status line but could not delete {}: {e}; delete it by hand",
                target.record.display()
            ));
        }
    }
    let backup_removed = if full_uninstall && changed {
        if dry_run {
            target
                .backup_exists()
                .then(|| target.backup.display().to_string())
        } else {
            match target.delete_backup() {
                Ok(true) => Some(target.backup.display().to_string()),
                Ok(false) => None,
                Err(e) => {
                    warnings.push(format!(
                        "could not delete {}: {e}; delete it by hand",
                        target.backup.display()
                    ));
                    None
                }
            }
        }
    } else {
        None
    };
    let file_removed = remove_file && write && target.write_path == target.path;
    let done = Done {
        changed,
        backup: (write && back_up && original.is_some())
            .then(|| target.backup.display().to_string()),
        backup_removed,
        kept: (write && record.is_some()).then(|| target.record.display().to_string()),
        file_removed,
        folder_removed: file_removed
            .then(|| target.remove_empty_folder())
            .flatten()
            .map(|d| d.display().to_string()),
        // Uninstall removes registrations, never the data the hooks kept: say where it is.
        data_kept: (full_uninstall && write)
            .then(|| crate::bootstrap::existing_project_dir(global).ok())
            .flatten()
            .map(|dir| dir.join(".ctxmon"))
            .filter(|dir| dir.is_dir())
            .map(|dir| dir.display().to_string()),
        next_step: next_step(verb, target, outcome, write),
        warnings,
        leftovers,
    };
    let note = program.and_then(|p| p.note.as_deref());
    if global.json {
        let changes: Vec<_> = outcome
            .changes
            .iter()
            .map(|c| json!({"target": c.target, "action": c.action.label(), "detail": c.detail}))
            .collect();
        json_out::print(&json!({
            "command": verb, "agent": target.agent.description().flag, "scope": scope_name(target.scope),
            "path": shown, "changed": changed, "written": write, "dry_run": dry_run,
            "program": program.map(|p| p.word.as_str()), "note": note,
            "backup": done.backup, "backup_removed": done.backup_removed,
            "statusline_record": done.kept, "file_removed": done.file_removed,
            "folder_removed": done.folder_removed, "data_kept": done.data_kept,
            "next_step": done.next_step, "changes": changes, "diff": dry_run.then_some(diff),
            "leftovers_removed": done.leftovers,
        }))?;
        for warning in &done.warnings {
            diag!("ctxmon: warning: {warning}");
        }
        return Ok(());
    }
    report(plan, target, dry_run, &diff, &done, note)
}

/// What the user does next, once something was registered: the agent loads hooks when a
/// session starts (an agent may ask for trust first), and doctor checks the result.
fn next_step(verb: &str, target: &Target, outcome: &Outcome, written: bool) -> Option<String> {
    if verb != "install" || !written {
        return None;
    }
    let registered = outcome
        .changes
        .iter()
        .any(|c| matches!(c.action, Action::Added | Action::Updated));
    let agent = target.agent;
    Some(match agent.description().install.trust {
        // Only where something was registered or re-registered does the agent ask for trust.
        Some(trust) if registered => format!("{} Then run `ctxmon doctor`.", trust.explain),
        Some(_) => "Run `ctxmon doctor` to check the result.".to_string(),
        None => format!(
            "Next: restart {} so it loads the change (a running session keeps the hooks it \
             started with; /hooks lists the ones it runs), then run `ctxmon doctor`.",
            agent.name()
        ),
    })
}

/// The text report of a run.
fn report(
    plan: &Plan<'_>,
    target: &Target,
    dry_run: bool,
    diff: &str,
    done: &Done,
    note: Option<&str>,
) -> CmdResult {
    let shown = target.path.display();
    if !done.leftovers.is_empty() {
        outln!(
            "removed {} leftover files of an interrupted install: {}",
            done.leftovers.len(),
            done.leftovers.join(", ")
        )?;
    }
    if !done.changed {
        let state = match plan.verb {
            "install" => "ctxmon is already installed",
            "uninstall --statusline" => "ctxmon's status line is not",
            _ => "ctxmon is not installed",
        };
        outln!("{state} in {shown}; nothing changed")?;
        if let Some(note) = note {
            outln!("note: {note}")?;
        }
        return Ok(());
    }
    if dry_run {
        out!("{diff}")?;
    }
    outln!(
        "ctxmon {} ({} {} scope): {shown}",
        plan.verb,
        target.agent.name(),
        scope_name(target.scope)
    )?;
    for Change {
        target,
        action,
        detail,
    } in &plan.outcome.changes
    {
        outln!("  {:<9} {target:<17} {detail}", action.label())?;
    }
    if dry_run {
        outln!("dry run: nothing was written")?;
        if plan.remove_file {
            outln!("(nothing else is in the file, so uninstall would remove it)")?;
        }
        if let Some(backup) = &done.backup_removed {
            outln!("(ctxmon's backup {backup} would be deleted)")?;
        }
    } else if let Some(backup) = &done.backup {
        match target.backup_hint() {
            Some(hint) => outln!("previous version saved as {backup}; {hint}")?,
            None => outln!("previous version saved as {backup}")?,
        }
    }
    if done.file_removed {
        outln!("removed {shown}: nothing but ctxmon's hooks was in it")?;
    }
    if let Some(folder) = &done.folder_removed {
        outln!("removed {folder}: nothing else was in it")?;
    }
    if let (Some(backup), false) = (&done.backup_removed, dry_run) {
        outln!(
            "deleted ctxmon's backup {backup}: nothing of ctxmon's is left in the file \
             (`ctxmon install` puts it back)"
        )?;
    }
    if let Some(kept) = &done.kept {
        outln!("the status line it replaced is kept in {kept}; `ctxmon uninstall` puts it back")?;
    }
    for warning in &done.warnings {
        diag!("ctxmon: warning: {warning}");
    }
    if target.write_path != target.path && !dry_run {
        outln!(
            "(written through the symlink to {})",
            target.write_path.display()
        )?;
    }
    if let Some(trust) = target.agent.description().install.trust
        && dry_run
        && plan.verb == "install"
    {
        outln!(
            "(once written, {} asks you to trust these hooks in {} before it runs them)",
            target.agent.name(),
            trust.place
        )?;
    }
    if let Some(note) = note {
        outln!("note: {note}")?;
    }
    if let Some(next) = &done.next_step {
        outln!("{next}")?;
    }
    if let Some(data) = &done.data_kept {
        outln!(
            "kept {data}: ctxmon's session state, checkpoints, resume logs and logs, which quote \
             your prompts and command output; delete the folder if you no longer want them"
        )?;
    }
    Ok(())
}
