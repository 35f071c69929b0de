//! The lines of a synthetic Claude Code transcript, shaped like Claude Code 2.x writes them: the
//! line kinds here, the turns made of them in `turns`.
//!
//! [`LineMaker::turn`] writes one turn of a realistic mix: a user prompt; assistant lines with
//! `message.usage` where several lines of one response share `message.id` and usage (Claude Code
//! writes one line per content block, the "streaming duplicates"); Read, Edit, Write, TodoWrite
//! and Bash tool uses with their multi-kilobyte tool results; inline sidechain (subagent) lines;
//! progress, system and file-history-snapshot lines. Every usage it writes sums to less than
//! [`EXPECTED_TOKENS`], and sidechain usage is different again, so a reader that picks any line
//! but the right one reports a wrong number.
//!
//! [`LineMaker::final_turn`] writes the turn whose last assistant line is the newest qualifying
//! main-chain record, with [`FINAL_USAGE`], followed by lines a reader must skip.

use ctxmon_domain::Timestamp;
use serde_json::{Value, json};

use super::text;

pub const SESSION_ID: &str = "5d1f7c2e-8a34-4b9e-9c61-2f0e7a1b3c4d";
pub(super) const CWD: &str = "/home/dev/shop";
const VERSION: &str = "2.1.90";
const MODEL: &str = "claude-sonnet-4-5-20250929";
/// 2026-11-20T10:00:00Z: the first line's time; each line is one second later.
const START_MS: i64 = 1_795_168_800_000;

/// The token fields of one `message.usage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    pub output: u64,
}

impl Usage {
    /// The formula of contract C2: input + cache creation + cache read (output does not count).
    pub const fn context_tokens(self) -> u64 {
        self.input + self.cache_creation + self.cache_read
    }

    fn to_json(self) -> Value {
        json!({
            "input_tokens": self.input,
            "cache_creation_input_tokens": self.cache_creation,
            "cache_read_input_tokens": self.cache_read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": self.cache_creation,
                "ephemeral_1h_input_tokens": 0
            },
            "output_tokens": self.output,
            "service_tier": "standard"
        })
    }
}

/// The usage of the newest qualifying main-chain line of every generated transcript.
pub const FINAL_USAGE: Usage = Usage {
    input: 6,
    cache_creation: 2_417,
    cache_read: 154_898,
    output: 913,
};

/// What a correct reader reports for every generated transcript.
pub const EXPECTED_TOKENS: u64 = FINAL_USAGE.context_tokens();

/// A sidechain usage written after the final main-chain line: a reader that does not skip
/// sidechain lines reports this instead.
pub(super) const TRAP_SIDECHAIN_USAGE: Usage = Usage {
    input: 3,
    cache_creation: 1_334,
    cache_read: 30_000,
    output: 120,
};

/// Writes transcript lines into byte buffers, keeping the uuid chain and the clock.
#[derive(Debug)]
pub struct LineMaker {
    seq: u64,
    parent: Option<String>,
    pub(super) code: String,
    pub(super) log: String,
}

impl Default for LineMaker {
    fn default() -> Self {
        LineMaker::new()
    }
}

impl LineMaker {
    pub fn new() -> LineMaker {
        LineMaker {
            seq: 0,
            parent: None,
            code: text::code(6 * 1024, 1),
            log: text::test_log(5 * 1024, 1),
        }
    }

    /// A line with the fields every Claude Code line carries, plus `fields`.
    pub(super) fn line(
        &mut self,
        out: &mut Vec<u8>,
        sidechain: bool,
        fields: Value,
    ) -> serde_json::Result<()> {
        self.seq += 1;
        let n = self.seq;
        let uuid = format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            n >> 16,
            n & 0xffff,
            n % 0xfff,
            n % 0x7ff,
            n
        );
        // `seq` stays far below 2^40, so the conversion cannot fail in practice.
        let ms = START_MS + i64::try_from(n).unwrap_or(0) * 1_000;
        let mut base = json!({
            "parentUuid": self.parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": VERSION,
            "gitBranch": "main",
            "uuid": uuid,
            "timestamp": Timestamp::from_millis(ms).to_rfc3339(),
        });
        if let (Some(map), Value::Object(extra)) = (base.as_object_mut(), fields) {
            map.extend(extra);
        }
        self.parent = Some(uuid);
        serde_json::to_writer(&mut *out, &base)?;
        out.push(b'\n');
        Ok(())
    }

    pub(super) fn user_text(
        &mut self,
        out: &mut Vec<u8>,
        sidechain: bool,
        text: &str,
    ) -> serde_json::Result<()> {
        let fields = json!({"type": "user", "message": {"role": "user", "content": text}});
        self.line(out, sidechain, fields)
    }

    pub(super) fn assistant(
        &mut self,
        out: &mut Vec<u8>,
        sidechain: bool,
        id: &str,
        usage: Usage,
        content: Value,
    ) -> serde_json::Result<()> {
        let fields = json!({
            "type": "assistant",
            "requestId": format!("req_{id}"),
            "message": {
                "model": MODEL, "id": id, "type": "message", "role": "assistant",
                "content": [content], "stop_reason": null, "stop_sequence": null,
                "usage": usage.to_json()
            }
        });
        self.line(out, sidechain, fields)
    }

    pub(super) fn tool_use(
        &mut self,
        out: &mut Vec<u8>,
        id: &str,
        usage: Usage,
        tool: &str,
        input: Value,
    ) -> serde_json::Result<String> {
        let tool_id = format!("toolu_{:024}", self.seq + 1);
        let content = json!({"type": "tool_use", "id": tool_id, "name": tool, "input": input});
        self.assistant(out, false, id, usage, content)?;
        Ok(tool_id)
    }

    pub(super) fn tool_result(
        &mut self,
        out: &mut Vec<u8>,
        sidechain: bool,
        tool_id: &str,
        content: &str,
        result: Value,
    ) -> serde_json::Result<()> {
        let fields = json!({
            "type": "user",
            "message": {"role": "user", "content": [
                {"tool_use_id": tool_id, "type": "tool_result", "content": content, "is_error": false}
            ]},
            "toolUseResult": result
        });
        self.line(out, sidechain, fields)
    }

    pub(super) fn progress(
        &mut self,
        out: &mut Vec<u8>,
        tool_id: &str,
        output: &str,
    ) -> serde_json::Result<()> {
        let fields = json!({
            "type": "progress",
            "data": {"type": "bash_progress", "output": output, "fullOutput": output, "elapsedTimeSeconds": 2, "totalLines": 40},
            "toolUseID": tool_id, "parentToolUseID": tool_id
        });
        self.line(out, false, fields)
    }

    pub(super) fn snapshot(out: &mut Vec<u8>, turn: u64) -> serde_json::Result<()> {
        let path = format!("{CWD}/src/billing/invoice_{}.rs", turn % 40);
        let line = json!({
            "type": "file-history-snapshot", "messageId": format!("msg_snapshot_{turn:016}"),
            "snapshot": {"messageId": format!("msg_snapshot_{turn:016}"),
                "trackedFileBackups": {path: {"backupFileName": format!("{turn:016x}@v2"), "version": 2, "backupTime": "2026-11-20T10:00:00.000Z"}},
                "timestamp": "2026-11-20T10:00:00.000Z"},
            "isSnapshotUpdate": true
        });
        serde_json::to_writer(&mut *out, &line)?;
        out.push(b'\n');
        Ok(())
    }

    pub(super) fn stop_summary(&mut self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let fields = json!({"type": "system", "subtype": "stop_hook_summary", "hookCount": 1,
            "hookInfos": [{"command": "ctxmon hooks stop"}], "hookErrors": [], "preventedContinuation": false,
            "stopReason": "", "hasOutput": false, "level": "suggestion"});
        self.line(out, false, fields)
    }
}

/// `s[start..end]` moved inward to character boundaries (never panics).
pub(super) fn cut(s: &str, start: usize, end: usize) -> &str {
    let floor = |mut i: usize| {
        i = i.min(s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (a, b) = (floor(start), floor(end));
    &s[a..b.max(a)]
}
