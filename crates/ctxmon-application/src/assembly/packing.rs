//! `Packing`: the ledger strategies spend from. It holds every source's candidates and the
//! token budget, and offers a source a slice of the budget; the source takes candidates best
//! first, skipping any that do not fit (first fit), so budget one item cannot use goes to the
//! next item and, when the offer ends, back to the pool for the next source.

use ctxmon_domain::assembly::{ContextMessage, TokenBudget, TokenCounter};

use super::candidate::Shortened;
use super::notes::Notes;
use super::sources::{FILES, SourceCandidates};

/// How many excluded files `debug.excludedFiles` lists.
pub const EXCLUDED_FILES_LISTED: usize = 100;

/// Whether an offer may shorten items that do not fit whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Only items that fit whole.
    WholeOnly,
    /// Shorten (truncate with a marker, or fall back to a stand-in) if the run allows it.
    MayShorten,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pick {
    Pending,
    Whole,
    Short(Shortened),
}

/// Why a candidate still pending was turned down the last time it was considered; what the
/// bundle's notes say of the candidates left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TurnedDown {
    /// It did not fit whole, and the run does not allow shortening (`allowSummarization`).
    NotShortened,
    /// It did not fit, whole or shortened (or the strategy took whole items only).
    OverBudget,
}

#[derive(Debug)]
struct SourceState<'a> {
    name: String,
    offer: SourceCandidates<'a>,
    header_cost: u64,
    header_taken: bool,
    picks: Vec<Pick>,
    /// Per candidate, why it was last turned down.
    turned_down: Vec<Option<TurnedDown>>,
    item_limit: usize,
    kept: usize,
}

/// The ledger strategies spend from: every source's candidates and the token budget. A
/// strategy offers a source a slice of the budget; the source takes its candidates best first.
#[derive(Debug)]
pub struct Packing<'a> {
    budget: TokenBudget,
    sources: Vec<SourceState<'a>>,
    counter: &'a dyn TokenCounter,
    allow_shortening: bool,
    reserved: u64,
}

/// What packing produced, in bundle order, before the builder counts it.
#[derive(Debug, Default)]
pub struct Packed {
    /// Each message with the index of its source in `source_names`.
    pub messages: Vec<(usize, ContextMessage)>,
    /// The sources' names, in bundle order.
    pub source_names: Vec<String>,
    /// Per source: items included, excluded, shortened.
    pub counts: Vec<(u64, u64, u64)>,
    /// Paths of the files kept, in bundle order.
    pub included_files: Vec<String>,
    /// The best-ranked files left out, at most 100.
    pub excluded_files: Vec<String>,
    /// Candidate messages that were not kept.
    pub dropped_messages: u64,
    /// Items shortened instead of left out.
    pub summarizations: u64,
    /// Tokens the strategy kept free on purpose (the buffer).
    pub reserved: u64,
    /// How odd input was read.
    pub notes: Notes,
}

impl<'a> Packing<'a> {
    /// `budget` already carries the fixed costs (system prompt, tools); sources are in bundle
    /// order.
    pub fn new(
        budget: TokenBudget,
        sources: Vec<(String, SourceCandidates<'a>)>,
        counter: &'a dyn TokenCounter,
        allow_shortening: bool,
    ) -> Packing<'a> {
        let sources = sources
            .into_iter()
            .map(|(name, offer)| SourceState {
                header_cost: offer
                    .header
                    .as_ref()
                    .map_or(0, |h| super::candidate::message_tokens(counter, h)),
                header_taken: false,
                picks: vec![Pick::Pending; offer.candidates.len()],
                turned_down: vec![None; offer.candidates.len()],
                item_limit: usize::MAX,
                kept: 0,
                name,
                offer,
            })
            .collect();
        Packing {
            budget,
            sources,
            counter,
            allow_shortening,
            reserved: 0,
        }
    }

    /// Tokens not yet spent or reserved.
    pub fn remaining(&self) -> u64 {
        self.budget.remaining()
    }

    /// Keeps `percentage` of the total budget free (see `TokenBudget::reserve`).
    pub fn reserve(&mut self, percentage: f64) -> u64 {
        let amount = self.budget.reserve(percentage);
        self.reserved = self.reserved.saturating_add(amount);
        amount
    }

    /// Source names in bundle order.
    pub fn source_names(&self) -> Vec<String> {
        self.sources.iter().map(|s| s.name.clone()).collect()
    }

    /// Sets how many items `source` may keep in total (items already kept stay kept).
    pub fn set_item_limit(&mut self, source: &str, limit: usize) {
        if let Some(state) = self.sources.iter_mut().find(|s| s.name == source) {
            state.item_limit = limit;
        }
    }

    /// How many items `source` has kept so far.
    pub fn kept(&self, source: &str) -> usize {
        self.sources
            .iter()
            .find(|s| s.name == source)
            .map_or(0, |s| s.kept)
    }

    /// Whether `source` still has candidates it could take.
    pub fn has_pending(&self, source: &str) -> bool {
        self.sources
            .iter()
            .any(|s| s.name == source && s.kept < s.item_limit && s.picks.contains(&Pick::Pending))
    }

    /// Offers `source` up to `cap` tokens (never more than remain). Returns what it took.
    pub fn offer(&mut self, source: &str, cap: u64, fit: Fit) -> u64 {
        let Some(state) = self.sources.iter_mut().find(|s| s.name == source) else {
            return 0;
        };
        let shorten = fit == Fit::MayShorten && self.allow_shortening;
        // Only a run that forbids shortening makes "not shortened" the reason: a strategy
        // that takes whole items leaves the rest over the budget.
        let not_shortened = if fit == Fit::MayShorten && !self.allow_shortening {
            TurnedDown::NotShortened
        } else {
            TurnedDown::OverBudget
        };
        let mut used = 0u64;
        for i in 0..state.picks.len() {
            if state.kept >= state.item_limit {
                break;
            }
            if state.picks[i] != Pick::Pending {
                continue;
            }
            let available = cap.saturating_sub(used).min(self.budget.remaining());
            let header = if state.header_taken {
                0
            } else {
                state.header_cost
            };
            // Every message costs at least its overhead, so nothing fits in `header` or less.
            if available <= header {
                break;
            }
            let room = available - header;
            let candidate = &state.offer.candidates[i];
            // The floor is free; only an item that might fit is counted.
            let whole = (candidate.cost_floor() <= room)
                .then(|| candidate.cost(self.counter))
                .filter(|&cost| cost <= room);
            let shortened = match whole {
                Some(_) => None,
                None if shorten => candidate.shorten(self.counter, room),
                None => None,
            };
            let (pick, cost) = match (whole, shortened) {
                (Some(cost), _) => (Pick::Whole, cost),
                (None, Some((short, cost))) => (Pick::Short(short), cost),
                (None, None) => {
                    state.turned_down[i] = Some(not_shortened);
                    if state.offer.contiguous {
                        break;
                    }
                    continue;
                }
            };
            let total = cost.saturating_add(header);
            if !self.budget.allocate(total, &state.name) {
                state.turned_down[i] = Some(TurnedDown::OverBudget);
                continue;
            }
            state.header_taken = true;
            state.picks[i] = pick;
            state.kept += 1;
            used = used.saturating_add(total);
        }
        used
    }

    /// Writes the kept items in bundle order: sources in order, each source's header first, then
    /// its items by presentation rank.
    pub fn finish(self) -> Packed {
        let mut packed = Packed {
            reserved: self.reserved,
            ..Packed::default()
        };
        for (index, state) in self.sources.into_iter().enumerate() {
            let SourceState {
                name,
                offer,
                picks,
                turned_down,
                item_limit,
                kept: kept_count,
                ..
            } = state;
            let mut left_out = LeftOut::default();
            let SourceCandidates {
                candidates,
                header,
                unavailable,
                notes,
                ..
            } = offer;
            let mut kept = Vec::new();
            let mut excluded = unavailable;
            for (i, pick) in picks.into_iter().enumerate() {
                let candidate = &candidates[i];
                if pick == Pick::Pending {
                    excluded += 1;
                    left_out.count(turned_down[i], kept_count >= item_limit);
                    packed.dropped_messages += candidate.message_count;
                    if name == FILES
                        && packed.excluded_files.len() < EXCLUDED_FILES_LISTED
                        && let Some(path) = candidate.file_path
                    {
                        packed.excluded_files.push(path.to_owned());
                    }
                } else {
                    kept.push((candidate.present_rank, i, pick));
                }
            }
            kept.sort_unstable_by_key(|(rank, i, _)| (*rank, *i));
            if !kept.is_empty()
                && let Some(header) = header
            {
                packed.messages.push((index, header));
            }
            let mut shortened = 0;
            let included = kept.len() as u64;
            for (_, i, pick) in kept {
                let candidate = &candidates[i];
                if let Some(path) = candidate.file_path {
                    packed.included_files.push(path.to_owned());
                }
                let messages = match pick {
                    Pick::Short(short) => {
                        shortened += 1;
                        candidate.render_shortened(short)
                    }
                    _ => candidate.render_whole(),
                };
                packed
                    .messages
                    .extend(messages.into_iter().map(|m| (index, m)));
            }
            packed.dropped_messages += unavailable;
            packed.summarizations += shortened;
            packed.counts.push((included, excluded, shortened));
            packed.notes.append(notes);
            if let Some(note) = left_out.note(&name) {
                packed.notes.push_with(|| note);
            }
            packed.source_names.push(name);
        }
        packed
    }
}

/// How many of a source's candidates were left out, by reason.
#[derive(Debug, Default)]
struct LeftOut {
    not_shortened: u64,
    over_budget: u64,
    over_limit: u64,
}

impl LeftOut {
    fn count(&mut self, why: Option<TurnedDown>, limit_reached: bool) {
        match why {
            Some(TurnedDown::NotShortened) => self.not_shortened += 1,
            // One never considered: the source's count was full, or the budget ran out first.
            None if limit_reached => self.over_limit += 1,
            Some(TurnedDown::OverBudget) | None => self.over_budget += 1,
        }
    }

    /// "files: 3 left out: 2 did not fit the budget, 1 would have fit shortened but
    /// allowSummarization is false"; `None` when nothing was.
    fn note(&self, source: &str) -> Option<String> {
        let total = self.not_shortened + self.over_budget + self.over_limit;
        if total == 0 {
            return None;
        }
        let mut why = Vec::new();
        if self.over_budget > 0 {
            why.push(format!("{} did not fit the budget", self.over_budget));
        }
        if self.not_shortened > 0 {
            why.push(format!(
                "{} did not fit whole and allowSummarization is false, so none was shortened",
                self.not_shortened
            ));
        }
        if self.over_limit > 0 {
            why.push(format!(
                "{} beyond the most items the run keeps of it (maxFiles or the strategy's count)",
                self.over_limit
            ));
        }
        Some(format!("{source}: {total} left out: {}", why.join(", ")))
    }
}
