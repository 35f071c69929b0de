//! Benchmark cases for the hooks and commands beyond prompt-submit: pre-compact (contract C16:
//! ≤ 50 ms with transcript derivation), session-start and the status line (held to the hook
//! bar).

use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, ContextWindow, FileToRead, FillEstimate,
    FillSource, Measured, ResumptionOrigin, ResumptionState, SessionInfo, Thresholds, Timestamp,
    Todo, TokenCount,
};
use serde_json::json;

use super::cases::{BenchCase, Check, HOOK_TARGET, Target};
use super::transcript_gen::Generated;

/// Contract C16: PreCompact ≤ 50 ms (it reads the transcript's tail to derive resumption state).
pub const PRE_COMPACT_TARGET: Target = Target {
    median_ms: Some(50.0),
    rss_kib: None,
};

const SESSION: &str = "bench-session";

/// `ctxmon hooks pre-compact`: measures the fill, derives the resumption state from the
/// transcript's tail and writes a checkpoint (a new one every run, as in a long session).
pub fn pre_compact(name: &str, transcript: &Generated) -> BenchCase {
    let input = json!({"session_id": SESSION, "transcript_path": transcript.path, "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null});
    BenchCase {
        name: name.to_owned(),
        args: vec!["hooks".into(), "pre-compact".into()],
        stdin: input.to_string(),
        // Fills are shown rounded down, so nothing looks fuller than measured.
        check: Check::StdoutContains(format!(
            "saved at {}% context fill",
            transcript.expected_tokens.saturating_mul(100) / 200_000
        )),
        target: PRE_COMPACT_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// `ctxmon hooks session-start` after a compaction: renders `<resumption-context>` from a
/// seeded checkpoint (never acknowledged by SessionStart, so every run does the full work).
pub fn session_start(name: &str, transcript: &Generated) -> BenchCase {
    let input = json!({"session_id": SESSION, "transcript_path": transcript.path, "hook_event_name": "SessionStart", "source": "compact"});
    BenchCase {
        name: name.to_owned(),
        args: vec!["hooks".into(), "session-start".into()],
        stdin: input.to_string(),
        check: Check::StdoutContains("<resumption-context checkpoint=\\\"cx-001\\\"".into()),
        target: HOOK_TARGET,
        files: vec![(
            ".ctxmon/checkpoints/cx-001-checkpoint.json".into(),
            seeded_checkpoint(),
        )],
        program: None,
        setup: Vec::new(),
    }
}

/// Where a peer status line is looked for: `npm install --prefix target/bench-peer
/// ccusage@20.0.24` puts it here (never committed; the row is left out when it is absent).
pub const PEER_BIN: &str = "target/bench-peer/node_modules/.bin/ccusage";

/// The same status-line stdin as [`statusline_from_transcript`] (plus the fields ccusage
/// requires), run through the peer when it is installed. Its answer is not verified: on the
/// generated transcript it reports a different figure than the known one.
pub fn peer_statusline(
    name: &str,
    transcript: &Generated,
    workspace: &std::path::Path,
) -> Option<BenchCase> {
    let program = workspace.join(PEER_BIN);
    if !program.exists() {
        return None;
    }
    let input = json!({"hook_event_name": "Status", "session_id": SESSION, "transcript_path": transcript.path, "cwd": "/bench",
        "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"}, "workspace": {"current_dir": "/bench", "project_dir": "/bench"},
        "version": "2.1.90", "cost": {"total_cost_usd": 0.01, "total_duration_ms": 1000, "total_api_duration_ms": 500, "total_lines_added": 0, "total_lines_removed": 0},
        "context_window": {"total_input_tokens": 15500, "total_output_tokens": 1200, "context_window_size": 200000, "current_usage": null}});
    Some(BenchCase {
        name: name.to_owned(),
        args: vec!["statusline".into()],
        stdin: input.to_string(),
        check: Check::ExitZero,
        target: Target::NONE,
        files: Vec::new(),
        program: Some(program),
        setup: Vec::new(),
    })
}

/// `ctxmon statusline` with `current_usage` null (right after `/compact`, or before the first
/// response): the figure comes from the transcript.
pub fn statusline_from_transcript(name: &str, transcript: &Generated) -> BenchCase {
    let input = json!({"session_id": SESSION, "transcript_path": transcript.path, "model": {"id": "claude-sonnet-4-5"},
        "context_window": {"context_window_size": 200000, "current_usage": null}});
    BenchCase {
        name: name.to_owned(),
        args: vec!["statusline".into()],
        stdin: input.to_string(),
        check: Check::StdoutContains(format!("{}k/200k", transcript.expected_tokens / 1000)),
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// `ctxmon statusline` with Claude Code's `current_usage` (recent versions): no transcript read.
pub fn statusline_from_payload(name: &str, transcript: &Generated) -> BenchCase {
    let input = json!({"session_id": SESSION, "transcript_path": transcript.path, "model": {"id": "claude-opus-4-6[1m]"},
        "context_window": {"context_window_size": 1000000, "current_usage": {"input_tokens": 8500, "output_tokens": 1200, "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 2000}}});
    BenchCase {
        name: name.to_owned(),
        args: vec!["statusline".into()],
        stdin: input.to_string(),
        check: Check::StdoutContains("15k/1M".into()),
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// A realistic checkpoint of the benchmark session, as PreCompact would have written it.
fn seeded_checkpoint() -> String {
    let fill = FillEstimate::measured(Measured {
        tokens: TokenCount(166_000),
        window: ContextWindow::DEFAULT,
        thresholds: &Thresholds::default(),
        auto_compact_reserve: TokenCount(33_000),
        source: FillSource::Transcript,
        model: Some("claude-sonnet-4-5".into()),
    });
    let state = ResumptionState {
        origin: ResumptionOrigin::Transcript,
        last_user_requests: vec![
            "Add retry with backoff to the payment client and cover it with tests".into(),
        ],
        todos: (1..=12)
            .map(|i| Todo {
                content: format!("Step {i}: update module {i} and its tests"),
                status: ["completed", "in_progress", "pending"][i % 3].into(),
            })
            .collect(),
        files_touched: (1..=30)
            .map(|i| format!("/home/dev/shop/src/payments/module_{i}.rs"))
            .collect(),
        files_to_read: vec![FileToRead {
            path: "docs/payments.md".into(),
            priority: Some(1),
            reason: Some("the design".into()),
        }],
        last_assistant_text: Some(
            "Retry policy implemented; next I wire it into the client.".into(),
        ),
        // What a hand-back beside the agent's own summary carries: checked facts.
        rules: vec!["Never change the public payment API".into()],
        commands_ok: vec!["cargo test -p payments".into()],
        environment: vec!["container: pg_main (docker exec)".into()],
        lessons: vec!["use `python3`, not `python` (python: command not found)".into()],
        ..Default::default()
    };
    let Some(id) = CheckpointId::new(1) else {
        return String::new();
    };
    let data = CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: id,
        timestamp: "2026-11-22T05:00:00.000Z".into(),
        created_at_ms: Timestamp(1_795_323_600_000),
        compaction_sequence: 1,
        trigger: CompactionTrigger::Auto,
        custom_instructions: None,
        context_state: fill,
        resumption_state: Some(state),
        session_info: SessionInfo {
            session_id: Some(SESSION.into()),
            ..Default::default()
        },
    };
    serde_json::to_string_pretty(&data).unwrap_or_default()
}

/// Gemini CLI's `BeforeAgent` hook (ctxmon's prompt-submit) on a generated chat, checked
/// against the chat's known input tokens.
pub fn gemini_before_agent(name: &str, chat: &Generated) -> BenchCase {
    let input = json!({"session_id": "bench-gemini", "transcript_path": chat.path, "cwd": "/bench",
        "hook_event_name": "BeforeAgent", "timestamp": "2026-11-20T10:00:00.000Z", "prompt": "go on"});
    BenchCase {
        name: name.to_owned(),
        args: vec!["hooks".into(), "prompt-submit".into()],
        stdin: input.to_string(),
        check: Check::GeminiHookTokens(chat.expected_tokens),
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeded_checkpoint_is_one_ctxmon_can_read() {
        let data: CheckpointData = serde_json::from_str(&seeded_checkpoint()).unwrap();
        assert_eq!(data.checkpoint_id.to_string(), "cx-001");
        assert!(data.resumption_state.is_some());
    }
}
