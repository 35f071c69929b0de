//! `ctxmon statusline`: Claude Code's status-line command. Reads the status-line JSON on stdin
//! and prints one line. Like a hook it never fails loudly: unreadable input prints `ctx --`
//! (Claude Code shows whatever is printed, and an empty line would look like a crash).

use std::path::Path;

use ctxmon_application::config::Config;
use ctxmon_application::fill::FillSettings;
use ctxmon_application::ports::SessionStateStore;
use ctxmon_application::status_line::{StatusPayload, status_estimate};
use ctxmon_domain::{FillSource, SessionKey, TokenCount};
use ctxmon_infra_fs::{FsSessionStateStore, JsonlTranscriptReader, ProjectLayout};

use crate::bootstrap;
use crate::cli::GlobalArgs;
use crate::exit::CmdResult;
use crate::render;
use crate::wire::hook_input::read_bounded;
use crate::wire::status_input::StatusInput;

const UNKNOWN: &str = "ctx --";

pub fn run(global: &GlobalArgs) -> CmdResult {
    let line = match read_bounded(std::io::stdin().lock())
        .ok()
        .and_then(|b| StatusInput::parse(&b))
    {
        Some(input) => render_for(global, &input),
        None => UNKNOWN.to_string(),
    };
    println!("{line}");
    Ok(())
}

fn render_for(global: &GlobalArgs, input: &StatusInput) -> String {
    let hint = input.project_dir.as_deref().or(input.cwd.as_deref());
    let project_dir = bootstrap::project_dir(global, hint);
    let config = bootstrap::load_config(global, &project_dir, &[]).unwrap_or_default();
    let settings = FillSettings::from_config(&config)
        .or_else(|_| FillSettings::from_config(&Config::default()));
    let Ok(settings) = settings else {
        return UNKNOWN.to_string();
    };
    // The session's state only sharpens the figure right after a compaction; without it the
    // line is still right.
    let state = input.session_id.as_deref().and_then(|id| {
        FsSessionStateStore::new(ProjectLayout::new(&project_dir))
            .load(&SessionKey::from_raw(id))
            .ok()
            .flatten()
    });
    let payload = StatusPayload {
        transcript_path: input.transcript_path.as_deref().map(Path::new),
        current_usage: input.current_usage.map(TokenCount),
        window: input.window,
        model_id: input.model_id.as_deref(),
    };
    let estimate = status_estimate(
        &settings,
        &JsonlTranscriptReader::new(),
        state.as_ref(),
        &payload,
    );
    if estimate.source == FillSource::Unavailable {
        return UNKNOWN.to_string();
    }
    let width = bootstrap::env_var("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .unwrap_or(80);
    let color = bootstrap::env_var("NO_COLOR").is_none();
    render::status_line(&estimate, width, color)
}
