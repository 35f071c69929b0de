//! Google's Gemini CLI as ctxmon serves it (`docs/gemini.md`).
//!
//! Checked against google-gemini/gemini-cli at commit 5411f113 (`packages/core/src/hooks/`,
//! `docs/hooks/reference.md`, `context/chatCompressionService.ts`, `core/tokenLimits.ts`):
//! - Hooks sit in `settings.json` under `"hooks": {"<Event>": [{"matcher", "hooks": [{"type":
//!   "command", "command", "name", "timeout"}]}]}`, the timeout in milliseconds; project
//!   `.gemini/settings.json`, user `~/.gemini/settings.json` and the system file all count;
//!   identical hooks found in several of them run once (`hookPlanner.ts`, `deduplicateHooks`).
//! - `BeforeAgent` adds its `additionalContext` to the prompt of this turn only; `AfterTool`
//!   adds it to the tool's result; `SessionStart` (startup, resume, clear: never after a
//!   compression) to the first turn.
//! - `PreCompress` is fired asynchronously and on every attempt, also when the compression
//!   then does nothing, and injects nothing: the checkpoint is saved there, the hand-back
//!   waits for the first `BeforeAgent` after the chat file shows the compression.
//! - `SessionEnd` is not awaited; an exit code of 2 would block, so ctxmon never uses it.
//! - Compression runs when the last prompt's count reaches `model.compressionThreshold` ×
//!   window, half the window by default: tiers of the window would never be reached.

use super::{
    AgentDescription, AgentKind, AnswerShape, AutoCompactRule, DuplicateHooks, EventBinding,
    HandBack, Hook, InputMarks, InstallRules, SessionLookup, SettingsFiles, TierBasisDefault,
    TimeoutUnit, TranscriptFormat,
};

/// The share of the window at which Gemini CLI compresses without configuration, in percent.
pub const DEFAULT_COMPRESSION_PERCENT: u64 = 50;

/// Gemini CLI.
pub static AGENT: AgentDescription = AgentDescription {
    kind: AgentKind::Gemini,
    name: "Gemini CLI",
    key: "gemini",
    flag: "gemini",
    events: &[
        EventBinding {
            event: "BeforeAgent",
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
            event: "PreCompress",
            hook: Hook::PreCompact,
            matcher: None,
            answer: AnswerShape::SystemMessage,
        },
        EventBinding {
            event: "AfterTool",
            hook: Hook::PostToolUse,
            matcher: None,
            answer: AnswerShape::AdditionalContext,
        },
        EventBinding {
            event: "SessionEnd",
            hook: Hook::SessionEnd,
            matcher: None,
            answer: AnswerShape::Nothing,
        },
    ],
    timeout_unit: TimeoutUnit::Milliseconds,
    settings: SettingsFiles {
        folder: ".gemini",
        hooks_file: "settings.json",
        local_file: None,
        user_dir_env: None,
        config_file: None,
        system_file: Some("/etc/gemini-cli/settings.json"),
        layering: "hooks of every file run; for a settings key the project's \
                   .gemini/settings.json beats ~/.gemini/settings.json",
        comments: true,
    },
    transcript: TranscriptFormat::GeminiChat,
    model_windows: &[("gemma-4", 256_000)],
    default_window: 1_048_576,
    session_lookup: SessionLookup::ProjectChats,
    auto_compact: AutoCompactRule::ShareOfWindow {
        default_percent: DEFAULT_COMPRESSION_PERCENT,
        settings: &["model.compressionThreshold"],
    },
    tier_basis: TierBasisDefault::AutoCompact,
    hand_back: HandBack::AtFirstPromptAfterCompaction,
    // SessionEnd is not awaited: its checkpoint could land after SessionStart(`clear`).
    clears_with_handback: false,
    task_list: "todo list",
    input_marks: InputMarks {
        keys: &[],
        null_transcript_path: false,
        env: &["GEMINI_SESSION_ID", "GEMINI_PROJECT_DIR"],
    },
    status_line: false,
    install: InstallRules {
        bom_unreadable: false,
        bom_note: None,
        hooks_file_is_hooks_only: false,
        trust: None,
        // Gemini CLI sets it beside its own GEMINI_PROJECT_DIR so that Claude Code's hooks
        // run unchanged.
        project_dir_env: Some("CLAUDE_PROJECT_DIR"),
        duplicates: DuplicateHooks::IdenticalRunOnce,
    },
};
