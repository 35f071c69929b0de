//! The SVG chart of a session, built as text without a plotting dependency: tier bands and
//! threshold lines, the fill of every response as a polyline with one `<circle>` per response,
//! compaction markers, title and legend.
//!
//! Circles are reserved for responses (legend swatches are rounded rectangles), so a reader, or
//! a test, can count responses by counting circles. Every piece of text that comes from the
//! transcript or the file system goes through the domain's XML escaping.

mod legend;

use std::fmt::Write as _;

use ctxmon_application::monitor::fill::{FillPoint, FillSeries, SeriesScope};
use ctxmon_domain::ThresholdTier;
use ctxmon_domain::human::thousands;
use ctxmon_domain::xml::escape_text;

use super::sparkline::scale_top;
use crate::render::local_time_text;

pub(super) const WIDTH: f64 = 960.0;
pub(super) const HEIGHT: f64 = 500.0;
pub(super) const LEFT: f64 = 64.0;
const RIGHT: f64 = 136.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 110.0;

/// Tier colours: the terminal's hues (green, cyan, yellow, red, magenta), darkened to read on
/// white.
pub fn tier_hex(tier: ThresholdTier) -> &'static str {
    match tier {
        ThresholdTier::Nominal => "#2e7d32",
        ThresholdTier::Low => "#00838f",
        ThresholdTier::Warning => "#e0a000",
        ThresholdTier::Critical => "#c62828",
        ThresholdTier::Emergency => "#8e24aa",
    }
}

/// The plot's top never goes past 400%: a transcript with nonsense usage (a count near
/// u64::MAX) made the 10% grid billions of lines long, hanging `report --svg`. Points above it
/// sit on the top edge; their tooltips keep the real figures.
const MAX_TOP: f64 = 4.0;

/// Maps responses and fill ratios to the plot area.
struct Frame {
    x0: f64,
    x1: f64,
    y_top: f64,
    y_bottom: f64,
    n: usize,
    /// The fill ratio at the top of the plot (1 to [`MAX_TOP`]).
    top: f64,
}

impl Frame {
    fn slot(&self) -> f64 {
        (self.x1 - self.x0) / self.n.max(1) as f64
    }
    /// The centre of response `i`'s slot.
    fn x(&self, i: usize) -> f64 {
        self.x0 + (i as f64 + 0.5) * self.slot()
    }
    /// The edge between responses `k - 1` and `k`.
    fn x_before(&self, k: usize) -> f64 {
        self.x0 + k.min(self.n) as f64 * self.slot()
    }
    fn y(&self, fill: f64) -> f64 {
        let f = if fill.is_finite() {
            fill.clamp(0.0, self.top)
        } else {
            0.0
        };
        self.y_bottom - f / self.top * (self.y_bottom - self.y_top)
    }
}

/// Renders the chart; `file_name` titles it.
pub fn render(series: &FillSeries, file_name: &str) -> String {
    let f = Frame {
        x0: LEFT,
        x1: WIDTH - RIGHT,
        y_top: TOP,
        y_bottom: HEIGHT - BOTTOM,
        n: series.points.len(),
        // A little headroom above 100% only when a session ran over its window.
        top: match scale_top(&series.points) {
            t if t > 1.0 => (t * 1.05).min(MAX_TOP),
            t => t,
        },
    };
    let mut s = String::with_capacity(8_192 + series.points.len() * 200);
    header(&mut s, series, file_name);
    bands(&mut s, series, &f);
    axes(&mut s, series, &f);
    compactions(&mut s, series, &f);
    fill_line(&mut s, series, &f);
    legend::legend(&mut s);
    s.push_str("</svg>\n");
    s
}

fn summary(series: &FillSeries) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if let Some(model) = &series.model {
        parts.push(model.clone());
    }
    parts.push(format!("window {}", thousands(series.window.get())));
    parts.push(plural(series.points.len(), "response", "responses"));
    parts.push(plural(
        series.compactions.len(),
        "compaction",
        "compactions",
    ));
    parts.push(plural(
        series.crossings.len(),
        "tier crossing",
        "tier crossings",
    ));
    if series.scope == SeriesScope::Sidechain {
        parts.push("subagent transcript".into());
    }
    parts.join(" · ")
}

fn header(s: &mut String, series: &FillSeries, file_name: &str) {
    let title = format!("Context fill · {file_name}");
    let _ = write!(
        s,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" font-family="DejaVu Sans, Segoe UI, Helvetica, Arial, sans-serif" font-size="12" fill="#263238">
<title id="chart-title">{}</title>
<desc id="chart-desc">{}</desc>
<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>
<text x="{LEFT}" y="28" font-size="17" font-weight="bold">{}</text>
<text x="{LEFT}" y="50" fill="#546e7a">{}</text>
"##,
        escape_text(&title),
        escape_text(&summary(series)),
        escape_text(&title),
        escape_text(&summary(series)),
    );
}

/// A light band per tier, a dashed line at each threshold, and the tier names on the right.
fn bands(s: &mut String, series: &FillSeries, f: &Frame) {
    let t = &series.thresholds;
    s.push_str("<g class=\"tiers\">\n");
    let mut labels = Vec::new();
    for (i, tier) in ThresholdTier::ALL.iter().enumerate() {
        let low = t.lower_bound(*tier);
        let high = ThresholdTier::ALL
            .get(i + 1)
            .map_or(f.top, |next| t.lower_bound(*next));
        let (y_low, y_high) = (f.y(low), f.y(high));
        let _ = writeln!(
            s,
            r#"<rect x="{:.1}" y="{y_high:.1}" width="{:.1}" height="{:.1}" fill="{}" fill-opacity="0.09"/>"#,
            f.x0,
            f.x1 - f.x0,
            (y_low - y_high).max(0.0),
            tier_hex(*tier)
        );
        if *tier != ThresholdTier::Nominal {
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" y1="{y_low:.1}" x2="{:.1}" y2="{y_low:.1}" stroke="{}" stroke-width="1" stroke-dasharray="5 4"/>"#,
                f.x0,
                f.x1,
                tier_hex(*tier)
            );
        }
        let text = if *tier == ThresholdTier::Nominal {
            tier.name().to_string()
        } else {
            format!("{} ≥ {}", tier.name(), percent(low))
        };
        labels.push((y_low, text, tier_hex(*tier)));
    }
    // Each label sits just above its threshold; thin bands would stack them, so each is pushed
    // up until it clears the one below.
    let mut floor = f64::INFINITY;
    for (y, text, color) in labels {
        let y = (y - 3.0).min(floor - 13.0);
        floor = y;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{y:.1}" fill="{color}" font-size="11" font-weight="bold">{}</text>"#,
            f.x1 + 8.0,
            escape_text(&text)
        );
    }
    if series.auto_compact_fill > 0.0 && series.auto_compact_fill < f.top {
        let y = f.y(series.auto_compact_fill);
        let room = (series.auto_compact_fill * series.window.get() as f64).round() as u64;
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#37474f" stroke-width="1.2" stroke-dasharray="2 3"/>
<text x="{:.1}" y="{:.1}" fill="#37474f" font-size="11">auto-compact ≈ {} ({} tokens)</text>"##,
            f.x0,
            f.x1,
            f.x0 + 6.0,
            y - 4.0,
            percent(series.auto_compact_fill),
            thousands(room)
        );
    }
    s.push_str("</g>\n");
}

fn axes(s: &mut String, series: &FillSeries, f: &Frame) {
    s.push_str("<g class=\"axes\">\n");
    // Horizontal grid every 10%, labelled every 20%.
    let steps = (f.top * 10.0).floor() as u32;
    for step in 0..=steps {
        let fill = f64::from(step) / 10.0;
        let y = f.y(fill);
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#cfd8dc" stroke-width="0.6"/>"##,
            f.x0, f.x1
        );
        if step % 2 == 0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}%</text>"#,
                f.x0 - 8.0,
                y + 4.0,
                step * 10
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#90a4ae" stroke-width="1"/>"##,
        f.x0,
        f.y_top,
        f.x1 - f.x0,
        f.y_bottom - f.y_top
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">% of the context window</text>"#,
        (f.y_top + f.y_bottom) / 2.0
    );
    // Response numbers (1-based, as people count) at a round step.
    let step = nice_step(f.n);
    let mut k = step;
    let mut ticks = vec![1];
    while k <= f.n {
        if k > 1 {
            ticks.push(k);
        }
        k += step;
    }
    for t in ticks.into_iter().filter(|t| *t <= f.n) {
        let x = f.x(t - 1);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#90a4ae"/>
<text x="{x:.1}" y="{:.1}" text-anchor="middle">{t}</text>"##,
            f.y_bottom,
            f.y_bottom + 5.0,
            f.y_bottom + 18.0
        );
    }
    let chain = match series.scope {
        SeriesScope::Main => "main chain",
        SeriesScope::Sidechain => "subagent",
    };
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">API responses ({chain}), in order</text>"#,
        (f.x0 + f.x1) / 2.0,
        f.y_bottom + 38.0
    );
    let first = series.points.first().and_then(|p| p.timestamp.as_deref());
    let last = series.points.last().and_then(|p| p.timestamp.as_deref());
    for (time, x, anchor) in [(first, f.x0, "start"), (last, f.x1, "end")] {
        if let Some(time) = time {
            let _ = writeln!(
                s,
                r##"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" fill="#78909c" font-size="11">{}</text>"##,
                f.y_bottom + 38.0,
                escape_text(&local_time_text(time))
            );
        }
    }
    if f.n == 0 {
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="15" fill="#78909c">no API response with usage in this transcript</text>"##,
            (f.x0 + f.x1) / 2.0,
            (f.y_top + f.y_bottom) / 2.0
        );
    }
    s.push_str("</g>\n");
}

/// 1, 2, 5, 10, 20, 50, … : the smallest that gives at most about ten ticks.
fn nice_step(n: usize) -> usize {
    let mut base = 1;
    loop {
        for m in [1, 2, 5] {
            if n <= base * m * 10 {
                return base * m;
            }
        }
        base = base.saturating_mul(10);
    }
}

/// A dashed line between the responses a compaction separates, a triangle on top, and a diamond
/// at the post-compaction size when the boundary recorded it.
fn compactions(s: &mut String, series: &FillSeries, f: &Frame) {
    s.push_str("<g class=\"compactions\">\n");
    let mut previous_label: Option<(f64, f64)> = None;
    for c in &series.compactions {
        let x = f.x_before(c.index);
        // Close compactions would print their labels over each other: the second goes one line
        // lower, inside the plot.
        let label_y = match previous_label {
            Some((px, py)) if x - px < 120.0 && py < f.y_top => f.y_top + 12.0,
            _ => f.y_top - 4.0,
        };
        previous_label = Some((x, label_y));
        let mut tip = format!("compaction {}", super::compaction_place(c.index));
        if let Some(trigger) = &c.trigger {
            tip.push_str(&format!(" ({trigger})"));
        }
        if let Some(pre) = c.pre_tokens {
            tip.push_str(&format!(", {} tokens before", thousands(pre.get())));
        }
        if let Some(post) = c.post_tokens {
            tip.push_str(&format!(", {} after", thousands(post.get())));
        }
        if let Some(time) = &c.timestamp {
            tip.push_str(&format!(", {}", local_time_text(time)));
        }
        let _ = writeln!(
            s,
            r##"<g class="compaction"><title>{}</title>
<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#455a64" stroke-width="1.5" stroke-dasharray="6 3"/>
<polygon points="{:.1},{:.1} {:.1},{:.1} {x:.1},{:.1}" fill="#455a64"/>
<text x="{:.1}" y="{:.1}" fill="#455a64" font-size="11">{}</text>"##,
            escape_text(&tip),
            f.y_top,
            f.y_bottom,
            x - 6.0,
            f.y_top - 12.0,
            x + 6.0,
            f.y_top - 12.0,
            f.y_top - 2.0,
            x + 8.0,
            label_y,
            escape_text(&match &c.trigger {
                Some(t) => format!("compacted ({t})"),
                None => "compacted".to_string(),
            }),
        );
        if let Some(post) = c.post_tokens {
            let y = f.y(series.window.ratio(post));
            let _ = writeln!(
                s,
                r##"<polygon points="{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}" fill="#ffffff" stroke="#455a64" stroke-width="1.5"/>"##,
                y - 5.0,
                x + 5.0,
                y + 5.0,
                x - 5.0
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</g>\n");
}

fn fill_line(s: &mut String, series: &FillSeries, f: &Frame) {
    let points = &series.points;
    if points.len() > 1 {
        s.push_str(r##"<polyline fill="none" stroke="#37474f" stroke-width="1.6" stroke-linejoin="round" points=""##);
        for p in points {
            let _ = write!(s, "{:.1},{:.1} ", f.x(p.index), f.y(p.fill));
        }
        s.push_str("\"/>\n");
    }
    // Fewer, larger dots for short sessions; long ones would turn into a solid bar.
    let r = match points.len() {
        0..=60 => 4.0,
        61..=200 => 3.0,
        201..=600 => 2.0,
        _ => 1.2,
    };
    let crossing_at: std::collections::HashSet<usize> =
        series.crossings.iter().map(|c| c.index).collect();
    s.push_str("<g class=\"points\">\n");
    for p in points {
        let crossing = crossing_at.contains(&p.index);
        // A white edge separates neighbouring dots; on dots smaller than the line it would
        // erase the line instead, so dense series go without.
        let (class, ring, radius) = if crossing {
            (
                "point crossing",
                r##" stroke="#000000" stroke-width="1.5""##,
                (r + 1.5_f64).max(4.0),
            )
        } else if r >= 3.0 {
            ("point", r##" stroke="#ffffff" stroke-width="0.6""##, r)
        } else {
            ("point", "", r)
        };
        let _ = writeln!(
            s,
            r#"<circle class="{class}" data-index="{}" cx="{:.1}" cy="{:.1}" r="{}" fill="{}"{ring}><title>{}</title></circle>"#,
            p.index,
            f.x(p.index),
            f.y(p.fill),
            radius,
            tier_hex(p.tier),
            escape_text(&point_tip(p, crossing)),
        );
    }
    s.push_str("</g>\n");
}

fn point_tip(p: &FillPoint, crossing: bool) -> String {
    let mut tip = format!(
        "response {} · {} tokens · {} · {}",
        p.index + 1,
        thousands(p.tokens.get()),
        percent(p.fill),
        p.tier.name()
    );
    if crossing {
        tip.push_str(" (tier crossing)");
    }
    if let Some(time) = &p.timestamp {
        tip.push_str(&format!(" · {}", local_time_text(time)));
    }
    if let Some(id) = &p.message_id {
        tip.push_str(&format!(" · {id}"));
    }
    tip
}

/// 0.835 → "83%", 0.9999 → "99%": whole percent rounded down, like every fill ctxmon shows.
fn percent(ratio: f64) -> String {
    ctxmon_domain::human::percent(ratio)
}
