//! The `<context-monitor>` tag injected on prompts, as `context_monitor.inject` decides
//! (contract C3; the default, `tiered`, is in `hooks/prompt_submit.rs`).
//!
//! It is paid for again on every later turn (injected text stays in the history), so it is
//! short: 40–200 estimated tokens at every tier, a check `cargo xtask budgets` enforces.

use ctxmon_domain::estimate_tokens;
use ctxmon_domain::human::{short, tokens};
use ctxmon_domain::xml::{escape_attr, escape_text};
use ctxmon_domain::{FillEstimate, FillSource, ThresholdTier, Thresholds};

use crate::monitor::pace::TurnsLeft;
use crate::ports::{AgentKind, ContextItem, ItemKind};

/// The fewest tokens a `<context-monitor>` tag takes (inclusive; a property test holds every
/// tag within both bounds).
pub const MONITOR_TAG_MIN_TOKENS: u64 = 40;
/// The most tokens a `<context-monitor>` tag may take.
pub const MONITOR_TAG_MAX_TOKENS: u64 = 200;

/// What `agent` calls its list of steps (its description's `task_list`): Codex keeps a plan
/// (`update_plan`), Claude Code and Gemini CLI a todo list; advice names the one the agent has.
pub fn steps_noun(agent: AgentKind) -> &'static str {
    agent.description().task_list
}

/// Renders the tag for an estimate, worded for Claude Code ([`render_context_monitor_for`]
/// words it for another agent).
pub fn render_context_monitor(estimate: &FillEstimate, thresholds: &Thresholds) -> String {
    render_context_monitor_for(estimate, thresholds, AgentKind::ClaudeCode)
}

/// Renders the tag for an estimate, its advice in `agent`'s words (no resumption note named).
pub fn render_context_monitor_for(
    estimate: &FillEstimate,
    thresholds: &Thresholds,
    agent: AgentKind,
) -> String {
    render_context_monitor_with(estimate, thresholds, agent, None)
}

/// The agent's resumption note as the tag names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoteHint<'a> {
    /// Where the agent writes the note.
    pub location: &'a str,
    /// The note was written since the previous prompt: it describes the present.
    pub fresh: bool,
}

/// The longest note path the tag names; a longer one would crowd the advice out, and the agent
/// finds the note by its place in the project instead.
const NOTE_PATH_CHARS: usize = 160;

/// Renders the tag for an estimate, its advice in `agent`'s words; from WARNING up it names
/// the agent's resumption note. Every interpolated value is escaped: the tag must stay
/// well-formed whatever a path holds.
pub fn render_context_monitor_with(
    estimate: &FillEstimate,
    thresholds: &Thresholds,
    agent: AgentKind,
    note: Option<NoteHint<'_>>,
) -> String {
    render_context_monitor_full(estimate, thresholds, agent, note, &TagFacts::default())
}

/// What the transcript says beyond the fill, for the tag's last lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TagFacts<'a> {
    /// The largest items in the context, largest first; from CRITICAL up the tag names the
    /// first [`LARGEST_IN_TAG`].
    pub largest: &'a [ContextItem],
    /// The turns left at the recent pace; the WARNING and CRITICAL tags say it.
    pub turns_left: Option<TurnsLeft>,
}

/// How many of the largest items the tag names.
pub const LARGEST_IN_TAG: usize = 3;

/// The longest tool name the tag writes (an MCP tool's name can run to dozens of characters).
const TOOL_CHARS: usize = 24;

/// [`render_context_monitor_with`], with `facts` as lines after the advice where they fit the
/// tag's budget: the turns left first, then the largest items; a line that would take the tag
/// past [`MONITOR_TAG_MAX_TOKENS`] loses its last items, and then the line itself.
pub fn render_context_monitor_full(
    estimate: &FillEstimate,
    thresholds: &Thresholds,
    agent: AgentKind,
    note: Option<NoteHint<'_>>,
    facts: &TagFacts<'_>,
) -> String {
    let base = render_base(estimate, thresholds, agent, note);
    let tier = estimate.threshold_tier;
    let Some(body) = base.strip_suffix(CLOSE) else {
        return base;
    };
    let turns = facts
        .turns_left
        .filter(|t| t.turns > 0)
        .filter(|_| matches!(tier, ThresholdTier::Warning | ThresholdTier::Critical))
        .map(turns_line);
    let shown = if tier >= ThresholdTier::Critical {
        facts.largest.len().min(LARGEST_IN_TAG)
    } else {
        0
    };
    let mut candidates = Vec::new();
    for count in (1..=shown).rev() {
        let largest = largest_line(&facts.largest[..count]);
        candidates.push(match &turns {
            Some(turns) => format!("{turns}\n{largest}"),
            None => largest,
        });
    }
    candidates.extend(turns.clone());
    for lines in candidates {
        let tag = format!("{body}\n{lines}{CLOSE}");
        if estimate_tokens(&tag).get() <= MONITOR_TAG_MAX_TOKENS {
            return tag;
        }
    }
    base
}

/// `About 6 turns left at the recent pace (2.8k tokens a turn).`
fn turns_line(turns: TurnsLeft) -> String {
    let noun = if turns.turns == 1 { "turn" } else { "turns" };
    format!(
        "About {} {noun} left at the recent pace ({} tokens a turn).",
        turns.turns,
        short(turns.pace)
    )
}

const CLOSE: &str = "\n</context-monitor>";

/// `Largest in context: Read src/big.rs 18k, Bash `cargo test` 9k.`, escaped.
fn largest_line(items: &[ContextItem]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|item| {
            let tool: String = item.tool.chars().take(TOOL_CHARS).collect();
            let size = short(item.tokens);
            match (&item.target, item.kind) {
                (Some(target), ItemKind::FileRead) => format!("{tool} {target} {size}"),
                (Some(target), _) => format!("{tool} `{target}` output {size}"),
                (None, ItemKind::PastedText) => format!("a pasted message {size}"),
                (None, _) => format!("{tool} output {size}"),
            }
        })
        .collect();
    escape_text(&format!("Largest in context: {}.", parts.join(", ")))
}

fn render_base(
    estimate: &FillEstimate,
    thresholds: &Thresholds,
    agent: AgentKind,
    note: Option<NoteHint<'_>>,
) -> String {
    let tier = estimate.threshold_tier;
    let mut out = String::with_capacity(480);
    out.push_str("<context-monitor fill=\"");
    // After a compaction, until a response measures the context again, the figure is an
    // estimate: marked `~` as the status line marks it.
    if estimate.source == FillSource::Compaction {
        out.push('~');
    }
    out.push_str(&estimate.percent().to_string());
    out.push_str("%\" tier=\"");
    out.push_str(tier.name());
    out.push_str("\" tokens=\"");
    out.push_str(&estimate.input_tokens.to_string());
    out.push_str("\" window=\"");
    out.push_str(&estimate.context_window_size.get().to_string());
    out.push_str("\" until-auto-compact=\"");
    // "off" when the user disabled auto-compaction: there is nothing to count down to.
    match estimate.tokens_until_auto_compact {
        Some(until) => out.push_str(&until.to_string()),
        None => out.push_str("off"),
    }
    out.push_str("\" source=\"");
    out.push_str(&escape_attr(estimate.source.key()));
    out.push_str("\">\n");
    let advice = match note {
        Some(hint) if estimate.threshold_tier >= ThresholdTier::Warning => {
            note_action(estimate, agent, hint)
        }
        _ => recommended_action_for(estimate, agent),
    };
    out.push_str(&escape_text(&advice));
    if let Some(next) = next_tier(tier) {
        let at = threshold_percent(thresholds.lower_bound(next));
        out.push_str(&format!(" {} begins at {at}%.", next.name()));
    }
    out.push_str(CLOSE);
    out
}

/// The tier-specific advice for Claude Code: nothing at NOMINAL, "write state now" at
/// EMERGENCY.
pub fn recommended_action(estimate: &FillEstimate) -> String {
    recommended_action_for(estimate, AgentKind::ClaudeCode)
}

/// The tier-specific advice, naming `agent`'s list of steps.
pub fn recommended_action_for(estimate: &FillEstimate, agent: AgentKind) -> String {
    // Past Claude Code's auto-compact point the room is 0; "about 0 tokens" would read as a bug.
    let room = room_words(estimate);
    match estimate.threshold_tier {
        ThresholdTier::Nominal => "Context healthy; no action needed. Work normally.".to_string(),
        ThresholdTier::Low => "Context filling. Prefer targeted reads (line ranges, grep) over whole files; avoid large outputs.".to_string(),
        ThresholdTier::Warning => format!("Finish the current subtask. Keep decisions, progress and next steps current in your {} so they survive compaction; avoid large reads.", steps_noun(agent)),
        ThresholdTier::Critical => format!(
            "{room} Write down the current state now (goal, done, in progress, next steps, key files) and complete only the current step."
        ),
        ThresholdTier::Emergency => format!(
            "Stop starting new work. Write state now: goal, progress, next steps and the files being edited. {room}"
        ),
    }
}

/// From WARNING up, the advice with the note: keep it current, then write it now, and (Claude
/// Code, once it is fresh) that `/clear` now costs the user no wait.
fn note_action(estimate: &FillEstimate, agent: AgentKind, hint: NoteHint<'_>) -> String {
    let path = if hint.location.chars().count() <= NOTE_PATH_CHARS {
        hint.location.to_string()
    } else {
        let name = hint.location.rsplit(['/', '\\']).next().unwrap_or_default();
        format!(
            ".ctxmon/notes/{}",
            name.chars().take(80).collect::<String>()
        )
    };
    let what = "at most about 150 words: goal, done, in progress, next, decisions, gotchas";
    let room = room_words(estimate);
    let clear = if hint.fresh && agent.description().clears_with_handback {
        " Your note is current: the user can /clear instead of waiting for a compaction; the note is handed back."
    } else {
        ""
    };
    match estimate.threshold_tier {
        ThresholdTier::Critical => format!(
            "{room} Update your resumption note now: {path} ({what}). Then complete only the current step.{clear}"
        ),
        ThresholdTier::Emergency => format!(
            "Stop starting new work. Update your resumption note now: {path} ({what}). {room}{clear}"
        ),
        _ => format!(
            "Finish the current subtask. Keep your resumption note current in {path} ({what}); it is handed back after compaction. Avoid large reads."
        ),
    }
}

/// How much room is left before auto-compaction, in words.
fn room_words(estimate: &FillEstimate) -> String {
    match estimate.tokens_until_auto_compact {
        None => "Auto-compaction is off: the context will not be compacted for you.".to_string(),
        Some(until) if until.get() == 0 => "Auto-compaction can start at any moment.".to_string(),
        Some(until) => format!("About {} until auto-compaction.", tokens(until.get())),
    }
}

/// A threshold as a percentage, exact to hundredths and without trailing zeros (0.8 → "80",
/// 0.555 → "55.5"): rounding it to a whole number could name a boundary the fill, shown
/// rounded down, seems to have passed already.
/// A boundary computed as a share of a share (0.7 of a compaction at 0.1 of the window) lands a
/// hair below its true value in floating point, and rounded down it read "6.99%" beside a fill
/// of "5%": the next tier's boundary is above the fill, so rounding it up names nothing passed.
fn threshold_percent(ratio: f64) -> String {
    let scaled = ratio * 10_000.0;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let hundredths = if scaled.is_finite() && scaled > 0.0 {
        (scaled - 1e-6).ceil().max(0.0) as u64
    } else {
        0
    };
    let (whole, frac) = (hundredths / 100, hundredths % 100);
    match frac {
        0 => whole.to_string(),
        f if f % 10 == 0 => format!("{whole}.{}", f / 10),
        f => format!("{whole}.{f:02}"),
    }
}

fn next_tier(tier: ThresholdTier) -> Option<ThresholdTier> {
    ThresholdTier::ALL.into_iter().find(|t| *t > tier)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::Measured;
    use ctxmon_domain::{ContextWindow, FillSource, TokenCount, estimate_tokens};
    use proptest::prelude::*;

    fn estimate(tokens: u64, window: u64) -> FillEstimate {
        let window = ContextWindow::new(window).unwrap();
        FillEstimate::measured(Measured {
            tokens: TokenCount(tokens),
            window,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: Some("m".into()),
        })
    }

    #[test]
    fn the_tag_parses_and_carries_the_figures() {
        let tag = render_context_monitor(&estimate(150_000, 200_000), &Thresholds::default());
        let doc = roxmltree::Document::parse(&tag).unwrap();
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "context-monitor");
        assert_eq!(root.attribute("fill"), Some("75%"));
        assert_eq!(root.attribute("tier"), Some("WARNING"));
        assert_eq!(root.attribute("until-auto-compact"), Some("17000"));
        assert!(root.text().unwrap_or("").contains("CRITICAL begins at 80%"));
    }

    #[test]
    fn the_fill_is_rounded_down_and_thresholds_are_exact() {
        let tag = render_context_monitor(&estimate(159_999, 200_000), &Thresholds::default());
        assert!(
            tag.starts_with("<context-monitor fill=\"79%\" tier=\"WARNING\""),
            "{tag}"
        );
        assert!(tag.contains("CRITICAL begins at 80%."), "{tag}");
        let tag = render_context_monitor(&estimate(199_999, 200_000), &Thresholds::default());
        assert!(tag.starts_with("<context-monitor fill=\"99%\""), "{tag}");
        assert_eq!(threshold_percent(0.555), "55.5");
        assert_eq!(threshold_percent(0.5555), "55.55");
        assert_eq!(threshold_percent(0.7), "70");
        assert_eq!(threshold_percent(0.57), "57");
        // WARNING (0.7) of Gemini CLI's point at a tenth of its window (104,857 of 1,048,576):
        // 6.99996% of the window, which read "6.99%" beside a fill of "5%".
        assert_eq!(threshold_percent(0.7 * 104_857.0 / 1_048_576.0), "7");
    }

    #[test]
    fn an_estimate_after_a_compaction_is_marked() {
        let mut e = estimate(51_000, 200_000);
        e.source = FillSource::Compaction;
        let tag = render_context_monitor(&e, &Thresholds::default());
        assert!(tag.starts_with("<context-monitor fill=\"~25%\""), "{tag}");
        assert!(roxmltree::Document::parse(&tag).is_ok());
        let measured = render_context_monitor(&estimate(51_000, 200_000), &Thresholds::default());
        assert!(
            measured.starts_with("<context-monitor fill=\"25%\""),
            "{measured}"
        );
    }

    fn item(kind: ItemKind, tool: &str, target: Option<&str>, tokens: u64) -> ContextItem {
        ContextItem {
            kind,
            tool: tool.to_string(),
            target: target.map(str::to_string),
            tokens,
        }
    }

    #[test]
    fn from_critical_up_the_tag_names_the_three_largest_items() {
        let items = [
            item(ItemKind::FileRead, "Read", Some("src/big.rs"), 18_000),
            item(ItemKind::ToolOutput, "Bash", Some("cargo test"), 9_200),
            item(ItemKind::PastedText, "prompt", None, 2_000),
            item(ItemKind::ToolOutput, "Grep", Some("fn"), 900),
        ];
        let facts = TagFacts {
            largest: &items,
            turns_left: None,
        };
        let critical = estimate(165_000, 200_000);
        assert_eq!(critical.threshold_tier, ThresholdTier::Critical);
        let tag = render_context_monitor_full(
            &critical,
            &Thresholds::default(),
            AgentKind::ClaudeCode,
            None,
            &facts,
        );
        assert!(
            tag.ends_with("\nLargest in context: Read src/big.rs 18k, Bash `cargo test` output 9k, a pasted message 2k.\n</context-monitor>"),
            "{tag}"
        );
        assert!(roxmltree::Document::parse(&tag).is_ok());
        // Below CRITICAL the advice is enough; and no items, no line.
        let warning = estimate(150_000, 200_000);
        let plain = render_context_monitor(&warning, &Thresholds::default());
        let with = render_context_monitor_full(
            &warning,
            &Thresholds::default(),
            AgentKind::ClaudeCode,
            None,
            &facts,
        );
        assert_eq!(with, plain);
        let none = render_context_monitor_full(
            &critical,
            &Thresholds::default(),
            AgentKind::ClaudeCode,
            None,
            &TagFacts::default(),
        );
        assert_eq!(
            none,
            render_context_monitor(&critical, &Thresholds::default())
        );
    }

    #[test]
    fn the_warning_and_critical_tags_say_the_turns_left_at_the_recent_pace() {
        let render = |tokens: u64, turns: u64| {
            render_context_monitor_full(
                &estimate(tokens, 200_000),
                &Thresholds::default(),
                AgentKind::ClaudeCode,
                None,
                &TagFacts {
                    largest: &[],
                    turns_left: Some(TurnsLeft {
                        turns,
                        pace: 2_800,
                        turns_seen: 10,
                    }),
                },
            )
        };
        let warning = render(150_000, 6);
        assert!(
            warning.ends_with(
                "\nAbout 6 turns left at the recent pace (3k tokens a turn).\n</context-monitor>"
            ),
            "{warning}"
        );
        assert!(render(165_000, 1).contains("\nAbout 1 turn left at the recent pace"));
        // Not below WARNING, not at EMERGENCY (its advice says to stop), never "0 turns".
        for (tokens, turns) in [(100_000, 6), (115_000, 6), (180_000, 6), (150_000, 0)] {
            let tag = render(tokens, turns);
            assert!(!tag.contains("turn"), "{tag}");
        }
    }

    #[test]
    fn hostile_names_stay_escaped_and_within_the_budget() {
        let target = "&".repeat(40);
        let tool = "<".repeat(60);
        let items = [
            item(ItemKind::ToolOutput, &tool, Some(&target), u64::MAX),
            item(ItemKind::ToolOutput, &tool, Some(&target), u64::MAX),
            item(ItemKind::FileRead, &tool, Some(&target), u64::MAX),
        ];
        // The longest note path named in full (its characters are ctxmon's own folder's).
        let path = "n".repeat(NOTE_PATH_CHARS);
        for tokens in [165_000, 190_000, 199_999, 400_000] {
            let e = estimate(tokens, 200_000);
            let tag = render_context_monitor_full(
                &e,
                &Thresholds::default(),
                AgentKind::ClaudeCode,
                Some(NoteHint {
                    location: &path,
                    fresh: true,
                }),
                &TagFacts {
                    largest: &items,
                    turns_left: Some(TurnsLeft {
                        turns: 123_456,
                        pace: 9_999_999,
                        turns_seen: 10,
                    }),
                },
            );
            let size = estimate_tokens(&tag).get();
            assert!(size <= MONITOR_TAG_MAX_TOKENS, "{size}: {tag}");
            assert!(roxmltree::Document::parse(&tag).is_ok(), "{tag}");
        }
        // Where the note has its usual path, three items with targets of the longest kept
        // length are named at CRITICAL and at EMERGENCY.
        // The longest target the readers keep (40 characters).
        let target = "t".repeat(40);
        let items = [
            item(ItemKind::FileRead, "Read", Some(&target), 180_000),
            item(ItemKind::ToolOutput, "Bash", Some(&target), 90_000),
            item(ItemKind::ToolOutput, "WebFetch", Some(&target), 9_000),
        ];
        let path = ".ctxmon/notes/0b4f5c1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e.md";
        for tokens in [165_000, 190_000] {
            let e = estimate(tokens, 200_000);
            let tag = render_context_monitor_full(
                &e,
                &Thresholds::default(),
                AgentKind::ClaudeCode,
                Some(NoteHint {
                    location: path,
                    fresh: true,
                }),
                &TagFacts {
                    largest: &items,
                    turns_left: Some(TurnsLeft {
                        turns: 123_456,
                        pace: 9_999_999,
                        turns_seen: 10,
                    }),
                },
            );
            assert!(
                estimate_tokens(&tag).get() <= MONITOR_TAG_MAX_TOKENS,
                "{tag}"
            );
            assert!(tag.contains(" 180k, Bash `"), "{tag}");
            assert_eq!(
                tag.contains("About 123456 turns left"),
                tokens == 165_000,
                "{tag}"
            );
            assert!(tag.contains("WebFetch `"), "{tag}");
        }
    }

    proptest! {
        #[test]
        fn every_tag_is_within_budget_and_well_formed(tokens in 0u64..u64::MAX / 2, window in 1u64..u64::MAX / 2) {
            let tag = render_context_monitor(&estimate(tokens, window), &Thresholds::default());
            let size = estimate_tokens(&tag).get();
            prop_assert!((MONITOR_TAG_MIN_TOKENS..=MONITOR_TAG_MAX_TOKENS).contains(&size), "{size} tokens: {tag}");
            prop_assert!(roxmltree::Document::parse(&tag).is_ok());
        }
    }
}
