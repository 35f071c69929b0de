//! What `status` and `report` settle before they read a transcript: the project with
//! `--window` applied as a configuration flag (so it outranks files and variables, as every
//! flag does), the fill settings with the auto-compact point of the agent that wrote the file,
//! and the file itself (`--transcript`, else the newer of the project's Claude Code transcript
//! and Codex rollout).

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::ports::AgentKind;

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
}

/// Resolves the target of `ctxmon <command>`; settings the agent's files ignore are reported
/// on stderr under the command's name.
pub fn resolve(
    command: &str,
    global: &GlobalArgs,
    window: Option<u64>,
    transcript: Option<&Path>,
) -> Result<TranscriptTarget, Failure> {
    let flags: Vec<(String, String)> = window
        .map(|w| ("context_monitor.context_window".to_string(), w.to_string()))
        .into_iter()
        .collect();
    let project = bootstrap::project(global, &flags)?;
    let mut settings = FillSettings::from_config(&project.config)
        .map_err(|e| Failure::usage(anyhow!("invalid configuration: {e}")))?;
    let project_dir = project.layout.project_dir();
    let transcript = match transcript {
        Some(path) => path.to_path_buf(),
        None => agent::project_transcript(project_dir).ok_or_else(|| {
            Failure::Other(anyhow!(
                "no transcript found for {} under Claude Code's projects folder or Codex's sessions folder; pass --transcript PATH",
                project_dir.display()
            ))
        })?,
    };
    // The file says which agent wrote it, and so whose auto-compact point counts.
    let served = agent::of_transcript(&transcript);
    agent::apply_auto_compact(&mut settings, served, project_dir, |w| {
        diag!("ctxmon {command}: {w}")
    });
    Ok(TranscriptTarget {
        transcript,
        agent: served,
        settings,
    })
}
