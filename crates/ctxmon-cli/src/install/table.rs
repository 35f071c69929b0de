//! The hooks ctxmon registers in Claude Code: one table that `ctxmon install` writes and the
//! plugin's `hooks/hooks.json` is checked against, so the two can never drift apart.

use crate::cli::HookCommand;

/// One hook registration: the event, its matcher and how long Claude Code may wait for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    pub hook: HookCommand,
    /// `None` means "every occurrence of the event" (no `matcher` key).
    pub matcher: Option<&'static str>,
    /// Claude Code's timeout in seconds, from the hook's
    /// [`HookDeadline`](ctxmon_application::config::HookDeadline): each hook answers
    /// within its own deadline anyway, which the configuration keeps below this timeout less
    /// the plugin wrapper's margin. The timeout is the outer fence in case the process itself
    /// is stuck (a hung disk), and it must stay short because Claude Code waits for it.
    pub timeout_secs: u64,
}

impl HookSpec {
    pub fn event(&self) -> &'static str {
        self.hook.event_name()
    }
}

/// Every hook ctxmon needs, in the order install writes them.
///
/// SessionStart has no matcher on purpose: Claude Code fires the `compact` matcher unreliably
/// (anthropics/claude-code#15174, #28305), so ctxmon branches on the event's `source` itself.
/// PreToolUse only cares about edits to the resumption file, so it skips every other tool;
/// PostToolUse warns inside tool loops whatever the tool, so it has no matcher (Claude Code
/// reads a missing matcher as "every tool").
pub const CTXMON_HOOKS: [HookSpec; 7] = [
    HookSpec {
        hook: HookCommand::PromptSubmit,
        matcher: None,
        timeout_secs: HookCommand::PromptSubmit.deadline().timeout_secs(),
    },
    HookSpec {
        hook: HookCommand::SessionStart,
        matcher: None,
        timeout_secs: HookCommand::SessionStart.deadline().timeout_secs(),
    },
    HookSpec {
        hook: HookCommand::PreCompact,
        matcher: None,
        timeout_secs: HookCommand::PreCompact.deadline().timeout_secs(),
    },
    HookSpec {
        hook: HookCommand::PreToolUse,
        matcher: Some("Write|Edit|MultiEdit"),
        timeout_secs: HookCommand::PreToolUse.deadline().timeout_secs(),
    },
    HookSpec {
        hook: HookCommand::PostToolUse,
        matcher: None,
        timeout_secs: HookCommand::PostToolUse.deadline().timeout_secs(),
    },
    HookSpec {
        hook: HookCommand::PostCompact,
        matcher: None,
        timeout_secs: HookCommand::PostCompact.deadline().timeout_secs(),
    },
    HookSpec {
        hook: HookCommand::SessionEnd,
        matcher: None,
        timeout_secs: HookCommand::SessionEnd.deadline().timeout_secs(),
    },
];
