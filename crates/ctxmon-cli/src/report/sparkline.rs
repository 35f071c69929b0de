//! The terminal sparkline of a session: one block character per column, its height the fill.
//!
//! Heights are absolute (a full block is a full window), not stretched between the session's
//! minimum and maximum: a session that never passed 15% should look flat, because for context
//! fill the question is "how close did it get", not "how did it wiggle".

use ctxmon_application::monitor::fill::FillPoint;

pub const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The block for `fill` on a scale whose full block is `top` (≥ 1, so the window fits).
pub fn level(fill: f64, top: f64) -> char {
    let idx = if fill.is_finite() && fill > 0.0 && top > 0.0 {
        ((fill / top) * LEVELS.len() as f64).floor() as usize
    } else {
        0
    };
    LEVELS[idx.min(LEVELS.len() - 1)]
}

/// The scale's top: the window, or the fullest point when a session ran over it.
pub fn scale_top(points: &[FillPoint]) -> f64 {
    points
        .iter()
        .map(|p| p.fill)
        .filter(|f| f.is_finite())
        .fold(1.0, f64::max)
}

/// At most `columns` points, one per column: when there are more responses than columns, each
/// column shows the fullest response of its share, so a peak is never averaged away.
pub fn columns(points: &[FillPoint], columns: usize) -> Vec<&FillPoint> {
    let n = points.len();
    let cols = columns.max(1);
    if n <= cols {
        return points.iter().collect();
    }
    (0..cols)
        .filter_map(|c| {
            let (start, end) = (c * n / cols, (c + 1) * n / cols);
            points
                .get(start..end.max(start + 1))?
                .iter()
                .reduce(|a, b| if b.fill > a.fill { b } else { a })
        })
        .collect()
}

/// The sparkline as plain characters and, when `color` is set, each one in its tier's colour.
pub fn render(points: &[FillPoint], width: usize, color: bool) -> String {
    let top = scale_top(points);
    let mut out = String::new();
    for p in columns(points, width) {
        let c = level(p.fill, top);
        if color {
            out.push_str(crate::render::tier_color(p.tier));
            out.push(c);
            out.push_str(crate::render::RESET);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::{ContextWindow, ThresholdTier, TokenCount};

    fn points(fills: &[f64]) -> Vec<FillPoint> {
        fills
            .iter()
            .enumerate()
            .map(|(index, &fill)| FillPoint {
                index,
                timestamp: None,
                message_id: None,
                tokens: TokenCount((fill * 200_000.0) as u64),
                fill,
                tier: ThresholdTier::Nominal,
                window: ContextWindow::DEFAULT,
            })
            .collect()
    }

    #[test]
    fn heights_are_absolute_eighths_of_the_window() {
        assert_eq!(
            render(&points(&[0.0, 0.1, 0.5, 0.87, 0.9, 1.0]), 80, false),
            "▁▁▅▇██"
        );
        assert_eq!(level(f64::NAN, 1.0), '▁');
        // Over-full sessions move the top, so the fullest point is the full block.
        let over = points(&[0.6, 1.2]);
        assert_eq!(scale_top(&over), 1.2);
        assert_eq!(render(&over, 80, false), "▅█");
    }

    #[test]
    fn many_points_keep_their_peaks() {
        let mut fills = vec![0.1; 100];
        fills[37] = 0.95;
        let line = render(&points(&fills), 10, false);
        assert_eq!(line.chars().count(), 10);
        assert_eq!(line.chars().filter(|&c| c == '█').count(), 1, "{line}");
        assert_eq!(columns(&points(&fills), 0).len(), 1);
    }

    #[test]
    fn colour_wraps_every_block() {
        let line = render(&points(&[0.5]), 10, true);
        assert!(
            line.starts_with("\x1b[32m") && line.ends_with("\x1b[0m"),
            "{line:?}"
        );
    }
}
