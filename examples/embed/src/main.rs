//! Measures one agent transcript with `ctxmon-application` alone and prints one JSON line,
//! `{"agent": …, "tokens": …, "window": …, "model": …}`: what `ctxmon --json status
//! --transcript PATH` reports of it under the default configuration.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::readers::TranscriptFiles;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: ctxmon-embed TRANSCRIPT");
        return ExitCode::from(2);
    };
    // The library opens no file itself: it reads what this closure opens, a Claude Code
    // transcript, a Codex rollout or a Gemini CLI chat alike (told apart by their first bytes).
    let reader = TranscriptFiles::new(|path: &Path| File::open(path));
    match reader.measure(&path, &FillSettings::default(), None) {
        Ok(fill) => {
            // The fields in the order people read them (a JSON object's keys have none).
            let model = serde_json::to_string(&fill.estimate.model).unwrap_or_default();
            println!(
                r#"{{"agent":"{}","tokens":{},"window":{},"model":{model}}}"#,
                fill.agent.key(),
                fill.estimate.input_tokens.get(),
                fill.estimate.context_window_size.get(),
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
