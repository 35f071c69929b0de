//! Codex CLI's files, behind the same ports as Claude Code's: rollouts (the transcript), the
//! `sessions` folder they live in, and the `config.toml` that moves the auto-compact point.
//! This is the one place that knows Codex's formats (issue 14 §1; facts and sources in
//! `../shared/docs/codex.md`).
//!
//! A rollout is JSONL, one `{"timestamp","type","payload"}` object a line, opened by a
//! `session_meta` line; `transcript::format` recognises it by that line and the transcript
//! reader hands it here:
//! - `line` classifies a line for the fill: a measured `token_count`, Codex's own estimate
//!   (skipped), a compaction marker, a turn's model or announced window;
//! - `scan` reads backwards from the end within the byte bound (the hooks' reading);
//! - `forward` streams a whole file for the session report;
//! - `records` and `tail` turn lines into the tail port's typed records (requests, tool calls
//!   and outputs, plans, patched files, the branch) for checkpoints, resumption and resume logs;
//! - `sessions` finds rollouts under `$CODEX_HOME/sessions`; `config` reads
//!   `model_auto_compact_token_limit`.

mod config;
mod forward;
mod line;
mod records;
mod scan;
mod sessions;
mod tail;

pub use config::{AUTO_COMPACT_KEY, CodexSettings, load_codex_settings};
pub use forward::ForwardEvents;
pub use records::RolloutRecords;
pub use sessions::{
    MAX_ROLLOUTS_EXAMINED, SESSION_LOOKBACK_DAYS, codex_home, find_session_rollout,
    latest_project_rollout, session_cwd, session_id,
};

pub(crate) use scan::scan;
pub(crate) use tail::{read_head, read_tail};

/// Parses rollout lines already read as JSON into records, oldest first (tests and tools that
/// hold `Value`s; the tail reader filters raw lines first).
pub fn rollout_records_from_values(
    lines: &[serde_json::Value],
) -> Vec<ctxmon_application::ports::TranscriptRecord> {
    let mut parser = RolloutRecords::default();
    let mut out = Vec::new();
    for line in lines {
        parser.push(line, &mut out);
    }
    out
}
