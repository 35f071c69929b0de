//! Turns left: how many more responses fit before the compaction point at the pace the
//! context grew over the recent ones.
//!
//! The pace is the mean growth per response over the last [`PACE_TURNS`] responses since the
//! last compaction: the growth of those responses taken together. A median was tried first, to
//! let one large file read pass as a one-off; on real sessions such jumps recur, and the
//! median, blind to them, promised more turns than came in most cases (docs/benchmarks.md,
//! "Turns left"). Too few responses, or a pace that is not positive (the context shrank, or
//! held still), give no estimate: a number then would be a guess presented as a measurement.

use serde::Serialize;

/// How many of the most recent growths the pace looks at.
pub const PACE_TURNS: usize = 10;

/// The fewest growths (responses after the first one measured) that give a pace.
pub const MIN_TURNS: usize = 4;

/// The estimate and what it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TurnsLeft {
    /// Whole responses of the recent pace that still fit before the compaction point.
    pub turns: u64,
    /// The mean growth per response over the responses seen, in tokens.
    pub pace: u64,
    /// How many growths the pace was taken over.
    pub turns_seen: usize,
}

/// The turns left from `fills` (the context after each response since the last compaction,
/// oldest first) with `room` tokens left before the compaction point (`None` when
/// auto-compaction is off). `None` when there are fewer than [`MIN_TURNS`] growths, the pace
/// is not positive, or there is no point to count down to.
pub fn turns_left(fills: &[u64], room: Option<u64>) -> Option<TurnsLeft> {
    let room = room?;
    let start = fills.len().saturating_sub(PACE_TURNS + 1);
    let growths: Vec<i128> = fills[start..]
        .windows(2)
        .map(|w| i128::from(w[1]) - i128::from(w[0]))
        .collect();
    if growths.len() < MIN_TURNS {
        return None;
    }
    let mean = growths.iter().sum::<i128>() / growths.len() as i128;
    let pace = u64::try_from(mean).ok().filter(|p| *p > 0)?;
    Some(TurnsLeft {
        turns: room / pace,
        pace,
        turns_seen: growths.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_growth_of_the_last_ten_counts_down_to_the_point() {
        // Growths 1000, 1000, 50000 (one large read), 1000, 2000: 11,000 a turn.
        let fills = [10_000, 11_000, 12_000, 62_000, 63_000, 65_000];
        let left = turns_left(&fills, Some(45_000)).expect("enough turns");
        assert_eq!(
            left,
            TurnsLeft {
                turns: 4,
                pace: 11_000,
                turns_seen: 5
            }
        );
        // Only the last ten growths count: an older fast stretch is forgotten.
        let mut fills: Vec<u64> = (0..5).map(|i| i * 20_000).collect();
        let base = 80_000;
        fills.extend((1..=11).map(|i| base + i * 500));
        let left = turns_left(&fills, Some(14_500)).expect("enough turns");
        assert_eq!((left.pace, left.turns_seen, left.turns), (500, 10, 29));
        // A growth that is negative (a cleared tool output) counts against the others.
        let left = turns_left(&[0, 1_000, 2_000, 500, 2_000], Some(1_000)).expect("four");
        assert_eq!(left.pace, 500);
    }

    #[test]
    fn too_few_turns_a_flat_or_shrinking_pace_and_no_point_give_nothing() {
        assert_eq!(turns_left(&[], Some(100)), None);
        assert_eq!(turns_left(&[1, 2, 3, 4], Some(100)), None);
        assert_eq!(turns_left(&[5, 5, 5, 5, 5], Some(100)), None);
        assert_eq!(turns_left(&[50, 40, 30, 20, 10], Some(100)), None);
        assert_eq!(turns_left(&[1, 2, 3, 4, 5], None), None);
        // At the point: none left, said as 0.
        let past = turns_left(&[10, 20, 30, 40, 50], Some(0)).expect("pace");
        assert_eq!(past.turns, 0);
        // Extremes do not overflow.
        let big = turns_left(
            &[0, u64::MAX / 4, u64::MAX / 2, u64::MAX / 4 * 3, u64::MAX],
            Some(u64::MAX),
        );
        assert_eq!(big.map(|t| t.turns), Some(4));
        // Growths that sum past what i64 holds are summed without overflow.
        let huge = turns_left(&[0, u64::MAX, 0, u64::MAX, u64::MAX], Some(1));
        assert_eq!(huge.map(|t| t.turns), Some(0));
    }
}
