//! The hooks ctxmon registers, read from each agent's description (`ctxmon_application::
//! agents`): the events, the subcommand each runs, its matcher, and its timeout. The plugin's
//! `hooks/hooks.json` is checked against Claude Code's, so the two can never drift apart, and
//! a hook another agent lacks is simply not in its description.

use ctxmon_application::agents::{AgentKind, Hook};

/// One entry as it stands in an agent's hook file: the event, the `ctxmon hooks <name>`
/// subcommand it runs, its matcher (`None`: every occurrence) and its timeout in seconds
/// (written in the agent's own unit, `TimeoutUnit`). Claude Code's `settings.json`, Codex's
/// `hooks.json` and Gemini CLI's `settings.json` share this shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    pub event: &'static str,
    pub name: &'static str,
    pub hook: Hook,
    pub matcher: Option<&'static str>,
    /// The timeout from the hook's deadline table (`Hook::timeout_secs`): each hook answers
    /// within its own deadline anyway, which the configuration keeps below this timeout less
    /// the plugin wrapper's margin. The timeout is the outer fence in case the process itself
    /// is stuck (a hung disk), and it must stay short because the agent waits for it.
    pub timeout_secs: u64,
    /// The same timeout as the agent's file writes it (`TimeoutUnit`: milliseconds for Gemini
    /// CLI, seconds for the others).
    pub timeout: u64,
}

/// What `ctxmon install --agent <agent>` registers, in the order it writes them.
pub fn hooks_for(agent: AgentKind) -> Vec<Registration> {
    agent
        .description()
        .events
        .iter()
        .map(|b| Registration {
            event: b.event,
            name: b.hook.name(),
            hook: b.hook,
            matcher: b.matcher,
            timeout_secs: b.hook.timeout_secs(),
            timeout: agent
                .description()
                .timeout_unit
                .from_secs(b.hook.timeout_secs()),
        })
        .collect()
}

#[cfg(test)]
/// Claude Code's registrations (the plugin's `hooks/hooks.json` holds the same).
#[cfg(test)]
pub fn claude_hooks() -> Vec<Registration> {
    hooks_for(AgentKind::ClaudeCode)
}

/// Codex's registrations.
#[cfg(test)]
pub fn codex_hooks() -> Vec<Registration> {
    hooks_for(AgentKind::Codex)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(agent: AgentKind) -> Vec<&'static str> {
        hooks_for(agent).iter().map(|r| r.event).collect()
    }

    #[test]
    fn codex_gets_every_hook_codex_can_run_once() {
        let codex = codex_hooks();
        let names: Vec<&str> = codex.iter().map(|r| r.name).collect();
        assert_eq!(
            names,
            [
                "prompt-submit",
                "session-start",
                "pre-compact",
                "post-tool-use",
                "post-compact"
            ]
        );
        for r in &codex {
            // Every entry runs for every occurrence: ctxmon decides by the input itself.
            assert_eq!(r.matcher, None, "{r:?}");
            assert!((1..=10).contains(&r.timeout_secs), "{r:?}");
        }
        // The same hook keeps its event name and timeout across agents that share it.
        for c in &codex {
            let claude = claude_hooks();
            let same = claude.iter().find(|r| r.name == c.name);
            assert_eq!(
                same.map(|r| (r.event, r.timeout_secs)),
                Some((c.event, c.timeout_secs))
            );
        }
    }

    #[test]
    fn claude_code_registers_all_seven_and_gemini_its_five() {
        let claude = claude_hooks();
        assert_eq!(claude.len(), Hook::ALL.len());
        assert!(
            claude
                .iter()
                .any(|r| r.hook == Hook::PreToolUse && r.matcher.is_some())
        );
        let gemini = hooks_for(AgentKind::Gemini);
        let names: Vec<&str> = gemini.iter().map(|r| r.name).collect();
        assert_eq!(
            names,
            [
                "prompt-submit",
                "session-start",
                "pre-compact",
                "post-tool-use",
                "session-end"
            ]
        );
        // No event name of one agent's own is registered for another.
        for e in events(AgentKind::Gemini) {
            if !events(AgentKind::ClaudeCode).contains(&e) {
                assert_eq!(AgentKind::sole_sender_of(e), Some(AgentKind::Gemini), "{e}");
            }
        }
    }
}
