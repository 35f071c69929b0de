//! OpenAI's Codex CLI as ctxmon serves it (`docs/codex.md`).
//!
//! Checked against openai/codex (codex-rs) at commit 0082977cebb9 (`hooks/src/engine/
//! discovery.rs`, `dispatcher.rs`, `events/session_start.rs`, `events/pre_tool_use.rs`,
//! `events/common.rs`) and `config/src/hook_config.rs` at 012d0aa0abcf, the hook engine of
//! Codex 0.129 and later:
//! - `hooks.json` is `{"hooks": {Event: [{"matcher", "hooks": [{"type": "command",
//!   "command", "timeout"}]}]}}`, the `timeout` in seconds, the command run through the user's
//!   shell, as in Claude Code.
//! - There is no SessionEnd. A matcher left out matches every occurrence: SessionStart then
//!   runs for every source including `compact`, PostToolUse after every tool.
//! - PreToolUse is left out: ctxmon's pre-tool-use looks for a write with a
//!   `tool_input.file_path`, while Codex edits files through `apply_patch`, whose input is the
//!   patch text; registered, it would start a process for every patch and never find the
//!   resumption file.
//! - Codex shows a PreCompact `systemMessage` as a warning; a checkpoint saved is not one, so
//!   PreCompact answers nothing.
//! - Codex compacts at 90/95 of the window it reports unless `model_auto_compact_token_limit`
//!   lowers that: EMERGENCY (88% of the window) comes first by default, but a low limit would
//!   compact before the upper tiers, hence `TierBasisDefault::Reachable`.

use super::{
    AgentDescription, AgentKind, AnswerShape, AutoCompactRule, DuplicateHooks, EventBinding,
    HandBack, Hook, HookTrust, InputMarks, InstallRules, SessionLookup, SettingsFiles,
    TierBasisDefault, TimeoutUnit, TranscriptFormat,
};

/// Codex CLI.
pub static AGENT: AgentDescription = AgentDescription {
    kind: AgentKind::Codex,
    name: "Codex",
    key: "codex",
    flag: "codex",
    events: &[
        EventBinding {
            event: "UserPromptSubmit",
            hook: Hook::PromptSubmit,
            matcher: None,
            answer: AnswerShape::AdditionalContext,
        },
        EventBinding {
            event: "SessionStart",
            hook: Hook::SessionStart,
            matcher: None,
            answer: AnswerShape::AdditionalContext,
        },
        EventBinding {
            event: "PreCompact",
            hook: Hook::PreCompact,
            matcher: None,
            answer: AnswerShape::Nothing,
        },
        EventBinding {
            event: "PostToolUse",
            hook: Hook::PostToolUse,
            matcher: None,
            answer: AnswerShape::AdditionalContext,
        },
        EventBinding {
            event: "PostCompact",
            hook: Hook::PostCompact,
            matcher: None,
            answer: AnswerShape::Nothing,
        },
    ],
    timeout_unit: TimeoutUnit::Seconds,
    settings: SettingsFiles {
        folder: ".codex",
        hooks_file: "hooks.json",
        local_file: None,
        user_dir_env: Some("CODEX_HOME"),
        config_file: Some("config.toml"),
        system_file: None,
        layering: "hooks of every file run, duplicates included; a config.toml key of the \
                   project's .codex beats the user's",
        comments: false,
    },
    transcript: TranscriptFormat::CodexRollout,
    model_windows: &[],
    default_window: 200_000,
    session_lookup: SessionLookup::SessionsById,
    auto_compact: AutoCompactRule::TokenLimit {
        settings: &["model_auto_compact_token_limit"],
    },
    tier_basis: TierBasisDefault::Reachable,
    hand_back: HandBack::AtSessionStart,
    // No SessionEnd is registered: nothing can checkpoint a `/clear` as it happens.
    clears_with_handback: false,
    task_list: "plan",
    input_marks: InputMarks {
        keys: &["turn_id"],
        null_transcript_path: true,
        env: &[],
    },
    status_line: false,
    install: InstallRules {
        bom_unreadable: true,
        bom_note: None,
        hooks_file_is_hooks_only: true,
        trust: Some(HookTrust {
            explain: "Codex runs new or changed hooks only after you trust them: open /hooks in \
                      Codex and trust ctxmon's hooks. Trust is bound to each hook's definition, \
                      so Codex asks again whenever ctxmon changes one (a new binary path, a new \
                      timeout).",
            place: "/hooks",
        }),
        project_dir_env: None,
        duplicates: DuplicateHooks::EveryCopyRuns,
    },
};
