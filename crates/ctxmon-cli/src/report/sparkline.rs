//! The terminal sparkline of a session: one block character per column, its height the fill.
//!
//! Heights are absolute (a full block is a full window), not stretched between the session's
//! minimum and maximum: a session that never passed 15% should look flat, because for context
//! fill the question is "how close did it get", not "how did it wiggle".

use ctxmon_application::fill::{CompactionMark, FillPoint};

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

/// The column of the sparkline of `n` responses in `width` columns that shows response
/// `index` (0-based): the split [`columns`] makes, column `c` holding `c·n/w .. (c+1)·n/w`.
pub fn column_of(index: usize, n: usize, width: usize) -> usize {
    let cols = width.max(1);
    let index = index.min(n.saturating_sub(1));
    if n <= cols {
        return index;
    }
    // The last column whose share starts at or before `index`.
    (0..cols)
        .take_while(|c| c * n / cols <= index)
        .last()
        .unwrap_or(0)
}

/// The line under the sparkline: `^` under every column that holds a compaction (the column of
/// the first response after it; the last column for one after the last response), so folding
/// many responses into one column never hides a compaction. Empty without compactions.
pub fn compaction_marks(n: usize, compactions: &[CompactionMark], width: usize) -> String {
    if n == 0 || compactions.is_empty() {
        return String::new();
    }
    let shown = n.min(width.max(1));
    let mut marks = vec![' '; shown];
    for c in compactions {
        if let Some(cell) = marks.get_mut(column_of(c.index, n, width)) {
            *cell = MARK;
        }
    }
    marks.into_iter().collect::<String>().trim_end().to_string()
}

/// The compaction mark under the sparkline (plain ASCII: one column wide in every terminal).
pub const MARK: char = '^';

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

    /// Every compaction gets a mark under the column that shows the first response after it,
    /// folded or not, and the column is the one `columns` folds that response into.
    #[test]
    fn compactions_are_marked_under_their_column() {
        let mark = |index| CompactionMark {
            index,
            timestamp: None,
            trigger: None,
            pre_tokens: None,
            post_tokens: None,
        };
        // One column per response: under response index 3 (the fourth), and the last.
        assert_eq!(compaction_marks(6, &[mark(3), mark(6)], 80), "   ^ ^");
        assert_eq!(compaction_marks(6, &[mark(0)], 80), "^");
        assert_eq!(compaction_marks(6, &[], 80), "");
        // 100 responses in 10 columns: a compaction before response index 37 is in column 3,
        // where a climb back to 0.95 within the same column would otherwise hide it.
        let mut fills = vec![0.1; 100];
        fills[35] = 0.9;
        fills[36] = 0.92;
        fills[37] = 0.05;
        fills[39] = 0.95;
        let line = render(&points(&fills), 10, false);
        assert_eq!(line.chars().nth(3), Some('█'), "{line}");
        assert_eq!(compaction_marks(100, &[mark(37)], 10), "   ^");
        for n in [7, 10, 11, 99, 100, 101, 1_000] {
            for width in [1, 3, 10, 78] {
                let pts = points(&vec![0.1; n]);
                let cols = columns(&pts, width);
                for index in 0..n {
                    let c = column_of(index, n, width);
                    assert!(c < cols.len(), "{n} {width} {index}");
                    let (start, end) = if n <= width {
                        (c, c + 1)
                    } else {
                        (c * n / width, ((c + 1) * n / width).max(c * n / width + 1))
                    };
                    assert!((start..end).contains(&index), "{n} {width} {index}");
                }
            }
        }
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
