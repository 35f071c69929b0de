//! Human rendering of a fill estimate: the bar, tier colours and thousands separators shared by
//! `status` and the status line.

use ctxmon_domain::{FillEstimate, ThresholdTier};

pub const BAR_CELLS: usize = 10;

/// `▰▰▰▰▰▰▰▱▱▱` for 75%: filled cells round to nearest, clamped to the bar.
pub fn bar(fill_ratio: f64, cells: usize) -> String {
    let filled = if fill_ratio.is_finite() {
        (fill_ratio * cells as f64).round().clamp(0.0, cells as f64) as usize
    } else {
        0
    };
    let mut s = String::with_capacity(cells * 3);
    s.extend(std::iter::repeat_n('▰', filled));
    s.extend(std::iter::repeat_n('▱', cells - filled));
    s
}

/// ANSI colour per tier: green, cyan, yellow, red, bold magenta.
pub fn tier_color(tier: ThresholdTier) -> &'static str {
    match tier {
        ThresholdTier::Nominal => "\x1b[32m",
        ThresholdTier::Low => "\x1b[36m",
        ThresholdTier::Warning => "\x1b[33m",
        ThresholdTier::Critical => "\x1b[31m",
        ThresholdTier::Emergency => "\x1b[1;35m",
    }
}

pub const RESET: &str = "\x1b[0m";

/// 150000 → "150,000".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The multi-line human status of `ctxmon status`.
pub fn status_text(e: &FillEstimate, color: bool) -> String {
    let (on, off) = if color {
        (tier_color(e.threshold_tier), RESET)
    } else {
        ("", "")
    };
    let mut out = format!(
        "ctx {on}{}% {}{off} {}/{} tokens  {on}{}{off}\n",
        e.percent(),
        bar(e.fill_percentage, BAR_CELLS),
        thousands(e.input_tokens.get()),
        thousands(e.context_window_size.get()),
        e.threshold_tier.name()
    );
    out.push_str(&format!(
        "    {} tokens until auto-compact · source {}",
        thousands(e.tokens_until_auto_compact.get()),
        e.source.key()
    ));
    if let Some(model) = &e.model {
        out.push_str(&format!(" · model {model}"));
    }
    out.push('\n');
    if let Some(note) = &e.note {
        out.push_str(&format!("    note: {note}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_numbers() {
        assert_eq!(bar(0.75, 10), "▰▰▰▰▰▰▰▰▱▱");
        assert_eq!(bar(0.74, 10), "▰▰▰▰▰▰▰▱▱▱");
        assert_eq!(bar(1.7, 10), "▰▰▰▰▰▰▰▰▰▰");
        assert_eq!(bar(f64::NAN, 4), "▱▱▱▱");
        assert_eq!(thousands(150_000), "150,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
