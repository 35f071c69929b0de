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
use crate::agents::Hook;

/// The shortest deadline any key accepts.
pub const MIN_DEADLINE_MS: u64 = 50;
/// The longest deadline any key accepts. One range for every key: whether a deadline fits is a
/// question of the timeout the agent's settings file registers for the hook, which a user may
/// raise, so `ctxmon doctor` answers it against the files themselves and `config set` warns
/// about a deadline past the timeout `ctxmon install` registers.
pub const MAX_DEADLINE_MS: u64 = 600_000;

pub use crate::agents::TIMEOUT_MARGIN_MS;

/// The status line's deadline without `hooks.deadline_ms`: Claude Code runs it every 300 ms
/// at most and drops a slow one, so it is as short as the prompt's.
pub const STATUS_LINE_DEADLINE_MS: u64 = 1_500;

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
    pub fn deadline_ms(&self, hook: Hook) -> u64 {
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
    pub fn deciding_key(&self, hook: Hook) -> Option<&'static str> {
        if self.own_deadline_ms(hook).is_some() {
            Some(hook.key())
        } else {
            self.deadline_ms.map(|_| "hooks.deadline_ms")
        }
    }

    /// This hook's own key.
    pub fn own_deadline_ms(&self, hook: Hook) -> Option<u64> {
        match hook {
            Hook::PromptSubmit => self.prompt_submit_deadline_ms,
            Hook::SessionStart => self.session_start_deadline_ms,
            Hook::PreCompact => self.pre_compact_deadline_ms,
            Hook::PreToolUse => self.pre_tool_use_deadline_ms,
            Hook::PostToolUse => self.post_tool_use_deadline_ms,
            Hook::PostCompact => self.post_compact_deadline_ms,
            Hook::SessionEnd => self.session_end_deadline_ms,
        }
    }
}

/// The deadline keys that are set outside their range, each naming its key and the range.
pub(super) fn issues(hooks: &HooksConfig) -> Vec<ConfigIssue> {
    let fallback = ("hooks.deadline_ms", hooks.deadline_ms);
    let own = Hook::ALL
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
        for hook in Hook::ALL {
            let ms = hook.built_in_ms();
            assert!((MIN_DEADLINE_MS..=hook.fits_ms()).contains(&ms), "{hook:?}");
            // The plugin's wrapper sends TERM 2 s before the registered timeout.
            assert!(ms + 2_000 < hook.timeout_secs() * 1000, "{hook:?}");
        }
        assert_eq!(Hook::PreCompact.fits_ms(), 7_499);
        assert_eq!(Hook::PromptSubmit.fits_ms(), 2_499);
        assert!(Hook::PreCompact.built_in_ms() >= 3 * Hook::PromptSubmit.built_in_ms());
    }

    #[test]
    fn a_hooks_own_key_wins_over_the_fallback_which_wins_over_the_built_in() {
        let mut hooks = HooksConfig::default();
        assert_eq!(hooks.deadline_ms(Hook::PreCompact), 7_000);
        assert_eq!(hooks.deadline_ms(Hook::PromptSubmit), 1_500);
        assert_eq!(hooks.status_line_deadline_ms(), STATUS_LINE_DEADLINE_MS);
        hooks.deadline_ms = Some(900);
        assert_eq!(hooks.deadline_ms(Hook::PreCompact), 900);
        assert_eq!(hooks.status_line_deadline_ms(), 900);
        hooks.pre_compact_deadline_ms = Some(6_000);
        assert_eq!(hooks.deadline_ms(Hook::PreCompact), 6_000);
        assert_eq!(hooks.deadline_ms(Hook::SessionStart), 900);
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
            hooks.deciding_key(Hook::PreCompact),
            Some("hooks.pre_compact_deadline_ms")
        );
        assert_eq!(
            hooks.deciding_key(Hook::SessionEnd),
            Some("hooks.deadline_ms")
        );
        assert_eq!(HooksConfig::default().deciding_key(Hook::SessionEnd), None);
    }
}
