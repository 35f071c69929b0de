//! The agents' transcripts and settings, read by their own rules: what an embedder needs to
//! measure a real session with this one crate.
//!
//! [`TranscriptFiles`] is the reader: it opens a transcript through a [`FileAccess`] (a
//! closure over `std::fs::File::open` will do), tells the agent from the file's first line
//! (`detect`) and reads it by that agent's rules (`claude_code`, `codex`, `gemini`), implementing the
//! transcript ports the use cases run on. `settings` reads the agents' own auto-compaction
//! settings, so an embedder's figures equal `ctxmon status`'s.
//!
//! Layout: `files` is [`TranscriptFiles`], `access` the [`FileAccess`] it opens through (the
//! binary's opens regular files only; an embedder's can be a closure), `measure` what
//! `ctxmon status` reports. `claude_code/` (line rules, backward scan, the records of the tail
//! and head, subagent files), `codex/` (rollout lines, scan, forward events, records,
//! `session_meta`) and `gemini/` (its JSONL chat, replayed as gemini-cli does within a bounded
//! backward scan, and its legacy single document under a cap) hold each format; `jsonl/` is the
//! reading every format shares (backward blocks, the tail window, the head, forward lines,
//! lenient fields); `json/` what serde_json refuses but must not cost a line (lone surrogates,
//! numbers beyond f64, bytes that are not UTF-8, nesting past its limit, and the comments
//! Gemini CLI allows in its settings, blanked byte for byte so spans still point into the
//! text); `settings/` the agents' auto-compaction settings (Claude Code's env and
//! `settings.json` layers, Codex's `config.toml` layers, Gemini CLI's
//! `model.compressionThreshold`) through a `SettingsSource`, applied by
//! `FillSettings::apply_agent_settings`.
//!
//! Every reader works on bytes it is handed (`Read + Seek`), never on the file system, and
//! none panics on what it reads: a line that does not parse is skipped, a read that fails
//! midway is a typed error, and a file that shrinks while it is read ends the reading or
//! fails it.

pub mod claude_code;
pub mod codex;
pub mod detect;
pub mod gemini;
pub mod settings;

#[doc(hidden)]
pub mod json;

mod access;
mod files;
mod jsonl;
mod measure;
pub(crate) mod shell_output;

pub use access::{FileAccess, SendReader};
pub use files::TranscriptFiles;
pub use jsonl::backward::{
    DEFAULT_BLOCK_SIZE, DEFAULT_MAX_LINE_BYTES, ScanReport, ScanShape, ScanStats,
};
pub use jsonl::forward::ForwardStats;
pub use jsonl::tail::TailLines;
pub use measure::{FillError, NO_RESPONSE_YET, TranscriptFill};
