//! Threshold tiers and the validated thresholds that classify a fill ratio into one.

use serde::{Deserialize, Serialize};

/// How full the context is, in five ordered steps. The order is meaningful: `a < b` means `b`
/// is the more urgent tier, which is what escalation checks compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThresholdTier {
    /// Below LOW: plenty of room.
    Nominal,
    /// At or above LOW (55 % by default).
    Low,
    /// At or above WARNING (70 % by default).
    Warning,
    /// At or above CRITICAL (80 % by default); resume logs are written from here by default.
    Critical,
    /// At or above EMERGENCY (88 % by default).
    Emergency,
}

impl ThresholdTier {
    /// Every tier, least urgent first.
    pub const ALL: [ThresholdTier; 5] = [
        ThresholdTier::Nominal,
        ThresholdTier::Low,
        ThresholdTier::Warning,
        ThresholdTier::Critical,
        ThresholdTier::Emergency,
    ];

    /// The upper-case name used in injected tags and human output.
    pub fn name(self) -> &'static str {
        match self {
            ThresholdTier::Nominal => "NOMINAL",
            ThresholdTier::Low => "LOW",
            ThresholdTier::Warning => "WARNING",
            ThresholdTier::Critical => "CRITICAL",
            ThresholdTier::Emergency => "EMERGENCY",
        }
    }

    /// The lower-case name used in JSON and configuration (`tier:critical`).
    pub fn key(self) -> &'static str {
        match self {
            ThresholdTier::Nominal => "nominal",
            ThresholdTier::Low => "low",
            ThresholdTier::Warning => "warning",
            ThresholdTier::Critical => "critical",
            ThresholdTier::Emergency => "emergency",
        }
    }

    /// Parses either spelling, case-insensitively.
    pub fn parse(s: &str) -> Option<ThresholdTier> {
        ThresholdTier::ALL
            .into_iter()
            .find(|t| t.key().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for ThresholdTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a set of thresholds was rejected; names the offending keys so configuration errors can
/// point at them.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdError {
    /// The configuration key or keys at fault, e.g. `low_threshold < warning_threshold`.
    pub keys: &'static str,
    /// What is wrong, naming the value.
    pub message: String,
}

impl std::fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.keys, self.message)
    }
}

impl std::error::Error for ThresholdError {}

/// Tier boundaries as fill ratios; construction guarantees `0 < low < warning < critical <
/// emergency <= 1`, so classification is total and monotonic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    low: f64,
    warning: f64,
    critical: f64,
    emergency: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            low: 0.55,
            warning: 0.70,
            critical: 0.80,
            emergency: 0.88,
        }
    }
}

impl Thresholds {
    /// Validates four fill ratios (fractions of the window, not percentages): each finite,
    /// `0 < low < warning < critical < emergency <= 1`; the error names the key at fault.
    pub fn new(
        low: f64,
        warning: f64,
        critical: f64,
        emergency: f64,
    ) -> Result<Self, ThresholdError> {
        let all = [
            ("low_threshold", low),
            ("warning_threshold", warning),
            ("critical_threshold", critical),
            ("emergency_threshold", emergency),
        ];
        for (key, value) in all {
            if !value.is_finite() {
                return Err(ThresholdError {
                    keys: key,
                    message: format!("{value} is not a finite number"),
                });
            }
        }
        if low <= 0.0 {
            return Err(ThresholdError {
                keys: "low_threshold",
                message: format!("must be greater than 0, got {low}"),
            });
        }
        if emergency > 1.0 {
            return Err(ThresholdError {
                keys: "emergency_threshold",
                message: format!("must be at most 1, got {emergency}"),
            });
        }
        let pairs = [
            ("low_threshold < warning_threshold", low, warning),
            ("warning_threshold < critical_threshold", warning, critical),
            (
                "critical_threshold < emergency_threshold",
                critical,
                emergency,
            ),
        ];
        for (keys, a, b) in pairs {
            if a >= b {
                return Err(ThresholdError {
                    keys,
                    message: format!("thresholds must increase: {a} is not less than {b}"),
                });
            }
        }
        Ok(Thresholds {
            low,
            warning,
            critical,
            emergency,
        })
    }

    /// The LOW boundary, as a fraction of the window.
    pub fn low(&self) -> f64 {
        self.low
    }
    /// The WARNING boundary, as a fraction of the window.
    pub fn warning(&self) -> f64 {
        self.warning
    }
    /// The CRITICAL boundary, as a fraction of the window.
    pub fn critical(&self) -> f64 {
        self.critical
    }
    /// The EMERGENCY boundary, as a fraction of the window.
    pub fn emergency(&self) -> f64 {
        self.emergency
    }

    /// Classifies a fill ratio. NaN (which no caller should produce) counts as NOMINAL, the
    /// fail-open answer.
    pub fn classify(&self, ratio: f64) -> ThresholdTier {
        if ratio >= self.emergency {
            ThresholdTier::Emergency
        } else if ratio >= self.critical {
            ThresholdTier::Critical
        } else if ratio >= self.warning {
            ThresholdTier::Warning
        } else if ratio >= self.low {
            ThresholdTier::Low
        } else {
            ThresholdTier::Nominal
        }
    }

    /// The ratio at which `tier` begins (0 for NOMINAL).
    pub fn lower_bound(&self, tier: ThresholdTier) -> f64 {
        match tier {
            ThresholdTier::Nominal => 0.0,
            ThresholdTier::Low => self.low,
            ThresholdTier::Warning => self.warning,
            ThresholdTier::Critical => self.critical,
            ThresholdTier::Emergency => self.emergency,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn seed_examples_classify() {
        let t = Thresholds::default();
        let cases = [
            (100_000, ThresholdTier::Nominal),
            (115_000, ThresholdTier::Low),
            (150_000, ThresholdTier::Warning),
            (170_000, ThresholdTier::Critical),
            (180_000, ThresholdTier::Emergency),
        ];
        for (tokens, tier) in cases {
            assert_eq!(t.classify(tokens as f64 / 200_000.0), tier, "{tokens}");
        }
    }

    #[test]
    fn boundaries_belong_to_the_upper_tier() {
        let t = Thresholds::default();
        assert_eq!(t.classify(0.55), ThresholdTier::Low);
        assert_eq!(t.classify(0.5499), ThresholdTier::Nominal);
        assert_eq!(t.classify(0.88), ThresholdTier::Emergency);
        assert_eq!(t.classify(1.7), ThresholdTier::Emergency);
        assert_eq!(t.classify(f64::NAN), ThresholdTier::Nominal);
    }

    #[test]
    fn invalid_thresholds_name_their_keys() {
        let e = Thresholds::new(0.0, 0.7, 0.8, 0.9).unwrap_err();
        assert_eq!(e.keys, "low_threshold");
        let e = Thresholds::new(0.5, 0.8, 0.7, 0.9).unwrap_err();
        assert_eq!(e.keys, "warning_threshold < critical_threshold");
        let e = Thresholds::new(0.5, 0.6, 0.7, 1.2).unwrap_err();
        assert_eq!(e.keys, "emergency_threshold");
        let e = Thresholds::new(0.5, 0.6, 0.7, f64::NAN).unwrap_err();
        assert_eq!(e.keys, "emergency_threshold");
        assert!(Thresholds::new(0.1, 0.2, 0.3, 1.0).is_ok());
    }

    #[test]
    fn tiers_are_ordered_and_parse() {
        assert!(ThresholdTier::Nominal < ThresholdTier::Low);
        assert!(ThresholdTier::Critical < ThresholdTier::Emergency);
        for tier in ThresholdTier::ALL {
            assert_eq!(ThresholdTier::parse(tier.name()), Some(tier));
            assert_eq!(ThresholdTier::parse(tier.key()), Some(tier));
        }
        assert_eq!(ThresholdTier::parse("severe"), None);
    }

    fn valid_thresholds() -> impl Strategy<Value = Thresholds> {
        proptest::collection::vec(1u32..=1000, 4).prop_filter_map("distinct", |mut v| {
            v.sort_unstable();
            v.dedup();
            (v.len() == 4)
                .then(|| {
                    Thresholds::new(
                        v[0] as f64 / 1000.0,
                        v[1] as f64 / 1000.0,
                        v[2] as f64 / 1000.0,
                        v[3] as f64 / 1000.0,
                    )
                    .ok()
                })
                .flatten()
        })
    }

    proptest! {
        #[test]
        fn classification_is_monotonic(t in valid_thresholds(), a in 0.0f64..2.0, b in 0.0f64..2.0) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(t.classify(lo) <= t.classify(hi));
        }

        #[test]
        fn every_ratio_has_exactly_one_tier(t in valid_thresholds(), r in -1.0f64..3.0) {
            let tier = t.classify(r);
            let matching: Vec<_> = ThresholdTier::ALL
                .into_iter()
                .filter(|candidate| {
                    let lower = t.lower_bound(*candidate);
                    let upper = ThresholdTier::ALL
                        .into_iter()
                        .find(|n| n > candidate)
                        .map_or(f64::INFINITY, |n| t.lower_bound(n));
                    (*candidate == ThresholdTier::Nominal || r >= lower) && r < upper
                })
                .collect();
            prop_assert_eq!(matching, vec![tier]);
        }
    }
}
