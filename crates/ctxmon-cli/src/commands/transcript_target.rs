//! What `status` and `report` settle before they read a transcript: the project with
//! `--window` applied as a configuration flag (so it outranks files and variables, as every
//! flag does), the fill settings with the auto-compact point of the agent that wrote the file,
//! and the file itself (`--transcript`, else the newer of the project's Claude Code transcript
//! and Codex rollout).

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::ports::{AgentKind, ScanLimits, TranscriptReader};
use ctxmon_infra_fs::ProjectLayout;
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;

use crate::agent;
use crate::bootstrap;
use crate::cli::GlobalArgs;
use crate::diag::diag;
use crate::exit::Failure;

/// A transcript to read and the settings to read it with.
#[derive(Debug)]
pub struct TranscriptTarget {
    pub transcript: PathBuf,
    /// Which agent wrote it, by its format.
    pub agent: AgentKind,
    pub settings: FillSettings,
    /// The project's `.ctxmon`, where the session's checkpoints are.
    pub layout: ProjectLayout,
}

/// Which of the project's transcripts a command takes when none is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The newest (`status`: a session before its first answer is at 0, and says so).
    Newest,
    /// The newest that has a response (`report`: a chart needs one).
    NewestAnswered,
}

/// How many of the project's transcripts `Pick::NewestAnswered` reads before it gives up.
const MAX_CANDIDATES: usize = 50;

/// Resolves the target of `ctxmon <command>`; settings the agent's files ignore are reported
/// on stderr under the command's name.
pub fn resolve(
    command: &str,
    global: &GlobalArgs,
    window: Option<u64>,
    transcript: Option<&Path>,
    pick: Pick,
) -> Result<TranscriptTarget, Failure> {
    let flags: Vec<(String, String)> = window
        .map(|w| ("context_monitor.context_window".to_string(), w.to_string()))
        .into_iter()
        .collect();
    let project = bootstrap::project(global, &flags)?;
    let mut settings = FillSettings::from_config(&project.config)
        .map_err(|e| Failure::usage(anyhow!("invalid configuration: {e}")))?;
    let project_dir = project.layout.project_dir();
    let transcript = match (transcript, pick) {
        (Some(path), _) => path.to_path_buf(),
        (None, Pick::NewestAnswered) => newest_answered(project_dir, settings.limits)?,
        (None, Pick::Newest) => agent::project_transcript(project_dir).ok_or_else(|| {
            Failure::Other(anyhow!(
                "no transcript found for {} under Claude Code's projects folder, Codex's sessions folder or Gemini CLI's chats folder; pass --transcript PATH",
                project_dir.display()
            ))
        })?,
    };
    // The file says which agent wrote it, and so whose auto-compact point counts.
    let served = agent::of_transcript(&transcript);
    agent::apply_auto_compact(&mut settings, served, project_dir, |w| {
        diag!("ctxmon {command}: {w}")
    });
    agent::apply_history(
        &mut settings,
        served,
        Some(&transcript),
        &project.layout,
        true,
    );
    Ok(TranscriptTarget {
        transcript,
        agent: served,
        settings,
        layout: project.layout,
    })
}

/// The project's newest transcript that holds a response (or a compaction, which follows
/// responses): a session just started has none, and would leave nothing to chart.
fn newest_answered(project_dir: &Path, limits: ScanLimits) -> Result<PathBuf, Failure> {
    let candidates = agent::project_transcripts(project_dir);
    let reader = JsonlTranscriptReader::default();
    let found = candidates.iter().take(MAX_CANDIDATES).find(|path| {
        reader
            .read_latest(path, limits)
            .is_ok_and(|r| r.usage.is_some() || r.boundary.is_some())
    });
    match (found, candidates.len()) {
        (Some(path), _) => Ok(path.clone()),
        (None, 0) => Err(Failure::Other(anyhow!(
            "no transcript found for {} under Claude Code's projects folder, Codex's sessions folder or Gemini CLI's chats folder; pass --transcript PATH",
            project_dir.display()
        ))),
        (None, n) => Err(Failure::Other(anyhow!(
            "no session of this project has a response yet ({} looked at): nothing to chart; \
             run it again after a session's first answer, or pass --transcript PATH",
            ctxmon_domain::human::count(
                u64::try_from(n.min(MAX_CANDIDATES)).unwrap_or(u64::MAX),
                "transcript",
                "transcripts"
            )
        ))),
    }
}
