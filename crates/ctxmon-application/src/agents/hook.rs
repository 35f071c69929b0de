//! The hooks ctxmon answers, one enum for every agent: the `ctxmon hooks <name>` subcommand,
//! the configuration key of its deadline, the timeout `ctxmon install` registers and the
//! deadline it keeps without configuration. Which event of which agent runs a hook is the
//! agents' descriptions' business (`super::EventBinding`), not this enum's.

/// A hook ctxmon answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hook {
    /// Before the agent answers a prompt: the fill tag, compaction alerts, the hand-back when
    /// the agent has no session start after a compaction.
    PromptSubmit,
    /// A session starts, resumes or was compacted: hands back the resumption context or points
    /// at a resume log.
    SessionStart,
    /// The agent is about to compact: writes the checkpoint.
    PreCompact,
    /// Before a tool call: warns about a stale resumption source file being edited.
    PreToolUse,
    /// After a tool call: the fill tag inside tool loops, when the tier rose.
    PostToolUse,
    /// After a compaction: records it.
    PostCompact,
    /// The session ends: records the end and writes its resume log.
    SessionEnd,
}

/// What a hook's deadline leaves of its registered timeout: the plugin's wrapper runs with one
/// second less than the agent's timeout and sends TERM one second before that (2 s), plus
/// half a second to start the process and write the answer.
pub const TIMEOUT_MARGIN_MS: u64 = 2_500;

impl Hook {
    /// Every hook, in the order install writes them and the configuration lists their keys.
    pub const ALL: [Hook; 7] = [
        Hook::PromptSubmit,
        Hook::SessionStart,
        Hook::PreCompact,
        Hook::PreToolUse,
        Hook::PostToolUse,
        Hook::PostCompact,
        Hook::SessionEnd,
    ];

    /// The subcommand: `ctxmon hooks <name>`.
    pub const fn name(self) -> &'static str {
        match self {
            Hook::PromptSubmit => "prompt-submit",
            Hook::SessionStart => "session-start",
            Hook::PreCompact => "pre-compact",
            Hook::PreToolUse => "pre-tool-use",
            Hook::PostToolUse => "post-tool-use",
            Hook::PostCompact => "post-compact",
            Hook::SessionEnd => "session-end",
        }
    }

    /// The hook named `name` (`prompt-submit`), if any.
    pub fn from_name(name: &str) -> Option<Hook> {
        Hook::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The dotted configuration key of this hook's own deadline.
    pub const fn key(self) -> &'static str {
        match self {
            Hook::PromptSubmit => "hooks.prompt_submit_deadline_ms",
            Hook::SessionStart => "hooks.session_start_deadline_ms",
            Hook::PreCompact => "hooks.pre_compact_deadline_ms",
            Hook::PreToolUse => "hooks.pre_tool_use_deadline_ms",
            Hook::PostToolUse => "hooks.post_tool_use_deadline_ms",
            Hook::PostCompact => "hooks.post_compact_deadline_ms",
            Hook::SessionEnd => "hooks.session_end_deadline_ms",
        }
    }

    /// The timeout in seconds `ctxmon install` and the plugin register for this hook, whatever
    /// unit the agent's file writes it in (the installer's table takes it from here, so the two
    /// cannot drift apart). The agent waits for SessionStart and PreCompact anyway (the
    /// compaction itself takes far longer), and a lost checkpoint is the worst failure ctxmon
    /// has, so those get the longer one.
    pub const fn timeout_secs(self) -> u64 {
        match self {
            Hook::SessionStart | Hook::PreCompact => 10,
            Hook::PromptSubmit
            | Hook::PreToolUse
            | Hook::PostToolUse
            | Hook::PostCompact
            | Hook::SessionEnd => 5,
        }
    }

    /// The deadline without configuration: short for what the user or the agent waits for,
    /// most of the timeout for what must not lose a checkpoint.
    pub const fn built_in_ms(self) -> u64 {
        match self {
            Hook::PromptSubmit | Hook::PreToolUse | Hook::PostToolUse => 1_500,
            Hook::PostCompact | Hook::SessionEnd => 2_000,
            Hook::SessionStart | Hook::PreCompact => 7_000,
        }
    }

    /// The longest deadline that ends before the timeout `ctxmon install` registers for this
    /// hook.
    pub const fn fits_ms(self) -> u64 {
        (self.timeout_secs() * 1_000).saturating_sub(TIMEOUT_MARGIN_MS + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_every_deadline_fits_its_timeout() {
        for hook in Hook::ALL {
            assert_eq!(Hook::from_name(hook.name()), Some(hook));
            assert!(hook.built_in_ms() <= hook.fits_ms(), "{hook:?}");
        }
        assert_eq!(Hook::from_name("no-such-hook"), None);
        assert_eq!(Hook::PreCompact.fits_ms(), 7_499);
        assert_eq!(Hook::PromptSubmit.fits_ms(), 2_499);
    }
}
