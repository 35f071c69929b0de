//! Choosing the context window: configuration > payload > model rules > default (contract C2).

use ctxmon_domain::{ContextWindow, TokenCount};

use crate::agents::AgentKind;
use crate::config::Config;

/// Window rules taken from configuration once, so each estimate is a cheap lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowRules {
    configured: Option<ContextWindow>,
    /// (model id prefix, window), longest prefix first so the first match is the most specific.
    models: Vec<(String, ContextWindow)>,
}

/// The chosen window and how it was chosen, for `--json` callers and debugging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowChoice {
    /// The window to measure against.
    pub window: ContextWindow,
    /// Which rule chose it.
    pub reason: WindowReason,
}

/// Which rule chose a window, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowReason {
    /// `context_monitor.context_window` is set.
    Configured,
    /// The status-line payload (or the agent's transcript) reported it.
    Payload,
    /// A model id ends in `[1m]`: one million tokens.
    OneMillionSuffix,
    /// The longest matching prefix in `context_monitor.models`.
    ModelTable,
    /// Nothing else applied: the agent's default window (200,000 tokens for Claude Code).
    Default,
    /// The measured tokens exceeded the chosen window, so it must have been wrong.
    Corrected,
}

impl WindowRules {
    /// The rules a configuration sets: its window override and its model table.
    pub fn from_config(config: &Config) -> WindowRules {
        let mut models: Vec<(String, ContextWindow)> = config
            .context_monitor
            .models
            .iter()
            .filter_map(|(prefix, window)| Some((prefix.clone(), ContextWindow::new(*window)?)))
            .collect();
        models.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        WindowRules {
            configured: config.window_override(),
            models,
        }
    }

    /// Picks the window for a reading; `models` are candidate model ids, most trusted first (a
    /// status-line or `--model` id can carry `[1m]`, a transcript's never does).
    pub fn choose(
        &self,
        payload_window: Option<u64>,
        models: &[&str],
        tokens: Option<TokenCount>,
    ) -> WindowChoice {
        self.choose_for(AgentKind::ClaudeCode, payload_window, models, tokens)
    }

    /// [`WindowRules::choose`] for `agent`, whose description knows its models' windows: they
    /// rank below the configured model table and above the default.
    pub fn choose_for(
        &self,
        agent: AgentKind,
        payload_window: Option<u64>,
        models: &[&str],
        tokens: Option<TokenCount>,
    ) -> WindowChoice {
        let chosen = self.choose_uncorrected(agent, payload_window, models);
        match tokens {
            Some(t) if t > chosen.window.tokens() && chosen.window < ContextWindow::ONE_MILLION => {
                WindowChoice {
                    window: ContextWindow::ONE_MILLION,
                    reason: WindowReason::Corrected,
                }
            }
            _ => chosen,
        }
    }

    fn choose_uncorrected(
        &self,
        agent: AgentKind,
        payload_window: Option<u64>,
        models: &[&str],
    ) -> WindowChoice {
        if let Some(window) = self.configured {
            return WindowChoice {
                window,
                reason: WindowReason::Configured,
            };
        }
        if let Some(window) = payload_window.and_then(ContextWindow::new) {
            return WindowChoice {
                window,
                reason: WindowReason::Payload,
            };
        }
        for model in models {
            if model.trim_end().to_ascii_lowercase().ends_with("[1m]") {
                return WindowChoice {
                    window: ContextWindow::ONE_MILLION,
                    reason: WindowReason::OneMillionSuffix,
                };
            }
        }
        for model in models {
            if let Some((_, window)) = self
                .models
                .iter()
                .find(|(prefix, _)| model.starts_with(prefix.as_str()))
            {
                return WindowChoice {
                    window: *window,
                    reason: WindowReason::ModelTable,
                };
            }
        }
        let own = agent.description();
        let by_agent = models.iter().find_map(|model| {
            own.model_windows
                .iter()
                .find(|(prefix, _)| model.starts_with(prefix))
                .and_then(|(_, window)| ContextWindow::new(*window))
        });
        if let Some(window) = by_agent {
            return WindowChoice {
                window,
                reason: WindowReason::ModelTable,
            };
        }
        WindowChoice {
            window: ContextWindow::new(own.default_window).unwrap_or(ContextWindow::DEFAULT),
            reason: WindowReason::Default,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(configure: impl FnOnce(&mut Config)) -> WindowRules {
        let mut c = Config::default();
        configure(&mut c);
        WindowRules::from_config(&c)
    }

    #[test]
    fn precedence_is_config_payload_model_default() {
        let all = rules(|c| {
            c.context_monitor.context_window = Some(150_000);
            c.context_monitor
                .models
                .insert("claude-opus".into(), 500_000);
        });
        assert_eq!(
            all.choose(Some(1_000_000), &["claude-opus-4-6[1m]"], None)
                .reason,
            WindowReason::Configured
        );
        let no_config = rules(|c| {
            c.context_monitor
                .models
                .insert("claude-opus".into(), 500_000);
        });
        assert_eq!(
            no_config
                .choose(Some(300_000), &["claude-opus-4-6[1m]"], None)
                .window
                .get(),
            300_000
        );
        assert_eq!(
            no_config
                .choose(None, &["claude-opus-4-6[1m]"], None)
                .reason,
            WindowReason::OneMillionSuffix
        );
        assert_eq!(
            no_config
                .choose(None, &["claude-opus-4-6"], None)
                .window
                .get(),
            500_000
        );
        assert_eq!(
            no_config.choose(None, &["claude-sonnet-4"], None).reason,
            WindowReason::Default
        );
        assert_eq!(
            no_config.choose(Some(0), &[], None).window,
            ContextWindow::DEFAULT
        );
    }

    #[test]
    fn longest_prefix_wins() {
        let r = rules(|c| {
            c.context_monitor.models.insert("claude".into(), 100_000);
            c.context_monitor
                .models
                .insert("claude-sonnet-5".into(), 1_000_000);
        });
        assert_eq!(
            r.choose(None, &["claude-sonnet-5-20260101"], None)
                .window
                .get(),
            1_000_000
        );
        assert_eq!(
            r.choose(None, &["claude-haiku"], None).window.get(),
            100_000
        );
    }

    #[test]
    fn tokens_beyond_the_window_correct_it() {
        let r = rules(|_| {});
        let c = r.choose(None, &["claude-opus-4-6"], Some(TokenCount(250_000)));
        assert_eq!(
            (c.window, c.reason),
            (ContextWindow::ONE_MILLION, WindowReason::Corrected)
        );
        // Already at 1M: nothing bigger is known, keep it and let the ratio exceed 1.
        let c = r.choose(Some(1_000_000), &[], Some(TokenCount(1_200_000)));
        assert_eq!(c.reason, WindowReason::Payload);
    }
}
