//! Installing and uninstalling ctxmon in one settings document — Claude Code's
//! `settings.json` or Codex's `hooks.json`, which share the `hooks` shape: text in, text and a
//! list of changes out, no I/O.
//!
//! ctxmon owns exactly the hook entries whose command runs `ctxmon hooks <name>` under the event
//! that hook serves, and (Claude Code only) a `statusLine` that runs `ctxmon statusline`;
//! everything else in the file belongs to the user and is never rewritten.
//!
//! A UTF-8 byte-order mark is set aside before parsing and put back in front of the result:
//! Claude Code's CLI reads such a file, and the mark is not ctxmon's to remove.

use serde_json::Value;

use super::command_line::{after_program, is_ctxmon_hook, is_ctxmon_statusline};
use super::edit::{EditError, Editor, Out};
use super::jsontext::{Doc, Step, SyntaxError};
use super::table::{Registration, hooks_for};
use crate::cli::Agent;

/// What install needs to know.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// Whose file this is: which hooks to register, and how to name the agent in messages.
    pub agent: Agent,
    /// The binary as one shell word (quoted if needed).
    pub program: &'a str,
    pub statusline: bool,
    /// Replace a status line that is not ctxmon's (otherwise install refuses).
    pub replace_statusline: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Added,
    Updated,
    /// Already as wanted.
    Kept,
    Removed,
    /// Someone else's status line gave way to ctxmon's.
    Replaced,
    /// Uninstall put back the status line ctxmon had replaced.
    Restored,
    /// Uninstall found nothing of ctxmon's.
    Absent,
}

impl Action {
    pub fn label(self) -> &'static str {
        match self {
            Action::Added => "added",
            Action::Updated => "updated",
            Action::Kept => "kept",
            Action::Removed => "removed",
            Action::Replaced => "replaced",
            Action::Restored => "restored",
            Action::Absent => "absent",
        }
    }

    pub fn is_change(self) -> bool {
        !matches!(self, Action::Kept | Action::Absent)
    }
}

/// One line of the report: a hook event or `statusLine`, and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub target: &'static str,
    pub action: Action,
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub text: String,
    pub changes: Vec<Change>,
    /// The status line install replaced, as its original JSON text, for the caller to keep
    /// where later installs never write (see [`statusline_record`]).
    pub replaced_statusline: Option<String>,
}

impl Outcome {
    pub fn new(text: String, changes: Vec<Change>) -> Outcome {
        Outcome {
            text,
            changes,
            replaced_statusline: None,
        }
    }
}

/// What uninstall puts back when it removes ctxmon's status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore<'a> {
    /// Nothing was replaced (or nothing is known): ctxmon's status line is removed.
    Nothing,
    /// The replaced status line's JSON text, and where it was kept (for the report).
    From { raw: &'a str, source: &'a str },
    /// A record of a replaced status line exists but cannot be used; why. Uninstall refuses
    /// rather than lose the user's status line.
    Unusable(&'a str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// Not strict JSON.
    Syntax(SyntaxError),
    /// Valid JSON, but not shaped like settings where ctxmon must write.
    Shape(String),
    /// `--statusline` met someone else's status line (its JSON) without permission to replace.
    StatusLineTaken(String),
    /// Uninstall would remove ctxmon's status line, but the record of the one it replaced
    /// cannot be read (why).
    SavedStatusLineUnusable(String),
    /// An edit went wrong; a bug, reported instead of writing a broken file.
    Internal(String),
}

impl From<EditError> for PlanError {
    fn from(e: EditError) -> PlanError {
        PlanError::Internal(e.0)
    }
}

const HOOKS: Step<'static> = Step::Key("hooks");

const BOM: &str = "\u{feff}";

/// `text` without a leading byte-order mark, and the mark (or "").
fn split_bom(text: &str) -> (&'static str, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    }
}

/// True when `text` starts with a UTF-8 byte-order mark.
pub fn has_bom(text: &str) -> bool {
    text.starts_with(BOM)
}

/// Adds or refreshes ctxmon's hooks (and status line) in `original` (`None`: no file yet).
pub fn install(original: Option<&str>, opts: &Options<'_>) -> Result<Outcome, PlanError> {
    let (bom, body) = split_bom(original.unwrap_or(""));
    let text = if body.trim().is_empty() {
        // Claude Code reads a missing or blank file as no settings.
        "{}\n".to_string()
    } else {
        body.to_string()
    };
    let comments = opts.agent.description().settings.comments;
    let mut ed = Editor::new(Doc::parse_with(text, comments).map_err(PlanError::Syntax)?);
    check_shape(&ed.doc.value, opts.agent)?;
    let mut changes = Vec::new();
    for reg in &hooks_for(opts.agent) {
        changes.push(install_hook(&mut ed, reg, opts.program)?);
    }
    let mut replaced_statusline = None;
    // Only an agent with a command status line gets one; the command refuses --statusline
    // for the others.
    if opts.statusline && opts.agent.description().status_line {
        let (change, replaced) = install_statusline(&mut ed, opts)?;
        changes.push(change);
        replaced_statusline = replaced;
    }
    Ok(Outcome {
        text: format!("{bom}{}", ed.into_text()),
        changes,
        replaced_statusline,
    })
}

/// Removes ctxmon's hooks and status line from `original`; `restore` says which status line,
/// if any, takes the place of ctxmon's.
pub fn uninstall(original: &str, restore: Restore<'_>, agent: Agent) -> Result<Outcome, PlanError> {
    let (bom, body) = split_bom(original);
    if body.trim().is_empty() {
        return Ok(Outcome::new(original.to_string(), Vec::new()));
    }
    let comments = agent.description().settings.comments;
    let mut ed =
        Editor::new(Doc::parse_with(body.to_string(), comments).map_err(PlanError::Syntax)?);
    check_shape(&ed.doc.value, agent)?;
    let mut changes = Vec::new();
    for reg in &hooks_for(agent) {
        changes.push(uninstall_hook(&mut ed, reg)?);
    }
    let removed_any = changes.iter().any(|c| c.action.is_change());
    let hooks_now_empty = ed
        .doc
        .value
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(serde_json::Map::is_empty);
    if removed_any && hooks_now_empty {
        ed.remove_member(&[], "hooks")?;
    }
    if agent.description().status_line
        && let Some(change) = uninstall_statusline(&mut ed, restore)?
    {
        changes.push(change);
    }
    Ok(Outcome::new(format!("{bom}{}", ed.into_text()), changes))
}

/// Removes ctxmon's status line alone (`uninstall --statusline`, Claude Code's), putting back
/// `restore`'s; the hooks stay.
pub fn uninstall_statusline_only(
    original: &str,
    restore: Restore<'_>,
) -> Result<Outcome, PlanError> {
    let (bom, body) = split_bom(original);
    if body.trim().is_empty() {
        return Ok(Outcome::new(original.to_string(), Vec::new()));
    }
    let mut ed = Editor::new(Doc::parse(body.to_string()).map_err(PlanError::Syntax)?);
    check_shape(&ed.doc.value, Agent::ClaudeCode)?;
    let changes = uninstall_statusline(&mut ed, restore)?
        .into_iter()
        .collect();
    Ok(Outcome::new(format!("{bom}{}", ed.into_text()), changes))
}

/// True when `text` is an object with nothing in it (a byte-order mark and whitespace aside):
/// what uninstall leaves of a Codex `hooks.json` that held only ctxmon's hooks. Codex reads
/// such a file as no hooks at all, so uninstall removes it rather than leave `{}` behind.
pub fn is_empty_object(text: &str) -> bool {
    let body = split_bom(text).1;
    serde_json::from_str::<Value>(body).is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()))
}

/// The JSON text of the `statusLine` in a settings document or a status-line record, when it is
/// someone else's; `None` when there is none, it is ctxmon's, or `text` is not strict JSON.
pub fn statusline_in(text: &str) -> Option<String> {
    let doc = Doc::parse(split_bom(text).1.to_string()).ok()?;
    let node = doc.node(&[Step::Key("statusLine")])?;
    let value = doc.value.get("statusLine")?;
    (!is_ours(value)).then(|| doc.text[node.start..node.end].to_string())
}

/// The record that keeps a replaced status line (`raw`, its JSON text verbatim) until
/// uninstall puts it back into `settings`; [`statusline_in`] reads it.
pub fn statusline_record(raw: &str, settings: &str) -> String {
    let comment = format!(
        "`ctxmon install --replace-statusline` replaced this status line in {settings}; \
         `ctxmon uninstall` puts it back and then deletes this file. Later installs never \
         change it."
    );
    format!(
        "{{\n  \"comment\": {},\n  \"statusLine\": {raw}\n}}\n",
        super::edit::quote(&comment)
    )
}

/// Refuses documents ctxmon cannot edit without guessing what the user meant. Every event
/// under `hooks` is checked, not only ctxmon's: Claude Code and Codex expect each to be a list
/// of `{matcher, hooks}` groups, and a file the agent cannot use is better named now than
/// written around.
fn check_shape(value: &Value, agent: Agent) -> Result<(), PlanError> {
    let Some(root) = value.as_object() else {
        return Err(PlanError::Shape(
            "the top level is not a JSON object".into(),
        ));
    };
    let Some(hooks) = root.get("hooks") else {
        return Ok(());
    };
    let Some(hooks) = hooks.as_object() else {
        return Err(PlanError::Shape("`hooks` is not an object".into()));
    };
    if let Some((event, _)) = hooks.iter().find(|(_, groups)| !groups.is_array()) {
        return Err(PlanError::Shape(format!(
            "`hooks.{event}` is not a list ({} expects a list of \
             {{\"matcher\", \"hooks\"}} groups under each event)",
            agent.name()
        )));
    }
    Ok(())
}

pub fn hook_command(program: &str, reg: &Registration) -> String {
    format!("{program} hooks {}", reg.name)
}

fn hook_entry(reg: &Registration, program: &str) -> Out {
    Out::Obj(vec![
        ("type", Out::Str("command".into())),
        ("command", Out::Str(hook_command(program, reg))),
        ("timeout", Out::Int(reg.timeout)),
    ])
}

fn hook_group(spec: &Registration, program: &str) -> Out {
    let mut members = Vec::new();
    if let Some(matcher) = spec.matcher {
        members.push(("matcher", Out::Str(matcher.into())));
    }
    members.push(("hooks", Out::Arr(vec![hook_entry(spec, program)])));
    Out::Obj(members)
}

/// One of ctxmon's hook entries inside an event's list.
#[derive(Debug, Clone, Copy)]
struct Found {
    group: usize,
    hook: usize,
    /// The group's matcher is the one ctxmon registers.
    matcher_ok: bool,
}

fn matcher_matches(matcher: Option<&Value>, want: Option<&str>) -> bool {
    match (matcher, want) {
        (None | Some(Value::Null), None) => true,
        (Some(Value::String(s)), None) => s.is_empty() || s == "*",
        (Some(Value::String(s)), Some(w)) => s == w,
        _ => false,
    }
}

fn find_ours(groups: &Value, spec: &Registration) -> Vec<Found> {
    let mut found = Vec::new();
    for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
        let matcher_ok = matcher_matches(group.get("matcher"), spec.matcher);
        let hooks = group.get("hooks").and_then(Value::as_array);
        for (h, hook) in hooks.into_iter().flatten().enumerate() {
            let command = hook.get("command").and_then(Value::as_str);
            if hook.get("type").and_then(Value::as_str) == Some("command")
                && command.is_some_and(|c| is_ctxmon_hook(c, spec.name))
            {
                found.push(Found {
                    group: g,
                    hook: h,
                    matcher_ok,
                });
            }
        }
    }
    found
}

/// Removes hook `hook` of group `group`, and the group when nothing of the user's is left in it.
fn remove_hook(ed: &mut Editor, event: &str, group: usize, hook: usize) -> Result<(), PlanError> {
    let group_path = [HOOKS, Step::Key(event), Step::Index(group)];
    ed.remove(&[HOOKS, Step::Key(event), Step::Index(group), HOOKS], hook)?;
    let left = &ed.doc.value["hooks"][event][group];
    let empty = left
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty);
    let only_ours = left
        .as_object()
        .is_some_and(|o| o.keys().all(|k| k == "hooks" || k == "matcher"));
    if empty && only_ours {
        ed.remove(&group_path[..2], group)?;
    }
    Ok(())
}

fn install_hook(ed: &mut Editor, spec: &Registration, program: &str) -> Result<Change, PlanError> {
    let event = spec.event;
    let command = hook_command(program, spec);
    let added = |detail: String| Change {
        target: event,
        action: Action::Added,
        detail,
    };
    let Some(hooks) = ed.doc.value.get("hooks") else {
        let value = Out::Obj(vec![(event, Out::Arr(vec![hook_group(spec, program)]))]);
        ed.append(&[], Some("hooks"), &value)?;
        return Ok(added(command));
    };
    let Some(groups) = hooks.get(event).cloned() else {
        let value = Out::Arr(vec![hook_group(spec, program)]);
        ed.append(&[HOOKS], Some(event), &value)?;
        return Ok(added(command));
    };
    let found = find_ours(&groups, spec);
    let keep = found.iter().position(|f| f.matcher_ok);
    let mut notes = Vec::new();
    if let Some(k) = keep {
        let f = found[k];
        let entry = &groups[f.group]["hooks"][f.hook];
        let path = [
            HOOKS,
            Step::Key(event),
            Step::Index(f.group),
            HOOKS,
            Step::Index(f.hook),
        ];
        if entry["command"] != command.as_str() {
            ed.replace(
                &[&path[..], &[Step::Key("command")]].concat(),
                &Out::Str(command.clone()),
            )?;
            notes.push(format!(
                "command was `{}`",
                entry["command"].as_str().unwrap_or("")
            ));
        }
        let timeout = Out::Int(spec.timeout);
        match entry.get("timeout") {
            Some(t) if t.as_u64() == Some(spec.timeout) => {}
            Some(t) => {
                ed.replace(&[&path[..], &[Step::Key("timeout")]].concat(), &timeout)?;
                notes.push(format!("timeout was {t}"));
            }
            None => ed.append(&path, Some("timeout"), &timeout)?,
        }
    }
    // Strays go last first, so the indices of those still to remove stay valid.
    let mut strays: Vec<Found> = found
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != keep)
        .map(|(_, f)| *f)
        .collect();
    strays.sort_by_key(|f| std::cmp::Reverse((f.group, f.hook)));
    for f in &strays {
        remove_hook(ed, event, f.group, f.hook)?;
    }
    let wrong_matcher = strays.iter().filter(|f| !f.matcher_ok).count();
    let duplicates = strays.len() - wrong_matcher;
    let entries = |n: usize| match n {
        1 => "1 entry".to_string(),
        n => format!("{n} entries"),
    };
    if wrong_matcher > 0 {
        let wanted = spec
            .matcher
            .map_or("no matcher".to_string(), |m| format!("matcher `{m}`"));
        notes.push(match keep {
            None => format!(
                "re-registered with {wanted}, replacing {} under another matcher",
                entries(wrong_matcher)
            ),
            Some(_) => format!("removed {} under another matcher", entries(wrong_matcher)),
        });
    }
    if duplicates > 0 {
        notes.push(format!("removed {} (duplicate)", entries(duplicates)));
    }
    if keep.is_none() {
        ed.append(&[HOOKS, Step::Key(event)], None, &hook_group(spec, program))?;
        if found.is_empty() {
            return Ok(added(command));
        }
    }
    Ok(Change {
        target: event,
        action: if notes.is_empty() {
            Action::Kept
        } else {
            Action::Updated
        },
        detail: if notes.is_empty() {
            command
        } else {
            notes.join("; ")
        },
    })
}

fn uninstall_hook(ed: &mut Editor, spec: &Registration) -> Result<Change, PlanError> {
    let event = spec.event;
    let groups = ed
        .doc
        .value
        .get("hooks")
        .and_then(|h| h.get(event))
        .cloned()
        .unwrap_or(Value::Null);
    let mut found = find_ours(&groups, spec);
    if found.is_empty() {
        return Ok(Change {
            target: event,
            action: Action::Absent,
            detail: String::new(),
        });
    }
    found.sort_by_key(|f| std::cmp::Reverse((f.group, f.hook)));
    for f in &found {
        remove_hook(ed, event, f.group, f.hook)?;
    }
    if ed.doc.value["hooks"][event]
        .as_array()
        .is_some_and(Vec::is_empty)
    {
        ed.remove_member(&[HOOKS], event)?;
    }
    let detail = match groups.as_array().and_then(|g| {
        let f = found.last()?;
        g.get(f.group)?["hooks"][f.hook]["command"].as_str()
    }) {
        Some(command) if found.len() == 1 => command.to_string(),
        _ => format!("{} entries", found.len()),
    };
    Ok(Change {
        target: event,
        action: Action::Removed,
        detail,
    })
}

fn statusline_command(value: &Value) -> Option<&str> {
    (value.get("type")?.as_str()? == "command")
        .then(|| value.get("command")?.as_str())
        .flatten()
}

fn is_ours(value: &Value) -> bool {
    statusline_command(value).is_some_and(is_ctxmon_statusline)
}

/// The status-line change, and the JSON text of a status line it replaced.
fn install_statusline(
    ed: &mut Editor,
    opts: &Options<'_>,
) -> Result<(Change, Option<String>), PlanError> {
    let command = format!("{} statusline", opts.program);
    let wanted = Out::Obj(vec![
        ("type", Out::Str("command".into())),
        ("command", Out::Str(command.clone())),
        ("padding", Out::Int(0)),
    ]);
    let change = |action, detail| Change {
        target: "statusLine",
        action,
        detail,
    };
    let Some(current) = ed.doc.value.get("statusLine").cloned() else {
        ed.append(&[], Some("statusLine"), &wanted)?;
        return Ok((change(Action::Added, command), None));
    };
    if is_ours(&current) {
        // Ours already: only the binary path is ctxmon's business; padding, `--format` and the
        // like stay as the user tuned them.
        let old = statusline_command(&current).unwrap_or_default();
        let command = match after_program(old) {
            Some(rest) => format!("{}{rest}", opts.program),
            None => command,
        };
        if old == command {
            return Ok((change(Action::Kept, command), None));
        }
        let detail = format!("command was `{old}`");
        ed.replace(
            &[Step::Key("statusLine"), Step::Key("command")],
            &Out::Str(command),
        )?;
        return Ok((change(Action::Updated, detail), None));
    }
    if !opts.replace_statusline {
        return Err(PlanError::StatusLineTaken(current.to_string()));
    }
    let raw = ed
        .doc
        .node(&[Step::Key("statusLine")])
        .map(|node| ed.doc.text[node.start..node.end].to_string())
        .ok_or_else(|| PlanError::Internal("the status line has no span".into()))?;
    ed.replace(&[Step::Key("statusLine")], &wanted)?;
    Ok((
        change(Action::Replaced, format!("was {current}")),
        Some(raw),
    ))
}

fn uninstall_statusline(
    ed: &mut Editor,
    restore: Restore<'_>,
) -> Result<Option<Change>, PlanError> {
    let Some(current) = ed.doc.value.get("statusLine") else {
        return Ok(None);
    };
    if !is_ours(current) {
        return Ok(None);
    }
    let detail = statusline_command(current).unwrap_or_default().to_string();
    match restore {
        Restore::From { raw, source } => {
            ed.replace_raw(&[Step::Key("statusLine")], raw)?;
            let value: Value = serde_json::from_str(raw)
                .map_err(|e| PlanError::Internal(format!("restored status line: {e}")))?;
            Ok(Some(Change {
                target: "statusLine",
                action: Action::Restored,
                detail: format!("{value} (from {source})"),
            }))
        }
        Restore::Unusable(why) => Err(PlanError::SavedStatusLineUnusable(why.to_string())),
        Restore::Nothing => {
            ed.remove_member(&[], "statusLine")?;
            Ok(Some(Change {
                target: "statusLine",
                action: Action::Removed,
                detail,
            }))
        }
    }
}
