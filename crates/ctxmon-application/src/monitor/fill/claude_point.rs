//! Where Claude Code's automatic compaction fires, which has moved between its versions: from
//! the version and the model a transcript names, and, better, from this user's own recent
//! automatic compactions of the same version, model and window.
//!
//! What real compactions show (`compactMetadata.preTokens`, which includes the turn that
//! crossed the point, so the point lies a little below each) on a 200,000 window:
//! - 2.0.x and 2.1.0–2.1.21: about 155,000, the window less a 32,000 output reserve and
//!   13,000 (Sonnet 4.5, and Opus 4.5 on 2.1.19);
//! - Opus 4.5 on 2.0.51–2.0.x: about 123,000, its 64,000 output reserve uncapped;
//! - 2.1.22 and later: about 167,000, the output reserve capped at 20,000 (the rule a 2.1.197
//!   bundle spells: window − min(the model's output reserve, cap) − 13,000).
//!
//! A user's own compactions beat the table: the lowest `preTokens` among the most recent few
//! of the same version, model and window is where that point has really been, whatever the
//! version's rule. `context_monitor.auto_compact_buffer`, set to anything but its default,
//! beats both.

use serde::{Deserialize, Serialize};

use ctxmon_domain::{ContextWindow, TokenCount};

use super::FillSettings;
use crate::agents::AutoCompactRule;

/// How many of the user's most recent matching compactions count.
pub const HISTORY_RECENT: usize = 5;

/// The summary's share on top of the output reserve, the same in every version seen.
const SUMMARY_RESERVE: u64 = 13_000;

/// One automatic compaction of this user's, from another transcript of the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastCompaction {
    /// The Claude Code version of the boundary line.
    pub version: Option<String>,
    /// The model of the newest response before it.
    pub model: Option<String>,
    /// `compactMetadata.preTokens`.
    pub pre_tokens: u64,
    /// The boundary's timestamp, as the file spells it (RFC 3339 sorts as text).
    pub timestamp: Option<String>,
}

/// Where the auto-compaction point came from, as `status --json` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointSource {
    /// `context_monitor.auto_compact_buffer`, set by the user.
    Configuration,
    /// The user's own recent automatic compactions (how many counted).
    History(usize),
    /// Claude Code's version and model.
    Version,
    /// Neither is known: the default buffer.
    Default,
    /// Another agent's rule (Codex's token limit, Gemini CLI's share of the window).
    AgentRule,
}

impl PointSource {
    /// The name `status --json` gives it.
    pub fn key(self) -> &'static str {
        match self {
            PointSource::Configuration => "configuration",
            PointSource::History(_) => "history",
            PointSource::Version => "version",
            PointSource::Default => "default",
            PointSource::AgentRule => "agent-rule",
        }
    }
}

/// `major.minor.patch` of a version string (`2.1.22`, `2.0.57-beta` reads as 2.0.57).
fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version.trim().splitn(3, '.');
    let number = |p: Option<&str>| -> Option<u64> {
        let digits: String = p?.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    Some((
        number(parts.next())?,
        number(parts.next())?,
        number(parts.next())?,
    ))
}

/// The reserve below the window (window − point) that Claude Code `version` keeps for
/// `model`, or `None` for a version whose rule is not known (before 2.0).
pub fn version_reserve(version: &str, model: Option<&str>) -> Option<TokenCount> {
    let v = parse_version(version)?;
    if v < (2, 0, 0) {
        return None;
    }
    let opus_4_5 = model.is_some_and(|m| m.contains("opus-4-5"));
    let output = if v >= (2, 1, 22) {
        20_000
    } else if opus_4_5 && ((2, 0, 51)..(2, 1, 0)).contains(&v) {
        64_000
    } else {
        32_000
    };
    Some(TokenCount(output + SUMMARY_RESERVE))
}

/// The reserve this user's own compactions show for `version`, `model` and `window`
/// (`window_of` gives a past compaction's window from its model): `window` less the lowest
/// `preTokens` of the [`HISTORY_RECENT`] most recent matching ones, with how many counted.
pub fn history_reserve(
    history: &[PastCompaction],
    version: &str,
    model: Option<&str>,
    window: u64,
    window_of: impl Fn(&PastCompaction) -> u64,
) -> Option<(TokenCount, usize)> {
    let family = model.map(model_family);
    let mut matching: Vec<&PastCompaction> = history
        .iter()
        .filter(|c| c.version.as_deref() == Some(version))
        .filter(|c| c.model.as_deref().map(model_family) == family)
        .filter(|c| window_of(c) == window && c.pre_tokens > 0 && c.pre_tokens < window)
        .collect();
    matching.sort_by(|a, b| b.timestamp.cmp(&a.timestamp));
    matching.truncate(HISTORY_RECENT);
    let lowest = matching.iter().map(|c| c.pre_tokens).min()?;
    Some((TokenCount(window - lowest), matching.len()))
}

/// A model id without its date (`claude-opus-4-5-20251101` → `claude-opus-4-5`): one model
/// under two snapshot dates compacts alike.
fn model_family(model: &str) -> &str {
    match model.rsplit_once('-') {
        Some((head, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => model,
    }
}

impl FillSettings {
    /// The same settings, measuring a transcript (or a status-line payload) that names
    /// `version` and `model`; what it does not name stays as it was.
    pub fn knowing(&self, version: Option<&str>, model: Option<&str>) -> FillSettings {
        FillSettings {
            agent_version: version
                .map(str::to_string)
                .or_else(|| self.agent_version.clone()),
            agent_model: model
                .map(str::to_string)
                .or_else(|| self.agent_model.clone()),
            ..self.clone()
        }
    }

    /// The buffer Claude Code keeps below `window` before it compacts, and where it came
    /// from: the configured buffer when the user set one, else this user's own recent
    /// compactions, else the version's rule, else the default buffer. Claude Code's own
    /// settings (`autoCompactWindow`, the percentage override) then move the point as
    /// `AutoCompactSettings::trigger` says.
    pub fn claude_buffer(&self, window: ContextWindow) -> (TokenCount, PointSource) {
        if self.buffer_configured {
            return (self.auto_compact_buffer, PointSource::Configuration);
        }
        let Some(version) = self.agent_version.as_deref() else {
            return (self.auto_compact_buffer, PointSource::Default);
        };
        let model = self.agent_model.as_deref();
        let window_of = |c: &PastCompaction| {
            let models: Vec<&str> = c.model.as_deref().into_iter().collect();
            self.windows
                .choose_for(self.agent, None, &models, Some(TokenCount(c.pre_tokens)))
                .window
                .get()
        };
        if let Some((reserve, count)) =
            history_reserve(&self.history, version, model, window.get(), window_of)
        {
            return (reserve, PointSource::History(count));
        }
        match version_reserve(version, model) {
            Some(reserve) => (reserve, PointSource::Version),
            None => (self.auto_compact_buffer, PointSource::Default),
        }
    }

    /// Where the auto-compaction point on `window` comes from, for `status --json`.
    pub fn point_source(&self, window: ContextWindow) -> PointSource {
        match self.agent.description().auto_compact {
            AutoCompactRule::ReserveBelowWindow { .. } => self.claude_buffer(window).1,
            _ => PointSource::AgentRule,
        }
    }

    /// The auto-compaction point on `window`, or `None` when auto-compaction is off.
    pub fn auto_compact_point(&self, window: ContextWindow) -> Option<TokenCount> {
        let reserve = self.reserve_for(window);
        (reserve < window.tokens()).then(|| TokenCount(window.get() - reserve.get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn past(version: &str, model: &str, pre: u64, at: &str) -> PastCompaction {
        PastCompaction {
            version: Some(version.into()),
            model: Some(model.into()),
            pre_tokens: pre,
            timestamp: Some(at.into()),
        }
    }

    #[test]
    fn the_version_and_model_decide_the_reserve() {
        let r = |v: &str, m: &str| version_reserve(v, Some(m)).map(TokenCount::get);
        assert_eq!(r("2.0.37", "claude-sonnet-4-5-20250929"), Some(45_000));
        assert_eq!(r("2.0.76", "claude-sonnet-4-5-20250929"), Some(45_000));
        assert_eq!(r("2.0.57", "claude-opus-4-5-20251101"), Some(77_000));
        assert_eq!(r("2.1.19", "claude-opus-4-5-20251101"), Some(45_000));
        assert_eq!(r("2.1.22", "claude-sonnet-4-6"), Some(33_000));
        assert_eq!(r("2.1.148", "claude-opus-4-5-20251101"), Some(33_000));
        assert_eq!(r("1.0.98", "claude-sonnet-4-20250514"), None);
        for bad in ["", "x", "2", "2.1", "-1.0.0", "2.x.1"] {
            assert_eq!(version_reserve(bad, None), None, "{bad}");
        }
        assert_eq!(
            version_reserve("2.0.57-beta", Some("claude-opus-4-5")),
            Some(TokenCount(77_000))
        );
    }

    #[test]
    fn the_lowest_of_the_recent_matching_compactions_is_the_point() {
        let history = vec![
            past(
                "2.0.57",
                "claude-opus-4-5-20251101",
                123_096,
                "2025-12-03T11:24",
            ),
            past(
                "2.0.57",
                "claude-opus-4-5-20251101",
                127_141,
                "2025-12-03T12:35",
            ),
            // Another version, another model: not this point.
            past(
                "2.0.42",
                "claude-opus-4-5-20251101",
                100_000,
                "2025-12-03T13:00",
            ),
            past(
                "2.0.57",
                "claude-sonnet-4-5-20250929",
                110_000,
                "2025-12-03T13:30",
            ),
        ];
        let window = |_: &PastCompaction| 200_000;
        assert_eq!(
            history_reserve(&history, "2.0.57", Some("claude-opus-4-5"), 200_000, window),
            Some((TokenCount(76_904), 2))
        );
        assert_eq!(
            history_reserve(&history, "2.1.22", Some("claude-opus-4-5"), 200_000, window),
            None
        );
        // Another window: not this point.
        assert_eq!(
            history_reserve(
                &history,
                "2.0.57",
                Some("claude-opus-4-5"),
                1_000_000,
                window
            ),
            None
        );
    }

    #[test]
    fn only_the_most_recent_few_count() {
        let mut history: Vec<PastCompaction> = (0..HISTORY_RECENT)
            .map(|k| {
                past(
                    "2.1.30",
                    "m",
                    168_000 + k as u64,
                    &format!("2026-02-0{}", k + 2),
                )
            })
            .collect();
        history.push(past("2.1.30", "m", 150_000, "2026-01-01"));
        let window = |_: &PastCompaction| 200_000;
        assert_eq!(
            history_reserve(&history, "2.1.30", Some("m"), 200_000, window),
            Some((TokenCount(32_000), HISTORY_RECENT))
        );
    }

    #[test]
    fn model_dates_are_one_family() {
        assert_eq!(model_family("claude-opus-4-5-20251101"), "claude-opus-4-5");
        assert_eq!(model_family("claude-sonnet-4-6"), "claude-sonnet-4-6");
        assert_eq!(model_family("gpt-5"), "gpt-5");
    }
}
