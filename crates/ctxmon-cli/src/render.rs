//! Human rendering of a fill estimate: the bar, tier colours and compact counts shared by
//! `status` and the status line; times in the local zone for every command.

use ctxmon_application::monitor::pace::TurnsLeft;
use ctxmon_application::ports::{ContextItem, ItemKind};
use ctxmon_domain::fill::floor_scaled;
use ctxmon_domain::human::{count, thousands, tokens};
use ctxmon_domain::{
    FieldText, FillEstimate, FillSource, StatusField, StatusTemplate, ThresholdTier, Timestamp,
};

pub const BAR_CELLS: usize = 10;

/// `▰▰▰▰▰▰▰▱▱▱` for 75%: a cell fills only once the fill reaches its end (floor, like the
/// percentage beside it), so the bar never shows more than there is — 99% is nine cells and
/// only a full window is ten.
pub fn bar(fill_ratio: f64, cells: usize) -> String {
    let filled = usize::try_from(floor_scaled(fill_ratio, cells as f64))
        .unwrap_or(cells)
        .min(cells);
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

/// `at` in the local time zone with its offset, `2026-04-18 15:50:40 +02:00`: every time
/// shown to people (JSON keeps UTC).
pub fn local_time(at: Timestamp) -> String {
    crate::bootstrap::local_zone().format(at)
}

/// An RFC 3339 time from a transcript or a stored file in local time, as [`local_time`]; text
/// that is not such a time is shown as it is.
pub fn local_time_text(rfc3339: &str) -> String {
    Timestamp::parse_rfc3339(rfc3339).map_or_else(|| rfc3339.to_string(), local_time)
}

/// 150000 → "150k", 1000000 → "1M", 999 → "999"; rounded down like the percentage beside it,
/// so 159,999 is "159k" next to "79%", never "160k".
pub fn compact(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1_000 {
        format!("{}k", n / 1_000)
    } else {
        n.to_string()
    }
}

/// What the status line shows beside the estimate, when its template asks for it.
#[derive(Debug, Clone, Copy, Default)]
pub struct LineContext<'a> {
    pub model: Option<&'a str>,
    pub branch: Option<&'a str>,
    /// The turns left at the recent pace, when known.
    pub turns_left: Option<u64>,
}

/// The room left before auto-compaction, for people: `17k to compact`; at or past the point
/// `compacting soon` (a `0 to compact` would read as a broken figure); `auto-compact off`.
pub fn until_compact(e: &FillEstimate) -> String {
    match e.tokens_until_auto_compact {
        Some(until) if until.get() == 0 => "compacting soon".to_string(),
        Some(until) => format!("{} to compact", compact(until.get())),
        None => "auto-compact off".to_string(),
    }
}

/// The status line in `template`'s shape, e.g. the default's `ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k
/// WARNING · 17k to compact`, shortened to fit `width` columns (see `status_template`). The
/// percentage and the tier carry the tier's colour when `color`.
pub fn status_line(
    e: &FillEstimate,
    template: &StatusTemplate,
    context: &LineContext<'_>,
    width: usize,
    color: bool,
) -> String {
    let tinted = |text: String| {
        let styled = if color {
            format!("{}{text}{RESET}", tier_color(e.threshold_tier))
        } else {
            text.clone()
        };
        FieldText {
            plain: text,
            styled,
        }
    };
    let value = |field: StatusField| match field {
        // After a compaction, until the next response is measured, the figure is an estimate
        // (the boundary's size, or the assumed share of the window): `~` says so.
        StatusField::Percent => Some(tinted(match e.source {
            FillSource::Compaction => format!("~{}%", e.percent()),
            _ => format!("{}%", e.percent()),
        })),
        StatusField::Bar => Some(FieldText::plain(bar(e.fill_percentage, BAR_CELLS))),
        StatusField::Tokens => Some(FieldText::plain(compact(e.input_tokens.get()))),
        StatusField::Window => Some(FieldText::plain(compact(e.context_window_size.get()))),
        StatusField::Tier => Some(tinted(e.threshold_tier.name().to_string())),
        StatusField::UntilCompact => Some(FieldText::plain(until_compact(e))),
        StatusField::TurnsLeft => context
            .turns_left
            .map(|n| FieldText::plain(format!("~{n} {}", if n == 1 { "turn" } else { "turns" }))),
        StatusField::Model => context.model.map(|m| FieldText::plain(one_line(m))),
        StatusField::Branch => context.branch.map(|b| FieldText::plain(one_line(b))),
    };
    template.render(value, width)
}

/// Text from outside (a model id, a branch name) as one line without control characters: the
/// status line is one line, and a stray escape would be the terminal's.
fn one_line(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
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
    let room = match e.tokens_until_auto_compact {
        Some(until) if until.get() == 0 => {
            "past the auto-compact point: compacting soon".to_string()
        }
        Some(until) => format!("{} tokens until auto-compact", thousands(until.get())),
        None => "auto-compact off".to_string(),
    };
    out.push_str(&format!("    {room} · source {}", e.source.key()));
    if let Some(model) = &e.model {
        out.push_str(&format!(" · model {model}"));
    }
    out.push('\n');
    if let Some(note) = &e.note {
        out.push_str(&format!("    note: {note}\n"));
    }
    out
}

/// `about 6 turns left at the recent pace (2,800 tokens a turn, over the last 10)`.
pub fn turns_text(turns: TurnsLeft) -> String {
    format!(
        "about {} left at the recent pace ({} a turn, over the last {})",
        count(turns.turns, "turn", "turns"),
        tokens(turns.pace),
        turns.turns_seen
    )
}

/// How many of the largest items `status` shows to people (`--json` lists more).
pub const LARGEST_SHOWN: usize = 5;

/// The largest items still in the context, one a line under a heading; nothing when there are
/// none. `complete` is false when the reading stopped at its byte bound before the last
/// compaction: older items may be larger.
pub fn largest_text(items: &[ContextItem], complete: bool) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = String::from("    largest in context");
    if !complete {
        out.push_str(" (of the transcript's newest part only)");
    }
    out.push_str(":\n");
    let width = items
        .iter()
        .take(LARGEST_SHOWN)
        .map(|i| thousands(i.tokens).len())
        .max()
        .unwrap_or(0);
    for item in items.iter().take(LARGEST_SHOWN) {
        let what = match &item.target {
            Some(target) => format!("{} {target}", item.tool),
            None if item.kind == ItemKind::PastedText => "a long message".to_string(),
            None => item.tool.clone(),
        };
        out.push_str(&format!(
            "      {:>width$} tokens  {what} ({})\n",
            thousands(item.tokens),
            item.kind.words()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::Measured;
    use ctxmon_domain::{ContextWindow, FillSource, Thresholds, TokenCount};

    fn estimate(tokens: u64) -> FillEstimate {
        FillEstimate::measured(Measured {
            tokens: TokenCount(tokens),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Payload,
            model: None,
        })
    }

    /// 199,000 of 200,000 is 99.5%: shown as 99% with nine cells, never as a full 100%; and a
    /// fill just below a threshold never shows the threshold's percentage.
    #[test]
    fn nothing_is_shown_fuller_than_it_is() {
        let line = |e: &FillEstimate| {
            status_line(
                e,
                &StatusTemplate::default(),
                &LineContext::default(),
                200,
                false,
            )
        };
        assert_eq!(
            line(&estimate(199_000)),
            "ctx 99% ▰▰▰▰▰▰▰▰▰▱ 199k/200k EMERGENCY · compacting soon"
        );
        let text = status_text(&estimate(199_000), false);
        assert!(
            text.starts_with("ctx 99% ▰▰▰▰▰▰▰▰▰▱ 199,000/200,000 tokens  EMERGENCY"),
            "{text}"
        );
        assert!(
            text.contains("past the auto-compact point: compacting soon"),
            "{text}"
        );
        let w = line(&estimate(159_999));
        assert_eq!(w, "ctx 79% ▰▰▰▰▰▰▰▱▱▱ 159k/200k WARNING · 7k to compact");
        assert!(line(&estimate(200_000)).starts_with("ctx 100% ▰▰▰▰▰▰▰▰▰▰"));
    }

    #[test]
    fn bars_and_numbers() {
        assert_eq!(bar(0.75, 10), "▰▰▰▰▰▰▰▱▱▱");
        assert_eq!(bar(0.80, 10), "▰▰▰▰▰▰▰▰▱▱");
        assert_eq!(bar(0.999, 10), "▰▰▰▰▰▰▰▰▰▱");
        assert_eq!(bar(1.0, 10), "▰▰▰▰▰▰▰▰▰▰");
        assert_eq!(bar(-0.5, 10), "▱▱▱▱▱▱▱▱▱▱");
        assert_eq!(bar(1.7, 10), "▰▰▰▰▰▰▰▰▰▰");
        assert_eq!(bar(f64::NAN, 4), "▱▱▱▱");
        assert_eq!(bar(0.3, 10), "▰▰▰▱▱▱▱▱▱▱");
        assert_eq!(compact(150_000), "150k");
        assert_eq!(compact(1_000_000), "1M");
        assert_eq!(compact(17_437), "17k");
    }
}
