//! `<resumption-context source="resume-log">`: what SessionStart injects when it has no
//! checkpoint to hand back but a resume log records where the work stopped (contract C6, C9).
//!
//! A pointer, not the log: the log's path, its mission in one line and a sentence saying
//! whose log it is, within [`POINTER_MAX_TOKENS`]. The agent reads the file when the work
//! continues; a session that starts something else pays a few dozen tokens, not 10,000.

use ctxmon_domain::xml::escape_attr;
use ctxmon_domain::{ResumeLog, SessionKey};

use crate::handoff::budget_writer::{BudgetWriter, ItemKind};

/// The whole tag's budget: well under the 760 of a full resumption context.
pub const POINTER_MAX_TOKENS: u64 = 160;
const CLOSING: &str = "</resumption-context>";
/// The mission is one line of at most this many characters (cut at a word, with "…").
const MISSION_CAP: usize = 200;

/// Whose log the pointer names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerScope {
    /// The log of the session now starting again (`resume`, or `compact` without checkpoint).
    ThisSession,
    /// The project's most recent log, written by an earlier session (`startup`, `clear`).
    EarlierSession,
}

/// What the pointer names.
#[derive(Debug, Clone, Copy)]
pub struct PointerInput<'a> {
    /// Whose log it is.
    pub scope: PointerScope,
    /// The log.
    pub log: &'a ResumeLog,
    /// Where the markdown is (a path for the file store).
    pub location: &'a str,
    /// The session's newest checkpoint when it has some, all handed back already (so none is
    /// restored): the note says so rather than that there is none.
    pub handed_back: Option<&'a str>,
}

/// Renders the pointer: well-formed XML of at most [`POINTER_MAX_TOKENS`] tokens, every text
/// from the log escaped.
pub fn render_resume_log_pointer(input: PointerInput<'_>) -> String {
    let log = input.log;
    let key = SessionKey::from_raw(&log.session_id);
    let mut w = BudgetWriter::new(POINTER_MAX_TOKENS, CLOSING);
    // Attribute values are reduced to safe characters and capped, so the opening tag always
    // fits the budget whatever a hand-edited log holds.
    w.raw(&format!(
        "<resumption-context source=\"resume-log\" session=\"{}\" written=\"{}\" trigger=\"{}\">\n",
        escape_attr(&attr(key.as_str(), 128)),
        escape_attr(&attr(&log.context_metrics.timestamp, 40)),
        escape_attr(&attr(&log.context_metrics.stop_reason, 24)),
    ));
    let note = match (input.scope, input.handed_back) {
        (PointerScope::ThisSession, Some(newest)) => format!(
            "This session's checkpoints (newest {}) were all handed back; its resume log says where the work stopped: read it first.",
            attr(newest, 16)
        ),
        (PointerScope::ThisSession, None) => {
            "No checkpoint to restore, but this session's resume log records where the work stopped; read it before you continue.".to_string()
        }
        (PointerScope::EarlierSession, _) => {
            "An earlier session of this project left a resume log; if this task continues that work, read it first.".to_string()
        }
    };
    w.element("note", &note, ItemKind::Text);
    if let Some(mission) = mission_line(&log.mission_summary) {
        w.element("mission", &mission, ItemKind::Text);
    }
    // A path is never cut: when it does not fit, the command that shows the log does.
    if !w.element("resume-log", input.location, ItemKind::Atom) {
        w.element(
            "read-more",
            &format!("ctxmon resume-log show {key}"),
            ItemKind::Atom,
        );
    }
    w.finish(CLOSING)
}

/// True when the log says something an agent can act on: a narrative section (mission,
/// accomplishments, findings, decisions, next steps). Metrics, git facts and ctxmon's own
/// cross-references (the checkpoint's id) alone are not worth a pointer at every start.
pub fn worth_pointing_at(log: &ResumeLog) -> bool {
    let any = |items: &[String]| items.iter().any(|s| !s.trim().is_empty());
    !log.mission_summary.trim().is_empty()
        || any(&log.accomplishments)
        || any(&log.key_findings)
        || any(&log.next_steps)
        || log
            .decisions
            .iter()
            .any(|d| !(d.decision.trim().is_empty() && d.rationale.trim().is_empty()))
}

/// The mission as one line of at most [`MISSION_CAP`] characters, cut at a word boundary with
/// "…": whitespace runs collapsed and markdown heading and quote markers dropped, so "# Task\n
/// Fix the login" reads "Task Fix the login". Unescaped: the writer escapes it.
fn mission_line(mission: &str) -> Option<String> {
    let line = mission
        .lines()
        .map(|l| l.trim().trim_start_matches(['#', '>']))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ");
    if line.is_empty() {
        return None;
    }
    if line.chars().count() <= MISSION_CAP {
        return Some(line);
    }
    let raw: String = line.chars().take(MISSION_CAP - 1).collect();
    let cut = match raw.rfind(' ') {
        Some(i) if i > raw.len() / 2 => raw.get(..i).unwrap_or(&raw),
        _ => raw.as_str(),
    };
    Some(format!("{}…", cut.trim_end()))
}

/// Letters, digits and `-_.:+` kept, anything else dropped; at most `max` characters.
fn attr(value: &str, max: usize) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.:+".contains(*c))
        .take(max)
        .collect()
}
