//! Anthropic's Claude Code as ctxmon serves it (`../shared/docs/claude-code.md`).
//!
//! SessionStart has no matcher on purpose: Claude Code fires the `compact` matcher unreliably
//! (anthropics/claude-code#15174, #28305), so ctxmon branches on the event's `source` itself.
//! PreToolUse only cares about edits to the resumption file, so it skips every other tool;
//! PostToolUse warns inside tool loops whatever the tool (a missing matcher is "every tool").
//! Claude Code discards a PreCompact `systemMessage`, but it is harmless there and says what
//! was saved to anyone who runs the hook by hand.

use super::{
    AgentDescription, AgentKind, AnswerShape, AutoCompactRule, DuplicateHooks, EventBinding,
    HandBack, Hook, InputMarks, InstallRules, SessionLookup, SettingsFiles, TierBasisDefault,
    TimeoutUnit, TranscriptFormat,
};

/// Claude Code.
pub static AGENT: AgentDescription = AgentDescription {
    kind: AgentKind::ClaudeCode,
    name: "Claude Code",
    key: "claude-code",
    flag: "claude",
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
            answer: AnswerShape::SystemMessage,
        },
        EventBinding {
            event: "PreToolUse",
            hook: Hook::PreToolUse,
            matcher: Some("Write|Edit|MultiEdit"),
            answer: AnswerShape::AdditionalContext,
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
        EventBinding {
            event: "SessionEnd",
            hook: Hook::SessionEnd,
            matcher: None,
            answer: AnswerShape::Nothing,
        },
    ],
    timeout_unit: TimeoutUnit::Seconds,
    settings: SettingsFiles {
        folder: ".claude",
        hooks_file: "settings.json",
        local_file: Some("settings.local.json"),
        user_dir_env: Some("CLAUDE_CONFIG_DIR"),
        config_file: None,
        system_file: None,
        layering: "hooks of every file run; for a settings key the most specific file wins \
                   (.claude/settings.local.json, then .claude/settings.json, then the user's), \
                   and an environment variable beats every file",
        comments: false,
    },
    transcript: TranscriptFormat::ClaudeCodeJsonl,
    model_windows: &[],
    default_window: 200_000,
    session_lookup: SessionLookup::ProjectFolder,
    auto_compact: AutoCompactRule::ReserveBelowWindow {
        settings: &[
            "autoCompactWindow",
            "autoCompactEnabled",
            "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
            "DISABLE_AUTO_COMPACT",
        ],
    },
    tier_basis: TierBasisDefault::Window,
    hand_back: HandBack::AtSessionStart,
    // SessionEnd(reason `clear`) is awaited, and SessionStart(`clear`) follows it.
    clears_with_handback: true,
    task_list: "todo list",
    input_marks: InputMarks {
        keys: &[],
        null_transcript_path: false,
        env: &[],
    },
    status_line: true,
    install: InstallRules {
        bom_unreadable: false,
        bom_note: Some(
            "Claude Code's CLI reads such a file, but the Claude desktop app ignores it \
             (anthropics/claude-code#81355): save it as UTF-8 without BOM if you use the app",
        ),
        hooks_file_is_hooks_only: false,
        trust: None,
        project_dir_env: Some("CLAUDE_PROJECT_DIR"),
        duplicates: DuplicateHooks::IdenticalRunOnce,
    },
};
