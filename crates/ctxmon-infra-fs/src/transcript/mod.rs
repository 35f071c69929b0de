//! The transcript adapter: the library's readers (`ctxmon_application::readers`) on the file
//! system. What a line means, the backward scan, the tail and the head are the library's; this
//! module opens regular files only (`open`), lists a session's subagent folder, and answers
//! the questions the binary asks of a path before reading it.

mod open;

use std::path::Path;

use ctxmon_application::ports::{AgentKind, TranscriptError};
use ctxmon_application::readers::{TranscriptFiles, detect};

pub use ctxmon_application::readers::claude_code::records_from_values;
pub use ctxmon_application::readers::{ForwardStats, ScanReport, ScanStats, TailLines};
pub use open::RegularFiles;
pub(crate) use open::open_regular;

/// The binary's transcript reader: the library's, on regular files.
pub type JsonlTranscriptReader = TranscriptFiles<RegularFiles>;

/// The agent that wrote `path`, told from its first line. Errors are the reader's
/// (`NotFound`, `Empty`, `NotAFile`, `PermissionDenied`, `Io`).
pub fn agent_of(path: &Path) -> Result<AgentKind, TranscriptError> {
    JsonlTranscriptReader::default().agent_of(path)
}

/// True when `path` starts like a JSON-lines file or is empty: a session's transcript before
/// its first answer, as opposed to a file that is no transcript at all. A file that cannot be
/// read is `false`.
pub fn opens_as_json_lines(path: &Path) -> bool {
    JsonlTranscriptReader::default().opens_as_json_lines(path)
}

/// What a JSON document given in place of a transcript is, when it is one of the inputs the
/// agents send to ctxmon (`detect::input_in_place_of_transcript`); `None` for anything else.
pub fn input_in_place_of_transcript(path: &Path) -> Option<&'static str> {
    let head = JsonlTranscriptReader::default().head(path).ok()?;
    detect::input_in_place_of_transcript(&head)
}

/// The complete lines of the last `max_bytes` of `path`, parsed as JSON. Errors are the
/// reader's.
pub fn read_tail_lines(path: &Path, max_bytes: u64) -> Result<TailLines, TranscriptError> {
    JsonlTranscriptReader::default().tail_lines(path, max_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_application::ports::{ScanLimits, TranscriptReader, TranscriptReading};

    /// A reader told a path's agent uses it for that path without reading the file's start
    /// again (here told wrong on purpose, which shows), and tells other paths itself.
    #[test]
    fn a_reader_told_the_agent_of_a_path_uses_it_for_that_path_only() {
        let dir = tempfile::tempdir().unwrap();
        let line = r#"{"type":"assistant","isSidechain":false,"message":{"model":"m","id":"a","content":[],"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}"#;
        let (told, other) = (
            dir.path().join("told.jsonl"),
            dir.path().join("other.jsonl"),
        );
        std::fs::write(&told, format!("{line}\n")).unwrap();
        std::fs::write(&other, format!("{line}\n")).unwrap();
        let limits = ScanLimits::default();
        let plain = JsonlTranscriptReader::default();
        let reading = |r: &JsonlTranscriptReader, p: &Path| r.read_latest(p, limits).unwrap();
        let tokens = |r: TranscriptReading| r.usage.map(|u| u.tokens);
        assert_eq!(
            tokens(reading(&plain, &told)),
            Some(ctxmon_domain::TokenCount(5))
        );

        let right = plain.clone().knowing(&told, AgentKind::ClaudeCode);
        assert_eq!(reading(&right, &told), reading(&plain, &told));
        let wrong = plain.clone().knowing(&told, AgentKind::Codex);
        assert_eq!(tokens(reading(&wrong, &told)), None, "read as a rollout");
        assert_eq!(reading(&wrong, &other), reading(&plain, &other));
        // The settings carry over.
        assert_eq!(
            wrong.with_block_size(7).agent_of(&told).unwrap(),
            AgentKind::Codex
        );
    }

    #[test]
    fn the_questions_asked_of_a_path_before_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&str, &[u8], bool); 4] = [
            ("user.jsonl", b"{\"type\":\"user\"}\n", true),
            ("empty.jsonl", b"", true),
            ("text.jsonl", b"not json\n", false),
            ("hook.json", b"{\"hook_event_name\":\"Stop\"}\n", true),
        ];
        for (name, bytes, json_lines) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(opens_as_json_lines(&path), json_lines, "{name}");
        }
        assert!(!opens_as_json_lines(&dir.path().join("missing.jsonl")));
        assert!(!opens_as_json_lines(dir.path()));
        assert!(input_in_place_of_transcript(&dir.path().join("hook.json")).is_some());
        assert_eq!(
            input_in_place_of_transcript(&dir.path().join("user.jsonl")),
            None
        );
    }
}
