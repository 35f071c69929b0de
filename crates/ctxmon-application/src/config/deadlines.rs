//! Each hook's own internal deadline (contract C14), and the status line's.
//!
//! Claude Code waits for a hook up to the timeout `ctxmon install` registers for it, and the
//! plugin's wrapper (`hooks/ctxmon-hook`) stops it earlier still: it is given one second less
//! than that timeout and sends TERM a second before its own limit. A deadline must end before
//! that TERM, with room to start the process and write the answer, or the answer it waited for
//! is thrown away. Within that bound the deadlines differ on purpose: the user waits for
//! UserPromptSubmit and the agent for PreToolUse and PostToolUse (which runs after every tool
//! call), so those stay short; Claude Code waits for
//! PreCompact and SessionStart anyway (the compaction itself takes far longer), and a lost
//! checkpoint is the worst failure ctxmon has, so those get most of their time.
//!
//! Every key is optional. A hook uses its own key when set, else `hooks.deadline_ms` when set
//! (the one deadline of every hook before there were several; existing configurations keep
//! it), else its built-in deadline. Every key accepts one range; whether a deadline ends before
//! its hook's timeout is checked against the timeouts the settings files register (`ctxmon
//! doctor`), since a user may raise them.

use super::{ConfigIssue, HooksConfig};

/// The shortest deadline any key accepts.
pub const MIN_DEADLINE_MS: u64 = 50;
/// The longest deadline any key accepts. One range for every key: whether a deadline fits is a
/// question of the timeout the agent's settings file registers for the hook, which a user may
/// raise, so `ctxmon doctor` answers it against the files themselves and `config set` warns
/// about a deadline past the timeout `ctxmon install` registers.
pub const MAX_DEADLINE_MS: u64 = 600_000;
/// What a hook's deadline leaves of its registered timeout: the plugin's wrapper runs with one
/// second less than Claude Code's timeout and sends TERM one second before that (2 s), plus
/// half a second to start the process and write the answer.
pub const TIMEOUT_MARGIN_MS: u64 = 2_500;
/// The status line's deadline without `hooks.deadline_ms`: Claude Code runs it every 300 ms
/// at most and drops a slow one, so it is as short as the prompt's.
pub const STATUS_LINE_DEADLINE_MS: u64 = 1_500;

/// The hooks, each with its registered timeout and its own deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookDeadline {
    /// UserPromptSubmit (built in: 1.5 s of a 5 s timeout).
    PromptSubmit,
    /// SessionStart (built in: 7 s of a 10 s timeout).
    SessionStart,
    /// PreCompact (built in: 7 s of a 10 s timeout).
    PreCompact,
    /// PreToolUse (built in: 1.5 s of a 5 s timeout).
    PreToolUse,
    /// PostToolUse (built in: 1.5 s of a 5 s timeout).
    PostToolUse,
    /// PostCompact (built in: 2 s of a 5 s timeout).
    PostCompact,
    /// SessionEnd (built in: 2 s of a 5 s timeout).
    SessionEnd,
}

impl HookDeadline {
    /// Every hook, in the order the configuration lists their keys.
    pub const ALL: [HookDeadline; 7] = [
        HookDeadline::PromptSubmit,
        HookDeadline::SessionStart,
        HookDeadline::PreCompact,
        HookDeadline::PreToolUse,
        HookDeadline::PostToolUse,
        HookDeadline::PostCompact,
        HookDeadline::SessionEnd,
    ];

    /// The dotted configuration key of this hook's own deadline.
    pub const fn key(self) -> &'static str {
        match self {
            HookDeadline::PromptSubmit => "hooks.prompt_submit_deadline_ms",
            HookDeadline::SessionStart => "hooks.session_start_deadline_ms",
            HookDeadline::PreCompact => "hooks.pre_compact_deadline_ms",
            HookDeadline::PreToolUse => "hooks.pre_tool_use_deadline_ms",
            HookDeadline::PostToolUse => "hooks.post_tool_use_deadline_ms",
            HookDeadline::PostCompact => "hooks.post_compact_deadline_ms",
            HookDeadline::SessionEnd => "hooks.session_end_deadline_ms",
        }
    }

    /// The timeout in seconds `ctxmon install` and the plugin register for this hook (the
    /// installer's table takes it from here, so the two cannot drift apart).
    pub const fn timeout_secs(self) -> u64 {
        match self {
            HookDeadline::SessionStart | HookDeadline::PreCompact => 10,
            HookDeadline::PromptSubmit
            | HookDeadline::PreToolUse
            | HookDeadline::PostToolUse
            | HookDeadline::PostCompact
            | HookDeadline::SessionEnd => 5,
        }
    }

    /// The deadline without configuration.
    pub const fn built_in_ms(self) -> u64 {
        match self {
            HookDeadline::PromptSubmit | HookDeadline::PreToolUse | HookDeadline::PostToolUse => {
                1_500
            }
            HookDeadline::PostCompact | HookDeadline::SessionEnd => 2_000,
            HookDeadline::SessionStart | HookDeadline::PreCompact => 7_000,
        }
    }

    /// The longest deadline that ends before the timeout `ctxmon install` registers for this
    /// hook.
    pub const fn fits_ms(self) -> u64 {
        ends_before_ms(self.timeout_secs())
    }

    /// The hook's event as the agents name it.
    pub const fn event(self) -> &'static str {
        match self {
            HookDeadline::PromptSubmit => "UserPromptSubmit",
            HookDeadline::SessionStart => "SessionStart",
            HookDeadline::PreCompact => "PreCompact",
            HookDeadline::PreToolUse => "PreToolUse",
            HookDeadline::PostToolUse => "PostToolUse",
            HookDeadline::PostCompact => "PostCompact",
            HookDeadline::SessionEnd => "SessionEnd",
        }
    }
}

/// The longest deadline that ends before a registered timeout of `timeout_secs`, with
/// [`TIMEOUT_MARGIN_MS`] left for the plugin's wrapper and the process start.
pub const fn ends_before_ms(timeout_secs: u64) -> u64 {
    (timeout_secs * 1000).saturating_sub(TIMEOUT_MARGIN_MS + 1)
}

/// What a deadline key accepts, for messages.
pub fn expected_deadline() -> String {
    format!("an integer from {MIN_DEADLINE_MS} to {MAX_DEADLINE_MS} (milliseconds)")
}

impl HooksConfig {
    /// The deadline `hook` runs under: its own key, else `hooks.deadline_ms`, else built in.
    pub fn deadline_ms(&self, hook: HookDeadline) -> u64 {
        self.own_deadline_ms(hook)
            .or(self.deadline_ms)
            .unwrap_or(hook.built_in_ms())
    }

    /// The status line's deadline: `hooks.deadline_ms`, else [`STATUS_LINE_DEADLINE_MS`].
    pub fn status_line_deadline_ms(&self) -> u64 {
        self.deadline_ms.unwrap_or(STATUS_LINE_DEADLINE_MS)
    }

    /// The key that sets `hook`'s deadline: its own, else `hooks.deadline_ms`; `None` when
    /// the built-in deadline applies.
    pub fn deciding_key(&self, hook: HookDeadline) -> Option<&'static str> {
        if self.own_deadline_ms(hook).is_some() {
            Some(hook.key())
        } else {
            self.deadline_ms.map(|_| "hooks.deadline_ms")
        }
    }

    /// This hook's own key.
    pub fn own_deadline_ms(&self, hook: HookDeadline) -> Option<u64> {
        match hook {
            HookDeadline::PromptSubmit => self.prompt_submit_deadline_ms,
            HookDeadline::SessionStart => self.session_start_deadline_ms,
            HookDeadline::PreCompact => self.pre_compact_deadline_ms,
            HookDeadline::PreToolUse => self.pre_tool_use_deadline_ms,
            HookDeadline::PostToolUse => self.post_tool_use_deadline_ms,
            HookDeadline::PostCompact => self.post_compact_deadline_ms,
            HookDeadline::SessionEnd => self.session_end_deadline_ms,
        }
    }
}

/// The deadline keys that are set outside their range, each naming its key and the range.
pub(super) fn issues(hooks: &HooksConfig) -> Vec<ConfigIssue> {
    let fallback = ("hooks.deadline_ms", hooks.deadline_ms);
    let own = HookDeadline::ALL
        .into_iter()
        .map(|h| (h.key(), hooks.own_deadline_ms(h)));
    std::iter::once(fallback)
        .chain(own)
        .filter_map(|(key, value)| {
            let ms = value?;
            (!(MIN_DEADLINE_MS..=MAX_DEADLINE_MS).contains(&ms)).then(|| ConfigIssue {
                key: key.to_string(),
                message: format!("must be {}, got {ms}", expected_deadline()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_deadline_is_valid_and_the_long_ones_are_the_compaction_hooks() {
        for hook in HookDeadline::ALL {
            let ms = hook.built_in_ms();
            assert!((MIN_DEADLINE_MS..=hook.fits_ms()).contains(&ms), "{hook:?}");
            // The plugin's wrapper sends TERM 2 s before the registered timeout.
            assert!(ms + 2_000 < hook.timeout_secs() * 1000, "{hook:?}");
        }
        assert_eq!(HookDeadline::PreCompact.fits_ms(), 7_499);
        assert_eq!(HookDeadline::PromptSubmit.fits_ms(), 2_499);
        assert!(
            HookDeadline::PreCompact.built_in_ms() >= 3 * HookDeadline::PromptSubmit.built_in_ms()
        );
    }

    #[test]
    fn a_hooks_own_key_wins_over_the_fallback_which_wins_over_the_built_in() {
        let mut hooks = HooksConfig::default();
        assert_eq!(hooks.deadline_ms(HookDeadline::PreCompact), 7_000);
        assert_eq!(hooks.deadline_ms(HookDeadline::PromptSubmit), 1_500);
        assert_eq!(hooks.status_line_deadline_ms(), STATUS_LINE_DEADLINE_MS);
        hooks.deadline_ms = Some(900);
        assert_eq!(hooks.deadline_ms(HookDeadline::PreCompact), 900);
        assert_eq!(hooks.status_line_deadline_ms(), 900);
        hooks.pre_compact_deadline_ms = Some(6_000);
        assert_eq!(hooks.deadline_ms(HookDeadline::PreCompact), 6_000);
        assert_eq!(hooks.deadline_ms(HookDeadline::SessionStart), 900);
    }

    #[test]
    fn every_deadline_key_follows_one_range() {
        let mut hooks = HooksConfig::default();
        assert_eq!(issues(&hooks), vec![]);
        hooks.pre_compact_deadline_ms = Some(600_000);
        hooks.prompt_submit_deadline_ms = Some(4_000);
        hooks.deadline_ms = Some(600_000);
        assert_eq!(issues(&hooks), vec![]);
        hooks.pre_compact_deadline_ms = Some(600_001);
        hooks.prompt_submit_deadline_ms = Some(49);
        hooks.deadline_ms = Some(600_001);
        let found = issues(&hooks);
        let keys: Vec<&str> = found.iter().map(|i| i.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "hooks.deadline_ms",
                "hooks.prompt_submit_deadline_ms",
                "hooks.pre_compact_deadline_ms"
            ]
        );
        assert_eq!(
            found[2].message,
            "must be an integer from 50 to 600000 (milliseconds), got 600001"
        );
        assert_eq!(
            hooks.deciding_key(HookDeadline::PreCompact),
            Some("hooks.pre_compact_deadline_ms")
        );
        assert_eq!(
            hooks.deciding_key(HookDeadline::SessionEnd),
            Some("hooks.deadline_ms")
        );
        assert_eq!(
            HooksConfig::default().deciding_key(HookDeadline::SessionEnd),
            None
        );
    }
}
