//! Watching the context fill: the estimate (`fill`), the `<context-monitor>` tag (`tag`), the
//! session's record of the tags it was given (`tier_record`), the status line's estimate
//! (`status_line`), its comparison with Claude Code's own figure (`payload_check`) and the turns
//! left at the recent pace (`pace`).
//!
//! `fill/` is the estimator: the window, the auto-compaction point (Claude Code's by version,
//! model and the user's own compactions in `claude_point`, Codex's, Gemini CLI's share), the
//! reset after a compaction, and a session's series for `report`. `tier_record` also holds
//! post-tool-use's rule for a tag; prompt-submit's (`tiered` by default) is
//! `hooks::prompt_submit::should_inject`.
//!
//! Nothing here hands work over; that is `crate::handoff`, which may measure through this
//! module but never the other way round.

pub mod fill;
pub mod pace;
pub mod payload_check;
pub mod status_line;
pub mod tag;
pub mod tier_record;
