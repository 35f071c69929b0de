//! `ContextFillEstimator`: turns what the transcript reader (or a status-line payload) reports
//! into a `FillEstimate`. Policy lives here; the reader only reports facts.

use std::path::Path;

use ctxmon_domain::human;
use ctxmon_domain::{
    ContextWindow, FillEstimate, FillSource, Measured, ThresholdError, ThresholdTier, Thresholds,
    TokenCount,
};

use super::auto_compact::AutoCompactSettings;
use super::claude_point::PastCompaction;
use super::codex::CodexAutoCompact;
use super::share::ShareAutoCompact;
use super::window::{WindowReason, WindowRules};
use crate::agents::{AutoCompactRule, TierBasisDefault};
use crate::config::{Config, TierBasis};
use crate::ports::{
    AgentKind, ChainScope, ScanLimits, TranscriptError, TranscriptErrorKind, TranscriptReader,
    TranscriptReading,
};

/// Everything the estimator needs from configuration, validated once.
#[derive(Debug, Clone, PartialEq)]
pub struct FillSettings {
    /// The tier boundaries.
    pub thresholds: Thresholds,
    /// How the window is chosen.
    pub windows: WindowRules,
    /// Tokens Claude Code keeps free before auto-compacting
    /// (`context_monitor.auto_compact_buffer`).
    pub auto_compact_buffer: TokenCount,
    /// The user's Claude Code auto-compaction settings; the composition root fills them in
    /// (the configuration file does not hold them: Claude Code's settings and env do).
    pub auto_compact: AutoCompactSettings,
    /// Codex's auto-compaction point (`codex.auto_compact_token_limit`, else Codex's own
    /// `config.toml`, which the composition root reads).
    pub codex: CodexAutoCompact,
    /// The share of the window at which an agent that compacts at a share compacts (Gemini
    /// CLI's `model.compressionThreshold`, which the composition root reads).
    pub share: ShareAutoCompact,
    /// The agent being served: whose auto-compaction rule estimates without a transcript
    /// reading use. A reading names its own agent and wins (see `for_agent`).
    pub agent: AgentKind,
    /// What the thresholds are fractions of (`context_monitor.tier_basis`).
    pub tier_basis: TierBasis,
    /// How far back the transcript reader may look.
    pub limits: ScanLimits,
    /// Percent of the window assumed used after a compaction whose size is unknown: until the
    /// next response the transcript's newest usage record still shows the size before it.
    pub post_compaction_percent: u64,
    /// This user's recent automatic compactions in the project's other transcripts, which
    /// the composition root reads (`claude_point`).
    pub history: Vec<PastCompaction>,
    /// The version of the agent that wrote the transcript being measured, when it names one.
    pub agent_version: Option<String>,
    /// The model the transcript being measured answers with, when known.
    pub agent_model: Option<String>,
    /// `context_monitor.auto_compact_buffer` was set to something else than its default.
    pub buffer_configured: bool,
}

/// The settings of the built-in configuration ([`Config::default`]): ctxmon's default
/// thresholds, windows and buffer, Claude Code served, the agents' own auto-compaction
/// settings not yet read (see `FillSettings::apply_agent_settings`).
impl Default for FillSettings {
    fn default() -> Self {
        FillSettings::with_thresholds(&Config::default(), Thresholds::default())
    }
}

impl FillSettings {
    /// The settings a configuration describes; fails when its thresholds are invalid. The
    /// auto-compaction settings start at their defaults and the agent at Claude Code: the
    /// composition root sets both from the agent's own settings.
    pub fn from_config(config: &Config) -> Result<FillSettings, ThresholdError> {
        Ok(FillSettings::with_thresholds(config, config.thresholds()?))
    }

    fn with_thresholds(config: &Config, thresholds: Thresholds) -> FillSettings {
        FillSettings {
            thresholds,
            windows: WindowRules::from_config(config),
            auto_compact_buffer: config.auto_compact_buffer(),
            auto_compact: AutoCompactSettings::default(),
            codex: CodexAutoCompact {
                limit: config.codex.auto_compact_token_limit,
            },
            share: ShareAutoCompact::default(),
            agent: AgentKind::ClaudeCode,
            tier_basis: config.context_monitor.tier_basis,
            limits: ScanLimits {
                max_scan_bytes: config.context_monitor.max_scan_bytes,
            },
            post_compaction_percent: config.context_monitor.post_compaction_percent.clamp(10, 60),
            history: Vec::new(),
            agent_version: None,
            agent_model: None,
            buffer_configured: config.auto_compact_buffer()
                != Config::default().auto_compact_buffer(),
        }
    }

    /// The post-compaction baseline for a window: `post_compaction_percent` of it.
    pub fn post_compaction_baseline(&self, window: ContextWindow) -> TokenCount {
        TokenCount(window.get().saturating_mul(self.post_compaction_percent) / 100)
    }

    /// What a compaction left, for as long as no response has measured the context since: the
    /// size the agent recorded (Claude Code's `postTokens`, a Gemini CLI chat's compression
    /// result) when it recorded one, else `post_compaction_percent` of `window` or of
    /// `pre_tokens`, the size before it, whichever is smaller (a compaction leaves less than
    /// it found, and gemini-cli keeps the newest 30% of the history); with the note that says
    /// which. A recorded 0 is no size. `status` and `report` both use it, so their figures
    /// after a compaction agree.
    pub fn after_compaction(
        &self,
        post_tokens: Option<TokenCount>,
        pre_tokens: Option<TokenCount>,
        window: ContextWindow,
    ) -> (TokenCount, String) {
        let pre = pre_tokens.filter(|t| t.get() > 0);
        match post_tokens.filter(|t| t.get() > 0) {
            Some(post) => (
                // A size above the one before would be no compaction: never shown above it.
                pre.map_or(post, |pre| post.min(pre)),
                "compacted; size the agent recorded".to_string(),
            ),
            None => {
                let baseline = self.post_compaction_baseline(window);
                let share_of_pre = pre.map(|pre| {
                    TokenCount(pre.get().saturating_mul(self.post_compaction_percent) / 100)
                });
                match share_of_pre.filter(|share| *share < baseline) {
                    Some(share) => (
                        share,
                        format!(
                            "compacted; assuming {}% of the {} before it until the next response",
                            self.post_compaction_percent,
                            human::tokens(pre.map_or(0, TokenCount::get))
                        ),
                    ),
                    None => (
                        baseline,
                        format!(
                            "compacted; assuming {}% of the window until the next response",
                            self.post_compaction_percent
                        ),
                    ),
                }
            }
        }
    }

    /// The same settings for `agent` (whose auto-compaction rule then applies).
    pub fn for_agent(&self, agent: AgentKind) -> FillSettings {
        FillSettings {
            agent,
            ..self.clone()
        }
    }

    /// The reserve to pass to `FillEstimate` for `window`: for Claude Code the configured
    /// buffer, moved by the user's auto-compaction settings; for Codex the room above Codex's
    /// own trigger (`codex.rs`).
    pub fn reserve_for(&self, window: ContextWindow) -> TokenCount {
        match self.agent.description().auto_compact {
            AutoCompactRule::ReserveBelowWindow { .. } => self
                .auto_compact
                .reserve(window, self.claude_buffer(window).0),
            AutoCompactRule::TokenLimit { .. } => self.codex.reserve(window),
            AutoCompactRule::ShareOfWindow {
                default_percent, ..
            } => self.share.reserve(window, default_percent),
        }
    }

    /// Clears "tokens until auto-compact" when the user turned Claude Code's auto-compaction
    /// off (those switches belong to the reserve rule and say nothing about other agents).
    pub fn apply_auto_compact(&self, mut estimate: FillEstimate) -> FillEstimate {
        let reserve_rule = matches!(
            self.agent.description().auto_compact,
            AutoCompactRule::ReserveBelowWindow { .. }
        );
        if reserve_rule && self.auto_compact.disabled {
            estimate.tokens_until_auto_compact = None;
        }
        estimate.threshold_tier = self.tier_of(estimate.input_tokens, estimate.context_window_size);
        estimate
    }

    /// The compaction point the thresholds are fractions of, or `None` when they are fractions
    /// of the window (`context_monitor.tier_basis`, else the agent's default). Codex's default
    /// takes the point only when EMERGENCY's share of the window would come after it: a low
    /// `model_auto_compact_token_limit` would otherwise compact before the upper tiers.
    /// Without auto-compaction there is no point to count towards.
    pub fn tier_point(&self, window: ContextWindow) -> Option<TokenCount> {
        let reserve_rule = matches!(
            self.agent.description().auto_compact,
            AutoCompactRule::ReserveBelowWindow { .. }
        );
        if reserve_rule && self.auto_compact.disabled {
            return None;
        }
        let point = window.get().saturating_sub(self.reserve_for(window).get());
        if point == 0 {
            return None;
        }
        let basis = match self.tier_basis {
            TierBasis::Agent => self.agent.description().tier_basis,
            TierBasis::Window => TierBasisDefault::Window,
            TierBasis::AutoCompact => TierBasisDefault::AutoCompact,
        };
        // Token counts are far below 2^53: the conversions are exact.
        #[allow(clippy::cast_precision_loss)]
        let emergency_at = self.thresholds.emergency() * window.get() as f64;
        #[allow(clippy::cast_precision_loss)]
        let reachable = emergency_at < point as f64;
        match basis {
            TierBasisDefault::Window => None,
            TierBasisDefault::AutoCompact => Some(TokenCount(point)),
            TierBasisDefault::Reachable if reachable => None,
            TierBasisDefault::Reachable => Some(TokenCount(point)),
        }
    }

    /// The tier of `tokens` on `window` under the tier basis.
    pub fn tier_of(&self, tokens: TokenCount, window: ContextWindow) -> ThresholdTier {
        #[allow(clippy::cast_precision_loss)]
        match self.tier_point(window) {
            Some(point) => self
                .thresholds
                .classify(tokens.get() as f64 / point.get() as f64),
            None => self.thresholds.classify(window.ratio(tokens)),
        }
    }

    /// The thresholds as shares of `window`, which is how the tag says where the next tier
    /// begins ("CRITICAL begins at 40%." when CRITICAL is 0.80 of a compaction at half the
    /// window).
    pub fn window_thresholds(&self, window: ContextWindow) -> Thresholds {
        let Some(point) = self.tier_point(window) else {
            return self.thresholds;
        };
        #[allow(clippy::cast_precision_loss)]
        let share = point.get() as f64 / window.get() as f64;
        let t = &self.thresholds;
        Thresholds::new(
            t.low() * share,
            t.warning() * share,
            t.critical() * share,
            t.emergency() * share,
        )
        .unwrap_or(self.thresholds)
    }

    /// An estimate for a known token count, with window correction applied.
    pub fn estimate_for(
        &self,
        tokens: TokenCount,
        source: FillSource,
        payload_window: Option<u64>,
        model: Option<&str>,
    ) -> FillEstimate {
        let models: Vec<&str> = model.into_iter().collect();
        let choice = self
            .windows
            .choose_for(self.agent, payload_window, &models, Some(tokens));
        let estimate = self.apply_auto_compact(FillEstimate::measured(Measured {
            tokens,
            window: choice.window,
            thresholds: &self.thresholds,
            auto_compact_reserve: self.reserve_for(choice.window),
            source,
            model: model.map(str::to_string),
        }));
        if choice.reason == WindowReason::Corrected {
            estimate.with_note(format!(
                "{} exceed the expected window; assuming a {} window",
                human::tokens(tokens.get()),
                human::thousands(choice.window.get())
            ))
        } else {
            estimate
        }
    }
}

/// What to measure. Every field is optional; the estimator uses what it is given.
#[derive(Debug, Clone, Copy, Default)]
pub struct EstimateRequest<'a> {
    /// The transcript to read; without it (and without `payload_usage`) the estimate is
    /// unavailable.
    pub transcript_path: Option<&'a Path>,
    /// The status-line payload's `current_usage`, already summed (the formula of contract C2).
    pub payload_usage: Option<TokenCount>,
    /// The status-line payload's `context_window_size`.
    pub payload_window: Option<u64>,
    /// A model id from the payload or `--model`; may carry `[1m]`.
    pub model_hint: Option<&'a str>,
}

/// An estimate together with the raw reading it came from (the prompt-submit use case needs the
/// boundary to detect compactions).
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The estimate: never absent, NOMINAL with source `unavailable` when nothing could be
    /// measured.
    pub estimate: FillEstimate,
    /// What the reader found, when the transcript was read.
    pub reading: Option<TranscriptReading>,
    /// Why the transcript could not be read, when it could not.
    pub error: Option<TranscriptError>,
}

impl Measurement {
    /// True when the transcript holds no response yet: it is empty, or it was read back to its
    /// start without meeting a usage record or a compaction boundary (only the user's first
    /// line). Every session is like that until its first answer: a fill that cannot be measured
    /// yet, not a problem to report.
    pub fn awaits_first_response(&self) -> bool {
        if let Some(error) = &self.error {
            return error.kind == TranscriptErrorKind::Empty;
        }
        self.reading
            .as_ref()
            .is_some_and(|r| r.usage.is_none() && r.boundary.is_none() && !r.hit_scan_limit)
    }
}

/// Turns what a [`TranscriptReader`] finds (or a status-line payload) into a
/// [`FillEstimate`] under [`FillSettings`]: the window choice, the tier, the room to
/// auto-compaction, the state after a compaction. Never fails.
#[derive(Debug)]
pub struct ContextFillEstimator<'a, R: TranscriptReader + ?Sized> {
    reader: &'a R,
    settings: &'a FillSettings,
}

impl<'a, R: TranscriptReader + ?Sized> ContextFillEstimator<'a, R> {
    /// An estimator reading through `reader` with `settings`.
    pub fn new(reader: &'a R, settings: &'a FillSettings) -> Self {
        ContextFillEstimator { reader, settings }
    }

    /// The estimate alone: [`ContextFillEstimator::measure`] without the reading.
    pub fn estimate(&self, request: EstimateRequest<'_>) -> FillEstimate {
        self.measure(request).estimate
    }

    /// Never fails: every problem becomes a NOMINAL estimate with source `unavailable` and the
    /// reason in `note`.
    pub fn measure(&self, request: EstimateRequest<'_>) -> Measurement {
        let s = self.settings;
        if let Some(tokens) = request.payload_usage.filter(|t| t.get() > 0) {
            let estimate = s.estimate_for(
                tokens,
                FillSource::Payload,
                request.payload_window,
                request.model_hint,
            );
            return Measurement {
                estimate,
                reading: None,
                error: None,
            };
        }
        let Some(path) = request.transcript_path else {
            return Measurement {
                estimate: self.unavailable(request, "no transcript path was given"),
                reading: None,
                error: None,
            };
        };
        match self.reader.read_latest(path, s.limits) {
            Err(error) => {
                let estimate =
                    self.unavailable(request, &format!("transcript unreadable: {error}"));
                Measurement {
                    estimate,
                    reading: None,
                    error: Some(error),
                }
            }
            Ok(reading) => {
                let estimate = self.estimate_from_reading(request, &reading);
                Measurement {
                    estimate,
                    reading: Some(reading),
                    error: None,
                }
            }
        }
    }

    /// The measurement `ctxmon status` reports: [`ContextFillEstimator::measure`], and after a
    /// compaction that no response has measured since (so the reading names no model), the
    /// model the session last answered with ([`TranscriptReader::last_model`]), which also
    /// decides the window.
    pub fn measure_session(&self, request: EstimateRequest<'_>) -> Measurement {
        let measurement = self.measure(request);
        let compacted = measurement
            .reading
            .as_ref()
            .is_some_and(|r| r.boundary.is_some());
        if !compacted || measurement.estimate.model.is_some() {
            return measurement;
        }
        let Some(model) = request
            .transcript_path
            .and_then(|path| self.reader.last_model(path, self.settings.limits))
        else {
            return measurement;
        };
        let mut again = self.measure(EstimateRequest {
            model_hint: Some(&model),
            ..request
        });
        again.estimate.model.get_or_insert(model);
        again
    }

    fn estimate_from_reading(
        &self,
        request: EstimateRequest<'_>,
        reading: &TranscriptReading,
    ) -> FillEstimate {
        // The file says which agent wrote it, and so whose auto-compaction rule applies; its
        // version and model say where that agent compacts.
        let version = reading
            .usage
            .as_ref()
            .and_then(|u| u.version.as_deref())
            .or_else(|| reading.boundary.as_ref().and_then(|b| b.version.as_deref()));
        let model = reading
            .agent_model
            .as_deref()
            .or_else(|| reading.usage.as_ref().and_then(|u| u.model.as_deref()))
            .or(request.model_hint);
        let for_reading = self
            .settings
            .for_agent(reading.agent)
            .knowing(version, model);
        let s = &for_reading;
        // The window the agent reported (Codex's `model_context_window`) ranks with a
        // status-line payload's: below explicit configuration, above the model rules.
        let request = EstimateRequest {
            payload_window: request.payload_window.or(reading.agent_window),
            ..request
        };
        if let Some(usage) = &reading.usage {
            // A status-line or --model id outranks the transcript's for window rules: only it can
            // carry `[1m]`. The transcript's model is what the estimate reports when it has one.
            // Codex names the model of the newest turn apart from the count (`agent_model`).
            let model = reading
                .agent_model
                .as_deref()
                .or(usage.model.as_deref())
                .or(request.model_hint);
            let mut models: Vec<&str> = request.model_hint.into_iter().collect();
            models.extend(reading.agent_model.as_deref());
            models.extend(usage.model.as_deref());
            let choice =
                s.windows
                    .choose_for(s.agent, request.payload_window, &models, Some(usage.tokens));
            let mut estimate = s.apply_auto_compact(FillEstimate::measured(Measured {
                tokens: usage.tokens,
                window: choice.window,
                thresholds: &s.thresholds,
                auto_compact_reserve: s.reserve_for(choice.window),
                source: FillSource::Transcript,
                model: model.map(str::to_string),
            }));
            if choice.reason == WindowReason::Corrected {
                estimate.note = Some(format!(
                    "{} exceed the expected window; assuming a {} window",
                    human::tokens(usage.tokens.get()),
                    human::thousands(choice.window.get())
                ));
            } else if reading.scope == ChainScope::Sidechain {
                estimate.note = Some("subagent transcript: measured from sidechain lines".into());
            }
            return estimate;
        }
        if let Some(boundary) = &reading.boundary {
            let request = EstimateRequest {
                model_hint: request.model_hint.or(reading.agent_model.as_deref()),
                ..request
            };
            let models: Vec<&str> = request.model_hint.into_iter().collect();
            let window = s
                .windows
                .choose_for(s.agent, request.payload_window, &models, None)
                .window;
            let (tokens, note) =
                s.after_compaction(boundary.post_tokens, boundary.pre_tokens, window);
            return s
                .estimate_for(
                    tokens,
                    FillSource::Compaction,
                    request.payload_window,
                    request.model_hint,
                )
                .with_note(note);
        }
        let reason = if reading.hit_scan_limit {
            format!(
                "no usage record in the last {} of the transcript",
                human::count(reading.bytes_scanned, "byte", "bytes")
            )
        } else {
            "the transcript has no usage record yet".to_string()
        };
        self.unavailable(request, &reason)
    }

    /// The measurement of a fill that must not be measured (`reason` says why): NOMINAL with
    /// source `unavailable`, the transcript left unread.
    pub fn unmeasured(&self, request: EstimateRequest<'_>, reason: &str) -> Measurement {
        Measurement {
            estimate: self.unavailable(request, reason),
            reading: None,
            error: None,
        }
    }

    fn unavailable(&self, request: EstimateRequest<'_>, reason: &str) -> FillEstimate {
        let models: Vec<&str> = request.model_hint.into_iter().collect();
        let window = self
            .settings
            .windows
            .choose_for(self.settings.agent, request.payload_window, &models, None)
            .window;
        let mut e = self.settings.apply_auto_compact(FillEstimate::unavailable(
            window,
            self.settings.reserve_for(window),
            reason,
        ));
        e.model = request.model_hint.map(str::to_string);
        e
    }
}
