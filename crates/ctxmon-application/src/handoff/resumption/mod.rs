//! The resumption state a checkpoint carries (contract C5) and its rendering: the source file's
//! `resumption:` section (`from_section`) and the transcript tail (`derive_from_tail`) give
//! the state; `context` renders it as `<resumption-context>`.
//!
//! Both are pure and total: they take parsed JSON (the section) or the tail port's typed
//! records, skip what has the wrong shape item by item and never fail. Both bound what they keep — every text is trimmed and capped at
//! [`MAX_TEXT_CHARS`], every list at [`MAX_LIST_ITEMS`] — so a 5 MB section or a tail full of
//! tool calls cannot make the checkpoint, or the generators that read it, large or slow.
//!
//! Text is kept as data: `</resumption-context>` or `&` in a summary come through verbatim.
//! Escaping is the generators' job, at the moment text is put into a tag.

mod checked;
pub use checked::script_of_line;
mod commands;
pub mod context;
mod context_items;
mod environment;
mod http_answer;
mod layout;
mod lesson;
mod note;
mod pointers;
pub(crate) mod present;
mod rule_words;
mod rules;
mod section;
mod tail;
mod text;
mod work;
mod worked;

pub use note::NOTE_MAX_BYTES;
pub(crate) use note::note_of;
pub use section::from_section;
pub use tail::{
    CONCLUSIONS, TailDerivation, TranscriptHead, UNVERIFIED, commands_run, completed_after_failure,
    completed_work, completed_work_given, conclusions, derive_carrying, derive_from_tail,
    derive_tail, errors_seen, files_written_by_subagents, first_request_text, first_user_request,
    last_timestamp,
};
pub use work::MAX_EXCERPT_CHARS;

/// Longest text kept for one item (a summary, a decision, a request), in characters. Longer
/// text is cut at a character boundary and ends with "…".
pub const MAX_TEXT_CHARS: usize = 2_000;

/// Most items kept in one list. From a source file the first ones are kept (document order);
/// from a transcript the newest ones.
pub const MAX_LIST_ITEMS: usize = 200;

/// Longest mission kept from a transcript's first request, in characters: several times what
/// the resume log's mission section shows (about 4,000), so that section's budget does the
/// cutting, at a sentence boundary and with a marker. A longer request is cut here at a
/// sentence or word boundary, never mid-word.
pub const MAX_MISSION_CHARS: usize = 16_000;

/// How much of a transcript's start is read for its first request (and stops there).
pub const HEAD_BYTES: u64 = 1024 * 1024;

/// How many of the newest user requests a derived state keeps.
pub const LAST_USER_REQUESTS: usize = 3;

/// Longest path kept; a longer one is dropped rather than cut, because a cut path names a file
/// that does not exist (4,096 is Linux's `PATH_MAX`).
pub const MAX_PATH_CHARS: usize = 4_096;

/// Longest error text kept by [`errors_seen`]: the lines that say what failed and the last
/// lines fit; the rest of a traceback is noise in a resume log.
pub const MAX_ERROR_CHARS: usize = 500;
