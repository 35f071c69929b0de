//! Order statistics of a benchmark's samples.
//!
//! The median of an even count is the mean of the two middle values; p95 is the nearest-rank
//! percentile (the smallest sample that at least 95% of the samples do not exceed), so it is
//! always a measured value and, with 30 runs, the 29th fastest.

use std::time::Duration;

/// Summary of one case's wall times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub runs: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

impl Summary {
    /// `None` for no samples.
    pub fn of(samples: &[Duration]) -> Option<Summary> {
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        Some(Summary {
            runs: ms.len(),
            median_ms: median(&ms)?,
            p95_ms: percentile(&ms, 95)?,
            min_ms: *ms.first()?,
            max_ms: *ms.last()?,
        })
    }
}

/// The median of sorted values; `None` when empty.
pub fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => sorted.get(n / 2).copied(),
        _ => Some((sorted.get(n / 2 - 1)? + sorted.get(n / 2)?) / 2.0),
    }
}

/// The nearest-rank `pct` percentile of sorted values (`pct` in 1..=100); `None` when empty.
pub fn percentile(sorted: &[f64], pct: usize) -> Option<f64> {
    let rank = (sorted.len() * pct.clamp(1, 100)).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[4.0]), Some(4.0));
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), Some(3.0));
    }

    #[test]
    fn p95_is_nearest_rank() {
        let thirty: Vec<f64> = (1..=30).map(f64::from).collect();
        assert_eq!(percentile(&thirty, 95), Some(29.0));
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&hundred, 95), Some(95.0));
        assert_eq!(percentile(&[7.0], 95), Some(7.0));
        assert_eq!(percentile(&[1.0, 2.0], 95), Some(2.0));
        assert_eq!(percentile(&[], 95), None);
    }

    #[test]
    fn summary_sorts_its_samples() {
        let samples = [5, 1, 3, 2, 4].map(Duration::from_millis);
        let s = Summary::of(&samples).unwrap();
        assert_eq!(s.runs, 5);
        assert!((s.median_ms - 3.0).abs() < 1e-9);
        assert!((s.p95_ms - 5.0).abs() < 1e-9);
        assert!((s.min_ms - 1.0).abs() < 1e-9);
        assert!((s.max_ms - 5.0).abs() < 1e-9);
        assert_eq!(Summary::of(&[]), None);
    }
}
