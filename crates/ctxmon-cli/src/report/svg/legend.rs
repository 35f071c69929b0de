//! The chart's legend: a swatch per tier, then the marks (fill line, tier crossing, compaction,
//! auto-compact line). Swatches are rounded rectangles, never circles, which stay reserved for
//! responses.

use std::fmt::Write as _;

use ctxmon_domain::ThresholdTier;
use ctxmon_domain::xml::escape_text;

use super::{HEIGHT, LEFT, tier_hex};

/// Rough widths of a lower-case and an upper-case character at the 12 px font, for laying out
/// the legend and keeping labels apart (no font metrics without a rendering dependency).
const CHAR_W: f64 = 6.6;
const CAPS_W: f64 = 8.2;

/// Two rows: the tiers, then the marks.
pub(super) fn legend(s: &mut String) {
    let mut y = HEIGHT - 40.0;
    let mut x = LEFT;
    s.push_str("<g class=\"legend\">\n");
    for tier in ThresholdTier::ALL {
        let _ = writeln!(
            s,
            r#"<rect x="{x:.1}" y="{:.1}" width="10" height="10" rx="5" fill="{}"/><text x="{:.1}" y="{y:.1}">{}</text>"#,
            y - 9.0,
            tier_hex(tier),
            x + 14.0,
            escape_text(tier.name())
        );
        x += 14.0 + tier.name().len() as f64 * CAPS_W + 14.0;
    }
    let items: [(&str, String); 4] = [
        (
            "fill per response",
            format!(
                r##"<line x1="{x0:.1}" y1="{ym:.1}" x2="{x1:.1}" y2="{ym:.1}" stroke="#37474f" stroke-width="1.6"/>"##,
                x0 = 0.0,
                x1 = 18.0,
                ym = -4.0
            ),
        ),
        (
            "tier crossing",
            r##"<rect x="2" y="-10" width="12" height="12" rx="6" fill="#ffffff" stroke="#000000" stroke-width="1.5"/>"##.to_string(),
        ),
        (
            "compaction (◇ size after)",
            r##"<polygon points="2,-12 14,-12 8,-2" fill="#455a64"/>"##.to_string(),
        ),
        (
            "auto-compact",
            r##"<line x1="0" y1="-4" x2="18" y2="-4" stroke="#37474f" stroke-width="1.2" stroke-dasharray="2 3"/>"##.to_string(),
        ),
    ];
    (x, y) = (LEFT, HEIGHT - 18.0);
    for (label, glyph) in items {
        let _ = writeln!(
            s,
            r#"<g transform="translate({x:.1} {y:.1})">{glyph}<text x="24" y="0">{}</text></g>"#,
            escape_text(label)
        );
        x += 24.0 + label.chars().count() as f64 * CHAR_W + 16.0;
    }
    s.push_str("</g>\n");
}
