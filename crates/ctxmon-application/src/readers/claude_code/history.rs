//! The automatic compactions of a Claude Code transcript, for where this user's compactions
//! really fired (`monitor::fill::claude_point`): each `compact_boundary` with trigger `auto`
//! and a `preTokens`, its version, and the model of the main chain's newest response before
//! it.
//!
//! A project's other transcripts are read whole, so only the lines that can matter are
//! parsed: a boundary line in full (by the fill's own rules), an assistant line only for its
//! model, found by bytes. The scan can resume where an earlier one stopped, so a transcript
//! that grew costs only its new lines.

use std::io::{self, Read};

use memchr::memmem;
use serde::{Deserialize, Serialize};

use super::line;
use crate::monitor::fill::PastCompaction;
use crate::ports::TranscriptEvent;
use crate::readers::jsonl::backward::ScanShape;
use crate::readers::jsonl::forward::for_each_line;

/// What a scan of one transcript found so far, and what it needs to go on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionScan {
    /// Bytes of the file read so far.
    pub offset: u64,
    /// The model of the newest main-chain response read so far.
    pub model: Option<String>,
    /// The automatic compactions found so far, in file order.
    pub compactions: Vec<PastCompaction>,
}

impl CompactionScan {
    /// Reads `src`, the file from `self.offset` on, up to `len` bytes of the whole file.
    pub fn read_on<R: Read>(&mut self, src: R, len: u64) -> io::Result<()> {
        let Some(rest) = len.checked_sub(self.offset) else {
            // The file shrank: it is another file now; start again.
            *self = CompactionScan::default();
            return Ok(());
        };
        let boundary = memmem::Finder::new(b"\"compact_boundary\"");
        let assistant = memmem::Finder::new(b"\"type\":\"assistant\"");
        let model_key = memmem::Finder::new(b"\"model\":\"");
        let sidechain = memmem::Finder::new(b"\"isSidechain\":true");
        let model = &mut self.model;
        let found = &mut self.compactions;
        let stats = for_each_line(
            src,
            rest,
            ScanShape::default(),
            &mut |bytes, _| {
                if boundary.find(bytes).is_some() {
                    if let Some(TranscriptEvent::Boundary {
                        sidechain: false,
                        boundary,
                    }) = line::classify(bytes).into_transcript_event()
                        && boundary.trigger.as_deref() == Some("auto")
                        && let Some(pre) = boundary.pre_tokens.filter(|t| t.get() > 0)
                    {
                        found.push(PastCompaction {
                            version: boundary.version,
                            model: model.clone(),
                            pre_tokens: pre.get(),
                            timestamp: boundary.timestamp,
                        });
                    }
                    return true;
                }
                if assistant.find(bytes).is_some()
                    && sidechain.find(bytes).is_none()
                    && let Some(at) = model_key.find(bytes)
                {
                    let start = at + model_key.needle().len();
                    let value = bytes.get(start..).unwrap_or_default();
                    if let Some(end) = memchr::memchr(b'"', value)
                        && let Ok(name) = std::str::from_utf8(value.get(..end).unwrap_or_default())
                        && !name.is_empty()
                        && name != "<synthetic>"
                    {
                        *model = Some(name.to_string());
                    }
                }
                true
            },
            &mut |_| {},
        )?;
        self.offset += stats.bytes_read;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(model: &str, sidechain: bool) -> String {
        format!(
            r#"{{"type":"assistant","isSidechain":{sidechain},"version":"2.0.57","message":{{"model":"{model}","usage":{{"input_tokens":5}}}}}}"#
        )
    }

    fn boundary(trigger: &str, pre: &str) -> String {
        format!(
            r#"{{"type":"system","subtype":"compact_boundary","isSidechain":false,"version":"2.0.57","timestamp":"2025-12-03T11:24:26.520Z","compactMetadata":{{"trigger":"{trigger}","preTokens":{pre}}}}}"#
        )
    }

    #[test]
    fn automatic_compactions_with_their_version_and_model() {
        let text = [
            assistant("claude-opus-4-5-20251101", false),
            assistant("claude-haiku-4-5", true),
            r#"{"type":"assistant","message":{"model":"<synthetic>"}}"#.to_string(),
            boundary("auto", "123096"),
            boundary("manual", "50000"),
            boundary("auto", "\"x\""),
            boundary("auto", "0"),
            "not json at all \"compact_boundary\"".to_string(),
        ]
        .join("\n")
            + "\n";
        let mut scan = CompactionScan::default();
        scan.read_on(text.as_bytes(), text.len() as u64)
            .expect("read");
        assert_eq!(
            scan.compactions,
            [PastCompaction {
                version: Some("2.0.57".into()),
                model: Some("claude-opus-4-5-20251101".into()),
                pre_tokens: 123_096,
                timestamp: Some("2025-12-03T11:24:26.520Z".into()),
            }]
        );
        assert_eq!(scan.offset, text.len() as u64);
    }

    #[test]
    fn a_grown_file_is_read_from_where_the_scan_stopped_and_a_shrunk_one_again() {
        let first = format!("{}\n", assistant("claude-sonnet-4-5", false));
        let mut scan = CompactionScan::default();
        scan.read_on(first.as_bytes(), first.len() as u64)
            .expect("read");
        let more = format!("{}\n", boundary("auto", "155121"));
        let whole = format!("{first}{more}");
        scan.read_on(more.as_bytes(), whole.len() as u64)
            .expect("read");
        assert_eq!(scan.compactions.len(), 1);
        assert_eq!(
            scan.compactions[0].model.as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(scan.offset, whole.len() as u64);
        scan.read_on(&b""[..], 3).expect("read");
        assert_eq!(scan, CompactionScan::default());
    }
}
