//! PreToolUse: warn when the agent edits the resumption source file — the one in use, when the
//! default lets it be `ORCHESTRATION.yaml`, `.yml` or `.json` — while its
//! `resumption.updated_at` is stale (contract C8). Never blocks: the answer carries no permission
//! decision, and any other tool call costs nothing but a few string comparisons.

use std::path::{Component, Path, PathBuf};

use ctxmon_domain::xml::{escape_attr, escape_text};

use ctxmon_domain::SessionKey;

use super::source_problems;
use crate::handoff::resumption::NOTE_MAX_BYTES;
use crate::handoff::source_staleness::staleness;
use crate::run::{HookContext, HookPorts, HookRun, Warning};

const WRITE_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// What PreToolUse answers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreToolUseOutcome {
    /// A warning for `additionalContext`; `None` means answer nothing.
    pub additional_context: Option<String>,
    /// Problems that did not stop the hook; for the hook log.
    pub warnings: Vec<Warning>,
}

/// Checks a `Write`, `Edit` or `MultiEdit` of `file_path` (relative to `cwd`, else the
/// project): when it is the resumption source file and its `updated_at` is older than
/// `resumption.stale_after_minutes`, a reminder to update it. Other calls cost a few string
/// comparisons.
pub fn pre_tool_use(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    tool_name: Option<&str>,
    file_path: Option<&str>,
) -> PreToolUseOutcome {
    let (Some(tool), Some(file)) = (tool_name, file_path) else {
        return PreToolUseOutcome::default();
    };
    if !WRITE_TOOLS.contains(&tool) {
        return PreToolUseOutcome::default();
    }
    let base = ctx.cwd.map_or(ctx.project_dir.to_path_buf(), PathBuf::from);
    let target = normalize(&base.join(file));
    if let Some(key) = ctx.session_key()
        && let Some(note) = ports.files.note_location(ctx.project_dir, &key)
        && normalize(Path::new(&note)) == target
    {
        return note_staleness(ctx, ports, tool, &key, &note);
    }
    // A string comparison first: any other file costs no I/O.
    let Some(source_rel) = ctx
        .config
        .resumption
        .source_candidates()
        .into_iter()
        .find(|name| normalize(&ctx.project_dir.join(name)) == target)
    else {
        return PreToolUseOutcome::default();
    };
    // With several possible names (ORCHESTRATION.yaml, .yml, .json), only the file in use is
    // the source; while none exists, the one being written will be.
    if let Some(in_use) = ports.source.locate(ctx.project_dir)
        && normalize(&in_use) != target
    {
        return PreToolUseOutcome::default();
    }
    let mut run = HookRun::new(*ctx, *ports);
    let updated_at = match ports.source.read(ctx.project_dir) {
        Ok(Some(doc)) => {
            // Why the section is missing (too big, a FIFO, invalid YAML) belongs in the log.
            source_problems(&mut run, &doc);
            doc.section
                .as_ref()
                .and_then(|s| s.get("updated_at"))
                // YAML `updated_at:` with no value is null: missing, not malformed.
                .filter(|v| !v.is_null())
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string())
                })
        }
        Ok(None) => None,
        Err(e) => {
            run.warn(Warning::SourceUnreadable(e));
            None
        }
    };
    let problem = staleness(&mut run, updated_at.as_deref());
    let additional_context = problem.map(|why| {
        format!(
            "<resumption-staleness file=\"{}\">{} When you write this file, update its resumption: section to the current state and set resumption.updated_at to the current time (RFC 3339).</resumption-staleness>",
            escape_attr(source_rel),
            escape_text(&why)
        )
    });
    PreToolUseOutcome {
        additional_context,
        warnings: run.finish(),
    }
}

/// An edit of part of the agent's resumption note while the rest of it is stale (written
/// before the session's newest checkpoint, or longer ago than
/// `resumption.stale_after_minutes`): the untouched parts would be handed back as if current.
/// A `Write` replaces the note whole and needs no reminder.
fn note_staleness(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    tool: &str,
    key: &SessionKey,
    location: &str,
) -> PreToolUseOutcome {
    let mut run = HookRun::new(*ctx, *ports);
    let modified = match ports.files.read_note(ctx.project_dir, key, NOTE_MAX_BYTES) {
        Ok(Some(note)) => note.modified,
        Ok(None) => None,
        Err(e) => {
            run.warn(Warning::NoteUnreadable(e));
            None
        }
    };
    let additional_context = match (tool, modified) {
        ("Edit" | "MultiEdit", Some(at)) => staleness(&mut run, Some(&at.to_rfc3339())).map(|why| {
            let why = why.replace("resumption.updated_at", "the note's last write");
            format!(
                "<resumption-staleness file=\"{}\">{} Rewrite the whole note to the present (goal, done, in progress, next, decisions, gotchas; about 150 words), not only this part.</resumption-staleness>",
                escape_attr(location),
                escape_text(&why)
            )
        }),
        _ => None,
    };
    PreToolUseOutcome {
        additional_context,
        warnings: run.finish(),
    }
}

/// Lexical normalisation (no file-system access): drops `.` and resolves `..`.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
