//! `TokenBudget`: a ledger of tokens spent per source against a fixed total.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The source name under which `reserve` books the buffer.
pub const RESERVED: &str = "_reserved";

/// A ledger of tokens booked per source against a fixed total (at least 1). `allocate` never
/// books past the total; only `force_allocate` can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenBudget {
    total: u64,
    used: u64,
    by_source: BTreeMap<String, u64>,
}

/// A budget of zero tokens cannot hold anything, not even the system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZeroBudget;

impl std::fmt::Display for ZeroBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a token budget must be at least 1 token")
    }
}

impl std::error::Error for ZeroBudget {}

/// How much of a budget is booked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetUsage {
    /// Tokens booked.
    pub used: u64,
    /// The budget's total.
    pub total: u64,
    /// `used / total * 100`; above 100 only after `force_allocate`.
    pub percentage: f64,
}

/// The ledger's figures, per source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetBreakdown {
    /// The budget's total.
    pub allocated: u64,
    /// Tokens booked, reservation included.
    pub used: u64,
    /// `allocated - used`, never below 0.
    pub remaining: u64,
    /// Tokens booked per source (`_reserved` for the buffer).
    pub by_source: BTreeMap<String, u64>,
}

impl TokenBudget {
    /// A budget of `total` tokens; zero is refused.
    pub fn new(total: u64) -> Result<TokenBudget, ZeroBudget> {
        if total == 0 {
            return Err(ZeroBudget);
        }
        Ok(TokenBudget {
            total,
            used: 0,
            by_source: BTreeMap::new(),
        })
    }

    /// Books `amount` for `source` if it fits; otherwise changes nothing and returns false.
    pub fn allocate(&mut self, amount: u64, source: &str) -> bool {
        if amount > self.remaining() {
            return false;
        }
        self.book(amount, source);
        true
    }

    /// Books `amount` even past the total. Callers use it for costs that must be paid (the
    /// system prompt) after checking them against the total themselves.
    pub fn force_allocate(&mut self, amount: u64, source: &str) {
        self.book(amount, source);
    }

    /// Books `percentage` of the total (floored, clamped to 0–100, non-finite as 0) as
    /// `_reserved`, or what is left if that is less, and returns the amount booked.
    pub fn reserve(&mut self, percentage: f64) -> u64 {
        let pct = if percentage.is_finite() {
            percentage.clamp(0.0, 100.0)
        } else {
            0.0
        };
        // `as` saturates, and the `min` keeps float rounding near u64::MAX from overshooting.
        let wanted = ((self.total as f64) * pct / 100.0).floor() as u64;
        let amount = wanted.min(self.total).min(self.remaining());
        self.book(amount, RESERVED);
        amount
    }

    fn book(&mut self, amount: u64, source: &str) {
        self.used = self.used.saturating_add(amount);
        match self.by_source.get_mut(source) {
            Some(n) => *n = n.saturating_add(amount),
            None => {
                self.by_source.insert(source.to_owned(), amount);
            }
        }
    }

    /// The total the budget was made with.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Tokens booked so far (above `total` only after `force_allocate`).
    pub fn used(&self) -> u64 {
        self.used
    }

    /// `total - used`, never below 0.
    pub fn remaining(&self) -> u64 {
        self.total.saturating_sub(self.used)
    }

    /// True when nothing more can be allocated.
    pub fn is_exhausted(&self) -> bool {
        self.remaining() == 0
    }

    /// Tokens booked for one source (0 if none).
    pub fn used_by(&self, source: &str) -> u64 {
        self.by_source.get(source).copied().unwrap_or(0)
    }

    /// Booked, total and percentage in one value.
    pub fn usage(&self) -> BudgetUsage {
        BudgetUsage {
            used: self.used,
            total: self.total,
            percentage: self.used as f64 / self.total as f64 * 100.0,
        }
    }

    /// The figures per source.
    pub fn breakdown(&self) -> BudgetBreakdown {
        BudgetBreakdown {
            allocated: self.total,
            used: self.used,
            remaining: self.remaining(),
            by_source: self.by_source.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The ledger's rules. A negative allocation cannot be written: amounts are unsigned.
    use super::*;

    fn budget() -> TokenBudget {
        TokenBudget::new(1000).unwrap()
    }

    #[test]
    fn allocates_within_the_total() {
        let mut b = budget();
        assert!(b.allocate(100, "test"));
        assert_eq!(b.remaining(), 900);
    }

    #[test]
    fn rejects_an_allocation_past_the_total() {
        let mut b = budget();
        assert!(!b.allocate(1100, "test"));
        assert_eq!(b.remaining(), 1000);
        assert!(b.allocate(1000, "test"));
        assert!(!b.allocate(1, "test"));
    }

    #[test]
    fn tracks_allocations_by_source() {
        let mut b = budget();
        b.allocate(100, "source1");
        b.allocate(200, "source2");
        b.allocate(50, "source1");
        let breakdown = b.breakdown();
        assert_eq!(breakdown.by_source.get("source1"), Some(&150));
        assert_eq!(breakdown.by_source.get("source2"), Some(&200));
        assert_eq!(breakdown.used, 350);
        assert_eq!(breakdown.allocated, 1000);
        assert_eq!(b.used_by("source1"), 150);
        assert_eq!(b.used_by("nothing"), 0);
    }

    #[test]
    fn force_allocation_may_exceed_and_remaining_saturates() {
        let mut b = budget();
        b.force_allocate(1100, "test");
        // Over-allocated by 100: unsigned, the ledger keeps `used` and says nothing is left.
        assert_eq!(b.remaining(), 0);
        assert_eq!(b.used(), 1100);
        assert!(b.is_exhausted());
        assert!(b.usage().percentage > 100.0);
    }

    #[test]
    fn reserves_a_percentage() {
        let mut b = budget();
        assert_eq!(b.reserve(20.0), 200);
        assert_eq!(b.remaining(), 800);
        assert_eq!(b.used_by(RESERVED), 200);
    }

    #[test]
    fn reserve_is_clamped_and_bounded_by_what_is_left() {
        let mut b = budget();
        assert_eq!(b.reserve(f64::NAN), 0);
        assert_eq!(b.reserve(-5.0), 0);
        b.allocate(900, "x");
        assert_eq!(b.reserve(500.0), 100);
        assert!(b.is_exhausted());
        let mut huge = TokenBudget::new(u64::MAX).unwrap();
        assert_eq!(huge.reserve(100.0), u64::MAX);
    }

    #[test]
    fn a_zero_budget_is_an_error() {
        assert_eq!(TokenBudget::new(0), Err(ZeroBudget));
        assert_eq!(
            ZeroBudget.to_string(),
            "a token budget must be at least 1 token"
        );
    }

    #[test]
    fn reports_usage() {
        let mut b = budget();
        b.allocate(250, "test");
        let usage = b.usage();
        assert_eq!((usage.used, usage.total), (250, 1000));
        assert_eq!(usage.percentage, 25.0);
        assert!(!b.is_exhausted());
        b.allocate(750, "test");
        assert!(b.is_exhausted());
    }
}
