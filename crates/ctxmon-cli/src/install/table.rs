//! The hooks ctxmon registers: one table for Claude Code that `ctxmon install` writes and the
//! plugin's `hooks/hooks.json` is checked against, so the two can never drift apart, and
//! Codex's registrations derived from it (`codex_hooks`), so a hook added for Claude Code gets
//! its Codex entry by the same change.

use crate::cli::{Agent, HookCommand};

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

    pub fn registration(&self) -> Registration {
        Registration {
            event: self.event(),
            name: self.hook.name(),
            matcher: self.matcher,
            timeout_secs: self.timeout_secs,
        }
    }
}

/// One entry as it stands in an agent's hook file: the event, the `ctxmon hooks <name>`
/// subcommand it runs, its matcher (`None`: every occurrence) and its timeout in seconds.
/// Claude Code's `settings.json` and Codex's `hooks.json` share this shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    pub event: &'static str,
    pub name: &'static str,
    pub matcher: Option<&'static str>,
    pub timeout_secs: u64,
}

/// What `ctxmon install --agent <agent>` registers, in the order it writes them.
pub fn hooks_for(agent: Agent) -> Vec<Registration> {
    match agent {
        Agent::Claude => CTXMON_HOOKS.iter().map(HookSpec::registration).collect(),
        Agent::Codex => codex_hooks(),
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

/// Codex's registrations: Claude Code's table, less what Codex lacks or cannot use.
///
/// Checked against openai/codex (codex-rs) at commit 0082977cebb9 (`hooks/src/engine/
/// discovery.rs`, `dispatcher.rs`, `events/session_start.rs`, `events/pre_tool_use.rs`,
/// `events/common.rs`) and `config/src/hook_config.rs` at 012d0aa0abcf, the hook engine of
/// Codex 0.129 and later (compact hooks: PR #19905; SessionStart source `compact`: PR #21272):
/// - `hooks.json` is `{"hooks": {Event: [{"matcher", "hooks": [{"type": "command",
///   "command", "timeout"}]}]}}`, the `timeout` in seconds (600 when absent), the command run
///   through the user's shell, as in Claude Code, so the entries are written alike.
/// - Events: PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact, SessionStart,
///   UserPromptSubmit, Stop (SubagentStart/Stop in newer builds); no SessionEnd, so
///   session-end is not registered. A matcher left out matches every occurrence: SessionStart
///   then runs for every source including `compact`, PreCompact/PostCompact for both
///   triggers, PostToolUse after every tool.
/// - PreToolUse is left out: ctxmon's pre-tool-use looks for Write, Edit or MultiEdit with a
///   `tool_input.file_path`, while Codex edits files through `apply_patch`, whose input is the
///   patch text (`{"command": "*** Begin Patch…"}`; Codex matches it under the aliases
///   `Write` and `Edit` too). Registered, it would start a process for every patch and never
///   find the resumption file; it belongs here once pre-tool-use reads the patch's paths.
/// - Codex does not merge duplicate handlers (`select_handlers_keeps_duplicate_stop_handlers`):
///   the same command in two files runs twice.
pub fn codex_hooks() -> Vec<Registration> {
    CTXMON_HOOKS
        .iter()
        .filter(|spec| !matches!(spec.hook, HookCommand::SessionEnd | HookCommand::PreToolUse))
        .map(HookSpec::registration)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_gets_every_claude_hook_codex_can_run_and_post_tool_use_once() {
        let codex = codex_hooks();
        let events: Vec<&str> = codex.iter().map(|r| r.event).collect();
        for event in [
            "UserPromptSubmit",
            "SessionStart",
            "PreCompact",
            "PostCompact",
            "PostToolUse",
        ] {
            assert_eq!(
                events.iter().filter(|e| **e == event).count(),
                1,
                "{event} in {events:?}"
            );
        }
        assert!(!events.contains(&"SessionEnd"), "Codex has no SessionEnd");
        assert!(
            !events.contains(&"PreToolUse"),
            "pre-tool-use cannot read apply_patch"
        );
        for r in &codex {
            // Every entry runs for every occurrence: ctxmon decides by the input itself.
            assert_eq!(r.matcher, None, "{r:?}");
            assert!((1..=10).contains(&r.timeout_secs), "{r:?}");
            assert!(!r.event.is_empty() && !r.name.is_empty(), "{r:?}");
        }
        // Derived, not copied: Claude Code's entries keep their name and timeout.
        for spec in CTXMON_HOOKS.iter().map(HookSpec::registration) {
            if let Some(c) = codex.iter().find(|c| c.name == spec.name) {
                assert_eq!((c.event, c.timeout_secs), (spec.event, spec.timeout_secs));
            }
        }
    }

    #[test]
    fn claude_code_keeps_its_table() {
        let claude = hooks_for(Agent::Claude);
        assert_eq!(claude.len(), CTXMON_HOOKS.len());
        assert!(
            claude
                .iter()
                .any(|r| r.event == "PreToolUse" && r.matcher == Some("Write|Edit|MultiEdit"))
        );
    }
}
