//! The three packing strategies. All of them give pinned memory the first claim on the budget,
//! ahead even of their buffer (so it is the last thing dropped), and let budget one source leaves
//! unused flow to the next; they differ in how they share the rest.

use ctxmon_domain::assembly::{AssemblyStrategyType, ContextConstraints};

use super::packing::{Fit, Packing};
use super::sources::{
    DIFFS, EVENTS, FILES, MEMORY_PINNED, MEMORY_RECENT, MEMORY_SUMMARIES, SYMBOLS,
};

/// The order sources are served in. Sources a builder adds beyond these follow, in bundle order.
pub const PRIORITY: [&str; 7] = [
    MEMORY_PINNED,
    EVENTS,
    MEMORY_RECENT,
    FILES,
    DIFFS,
    MEMORY_SUMMARIES,
    SYMBOLS,
];

/// How the budget left after the fixed costs is shared between the sources:
/// [`GreedyStrategy`], [`BalancedStrategy`], [`ConservativeStrategy`].
pub trait AssemblyStrategy: std::fmt::Debug + Send + Sync {
    /// Which of the input's `strategy` values this strategy serves.
    fn kind(&self) -> AssemblyStrategyType;

    /// The name reported in `debug.strategyUsed`.
    fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// Spends from `packing`. The packing, not the strategy, guarantees the budget: a strategy
    /// can only choose what to offer whom.
    fn assemble(&self, packing: &mut Packing<'_>, constraints: &ContextConstraints);
}

/// Each source in priority order takes all it can; then whatever is left shortens the best
/// items that did not fit whole. No buffer unless the input asks for one.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyStrategy;

/// Pinned memory first; the rest is split by weight among the sources that have something,
/// each share topped up with what earlier sources left; then two sweeps hand the remainder to
/// whole items and to shortened ones. Keeps a 10% buffer unless the input says otherwise.
#[derive(Debug, Clone)]
pub struct BalancedStrategy {
    /// Relative shares per source; sources not listed weigh `OTHER_WEIGHT`.
    pub weights: Vec<(&'static str, u64)>,
}

/// At least a 20% buffer, and nothing shown in part but its core. The core is the high-signal
/// minimum an agent needs to act at all: pinned memory, the last two events (a call with its
/// results counts once) and the three most relevant files, each of the three shortened to a fair
/// share of what is left when it does not fit whole. Then the rest of the usable budget goes to
/// whole items only, sources in priority order, so a large budget is used rather than left empty.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConservativeStrategy;

const OTHER_WEIGHT: u64 = 10;
const BALANCED_BUFFER: f64 = 10.0;
const CONSERVATIVE_BUFFER: f64 = 20.0;
const CONSERVATIVE_EVENTS: usize = 2;
const CONSERVATIVE_FILES: usize = 3;

impl Default for BalancedStrategy {
    fn default() -> BalancedStrategy {
        BalancedStrategy {
            weights: vec![
                (EVENTS, 20),
                (MEMORY_RECENT, 15),
                (FILES, 35),
                (DIFFS, 15),
                (MEMORY_SUMMARIES, 10),
                (SYMBOLS, 5),
            ],
        }
    }
}

/// The buffer the input asks for (non-finite ignored, clamped to 0–100), else `default`.
fn buffer(constraints: &ContextConstraints, default: f64) -> f64 {
    constraints
        .buffer_percentage
        .filter(|p| p.is_finite())
        .map_or(default, |p| p.clamp(0.0, 100.0))
}

/// The input's `maxFiles`, if any.
fn max_files(constraints: &ContextConstraints) -> usize {
    constraints
        .max_files
        .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Pinned memory first, then the buffer: the buffer is taken from what pinned memory leaves.
fn pinned_then_buffer(packing: &mut Packing<'_>, buffer_percentage: f64) {
    packing.offer(MEMORY_PINNED, u64::MAX, Fit::MayShorten);
    packing.reserve(buffer_percentage);
}

/// Known sources in `PRIORITY` order, then any others in bundle order.
fn served_order(packing: &Packing<'_>) -> Vec<String> {
    let names = packing.source_names();
    let mut order: Vec<String> = PRIORITY
        .iter()
        .filter(|p| names.iter().any(|n| n == *p))
        .map(|p| (*p).to_owned())
        .collect();
    order.extend(
        names
            .into_iter()
            .filter(|n| !PRIORITY.contains(&n.as_str())),
    );
    order
}

/// Offers everything left to each source in turn, first whole items only, then shortened ones.
fn sweep(packing: &mut Packing<'_>, order: &[String]) {
    for fit in [Fit::WholeOnly, Fit::MayShorten] {
        for name in order {
            packing.offer(name, u64::MAX, fit);
        }
    }
}

impl AssemblyStrategy for GreedyStrategy {
    fn kind(&self) -> AssemblyStrategyType {
        AssemblyStrategyType::Greedy
    }

    fn assemble(&self, packing: &mut Packing<'_>, constraints: &ContextConstraints) {
        packing.set_item_limit(FILES, max_files(constraints));
        pinned_then_buffer(packing, buffer(constraints, 0.0));
        sweep(packing, &served_order(packing));
    }
}

impl AssemblyStrategy for BalancedStrategy {
    fn kind(&self) -> AssemblyStrategyType {
        AssemblyStrategyType::Balanced
    }

    fn assemble(&self, packing: &mut Packing<'_>, constraints: &ContextConstraints) {
        packing.set_item_limit(FILES, max_files(constraints));
        pinned_then_buffer(packing, buffer(constraints, BALANCED_BUFFER));
        let order = served_order(packing);
        // Only sources with something to offer share, so an empty source wastes no share.
        let sharing: Vec<(&String, u64)> = order
            .iter()
            .filter(|name| packing.has_pending(name))
            .map(|name| {
                let weight = self
                    .weights
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(OTHER_WEIGHT, |(_, w)| *w);
                (name, weight)
            })
            .collect();
        let total_weight: u128 = sharing.iter().map(|(_, w)| u128::from(*w)).sum();
        let pool = u128::from(packing.remaining());
        let mut carry = 0u64;
        for (name, weight) in sharing {
            let share = (pool * u128::from(weight))
                .checked_div(total_weight)
                .map_or(0, |s| u64::try_from(s).unwrap_or(u64::MAX));
            let cap = share.saturating_add(carry);
            let used = packing.offer(name, cap, Fit::WholeOnly);
            carry = cap - used.min(cap);
        }
        sweep(packing, &order);
    }
}

impl AssemblyStrategy for ConservativeStrategy {
    fn kind(&self) -> AssemblyStrategyType {
        AssemblyStrategyType::Conservative
    }

    fn assemble(&self, packing: &mut Packing<'_>, constraints: &ContextConstraints) {
        let max_files = max_files(constraints);
        pinned_then_buffer(packing, buffer(constraints, 0.0).max(CONSERVATIVE_BUFFER));
        // The core. Events are contiguous (newest first), so they take their two in one offer.
        packing.set_item_limit(EVENTS, CONSERVATIVE_EVENTS);
        packing.offer(EVENTS, u64::MAX, Fit::MayShorten);
        // The top files one at a time, each offered a fair share of what is left, so the most
        // relevant file cannot crowd out the next two by being shortened to fill everything.
        // A file that cannot be shown even shortened gives its place to the next one.
        let core_files = max_files.min(CONSERVATIVE_FILES);
        for _ in 0..core_files {
            let kept = packing.kept(FILES);
            let Some(left) = core_files.checked_sub(kept).filter(|&n| n > 0) else {
                break;
            };
            packing.set_item_limit(FILES, kept + 1);
            let share = packing.remaining() / u64::try_from(left).unwrap_or(u64::MAX);
            packing.offer(FILES, share, Fit::MayShorten);
        }
        // The extension: whole items only, in priority order.
        packing.set_item_limit(EVENTS, usize::MAX);
        packing.set_item_limit(FILES, max_files);
        for name in served_order(packing) {
            packing.offer(&name, u64::MAX, Fit::WholeOnly);
        }
    }
}
