//! Section providers: each source of content fills what the sources before it left empty.
//!
//! Priority (contract C9): the agent's own document, the session's latest checkpoint, the
//! transcript tail, git. For the narrative sections (mission, accomplishments, findings,
//! decisions, next steps) the first source that has any content owns the section, because
//! mixing an agent's curated list with raw todo items would blur both; critical-context keys
//! are added when absent. The metadata lists (files, commands, errors) are facts, so every
//! source adds to them. The agent's own context metrics are kept apart from ctxmon's
//! measurement (`ResumeLog::agent_metrics`), shown beside it. A provider is an extension point:
//! register one of your own with `ResumeLogGenerator::register_section_provider`.

use crate::ports::TranscriptRecord;
use ctxmon_domain::{
    CheckpointData, Decision, FillEstimate, ResumeLog, ResumeLogDraft, ResumptionState, Timestamp,
    Todo,
};

use super::trigger::TriggerKind;
use crate::handoff::resumption::present::{AtHand, request_text};
use crate::handoff::resumption::{
    TailDerivation, TranscriptHead, UNVERIFIED, commands_run, completed_work_given, conclusions,
    derive_tail, files_written_by_subagents, first_request_text, last_timestamp,
};
use crate::ports::GitHead;

/// Everything generation may draw on, gathered beforehand (the generator itself does no I/O).
#[derive(Debug, Clone, Copy)]
pub struct GenerationInputs<'a> {
    /// The session the log is for.
    pub session_id: &'a str,
    /// What caused it.
    pub trigger: TriggerKind,
    /// The time written into the log.
    pub now: Timestamp,
    /// The session's fill, when it was measured.
    pub fill: Option<&'a FillEstimate>,
    /// The agent's own document (`--from`), when it wrote one.
    pub agent: Option<&'a ResumeLogDraft>,
    /// The session's newest checkpoint.
    pub checkpoint: Option<&'a CheckpointData>,
    /// The transcript's tail as parsed lines, oldest first; `None` when it could not be read.
    pub tail: Option<&'a [TranscriptRecord]>,
    /// What `tail` alone says, when the caller derived it already (otherwise derived here).
    pub derived: Option<&'a TailDerivation>,
    /// What the transcript's start says (its first request); `None` when it was not read.
    pub head: Option<&'a TranscriptHead>,
    /// Git's state, when it was read.
    pub git: Option<&'a GitSnapshot>,
    /// The transcript's path, recorded in the metadata.
    pub transcript_path: Option<&'a str>,
    /// The session's stored log, which this one replaces; carried on when a compaction came
    /// since (see the `carry` module).
    pub previous: Option<&'a ResumeLog>,
}

/// Git as seen at generation time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GitSnapshot {
    /// The branch and head commit.
    pub head: GitHead,
    /// `None` when the working tree's state could not be read.
    pub dirty_files: Option<Vec<String>>,
}

/// A source of resume-log content.
pub trait SectionProvider {
    /// Adds what this source knows to `log`; returns the label recorded in
    /// `metadata.sources` when it contributed anything, `None` when it had nothing.
    fn contribute(&self, inputs: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String>;
}

/// `--from`: what the agent wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentDocument;

impl SectionProvider for AgentDocument {
    fn contribute(&self, inputs: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String> {
        let d = inputs.agent?;
        fill_text(&mut log.mission_summary, d.mission_summary.as_deref());
        fill_list(&mut log.accomplishments, &d.accomplishments);
        fill_list(&mut log.key_findings, &d.key_findings);
        fill_list(&mut log.next_steps, &d.next_steps);
        if log.decisions.is_empty() {
            log.decisions = d.decisions.clone();
        }
        for (k, v) in &d.critical_context {
            log.critical_context
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        // The agent's own figures are shown beside ctxmon's measurement, never instead of it.
        if let Some(reported) = d.context_metrics.as_ref().filter(|r| !r.is_empty()) {
            log.agent_metrics = Some(reported.clone());
        }
        let m = &mut log.metadata;
        // A document written for another session id than the one the log is for: say so.
        if let Some(id) = d
            .session_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty() && *id != log.session_id)
        {
            m.notes
                .entry("session_id in the agent's document".into())
                .or_insert_with(|| id.to_string());
        }
        if m.session_duration_minutes.is_none() {
            m.session_duration_minutes = d.metadata.session_duration_minutes;
        }
        m.files_modified
            .extend(d.metadata.files_modified.iter().cloned());
        m.commands_run
            .extend(d.metadata.commands_run.iter().cloned());
        m.errors.extend(d.metadata.errors.iter().cloned());
        m.agents_used.extend(d.metadata.agents_used.iter().cloned());
        for (k, v) in &d.metadata.notes {
            m.notes.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Some("agent document".into())
    }
}

/// The session's newest checkpoint: its resumption state (the source file's curated summary,
/// decisions and next steps). Its transcript-derived fields are older copies of what the tail
/// says now, so they are used only when the tail could not be read.
#[derive(Debug, Clone, Copy, Default)]
pub struct LatestCheckpoint;

impl SectionProvider for LatestCheckpoint {
    fn contribute(&self, inputs: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String> {
        let cp = inputs.checkpoint?;
        let id = cp.checkpoint_id.to_string();
        add_context(
            log,
            "checkpoint",
            &format!(
                "{id} (compaction {} of this session, {}% full; `ctxmon checkpoint show {id}`)",
                cp.compaction_sequence,
                cp.context_state.percent()
            ),
        );
        if let Some(st) = &cp.resumption_state {
            curated(st, log);
            if inputs.tail.is_none() {
                derived(st, None, log);
            }
        }
        Some(format!("checkpoint {id}"))
    }
}

fn curated(st: &ResumptionState, log: &mut ResumeLog) {
    fill_text(&mut log.mission_summary, st.summary.as_deref());
    if log.decisions.is_empty() {
        log.decisions = st
            .decisions
            .iter()
            .map(|d| Decision {
                decision: d.decision.clone(),
                rationale: d.rationale.clone().unwrap_or_default(),
            })
            .collect();
    }
    fill_list(&mut log.key_findings, &st.agent_summaries);
    fill_list(&mut log.next_steps, &st.next_steps);
    let mut files = st.files_to_read.clone();
    // Stable: files of equal priority keep the document's order; unprioritised ones last.
    files.sort_by_key(|f| f.priority.map_or((1, 0), |p| (0, p)));
    let listed: Vec<String> = files
        .iter()
        .map(|f| match &f.reason {
            Some(r) => format!("{} ({r})", f.path),
            None => f.path.clone(),
        })
        .collect();
    if !listed.is_empty() {
        add_context(log, "files to read", &listed.join("; "));
    }
    if let Some(q) = &st.quality_trajectory {
        let parts: Vec<String> = [
            q.score.map(|s| format!("score {s}")),
            q.iteration.map(|i| format!("iteration {i}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !parts.is_empty() {
            add_context(log, "quality", &parts.join(", "));
        }
    }
}

/// Requests, todos, files and the last answer: from the tail when it is readable, else from
/// the checkpoint's copy. The mission is the request at hand, chosen as the resumption context
/// chooses it; the session's first request is shown apart, under its own name, and only when
/// it says something the request at hand does not (the work may have moved on since).
fn derived(st: &ResumptionState, first: Option<&str>, log: &mut ResumeLog) {
    let at_hand = AtHand::of(&st.last_user_requests, st.request_answers.as_deref());
    // A short reply with no earlier request in sight is all that says what is asked.
    if let Some(current) = at_hand.current.or(at_hand.reply) {
        if log.mission_summary.trim().is_empty() {
            fill_text(&mut log.mission_summary, Some(current));
        } else if !same_request(current, &log.mission_summary) {
            // A curated mission (the agent's own document or source file) stays; the request
            // at hand is still what the user asked last.
            add_context(log, "current request", current);
        }
        if st.request_answered && at_hand.reply.is_none() {
            add_context(
                log,
                "current request status",
                "answered in the assistant's last message",
            );
        }
    }
    if let Some(line) = at_hand.reply_line() {
        add_context(log, "latest reply", &line);
    }
    if let Some(first) = first
        .or(st.goal.as_deref())
        .filter(|f| at_hand.is_other(f) && !same_request(f, &log.mission_summary))
        && let Some(text) = request_text(first)
    {
        add_context(log, "first request", &text);
    }
    checked_facts(st, log);
    todos(&st.todos, &st.tasks, log);
    if let Some(text) = &st.last_assistant_text {
        fill_list(
            &mut log.key_findings,
            &[format!("Last assistant message: {text}")],
        );
    }
    log.metadata
        .files_modified
        .extend(st.files_touched.iter().cloned());
}

/// The facts the hand-back checks against what came after them, by the same rules: the
/// agent's note with what followed it, the user's standing rules, lessons, the commands that
/// still work and the environment they show.
fn checked_facts(st: &ResumptionState, log: &mut ResumeLog) {
    if let Some(note) = &st.note {
        let when = note.written_at.as_deref().unwrap_or("at an unknown time");
        let mut text = format!("(written {when}) {}", note.text.trim());
        for request in &note.requests_after {
            text.push_str(&format!("\nLater, the user asked: {request}"));
        }
        add_context(log, "agent's note", &text);
    }
    for (key, items) in [
        ("standing rules", &st.rules),
        ("lessons", &st.lessons),
        ("commands that worked", &st.commands_ok),
        ("environment", &st.environment),
    ] {
        if !items.is_empty() {
            add_context(log, key, &items.join("\n"));
        }
    }
}

/// True when `request` (capped with "…" at `MAX_TEXT_CHARS`) is the mission (kept longer).
fn same_request(request: &str, mission: &str) -> bool {
    // A long request is kept as its head and tail around a marked cut: its head says which.
    let head = request.split("\n[… ").next().unwrap_or(request);
    request == mission
        || request
            .strip_suffix('…')
            .is_some_and(|start| mission.starts_with(start))
        || (head.len() < request.len() && mission.starts_with(head))
}

/// Completed todos and tasks are accomplishments; pending and in-progress ones are next
/// steps. Claude Code 2.1 sessions keep their work in the task tools instead of a todo list.
fn todos(list: &[Todo], tasks: &[Todo], log: &mut ResumeLog) {
    let done: Vec<String> = list
        .iter()
        .chain(tasks)
        .filter(|t| t.status == "completed")
        .map(|t| t.content.clone())
        .collect();
    let open: Vec<String> = list
        .iter()
        .chain(tasks)
        .filter(|t| t.status != "completed")
        .map(|t| match t.status.as_str() {
            "in_progress" => format!("(in progress) {}", t.content),
            UNVERIFIED => format!(
                "(marked completed after a failure nothing resolved) {}",
                t.content
            ),
            _ => t.content.clone(),
        })
        .collect();
    fill_list(&mut log.accomplishments, &done);
    fill_list(&mut log.next_steps, &open);
}

/// The session's transcript, as read through the `TranscriptTail` port: its first typed
/// request as mission (from the head, which has the session's real first request, else the
/// tail's oldest), and from the tail: every todo and task the session completed (not only the
/// newest list's), the open ones, files touched (the session's, and apart those only
/// subagents wrote), commands run, errors seen, the latest request and the assistant's last
/// few conclusions.
#[derive(Debug, Clone, Copy, Default)]
pub struct SessionTranscript;

impl SectionProvider for SessionTranscript {
    fn contribute(&self, inputs: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String> {
        let lines = inputs.tail.filter(|l| !l.is_empty())?;
        let own;
        let tail = match inputs.derived {
            Some(tail) => tail,
            None => {
                own = derive_tail(lines, &[]);
                &own
            }
        };
        let st = &tail.state;
        let first = inputs
            .head
            .and_then(|h| h.first_request.clone())
            .or_else(|| first_request_text(lines));
        fill_list(
            &mut log.accomplishments,
            &completed_work_given(lines, &st.tasks, &tail.unverified),
        );
        fill_list(&mut log.key_findings, &conclusions(lines));
        derived(st, first.as_deref(), log);
        let m = &mut log.metadata;
        m.commands_run.extend(commands_run(lines));
        m.errors.extend(tail.errors.iter().cloned());
        // A file the main session also wrote is listed once, as the session's.
        let by_subagents = files_written_by_subagents(lines)
            .into_iter()
            .filter(|f| !m.files_modified.contains(f));
        m.files_modified_by_subagents.extend(by_subagents);
        // The session began with the transcript's first line, not the tail's.
        if m.started_at.is_none() && m.last_activity_at.is_none() {
            m.started_at = inputs.head.and_then(|h| h.started_at.clone());
            m.last_activity_at = last_timestamp(lines);
        }
        Some("transcript".into())
    }
}

/// Branch, head and uncommitted changes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Git;

impl SectionProvider for Git {
    fn contribute(&self, inputs: &GenerationInputs<'_>, log: &mut ResumeLog) -> Option<String> {
        let g = inputs.git?;
        let m = &mut log.metadata;
        if m.git_branch.is_none() {
            m.git_branch.clone_from(&g.head.branch);
        }
        if m.git_head.is_none() {
            m.git_head.clone_from(&g.head.head);
        }
        if let Some(dirty) = &g.dirty_files {
            // ctxmon's own folder (this very log among it) is not the session's work.
            let ours = |entry: &String| {
                let path = entry.get(3..).unwrap_or_default();
                path.starts_with(".ctxmon/") || path.contains("/.ctxmon/")
            };
            m.git_dirty_files
                .extend(dirty.iter().filter(|e| !ours(e)).cloned());
        }
        Some("git".into())
    }
}

/// Sets `slot` when it is still empty and `value` has content.
pub fn fill_text(slot: &mut String, value: Option<&str>) {
    if slot.trim().is_empty()
        && let Some(v) = value.map(str::trim).filter(|v| !v.is_empty())
    {
        *slot = v.to_string();
    }
}

/// Sets `slot` when it has no item with content yet.
pub fn fill_list(slot: &mut Vec<String>, items: &[String]) {
    if slot.iter().all(|s| s.trim().is_empty()) {
        *slot = items.to_vec();
    }
}

/// Adds a critical-context entry unless a higher-priority source already set that key.
pub fn add_context(log: &mut ResumeLog, key: &str, value: &str) {
    log.critical_context
        .entry(key.to_string())
        .or_insert_with(|| value.into());
}
