//! Watching the context fill: the estimate (`fill`), the `<context-monitor>` tag (`tag`), the
//! session's record of the tags it was given (`tier_record`), the status line's estimate
//! (`status_line`), its comparison with Claude Code's own figure (`payload_check`) and the turns
//! left at the recent pace (`pace`).
//!
//! Nothing here hands work over; that is `crate::handoff`, which may measure through this
//! module but never the other way round.

pub mod fill;
pub mod pace;
pub mod payload_check;
pub mod status_line;
pub mod tag;
pub mod tier_record;
