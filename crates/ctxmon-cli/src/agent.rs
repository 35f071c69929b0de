//! Which coding agent ctxmon serves, and the transcript and auto-compaction settings that go
//! with it.
//!
//! How ctxmon knows it serves Codex CLI:
//! 1. The transcript decides when there is one to read: a Codex rollout opens with a
//!    `session_meta` line (`transcript::agent_of`), whatever its path or the input's shape.
//! 2. Without a readable transcript, the hook input's shape does: Codex sends a `turn_id` and
//!    sends `transcript_path` as `null` when it has no path; Claude Code does neither.
//! 3. A Codex-shaped input whose transcript is not a rollout (a Claude Code transcript or
//!    garbage under the session's rollout name) is still answered as Codex, and the file is
//!    named in the hook log: only Codex sends that shape, and it reads the answer.
//!
//! When a Codex-shaped input has no `transcript_path`, the session's rollout is looked up by
//! its id under `$CODEX_HOME/sessions` (recent day folders only, `codex::find_session_rollout`).
//!
//! `status` and `report` without `--transcript` take the newer (by modification time) of the
//! project's newest Claude Code transcript and its newest Codex rollout (the one whose
//! `session_meta.cwd` is the project folder): whichever agent was used last.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ctxmon_application::agents::AGENTS;
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::ports::{AgentKind, Clock};
use ctxmon_infra_fs::codex;
use ctxmon_infra_fs::gemini;
use ctxmon_infra_fs::transcript::agent_of;
use ctxmon_infra_fs::{AgentSettingsFiles, SystemClock};

use crate::bootstrap;
use crate::wire::hook_input::HookInput;

/// The agent a hook serves and the transcript it measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub agent: AgentKind,
    pub transcript: Option<PathBuf>,
    /// Why a Codex session's transcript could not be found, or why it is not read as Codex's,
    /// for the hook log.
    pub lookup_problem: Option<String>,
    /// True when the transcript's first line told the agent (not the input's shape): the
    /// reader can then be told it too (`JsonlTranscriptReader::knowing`).
    pub told_by_transcript: bool,
}

/// The agent a hook input's shape names when no transcript says: an event only one agent
/// sends (`BeforeAgent`), Codex's `turn_id` or null `transcript_path`, a variable only one
/// agent sets for its hooks (`GEMINI_SESSION_ID`); else Claude Code.
fn agent_by_shape(input: &HookInput) -> AgentKind {
    if let Some(agent) = input
        .hook_event_name
        .as_deref()
        .and_then(AgentKind::sole_sender_of)
    {
        return agent;
    }
    if input.codex_shaped() {
        return AgentKind::Codex;
    }
    let env = bootstrap::env_pairs();
    AGENTS
        .iter()
        .find(|d| {
            d.input_marks
                .env
                .iter()
                .any(|var| env.iter().any(|(k, v)| k == var && !v.is_empty()))
        })
        .map_or(AgentKind::ClaudeCode, |d| d.kind)
}

/// The agent and transcript of a hook input (see the module docs).
pub fn for_hook(input: &HookInput, project_dir: &Path) -> Served {
    let mut lookup_problem = None;
    let by_shape = agent_by_shape(input);
    let transcript = match &input.transcript_path {
        Some(path) => Some(PathBuf::from(path)),
        None if by_shape == AgentKind::Codex => {
            let found = find_codex_session(input.session_id.as_deref());
            if let Err(problem) = &found {
                lookup_problem = Some(problem.clone());
            }
            found.ok()
        }
        None if by_shape == AgentKind::Gemini => {
            let found = find_gemini_session(input.session_id.as_deref(), project_dir);
            if let Err(problem) = &found {
                lookup_problem = Some(problem.clone());
            }
            found.ok()
        }
        None => None,
    };
    // An unreadable transcript says nothing; the reader reports it when it measures.
    let mut told = transcript.as_deref().and_then(|p| agent_of(p).ok());
    if by_shape == AgentKind::Codex
        && told == Some(AgentKind::ClaudeCode)
        && let Some(path) = &transcript
    {
        // Only Codex sends this shape, and the answer goes to Codex whatever the file holds:
        // answered by Claude Code's rules, PreCompact's notice would reach Codex, which shows
        // it as a warning. The odd file is for the hook log.
        lookup_problem.get_or_insert(format!(
            "{} is not a Codex rollout (its first line is not Codex's session_meta), though the input is Codex's; answering as Codex",
            path.display()
        ));
        told = None;
    }
    Served {
        agent: told.unwrap_or(by_shape),
        transcript,
        lookup_problem,
        told_by_transcript: told.is_some(),
    }
}

/// The rollout of Codex session `id` under `$CODEX_HOME/sessions`, or why there is none (for
/// hooks without a transcript path, and `resume-log generate --session`).
pub fn find_codex_session(id: Option<&str>) -> Result<PathBuf, String> {
    let id = id
        .filter(|i| !i.trim().is_empty())
        .ok_or("the Codex input names no session_id and no transcript_path; nothing to measure")?;
    let env = bootstrap::env_pairs();
    let home = codex::codex_home(&env)
        .ok_or("neither CODEX_HOME nor HOME is set; cannot find the Codex rollout")?;
    codex::find_session_rollout(&home, id, SystemClock.now()).ok_or_else(|| {
        format!(
            "no rollout of Codex session {id} under {} in the last {} days; nothing to measure",
            home.join("sessions").display(),
            codex::SESSION_LOOKBACK_DAYS + 1
        )
    })
}

/// The chat of Gemini CLI session `id` among the project's chats under `~/.gemini/tmp`, or why
/// there is none (Gemini sends `transcript_path` as `''` before the chat file exists).
pub fn find_gemini_session(id: Option<&str>, project_dir: &Path) -> Result<PathBuf, String> {
    let id = id.filter(|i| !i.trim().is_empty()).ok_or(
        "the Gemini CLI input names no session_id and no transcript_path; nothing to measure",
    )?;
    let env = bootstrap::env_pairs();
    let home =
        gemini::gemini_home(&env).ok_or("HOME is not set; cannot find the Gemini CLI chat")?;
    gemini::find_session_chat(&home, project_dir, id).ok_or_else(|| {
        format!(
            "no chat of Gemini CLI session {id} for {} under {}; nothing to measure yet",
            project_dir.display(),
            home.join("tmp").display()
        )
    })
}

/// The agent that wrote `path` (Claude Code when it cannot be read: the reader then reports
/// why).
pub fn of_transcript(path: &Path) -> AgentKind {
    agent_of(path).unwrap_or_default()
}

/// The session id `path` was written for, as that agent's hooks name it: Claude Code's file
/// name, the id a Codex rollout's first line (or name) gives, a Gemini CLI chat's `sessionId`.
pub fn session_of(path: &Path) -> Option<String> {
    match of_transcript(path) {
        AgentKind::Codex => codex::session_id(path),
        AgentKind::Gemini => gemini::session_id(path),
        AgentKind::ClaudeCode => path.file_stem().map(|s| s.to_string_lossy().into_owned()),
    }
}

/// The transcript `status` and `report` measure without `--transcript` (see the module docs).
pub fn project_transcript(project_dir: &Path) -> Option<PathBuf> {
    let env = bootstrap::env_pairs();
    let claude = ctxmon_infra_fs::claude_paths::latest_transcript(project_dir, &env).map(|p| {
        let modified = std::fs::metadata(&p)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        (modified, p)
    });
    let codex =
        codex::codex_home(&env).and_then(|home| codex::latest_project_rollout(&home, project_dir));
    let gemini =
        gemini::gemini_home(&env).and_then(|home| gemini::latest_project_chat(&home, project_dir));
    [claude, codex, gemini]
        .into_iter()
        .flatten()
        .max_by_key(|(modified, _)| *modified)
        .map(|(_, p)| p)
}

/// The project's transcripts, newest first: Claude Code's and the newest Codex rollout
/// (`report` looks past sessions that have no response yet).
pub fn project_transcripts(project_dir: &Path) -> Vec<PathBuf> {
    let env = bootstrap::env_pairs();
    let mut all = ctxmon_infra_fs::claude_paths::transcripts_newest_first(project_dir, &env);
    let rollout =
        codex::codex_home(&env).and_then(|home| codex::latest_project_rollout(&home, project_dir));
    let chat =
        gemini::gemini_home(&env).and_then(|home| gemini::latest_project_chat(&home, project_dir));
    all.extend(rollout.into_iter().chain(chat));
    all.sort_by(|a, b| b.cmp(a));
    all.into_iter().map(|(_, path)| path).collect()
}

/// Sets `settings` for `agent`: Claude Code's auto-compaction settings (env and settings
/// files), Codex's `model_auto_compact_token_limit` (its `config.toml`, unless ctxmon's own
/// `codex.auto_compact_token_limit` is set) or Gemini CLI's `model.compressionThreshold`, as
/// the library reads them for an embedder too.
/// Every ignored value is passed to `warn`.
pub fn apply_auto_compact(
    settings: &mut FillSettings,
    agent: AgentKind,
    project_dir: &Path,
    mut warn: impl FnMut(&str),
) {
    let env = bootstrap::env_snapshot();
    for w in settings.apply_agent_settings(agent, project_dir, env, &mut AgentSettingsFiles) {
        warn(&w);
    }
}

/// This user's recent automatic compactions in the other transcripts of `transcript`'s folder
/// (Claude Code's project folder), for where their compactions really fired; only for Claude
/// Code, whose point has moved between versions. `refresh` reads what the transcripts gained
/// since the last look (a session's start, `status`); otherwise only what was kept is used.
pub fn apply_history(
    settings: &mut FillSettings,
    agent: AgentKind,
    transcript: Option<&Path>,
    layout: &ctxmon_infra_fs::layout::ProjectLayout,
    refresh: bool,
) {
    use ctxmon_infra_fs::claude_history::{cached_auto_compactions, recent_auto_compactions};
    if agent != AgentKind::ClaudeCode {
        return;
    }
    if let Some(transcript) = transcript {
        settings.history = if refresh {
            recent_auto_compactions(transcript, layout)
        } else {
            cached_auto_compactions(transcript, layout)
        };
    }
}
