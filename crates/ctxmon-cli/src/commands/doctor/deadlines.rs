//! Doctor's deadline check: each hook's deadline (its own key, `hooks.deadline_ms` or the
//! built-in one) against the timeout its settings file registers. The configuration accepts
//! one range for every deadline key; whether a deadline fits depends on the timeout the agent
//! was given, which a user may have raised or lowered by hand, so it is checked here, against
//! the files themselves.

use ctxmon_application::config::{HooksConfig, TIMEOUT_MARGIN_MS};

use super::check::{Check, Status};
use crate::cli::Hook;

/// `None` when every registered timeout leaves room for its hook's deadline (or none is
/// registered with a timeout): the line shows only when it has something to say.
/// `registered`: (file, event, hook name, timeout in seconds), from every agent's files.
pub fn check(registered: &[(String, String, String, f64)], hooks: &HooksConfig) -> Option<Check> {
    let mut found: Vec<String> = Vec::new();
    for (file, event, name, secs) in registered {
        let Some(hook) = Hook::ALL.into_iter().find(|h| h.name() == name) else {
            continue;
        };
        let deadline = hook;
        let ms = hooks.deadline_ms(deadline);
        // Whole milliseconds of a timeout given in seconds; a negative or absurd one is 0.
        let timeout_ms = (secs * 1000.0).clamp(0.0, u64::MAX as f64) as u64;
        let limit = timeout_ms.saturating_sub(TIMEOUT_MARGIN_MS + 1);
        if ms <= limit {
            continue;
        }
        let by = hooks
            .deciding_key(deadline)
            .map_or_else(|| "the built-in deadline".to_string(), str::to_string);
        found.push(format!(
            "{event} in {file}: {by} = {ms} ms outlasts its {secs} s timeout (at most {limit} ms \
             leaves {TIMEOUT_MARGIN_MS} ms for the plugin's wrapper and the process start)"
        ));
    }
    if found.is_empty() {
        return None;
    }
    Some(
        Check::new(
            "deadlines",
            Status::Warn,
            format!(
                "{}; the agent stops such a hook before it answers",
                found.join("; ")
            ),
        )
        .with_fix(
            "lower the deadline (`ctxmon config set <key> <ms>`), or raise the hook's timeout in \
             that file",
        ),
    )
}
