//! How each kind of item is written into a message. Text items are split into a prefix, the
//! item's own text and a suffix, so a candidate can be priced and shortened without first
//! copying a 50 MB file into a new string.

use ctxmon_domain::Timestamp;
use ctxmon_domain::assembly::{
    FileDescriptor, GitDiff, JsonValue, MemoryChunk, RuntimeEvent, SymbolIndex,
};
use ctxmon_domain::human::{count, thousands};

/// The longest payload an event message shows, in characters.
pub const EVENT_PAYLOAD_CHARS: usize = 500;

/// The longest symbol documentation shown, in characters.
pub const SYMBOL_DOC_CHARS: usize = 100;

/// The words every shortened item ends with, so truncation is visible to the model and to
/// anyone reading the bundle.
pub const TRUNCATION_MARKER: &str = "[truncated:";

/// Appended after a shortened item: `[truncated: showing the first 1,200 of 50,000 characters]`.
/// Wider for a larger count, so a marker for `len` bytes bounds the one for `len` characters.
pub fn truncation_marker(shown_chars: usize, total_chars: usize) -> String {
    format!(
        "\n{TRUNCATION_MARKER} showing the first {} of {}]",
        thousands(shown_chars as u64),
        count(total_chars as u64, "character", "characters")
    )
}

/// `--- File: path ---` and a fence tagged with the language, around the content: the prefix
/// as borrowed pieces (their concatenation) and the suffix.
pub fn file_parts(file: &FileDescriptor) -> ([&str; 5], &'static str) {
    let language = file.language.as_deref().unwrap_or("");
    (
        ["--- File: ", &file.path, " ---\n```", language, "\n"],
        "\n```",
    )
}

/// `--- Diff: path ---` with the change type and line counts, then the patch: the prefix
/// written out, and the suffix.
pub fn diff_parts(diff: &GitDiff) -> (String, &'static str) {
    let mut prefix = format!("--- Diff: {} ---\n", diff.file);
    if let Some(change) = &diff.change_type {
        prefix.push_str(&format!("Change type: {change}\n"));
    }
    if let Some(additions) = diff.additions {
        prefix.push_str(&format!("+{}\n", count(additions, "addition", "additions")));
    }
    if let Some(deletions) = diff.deletions {
        prefix.push_str(&format!("-{}\n", count(deletions, "deletion", "deletions")));
    }
    prefix.push_str("\n```diff\n");
    (prefix, "\n```")
}

/// The one-line stand-in for a diff whose patch does not fit (its change type and line
/// counts), saying that the patch was left out.
pub fn diff_stats(diff: &GitDiff, patch_chars: usize) -> String {
    let change = diff.change_type.as_ref().map_or("modified", |c| c.as_str());
    format!(
        "File: {} ({change}, +{}/-{}) [truncated: patch of {} omitted]",
        diff.file,
        thousands(diff.additions.unwrap_or(0)),
        thousands(diff.deletions.unwrap_or(0)),
        count(patch_chars as u64, "character", "characters")
    )
}

/// `[Memory: id]`, importance, type, source and date lines, a blank line, then the content.
pub fn memory_prefix(chunk: &MemoryChunk, importance: f64) -> String {
    let mut prefix = format!(
        "[Memory: {}]\nImportance: {}%\n",
        chunk.id,
        (importance * 100.0).round()
    );
    if let Some(kind) = &chunk.kind {
        prefix.push_str(&format!("Type: {kind}\n"));
    }
    if let Some(source) = &chunk.source {
        prefix.push_str(&format!("Source: {source}\n"));
    }
    if let Some(ts) = chunk.timestamp {
        prefix.push_str(&format!(
            "Date: {}\n",
            Timestamp::from_millis(ts).to_rfc3339()
        ));
    }
    prefix.push('\n');
    prefix
}

/// `[Event: type]`, time, id, and the payload as pretty JSON cut at 500 characters. Returns the
/// text and whether the payload was cut.
pub fn event_text(event: &RuntimeEvent) -> (String, bool) {
    use std::fmt::Write as _;

    let (kept, cut) = capped_payload(&event.payload);
    let payload = match kept.char_indices().nth(EVENT_PAYLOAD_CHARS) {
        Some((end, _)) => &kept[..end],
        None => &kept[..],
    };
    let mut text = String::with_capacity(payload.len() + 128);
    // Writing to a String cannot fail.
    let _ = write!(
        text,
        "[Event: {}]\nTime: {}\n",
        event.event_type,
        Timestamp::from_millis(event.timestamp).to_rfc3339()
    );
    if let Some(id) = &event.event_id {
        let _ = writeln!(text, "ID: {id}");
    }
    text.push_str("\nPayload:\n");
    text.push_str(payload);
    if cut {
        let _ = write!(
            text,
            "\n{TRUNCATION_MARKER} payload cut at {EVENT_PAYLOAD_CHARS} characters]"
        );
    }
    (text, cut)
}

/// A symbol's kind, name, location and documentation (cut at 100 characters). Returns the text
/// and whether the documentation was cut.
pub fn symbol_text(symbol: &SymbolIndex) -> (String, bool) {
    let mut cut = false;
    let mut text = format!(
        "- {}: {}\n  File: {}:{}-{}",
        symbol.kind, symbol.name, symbol.file, symbol.range.0, symbol.range.1
    );
    if let Some(doc) = &symbol.documentation {
        let mut shown: String = doc.chars().take(SYMBOL_DOC_CHARS).collect();
        if shown.len() < doc.len() {
            shown.push_str(" [truncated]");
            cut = true;
        }
        text.push_str(&format!("\n  Doc: {shown}"));
    }
    (text, cut)
}

/// The payload as pretty JSON, cut soon after `EVENT_PAYLOAD_CHARS` characters, and whether
/// there was more. Writing stops at the cap, so a 10 MB tool result costs what 500 characters
/// cost. The first pass allows one byte per character (ASCII, the common case); only text with
/// multi-byte characters that falls short is written again with room for four.
fn capped_payload(payload: &JsonValue) -> (String, bool) {
    for bytes_per_char in [1, 4] {
        let mut writer = CappedWriter {
            kept: Vec::with_capacity(EVENT_PAYLOAD_CHARS + 8),
            cap: (EVENT_PAYLOAD_CHARS + 1) * bytes_per_char,
        };
        // The only error is the writer's own "enough"; a JsonValue always serializes
        // (non-finite floats become null).
        let stopped = serde_json::to_writer_pretty(&mut writer, payload).is_err();
        // serde_json writes UTF-8; only the cap can split a character, at the very end.
        let valid = match std::str::from_utf8(&writer.kept) {
            Ok(_) => writer.kept.len(),
            Err(e) => e.valid_up_to(),
        };
        writer.kept.truncate(valid);
        let text = String::from_utf8(writer.kept).unwrap_or_default();
        let chars = text.chars().count();
        if !stopped || chars > EVENT_PAYLOAD_CHARS {
            return (text, chars > EVENT_PAYLOAD_CHARS);
        }
    }
    (String::new(), true)
}

struct CappedWriter {
    kept: Vec<u8>,
    cap: usize,
}

impl std::io::Write for CappedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = self.cap.saturating_sub(self.kept.len());
        if room == 0 {
            return Err(std::io::Error::other("enough"));
        }
        let take = buf.len().min(room);
        self.kept.extend_from_slice(&buf[..take]);
        Ok(take)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::assembly::RuntimeEventType;

    #[test]
    fn payloads_are_cut_at_500_characters_of_any_width() {
        for ch in ["a", "é", "日", "𝄞"] {
            for n in [499, 500, 501, 2000] {
                let (text, cut) = capped_payload(&JsonValue::from(ch.repeat(n)));
                // The JSON string adds two quotes.
                assert_eq!(cut, n + 2 > EVENT_PAYLOAD_CHARS, "{ch} x {n}");
                assert!(
                    text.chars().count() >= (n + 2).min(EVENT_PAYLOAD_CHARS),
                    "{ch} x {n}"
                );
            }
        }
    }

    #[test]
    fn a_small_payload_is_shown_whole() {
        let event = RuntimeEvent {
            event_type: RuntimeEventType::ToolCall,
            payload: JsonValue::object([("toolName", "read_files".into())]),
            timestamp: 0,
            event_id: Some("e1".into()),
        };
        let (text, cut) = event_text(&event);
        assert!(!cut);
        assert_eq!(
            text,
            "[Event: tool_call]\nTime: 1970-01-01T00:00:00.000Z\nID: e1\n\nPayload:\n{\n  \"toolName\": \"read_files\"\n}"
        );
    }

    #[test]
    fn a_large_payload_is_cut_and_says_so() {
        let event = RuntimeEvent {
            event_type: RuntimeEventType::ToolResult,
            payload: JsonValue::object([("result", "é".repeat(10_000).into())]),
            timestamp: 0,
            event_id: None,
        };
        let (text, cut) = event_text(&event);
        assert!(cut);
        assert!(
            text.contains("[truncated: payload cut at 500 characters]"),
            "{text}"
        );
        assert!(text.chars().count() < 700);
    }

    #[test]
    fn long_symbol_docs_say_they_were_cut() {
        let symbol = SymbolIndex {
            name: "f".into(),
            kind: "function".into(),
            file: "a.rs".into(),
            range: (1, 2),
            documentation: Some("d".repeat(150)),
        };
        let (text, cut) = symbol_text(&symbol);
        assert!(cut && text.ends_with(" [truncated]"));
    }
}
