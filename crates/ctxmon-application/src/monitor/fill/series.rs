//! A session's fill over time, for `ctxmon report`: one point per API response on the main
//! chain, with compactions and tier crossings marked.
//!
//! The builder is fed the transcript's qualifying lines in file order (the reader streams them,
//! so memory grows with the number of responses, never with the file) and applies the rules of
//! contract C2 that a whole-session view needs beyond the newest record:
//! - Streaming writes one line per content block; the lines of one response share `message.id`
//!   and their input and cache counts, so the first qualifying line of an id is the response's
//!   point and later ones add nothing. Lines without an id (the simple format) are one point each.
//! - Sidechain lines are subagent traffic and are left out, unless the file holds no qualifying
//!   main-chain line at all: then it is a subagent's own transcript and its sidechain is charted,
//!   as the reader's fallback does.
//! - A window the agent reported with a count (Codex's `model_context_window`) ranks like a
//!   status-line payload's, above the model rules.
//! - The window is a property of the session, not of one response: when any response exceeds
//!   the window the rules chose, the whole session is measured against the next known size, so
//!   the chart does not jump from 95% to 20% at the response that proved the window wrong.

use std::collections::HashSet;

use ctxmon_domain::{ContextWindow, FillSource, ThresholdTier, Thresholds, TokenCount};
use serde::Serialize;

use super::estimator::FillSettings;
use crate::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};

/// Which lines the series was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SeriesScope {
    /// Main-chain lines: the session's own responses.
    Main,
    /// The file had no qualifying main-chain line: a subagent's transcript.
    Sidechain,
}

/// One API response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FillPoint {
    /// Position in the series, from 0.
    pub index: usize,
    /// When the response was written, as the transcript spells it.
    pub timestamp: Option<String>,
    /// The response's `message.id`, when the line has one.
    pub message_id: Option<String>,
    /// The context's size at this response.
    pub tokens: TokenCount,
    /// tokens / window, not clamped.
    pub fill: f64,
    /// The tier `fill` falls in.
    pub tier: ThresholdTier,
    /// The session's window (the same for every point).
    pub window: ContextWindow,
}

/// A `compact_boundary` between two responses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactionMark {
    /// The index of the first response after the compaction (= the number of responses before
    /// it; equal to the series length when no response followed).
    pub index: usize,
    /// When the compaction happened, as the transcript spells it.
    pub timestamp: Option<String>,
    /// `manual` or `auto`, as the boundary says (Claude Code), else as the session's
    /// checkpoint says (`FillSeries::take_triggers_from`: Codex and Gemini CLI record none).
    pub trigger: Option<String>,
    /// The context's size before it, when the boundary recorded it.
    pub pre_tokens: Option<TokenCount>,
    /// The context's size after it, when the boundary recorded it.
    pub post_tokens: Option<TokenCount>,
}

/// A response whose tier differs from the previous response's (the first response is compared
/// with NOMINAL, the tier of an empty context).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierCrossing {
    /// The index of the response in the new tier.
    pub index: usize,
    /// When that response was written.
    pub timestamp: Option<String>,
    /// The tier before.
    pub from: ThresholdTier,
    /// The tier after.
    pub to: ThresholdTier,
    /// The context's size at that response.
    pub tokens: TokenCount,
    /// The fill at that response, as a fraction of the window.
    pub fill: f64,
}

/// The session's fill at its end, as `ctxmon status` measures it: the newest response's, or,
/// when a compaction came after it, what the compaction left (`FillSettings::after_compaction`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalFill {
    /// `Transcript` (the newest response) or `Compaction`.
    pub source: FillSource,
    /// The context's size at the end.
    pub tokens: TokenCount,
    /// The fill at the end, as a fraction of the window.
    pub fill: f64,
    /// The tier at the end.
    pub tier: ThresholdTier,
    /// The window it is measured against.
    pub window: ContextWindow,
    /// The newest response's time (`Transcript`) or the compaction's (`Compaction`).
    pub timestamp: Option<String>,
    /// How the size after a compaction was found (`None` for a response).
    pub note: Option<String>,
}

/// The whole session, ready to render.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FillSeries {
    /// Which chain the points come from.
    pub scope: SeriesScope,
    /// The newest response's model, else the hint.
    pub model: Option<String>,
    /// The newest response's window (the default window when there is no response).
    pub window: ContextWindow,
    /// Why the window differs from what the rules chose, when it does.
    pub window_note: Option<String>,
    /// The thresholds the tiers were computed with.
    pub thresholds: Thresholds,
    /// The fill at which the agent auto-compacts on `window` (`FillSettings::reserve_for`: the
    /// settings name the agent, which the caller takes from the transcript's format).
    pub auto_compact_fill: f64,
    /// One point per response, oldest first.
    pub points: Vec<FillPoint>,
    /// The compactions, oldest first.
    pub compactions: Vec<CompactionMark>,
    /// The tier changes, oldest first.
    pub crossings: Vec<TierCrossing>,
    /// Where the session ended; `None` only for a series without responses or compactions.
    pub final_fill: Option<FinalFill>,
}

impl FillSeries {
    /// The point with the fewest tokens (the first of equals).
    pub fn min(&self) -> Option<&FillPoint> {
        self.points
            .iter()
            .reduce(|a, b| if b.tokens < a.tokens { b } else { a })
    }

    /// The point with the most tokens (the first of equals).
    pub fn max(&self) -> Option<&FillPoint> {
        self.points
            .iter()
            .reduce(|a, b| if b.tokens > a.tokens { b } else { a })
    }

    /// The newest response's point.
    pub fn last(&self) -> Option<&FillPoint> {
        self.points.last()
    }
}

/// A response before the window is known.
#[derive(Debug, Clone)]
struct RawPoint {
    tokens: TokenCount,
    /// The window the agent reported with the count (Codex), ranked like a payload's.
    reported_window: Option<u64>,
    model: Option<String>,
    message_id: Option<String>,
    timestamp: Option<String>,
}

/// The points and compactions of one chain (main or sidechain).
#[derive(Debug, Default)]
struct Chain {
    points: Vec<RawPoint>,
    seen_ids: HashSet<String>,
    compactions: Vec<CompactionMark>,
}

impl Chain {
    fn is_empty(&self) -> bool {
        self.points.is_empty() && self.compactions.is_empty()
    }

    fn usage(&mut self, record: UsageRecord) {
        if let Some(id) = &record.message_id {
            // `insert` is false for an id already charted: a later block of the same response.
            if !self.seen_ids.insert(id.clone()) {
                return;
            }
        }
        self.points.push(RawPoint {
            tokens: record.tokens,
            reported_window: record.context_window,
            model: record.model,
            message_id: record.message_id,
            timestamp: record.timestamp,
        });
    }

    fn boundary(&mut self, boundary: CompactionBoundary) {
        self.compactions.push(CompactionMark {
            index: self.points.len(),
            timestamp: boundary.timestamp,
            trigger: boundary.trigger,
            pre_tokens: boundary.pre_tokens,
            post_tokens: boundary.post_tokens,
        });
    }
}

/// Collects a transcript's events in file order; [`finish`](FillSeriesBuilder::finish) applies
/// the window and tier rules.
#[derive(Debug, Default)]
pub struct FillSeriesBuilder {
    main: Chain,
    /// Kept only while the main chain is empty: once it has a line, the file is a session's and
    /// its sidechain is never charted.
    sidechain: Option<Chain>,
}

impl FillSeriesBuilder {
    /// An empty builder, ready to be fed a transcript's events in file order.
    pub fn new() -> FillSeriesBuilder {
        FillSeriesBuilder {
            main: Chain::default(),
            sidechain: Some(Chain::default()),
        }
    }

    /// Adds one transcript event (in file order); sidechain events are kept only until a
    /// main-chain one arrives.
    pub fn push(&mut self, event: TranscriptEvent) {
        let sidechain = match &event {
            TranscriptEvent::Usage { sidechain, .. }
            | TranscriptEvent::Boundary { sidechain, .. } => *sidechain,
        };
        let chain = if sidechain {
            match self.sidechain.as_mut() {
                Some(chain) => chain,
                None => return,
            }
        } else {
            self.sidechain = None;
            &mut self.main
        };
        match event {
            TranscriptEvent::Usage { record, .. } => chain.usage(record),
            TranscriptEvent::Boundary { boundary, .. } => chain.boundary(boundary),
        }
    }

    /// Windows, fills, tiers and crossings. `model_hint` is a `--model` id; it outranks the
    /// transcript's for window rules because only it can carry `[1m]`.
    pub fn finish(self, settings: &FillSettings, model_hint: Option<&str>) -> FillSeries {
        let (chain, scope) = match self.sidechain {
            Some(side) if self.main.is_empty() && !side.is_empty() => {
                (side, SeriesScope::Sidechain)
            }
            _ => (self.main, SeriesScope::Main),
        };
        let (windows, window_note) = session_windows(settings, &chain.points, model_hint);
        let thresholds = settings.thresholds;
        let mut points = Vec::with_capacity(chain.points.len());
        let mut crossings = Vec::new();
        let mut previous = ThresholdTier::Nominal;
        let mut model = model_hint.map(str::to_string);
        for (index, (raw, window)) in chain.points.into_iter().zip(windows).enumerate() {
            let fill = window.ratio(raw.tokens);
            let tier = settings.tier_of(raw.tokens, window);
            if tier != previous {
                crossings.push(TierCrossing {
                    index,
                    timestamp: raw.timestamp.clone(),
                    from: previous,
                    to: tier,
                    tokens: raw.tokens,
                    fill,
                });
                previous = tier;
            }
            if raw.model.is_some() {
                model = raw.model;
            }
            points.push(FillPoint {
                index,
                timestamp: raw.timestamp,
                message_id: raw.message_id,
                tokens: raw.tokens,
                fill,
                tier,
                window,
            });
        }
        let window = match points.last() {
            Some(p) => p.window,
            None => {
                let models: Vec<&str> = model_hint.into_iter().collect();
                settings
                    .windows
                    .choose_for(settings.agent, None, &models, None)
                    .window
            }
        };
        let room = window.tokens().saturating_sub(settings.reserve_for(window));
        let final_fill = final_fill(settings, window, &points, &chain.compactions);
        FillSeries {
            scope,
            model,
            window,
            window_note,
            thresholds,
            auto_compact_fill: window.ratio(room),
            points,
            compactions: chain.compactions,
            crossings,
            final_fill,
        }
    }
}

/// The fill at the session's end: a compaction after the newest response replaces that
/// response's figure, as it does in the backward read `status` makes.
fn final_fill(
    settings: &FillSettings,
    window: ContextWindow,
    points: &[FillPoint],
    compactions: &[CompactionMark],
) -> Option<FinalFill> {
    if let Some(c) = compactions.last().filter(|c| c.index >= points.len()) {
        let (tokens, note) = settings.after_compaction(c.post_tokens, c.pre_tokens, window);
        let fill = window.ratio(tokens);
        return Some(FinalFill {
            source: FillSource::Compaction,
            tokens,
            fill,
            tier: settings.tier_of(tokens, window),
            window,
            timestamp: c.timestamp.clone(),
            note: Some(note),
        });
    }
    points.last().map(|p| FinalFill {
        source: FillSource::Transcript,
        tokens: p.tokens,
        fill: p.fill,
        tier: p.tier,
        window: p.window,
        timestamp: p.timestamp.clone(),
        note: None,
    })
}

/// The window of every point: the rules' choice for its model, moved to the next known size
/// for every point of that choice when any of them exceeds it (see the module docs).
fn session_windows(
    settings: &FillSettings,
    points: &[RawPoint],
    model_hint: Option<&str>,
) -> (Vec<ContextWindow>, Option<String>) {
    let chosen: Vec<ContextWindow> = points
        .iter()
        .map(|p| {
            let mut models: Vec<&str> = model_hint.into_iter().collect();
            models.extend(p.model.as_deref());
            settings
                .windows
                .choose_for(settings.agent, p.reported_window, &models, None)
                .window
        })
        .collect();
    // The largest response of each chosen window decides whether that window was wrong; the
    // rules' own correction (one token count at a time) gives the replacement.
    let mut corrections: Vec<(ContextWindow, ContextWindow, TokenCount)> = Vec::new();
    for (p, w) in points.iter().zip(&chosen) {
        match corrections.iter_mut().find(|(from, _, _)| from == w) {
            Some((_, _, max)) => *max = (*max).max(p.tokens),
            None => corrections.push((*w, *w, p.tokens)),
        }
    }
    let mut notes = Vec::new();
    for (from, to, max) in &mut corrections {
        if *max > from.tokens() && *from < ContextWindow::ONE_MILLION {
            *to = ContextWindow::ONE_MILLION;
            notes.push(format!(
                "{} exceed the expected {} window; assuming {} for the session",
                ctxmon_domain::human::tokens(max.get()),
                ctxmon_domain::human::thousands(from.get()),
                ctxmon_domain::human::thousands(to.get())
            ));
        }
    }
    let windows = chosen
        .iter()
        .map(|w| {
            corrections
                .iter()
                .find(|(from, _, _)| from == w)
                .map_or(*w, |(_, to, _)| *to)
        })
        .collect();
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    (windows, note)
}
