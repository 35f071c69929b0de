//! Rendering of a session's fill series for `ctxmon report`: the text summary around a
//! terminal sparkline (`sparkline`), the SVG chart (`svg`) and the JSON document. Pure
//! functions of the series; the command does the reading and writing.

pub mod sparkline;
pub mod svg;

#[cfg(test)]
mod svg_tests;

use std::fmt::Write as _;

use ctxmon_application::monitor::fill::{FillPoint, FillSeries, SeriesScope};
use ctxmon_domain::FillSource;
use ctxmon_domain::fill::floor_scaled;
use ctxmon_domain::human::thousands;
use serde_json::{Value, json};

use crate::render::{RESET, local_time_text, tier_color};

/// Whole percent for people, rounded down like every fill ctxmon shows: 0.526 → 52.
fn pct(fill: f64) -> u64 {
    floor_scaled(fill, 100.0)
}

/// The human report: header, sparkline (with a `^` under each column holding a compaction),
/// min/max/last, then every compaction and tier crossing with its time. `width` is the
/// terminal's; the sparkline takes at most that many columns. Responses are numbered from 1,
/// as in the JSON.
pub fn text(series: &FillSeries, file_name: &str, width: usize, color: bool) -> String {
    let mut out = String::new();
    let mut head = vec![file_name.to_string()];
    head.extend(series.model.clone());
    head.push(format!("window {}", thousands(series.window.get())));
    if series.scope == SeriesScope::Sidechain {
        head.push("subagent transcript (sidechain lines)".into());
    }
    let _ = writeln!(out, "{}", head.join(" · "));
    let n = series.points.len();
    let columns = width.saturating_sub(2).clamp(10, 200);
    let _ = writeln!(
        out,
        "  {}",
        sparkline::render(&series.points, columns, color)
    );
    let marks = sparkline::compaction_marks(n, &series.compactions, columns);
    if !marks.is_empty() {
        let legend = match series.compactions.len() {
            1 => " compaction",
            _ => " compactions",
        };
        // The legend only when it fits beside the last mark.
        let fits = 2 + marks.chars().count() + legend.len() <= width;
        let _ = writeln!(out, "  {marks}{}", if fits { legend } else { "" });
    }
    let per_column = column_share(n, columns);
    let _ = writeln!(
        out,
        "  {} · {per_column} · height {}–{}% of the window",
        ctxmon_domain::human::count(n as u64, "response", "responses"),
        0,
        pct(sparkline::scale_top(&series.points))
    );
    if let (Some(min), Some(max), Some(last)) = (series.min(), series.max(), &series.final_fill) {
        let tier = if color {
            format!("{}{}{RESET}", tier_color(last.tier), last.tier.name())
        } else {
            last.tier.name().to_string()
        };
        let after = match last.source {
            FillSource::Compaction => ", after the compaction",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  min {} ({}%) · max {} ({}%, response {}) · last {} ({}%, {tier}{after})",
            thousands(min.tokens.get()),
            pct(min.fill),
            thousands(max.tokens.get()),
            pct(max.fill),
            max.index + 1,
            thousands(last.tokens.get()),
            pct(last.fill),
        );
        if let Some(note) = &last.note {
            let _ = writeln!(out, "  note: {note}");
        }
    }
    if let Some(note) = &series.window_note {
        let _ = writeln!(out, "  note: {note}");
    }
    if series.compactions.is_empty() {
        out.push_str("no compactions\n");
    } else {
        let _ = writeln!(out, "compactions ({})", series.compactions.len());
        for c in &series.compactions {
            let sizes = match (c.pre_tokens, c.post_tokens) {
                (Some(pre), Some(post)) => format!(
                    "{} → {} tokens",
                    thousands(pre.get()),
                    thousands(post.get())
                ),
                (Some(pre), None) => format!("{} tokens before", thousands(pre.get())),
                (None, Some(post)) => format!("{} tokens after", thousands(post.get())),
                (None, None) => "size not recorded".to_string(),
            };
            let _ = writeln!(
                out,
                "  {}  {}  {}  {sizes}",
                c.timestamp
                    .as_deref()
                    .map_or_else(|| "(no time)".to_string(), local_time_text),
                compaction_place(c.index),
                c.trigger.as_deref().unwrap_or("?"),
            );
        }
    }
    if series.crossings.is_empty() {
        out.push_str("no tier crossings\n");
    } else {
        let _ = writeln!(out, "tier crossings ({})", series.crossings.len());
        for c in &series.crossings {
            let to = if color {
                format!("{}{}{RESET}", tier_color(c.to), c.to.name())
            } else {
                c.to.name().to_string()
            };
            let _ = writeln!(
                out,
                "  {}  response {}  {} → {to}  {} tokens ({}%)",
                c.timestamp
                    .as_deref()
                    .map_or_else(|| "(no time)".to_string(), local_time_text),
                c.index + 1,
                c.from.name(),
                thousands(c.tokens.get()),
                pct(c.fill)
            );
        }
    }
    out
}

/// Where a compaction sits, by the responses before it (its `after_response` in the JSON).
pub fn compaction_place(after_response: usize) -> String {
    match after_response {
        0 => "before the first response".to_string(),
        n => format!("after response {n}"),
    }
}

/// How many responses a sparkline column stands for, as `sparkline::columns` splits them:
/// `n` responses over `columns` give each column ⌊n/columns⌋ or ⌈n/columns⌉ of them.
fn column_share(n: usize, columns: usize) -> String {
    let columns = columns.max(1);
    let (few, many) = (n / columns, n.div_ceil(columns));
    if many <= 1 {
        "one column per response".to_string()
    } else if few == many {
        format!(
            "each column the fullest of {} responses",
            thousands(many as u64)
        )
    } else {
        format!(
            "each column the fullest of {} or {} responses",
            thousands(few as u64),
            thousands(many as u64)
        )
    }
}

/// The JSON document. Responses are numbered from 1 as in the text: a point's and a
/// crossing's `response`, a compaction's `after_response` (the responses before it, 0 when it
/// came first). `last` is the session's end as `status` measures it: the newest response
/// (`source` "transcript") or what a compaction after it left ("compaction").
pub fn json(series: &FillSeries, transcript: &str, svg: Option<&str>) -> serde_json::Value {
    let point = |p: &FillPoint| {
        json!({
            "response": p.index + 1, "timestamp": p.timestamp, "message_id": p.message_id,
            "tokens": p.tokens, "fill": p.fill, "tier": p.tier, "window": p.window,
        })
    };
    let compactions: Vec<Value> = series
        .compactions
        .iter()
        .map(|c| {
            json!({
                "after_response": c.index, "timestamp": c.timestamp, "trigger": c.trigger,
                "pre_tokens": c.pre_tokens, "post_tokens": c.post_tokens,
            })
        })
        .collect();
    let crossings: Vec<Value> = series
        .crossings
        .iter()
        .map(|c| {
            json!({
                "response": c.index + 1, "timestamp": c.timestamp, "from": c.from, "to": c.to,
                "tokens": c.tokens, "fill": c.fill,
            })
        })
        .collect();
    let last = series.final_fill.as_ref().map(|f| {
        let mut v = json!({
            "source": f.source, "tokens": f.tokens, "fill": f.fill, "percent": pct(f.fill),
            "tier": f.tier, "window": f.window, "timestamp": f.timestamp, "note": f.note,
        });
        if let (FillSource::Transcript, Some(p), Some(obj)) =
            (f.source, series.last(), v.as_object_mut())
        {
            obj.insert("response".into(), (p.index + 1).into());
            obj.insert("message_id".into(), p.message_id.clone().into());
        } else if let Some(obj) = v.as_object_mut() {
            obj.insert("after_response".into(), series.points.len().into());
        }
        v
    });
    let mut value = json!({
        "transcript": transcript,
        "scope": series.scope,
        "model": series.model,
        "window": series.window,
        "window_note": series.window_note,
        "thresholds": series.thresholds,
        "auto_compact_fill": series.auto_compact_fill,
        "responses": series.points.len(),
        "min": series.min().map(point),
        "max": series.max().map(point),
        "last": last,
        "points": series.points.iter().map(point).collect::<Vec<_>>(),
        "compactions": compactions,
        "crossings": crossings,
    });
    if let (Some(svg), Some(obj)) = (svg, value.as_object_mut()) {
        obj.insert("svg".into(), svg.into());
    }
    value
}

#[cfg(test)]
mod tests {
    use super::column_share;

    #[test]
    fn the_column_share_is_what_the_sparkline_does() {
        assert_eq!(column_share(46, 78), "one column per response");
        assert_eq!(column_share(78, 78), "one column per response");
        assert_eq!(
            column_share(80, 78),
            "each column the fullest of 1 or 2 responses"
        );
        assert_eq!(
            column_share(156, 78),
            "each column the fullest of 2 responses"
        );
        assert_eq!(
            column_share(1_000, 78),
            "each column the fullest of 12 or 13 responses"
        );
        assert_eq!(column_share(5, 0), "each column the fullest of 5 responses");
    }
}
