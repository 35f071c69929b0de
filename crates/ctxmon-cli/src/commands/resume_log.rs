//! `ctxmon resume-log generate|list|show|latest|cleanup|stats`: write the handoff documents of
//! contract C9 on request and manage what `.ctxmon/resume-logs/` holds.
//!
//! `generate` writes the log of one session (`--session`, else `$CLAUDE_CODE_SESSION_ID`, else
//! the `--from` document's `session_id`, else the project's newest Claude Code transcript or
//! Codex rollout, whichever was written last), from the
//! agent's own JSON document (`--from FILE|-`) and what ctxmon reads itself. An id that is not a session id (a path, a dot) and a bad `--from`
//! document are usage errors (exit 2, nothing read or written), the document's naming the JSON
//! path of the problem; a folder that cannot be written is exit 1, and the logs already there
//! are left as they were. Unreadable files are named on stderr and skipped.

pub(super) mod from;
mod view;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::anyhow;
use ctxmon_application::handoff::resume_log::{GenerateOutcome, generate_now};
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::run::{HookContext, HookPorts};
use ctxmon_domain::session::is_safe;
use ctxmon_domain::{ResumeLogDraft, human};
use ctxmon_infra_fs::claude_paths::{project_slugs, projects_dirs};
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;
use ctxmon_infra_fs::{
    FsCheckpointRepository, FsEventLog, FsGitInfo, FsProjectFiles, FsResumeLogStore,
    FsResumptionSource, FsSessionStateStore, SystemClock,
};
use serde_json::json;

use crate::bootstrap;
use crate::cli::{GlobalArgs, ResumeLogCommand};
use crate::commands::output::{clip, emit, note};
use crate::exit::{CmdResult, Failure};
use crate::json_out;

pub fn run(cmd: ResumeLogCommand, global: &GlobalArgs) -> CmdResult {
    let layout = bootstrap::existing_project(global)?.layout();
    let store = || FsResumeLogStore::new(layout.clone());
    match cmd {
        ResumeLogCommand::Generate { session, from } => {
            generate(global, session.as_deref(), from.as_deref())
        }
        ResumeLogCommand::List => view::list(&store(), global.json),
        ResumeLogCommand::Show { id } => view::show(&store(), id.as_deref(), global.json),
        ResumeLogCommand::Latest => view::show(&store(), None, global.json),
        ResumeLogCommand::Cleanup { keep } => {
            view::cleanup(&store(), cleanup_keep(global, keep)?, global.json)
        }
        ResumeLogCommand::Stats => view::stats(&store(), global.json),
    }
}

fn generate(global: &GlobalArgs, session: Option<&str>, from: Option<&str>) -> CmdResult {
    // The id and the document first: a bad one must fail before anything is read or written
    // (the write would also apply the retention and delete older logs).
    if let Some(id) = session {
        check_session_id(id, "--session")?;
    }
    let draft: Option<ResumeLogDraft> = from.map(from::read_draft).transpose()?;
    let project = bootstrap::project(global, &[])?;
    let mut settings = FillSettings::from_config(&project.config)
        .map_err(|e| Failure::usage(anyhow!("invalid thresholds: {e}")))?;
    let env = bootstrap::env_pairs();
    let project_dir = project.layout.project_dir().to_path_buf();
    let documented = draft.as_ref().and_then(|d| d.session_id.as_deref());
    let (session_id, transcript) = resolve_session(&project_dir, &env, session, documented)?;
    if let Some(path) = &transcript {
        // The file says which agent wrote it, and so whose auto-compact point the log quotes.
        crate::agent::apply_auto_compact(
            &mut settings,
            crate::agent::of_transcript(path),
            &project_dir,
            |w| note(&format!("warning: {w}")),
        );
    }

    let layout = project.layout.clone();
    let reader = JsonlTranscriptReader::default();
    let states = FsSessionStateStore::new(layout.clone());
    let events = FsEventLog::new(layout.clone());
    let checkpoints = FsCheckpointRepository::new(layout.clone());
    let r = &project.config.resumption;
    let source = FsResumptionSource::from_config(r);
    let git = FsGitInfo::new();
    let clock = SystemClock;
    let store = FsResumeLogStore::new(layout).with_lock_wait(Duration::from_secs(5));
    let ports = HookPorts {
        transcripts: &reader,
        tail: &reader,
        states: &states,
        events: &events,
        clock: &clock,
        checkpoints: &checkpoints,
        source: &source,
        git: &git,
        files: &FsProjectFiles,
    };
    let ctx = HookContext {
        config: &project.config,
        settings: &settings,
        project_dir: &project_dir,
        session_id: Some(&session_id),
        transcript_path: transcript.as_deref(),
        cwd: None,
        config_error: None,
    };
    if transcript.is_none() {
        note(&format!(
            "warning: no Claude Code transcript, Codex rollout or Gemini CLI chat found for session {}; the log holds only what --from, checkpoints and git say",
            clip(&session_id, 40)
        ));
    }
    let outcome = generate_now(&ctx, &ports, &store, draft.as_ref())
        .map_err(|e| Failure::Other(anyhow!("cannot save the resume log: {e}")))?;
    for w in &outcome.warnings {
        note(&format!("warning: {w}"));
    }
    report(&outcome, global.json)
}

fn report(outcome: &GenerateOutcome, as_json: bool) -> CmdResult {
    let rendered = &outcome.generated.rendered;
    let saved = &outcome.saved;
    if as_json {
        let sections: serde_json::Map<String, serde_json::Value> = rendered
            .sections
            .iter()
            .map(|s| (s.section.key().to_string(), s.tokens.get().into()))
            .collect();
        let removed: Vec<&str> = outcome.removed.iter().map(|k| k.as_str()).collect();
        return json_out::print(&json!({
                "session_id": saved.session_id,
                "key": saved.key.as_str(),
                "markdown_path": saved.location,
                "json_path": saved.json_location,
                "tokens": rendered.total_tokens().get(),
                "omitted_tokens": rendered.omitted_tokens(),
                "sections": sections,
                "sources": outcome.generated.log.metadata.sources,
                "removed": removed,
                "warnings": outcome.warnings,
        }));
    }
    let cut = match rendered.omitted_tokens() {
        0 => String::new(),
        n => format!("; {} cut to fit the budget", human::tokens(n)),
    };
    emit(&format!(
        "resume log for session {} written to {} ({}{cut})",
        clip(&saved.session_id, 40),
        saved.location,
        human::tokens(rendered.total_tokens().get())
    ))
}

/// `--keep N`, else the configured `resume_logs.keep`. Zero is refused like the configuration
/// refuses it: keeping no log at all is `rm`, not retention, and a typo must not cost every log.
fn cleanup_keep(global: &GlobalArgs, keep: Option<u64>) -> Result<u64, Failure> {
    match keep {
        Some(0) => Err(Failure::usage(anyhow!(
            "--keep 0: keep at least 1 resume log (the minimum of resume_logs.keep); delete .ctxmon/resume-logs/ yourself to remove them all"
        ))),
        Some(n) => Ok(n),
        None => Ok(bootstrap::project(global, &[])?.config.resume_logs.keep),
    }
}

/// The session to write for and its transcript: `--session`, else `CLAUDE_CODE_SESSION_ID` (set
/// inside a Claude Code session: it names the session the agent runs in, whatever its document
/// says), else the `--from` document's `session_id` (the resume log's JSON format names its
/// session), else the project's newest transcript (its file stem is the session id) or Codex
/// rollout (its `session_meta` names the session).
fn resolve_session(
    project_dir: &Path,
    env: &[(String, String)],
    session: Option<&str>,
    documented: Option<&str>,
) -> Result<(String, Option<PathBuf>), Failure> {
    let named = match session {
        Some(s) => Some(s.to_string()),
        None => match bootstrap::env_var("CLAUDE_CODE_SESSION_ID") {
            Some(id) => {
                check_session_id(&id, "CLAUDE_CODE_SESSION_ID")?;
                Some(id)
            }
            None => match documented {
                Some(id) => {
                    check_session_id(id, "the --from document's session_id")?;
                    Some(id.to_string())
                }
                None => None,
            },
        },
    };
    if let Some(id) = named {
        let transcript = transcript_of(project_dir, env, &id);
        return Ok((id, transcript));
    }
    let Some(path) = crate::agent::project_transcript(project_dir) else {
        return Err(Failure::usage(anyhow!(
            "no session to write a log for: no Claude Code transcript, Codex rollout or Gemini CLI chat found for {}; pass --session ID",
            project_dir.display()
        )));
    };
    let Some(id) = crate::agent::session_of(&path).filter(|id| is_safe(id)) else {
        return Err(Failure::usage(anyhow!(
            "no session to write a log for: {} names no session id; pass --session ID",
            path.display()
        )));
    };
    Ok((id, Some(path)))
}

/// A session id given by a person (`--session`, the environment) must be one Claude Code could
/// have written: letters, digits, `-` and `_`. Hooks hash any other id into a safe file name
/// (they must answer whatever the input); here a typo or a path is refused with exit 2.
fn check_session_id(id: &str, origin: &str) -> Result<(), Failure> {
    if id.trim().is_empty() {
        return Err(Failure::usage(anyhow!(
            "{origin} is empty; pass the session id (the transcript's file name without .jsonl)"
        )));
    }
    if !is_safe(id) {
        return Err(Failure::usage(anyhow!(
            "{origin} {}: not a session id (1 to 128 letters, digits, '-' or '_'); pass the transcript's file name without .jsonl",
            clip(id, 60)
        )));
    }
    Ok(())
}

/// `<session>.jsonl` in the project's transcript folders, else the session's Codex rollout
/// (searched the way a hook without a transcript path searches). Only a file-name-safe id is
/// looked up: an id with `/` or `..` must not become a path.
fn transcript_of(project_dir: &Path, env: &[(String, String)], session: &str) -> Option<PathBuf> {
    if !is_safe(session) {
        return None;
    }
    // Claude Code names the folder after the resolved path, as `latest_transcript` assumes.
    let canonical = std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.into());
    let slugs = project_slugs(&canonical);
    projects_dirs(env)
        .into_iter()
        .flat_map(|base| slugs.iter().map(move |slug| base.join(slug)))
        .map(|dir| dir.join(format!("{session}.jsonl")))
        .find(|p| p.is_file())
        .or_else(|| crate::agent::find_codex_session(Some(session)).ok())
}
