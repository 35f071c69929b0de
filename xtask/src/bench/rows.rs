//! The results as rows and verdicts: what each benchmark measured, against its target.

use super::cases::Target;

/// Readings this close to the runner's floor are indistinguishable from it: the kernel's RSS
/// counters are per-CPU and approximate (by up to a few hundred KiB on small machines).
const FLOOR_SLACK_KIB: u64 = 256;

/// One table row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub name: String,
    pub median_ms: f64,
    pub p95_ms: f64,
    /// `None` for in-process (external) measurements.
    pub max_rss_kib: Option<u64>,
    /// The measuring process's own RSS when it spawned the child: readings cannot go below it.
    pub floor_kib: Option<u64>,
    pub target: Target,
    /// What an in-process benchmark says beside its timing, printed under the table.
    pub note: Option<String>,
}

impl Row {
    /// What missed its target, empty when everything targeted was met.
    pub fn misses(&self) -> Vec<String> {
        let mut misses = Vec::new();
        if let Some(max) = self.target.median_ms
            && self.median_ms > max
        {
            misses.push(format!("median {:.2} ms > {max} ms", self.median_ms));
        }
        if let (Some(max), Some(rss)) = (self.target.rss_kib, self.max_rss_kib)
            && rss > max
        {
            misses.push(format!("RSS {} > {}", mib(rss), mib(max)));
        }
        misses
    }

    /// The peak RSS as the table shows it: "≤ floor" when the reading is the runner's floor.
    pub fn rss_text(&self) -> String {
        match (self.max_rss_kib, self.floor_kib) {
            (None, _) => "n/a".to_owned(),
            (Some(rss), Some(floor)) if rss <= floor + FLOOR_SLACK_KIB => {
                format!("≤ {} (floor)", mib(rss.max(floor)))
            }
            (Some(rss), _) => mib(rss),
        }
    }

    pub fn verdict(&self) -> String {
        let misses = self.misses();
        match (self.target == Target::NONE, misses.is_empty()) {
            (true, _) => "—".to_owned(),
            (false, true) => "met".to_owned(),
            (false, false) => format!("**MISSED** ({})", misses.join("; ")),
        }
    }
}

/// A ratio between two rows' medians.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioLine {
    pub label: String,
    pub value: f64,
    /// `None`: reported, not targeted.
    pub max: Option<f64>,
}

impl RatioLine {
    pub fn missed(&self) -> bool {
        self.max.is_some_and(|max| self.value > max)
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// A row's targets as the tables show them (a dash for none).
pub(super) fn target_text(t: Target) -> String {
    let parts: Vec<String> = t
        .median_ms
        .map(|ms| format!("≤ {ms} ms"))
        .into_iter()
        .chain(t.rss_kib.map(|kib| format!("≤ {}", mib(kib))))
        .collect();
    if parts.is_empty() {
        "—".to_owned()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::cases::HOOK_TARGET;

    fn row(median_ms: f64, rss: Option<u64>, floor: Option<u64>) -> Row {
        Row {
            name: "hook".into(),
            median_ms,
            p95_ms: median_ms,
            max_rss_kib: rss,
            floor_kib: floor,
            target: HOOK_TARGET,
            note: None,
        }
    }

    #[test]
    fn verdicts_name_what_was_missed() {
        assert_eq!(row(4.9, Some(4096), None).verdict(), "met");
        let slow = row(5.5, Some(20 * 1024), None).verdict();
        assert!(
            slow.contains("MISSED") && slow.contains("median 5.50 ms > 5 ms"),
            "{slow}"
        );
        assert!(slow.contains("RSS 20.0 MiB > 16.0 MiB"), "{slow}");
        let untargeted = Row {
            target: Target::NONE,
            ..row(50.0, None, None)
        };
        assert_eq!(untargeted.verdict(), "—");
    }

    #[test]
    fn readings_at_the_runners_floor_say_so() {
        assert_eq!(
            row(1.0, Some(3000), Some(3400)).rss_text(),
            "≤ 3.3 MiB (floor)"
        );
        assert_eq!(row(1.0, Some(4096), Some(3400)).rss_text(), "4.0 MiB");
        assert_eq!(row(1.0, None, None).rss_text(), "n/a");
    }

    #[test]
    fn missed_ratios_are_flagged() {
        let ratio = |value| RatioLine {
            label: "r".into(),
            value,
            max: Some(1.5),
        };
        assert!(ratio(1.6).missed());
        assert!(!ratio(1.2).missed());
    }
}
