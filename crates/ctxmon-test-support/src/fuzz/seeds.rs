//! Seed inputs shared by the fuzz targets: a small synthetic transcript that has every kind of
//! line the readers distinguish, and slices of the real transcripts (the repository's fixtures
//! and, when present, `../shared`), Codex rollouts among them (their slices keep the
//! `session_meta` line that makes them rollouts).

use std::path::Path;

use super::{files_in, shared_transcripts, workspace_root};

/// One line of each kind the transcript readers and derivations tell apart.
pub const SYNTHETIC_TRANSCRIPT: &str = concat!(
    r#"{"type":"summary","summary":"Refactor billing","leafUuid":"u-9"}"#,
    "\n",
    r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Refactor src/billing.rs and add tax.rs"},"uuid":"u-1","timestamp":"2026-11-20T10:00:00.000Z","sessionId":"s1"}"#,
    "\n",
    r#"{"parentUuid":"u-1","isSidechain":false,"type":"assistant","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01","type":"message","role":"assistant","content":[{"type":"text","text":"Reading the module."},{"type":"tool_use","id":"toolu_01","name":"TodoWrite","input":{"todos":[{"content":"Split billing.rs","status":"completed","activeForm":"Splitting"},{"content":"Write tax.rs","status":"in_progress","activeForm":"Writing tax.rs"}]}}],"usage":{"input_tokens":4,"cache_creation_input_tokens":21000,"cache_read_input_tokens":14000,"output_tokens":120,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":21000}}},"uuid":"a-1","timestamp":"2026-11-20T10:01:00.000Z"}"#,
    "\n",
    r#"{"parentUuid":"a-1","isSidechain":false,"type":"assistant","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_02","content":[{"type":"tool_use","id":"toolu_02","name":"Write","input":{"file_path":"/home/dev/shop/src/tax.rs","content":"pub fn tax() {}"}},{"type":"tool_use","id":"toolu_03","name":"Bash","input":{"command":"cargo test","description":"Run tests"}}],"usage":{"input_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":35000,"output_tokens":80,"cache_creation":{"ephemeral_5m_input_tokens":3500}}},"uuid":"a-2","timestamp":"2026-11-20T10:02:00.000Z"}"#,
    "\n",
    r#"{"parentUuid":"a-2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_03","content":"error[E0425]: cannot find value `rate`","is_error":true}]},"uuid":"u-2","timestamp":"2026-11-20T10:03:00.000Z"}"#,
    "\n",
    r#"{"parentUuid":"u-2","isSidechain":true,"type":"assistant","message":{"model":"claude-haiku-4-5","id":"msg_s1","content":[{"type":"text","text":"subagent"}],"usage":{"input_tokens":9000,"output_tokens":5}},"uuid":"s-1","timestamp":"2026-11-20T10:03:30.000Z"}"#,
    "\n",
    r#"{"type":"assistant","isApiErrorMessage":true,"message":{"model":"<synthetic>","id":"msg_e","content":[{"type":"text","text":"API Error"}],"usage":{"input_tokens":0,"output_tokens":0}},"uuid":"e-1"}"#,
    "\n",
    r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isSidechain":false,"uuid":"b-1","timestamp":"2026-11-20T10:04:00.000Z","compactMetadata":{"trigger":"auto","preTokens":170000,"postTokens":31000}}"#,
    "\n",
    r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation."},"uuid":"u-3"}"#,
    "\n",
    r#"{"input_tokens":1234,"model":"claude-opus-4-6[1m]","timestamp":"2026-11-20T10:05:00.000Z"}"#,
    "\n",
    r#"{"parentUuid":"u-3","isSidechain":false,"type":"assistant","message":{"model":"claude-opus-4-6","id":"msg_03","content":"Done: tax.rs is written.","usage":{"input_tokens":3,"cache_creation_input_tokens":500,"cache_read_input_tokens":40500,"output_tokens":10}},"uuid":"a-3","timestamp":"2026-11-20T10:06:00.000Z"}"#,
    "\n",
);

/// A resumption source file using every key the section mapping reads, and anchors.
pub const ORCHESTRATION_YAML: &str = r#"project: shop
phase: 3
resumption:
  recovery_state: "parser done; tax.rs half written"
  summary: refactor billing
  quality_trajectory: {score: 0.82, iteration: 3}
  decisions:
    - "Round VAT per line"
    - {decision: Keep invoice.rs, rationale: "the ledger reads it"}
    - {id: D-7, summary: split modules}
  agent_summaries:
    - {agent: reviewer, status: done, summary: "two nits"}
    - plain text summary
  files_to_read:
    - {path: src/tax.rs, priority: 1, reason: "start here"}
    - {path: "src/billing & co.rs", priority: 2}
    - src/lib.rs
  next_steps: [write tests, "run <cargo test>"]
  updated_at: 2026-03-01T10:00:00Z
anchors:
  a: &a [x, y]
  b: *a
"#;

/// The last lines of `text` that fit in `max_bytes` (whole lines only).
pub fn tail_lines(text: &[u8], max_bytes: usize) -> Vec<u8> {
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut size = 0;
    for line in text.split(|b| *b == b'\n').rev() {
        if line.is_empty() {
            continue;
        }
        if size + line.len() + 1 > max_bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.reverse();
    join_lines(&kept)
}

/// The first lines of `text` that fit in `max_bytes`.
pub fn head_lines(text: &[u8], max_bytes: usize) -> Vec<u8> {
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut size = 0;
    for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        if size + line.len() + 1 > max_bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    join_lines(&kept)
}

/// The newest lines that mention a token count or a boundary, each at most `max_bytes / 4`.
pub fn qualifying_lines(text: &[u8], max_bytes: usize) -> Vec<u8> {
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut size = 0;
    for line in text.split(|b| *b == b'\n').rev() {
        let mentions = contains(line, b"input_tokens\"")
            || contains(line, b"compact_boundary")
            || contains(line, b"\"compacted\"")
            || contains(line, b"\"turn_context\"");
        if !mentions || line.len() > max_bytes / 4 {
            continue;
        }
        if size + line.len() + 1 > max_bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.reverse();
    join_lines(&kept)
}

fn join_lines(lines: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every transcript the repository and `../shared` hold (subagent folders included), Codex
/// rollouts too (the handoff test's synthetic one, and `../shared`'s).
pub fn transcript_files() -> Vec<std::path::PathBuf> {
    let mut files = files_in(&workspace_root().join("fixtures/transcripts"), &[".jsonl"]);
    files.push(
        workspace_root().join("crates/ctxmon-cli/tests/fixtures/handoff/codex-plan-patch.jsonl"),
    );
    if let Some(shared) = shared_transcripts() {
        files.extend(files_in(&shared, &[".jsonl"]));
        let layout = shared.join("cc-2.1.17-subagent-layout");
        files.extend(files_in(&layout, &[".jsonl"]));
        files.extend(files_in(&layout.join("subagents"), &[".jsonl"]));
        if let Some(fixtures) = shared.parent() {
            files.extend(files_in(&fixtures.join("codex-rollouts"), &[".jsonl"]));
        }
    }
    files
}

/// A rollout's `session_meta` line (with its newline), which a slice must keep to stay a
/// rollout; empty for a Claude Code transcript.
fn rollout_meta(text: &[u8]) -> Vec<u8> {
    let first = text.split(|b| *b == b'\n').next().unwrap_or_default();
    if contains(first, br#""type":"session_meta""#) {
        let mut meta = first.to_vec();
        meta.push(b'\n');
        meta
    } else {
        Vec::new()
    }
}

/// Transcript-shaped seeds of at most `max_bytes` each: the synthetic transcript, and the
/// tail, head and qualifying lines of every real one.
pub fn transcript_seeds(max_bytes: usize) -> Vec<Vec<u8>> {
    let mut seeds = vec![SYNTHETIC_TRANSCRIPT.as_bytes().to_vec()];
    for path in transcript_files() {
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        let meta = rollout_meta(&text);
        let room = max_bytes.saturating_sub(meta.len());
        for seed in [
            tail_lines(&text, room),
            head_lines(&text, max_bytes),
            qualifying_lines(&text, room),
        ] {
            if !seed.is_empty() {
                let keep_meta = !meta.is_empty() && !seed.starts_with(&meta);
                seeds.push(if keep_meta {
                    [meta.as_slice(), &seed].concat()
                } else {
                    seed
                });
            }
        }
    }
    seeds
}

/// The files of `dir` (relative to the workspace root) with one of `exts`, as seeds.
pub fn file_seeds(dir: &str, exts: &[&str]) -> Vec<Vec<u8>> {
    read_all(&workspace_root().join(dir), exts)
}

/// The files of `../shared`'s transcript folder with one of `exts` (none when it is absent).
pub fn shared_seeds(exts: &[&str]) -> Vec<Vec<u8>> {
    shared_transcripts()
        .map(|dir| read_all(&dir, exts))
        .unwrap_or_default()
}

fn read_all(dir: &Path, exts: &[&str]) -> Vec<Vec<u8>> {
    files_in(dir, exts)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// Keys Claude Code's transcript lines and hook inputs use, for the mutator's dictionary.
pub const TRANSCRIPT_KEYS: &[&str] = &[
    "type",
    "subtype",
    "isSidechain",
    "isApiErrorMessage",
    "isMeta",
    "isCompactSummary",
    "message",
    "model",
    "id",
    "usage",
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
    "cache_creation",
    "ephemeral_5m_input_tokens",
    "ephemeral_1h_input_tokens",
    "compactMetadata",
    "preTokens",
    "postTokens",
    "trigger",
    "uuid",
    "parentUuid",
    "timestamp",
    "content",
    "text",
    "tool_use",
    "tool_result",
    "is_error",
    "name",
    "input",
    "todos",
    "status",
    "activeForm",
    "file_path",
    "notebook_path",
    "command",
    "edits",
    "role",
    "assistant",
    "user",
    "system",
    "compact_boundary",
    "TodoWrite",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Bash",
    // Codex rollouts.
    "payload",
    "session_meta",
    "turn_context",
    "event_msg",
    "response_item",
    "token_count",
    "info",
    "last_token_usage",
    "total_token_usage",
    "total_tokens",
    "cached_input_tokens",
    "model_context_window",
    "compacted",
    "context_compacted",
    "user_message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "call_id",
    "arguments",
    "output",
    "update_plan",
    "apply_patch",
    "*** Update File: ",
    "Process exited with code ",
];
