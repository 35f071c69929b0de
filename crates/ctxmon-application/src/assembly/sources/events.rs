//! Runtime events, newest first for selection (without gaps) and oldest first in the bundle.
//!
//! A tool call and every result or error answering it (same `toolCallId`) form one unit that is
//! kept or dropped whole, with the call written first: a result is never shown without the call
//! it answers. Results whose call is not in the input are left out for the same reason.

use ctxmon_domain::assembly::{
    ContextMessage, MessageMetadata, MessageRole, RuntimeEvent, RuntimeEventType,
};

use super::{
    ContextSource, EVENTS, Rank, SourceCandidates, SourceContext, best_first, earlier_duplicates,
};
use crate::assembly::candidate::Candidate;
use crate::assembly::format::event_text;
use crate::assembly::notes::Notes;

/// Recent runtime events: the newest are chosen without gaps, shown oldest first; a tool call
/// and its results are kept or dropped together.
#[derive(Debug, Clone, Copy, Default)]
pub struct EventSource;

/// A tool call with its answers, or a single other event; indexes into `recentEvents`.
struct Unit {
    members: Vec<usize>,
}

impl ContextSource for EventSource {
    fn name(&self) -> &str {
        EVENTS
    }

    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a> {
        let events = &ctx.input.recent_events;
        if events.is_empty() {
            return SourceCandidates::default();
        }
        let mut notes = Notes::new();
        let mut unavailable = 0u64;
        let effective = effective_times(events, ctx.input.constraints.now_ms, &mut notes);

        // Repeated event ids: the first wins.
        let mut alive = vec![true; events.len()];
        let ids: Vec<Option<&str>> = events.iter().map(|e| e.event_id.as_deref()).collect();
        for (i, first) in earlier_duplicates(&ids).into_iter().enumerate() {
            let event = &events[i];
            if !event.event_type.is_known() {
                notes.push_with(|| {
                    format!(
                        "recentEvents[{i}].type: unknown event type {:?}, shown as a plain event",
                        event.event_type.as_str()
                    )
                });
            }
            if let (Some(first), Some(id)) = (first, ids[i]) {
                alive[i] = false;
                unavailable += 1;
                notes.push_with(|| {
                    format!(
                        "recentEvents[{i}].eventId: {id:?} repeats recentEvents[{first}], left out"
                    )
                });
            }
        }

        let mut units = group_units(events, &mut alive, &mut unavailable, &mut notes);
        for unit in &mut units {
            // The call (or the lone event) first, then its answers in time order.
            if let Some(answers) = unit.members.get_mut(1..) {
                answers.sort_by_key(|&i| (effective[i], i));
            }
        }

        let newest = |u: &Unit| {
            u.members
                .iter()
                .map(|&i| effective[i])
                .max()
                .unwrap_or(i64::MIN)
        };
        let oldest = |u: &Unit| {
            u.members
                .iter()
                .map(|&i| effective[i])
                .min()
                .unwrap_or(i64::MIN)
        };
        let key = |u: &Unit| {
            u.members
                .first()
                .and_then(|&i| events[i].event_id.as_deref())
                .unwrap_or("")
        };
        let first = |u: &Unit| u.members.first().copied().unwrap_or(0);

        if let (Some(max_age), Some(now)) = (ctx.input.constraints.max_event_age_ms, ctx.now_ms) {
            units.retain(|u| {
                let age = i128::from(now) - i128::from(newest(u));
                let keep = age <= i128::from(max_age);
                if !keep {
                    unavailable += u.members.len() as u64;
                }
                keep
            });
        }

        // Presentation: chronological, ties by id, then input position.
        let mut by_time: Vec<usize> = (0..units.len()).collect();
        by_time.sort_by(|&a, &b| {
            let (ua, ub) = (&units[a], &units[b]);
            oldest(ua)
                .cmp(&oldest(ub))
                .then_with(|| key(ua).cmp(key(ub)))
                .then(first(ua).cmp(&first(ub)))
        });
        let mut present_rank = vec![0; units.len()];
        for (rank, &u) in by_time.iter().enumerate() {
            present_rank[u] = rank;
        }
        // Selection: newest first (every event scores alike).
        let mut by_recency: Vec<(Rank<'_>, usize)> = units
            .iter()
            .enumerate()
            .map(|(u, unit)| {
                let rank = Rank {
                    score: 0.0,
                    newest: newest(unit),
                    key: key(unit),
                    position: first(unit),
                };
                (rank, u)
            })
            .collect();
        best_first(&mut by_recency);
        let mut members: Vec<Option<Vec<usize>>> =
            units.into_iter().map(|u| Some(u.members)).collect();
        let candidates = by_recency
            .into_iter()
            .map(|(_, u)| {
                let unit = members[u].take().unwrap_or_default();
                Candidate::lazy_group(unit.len() as u64, present_rank[u], move || {
                    unit.iter().map(|&i| message(&events[i])).collect()
                })
            })
            .collect();
        SourceCandidates {
            // Newest first without gaps: an older event is never shown while a newer one is
            // left out, and units past the first that does not fit are never even written.
            contiguous: true,
            ..SourceCandidates::offer(candidates, unavailable, notes)
        }
    }
}

/// Event times for ordering and age: a time after `nowMs` is clock skew, read as "now".
fn effective_times(events: &[RuntimeEvent], now_ms: Option<i64>, notes: &mut Notes) -> Vec<i64> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| match now_ms {
            Some(now) if e.timestamp > now => {
                notes.push_with(|| {
                    format!(
                        "recentEvents[{i}].timestamp: {} is after nowMs {now}, treated as now",
                        e.timestamp
                    )
                });
                now
            }
            _ => e.timestamp,
        })
        .collect()
}

/// Groups live events into units: each tool call with an id collects the results and errors
/// naming that id; answers without a call in the input are marked dead.
fn group_units(
    events: &[RuntimeEvent],
    alive: &mut [bool],
    unavailable: &mut u64,
    notes: &mut Notes,
) -> Vec<Unit> {
    // Calls by id, the first call with an id winning.
    let call_ids: Vec<Option<&str>> = events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (alive[i] && e.event_type == RuntimeEventType::ToolCall)
                .then(|| e.tool_call_id())
                .flatten()
        })
        .collect();
    let repeated = earlier_duplicates(&call_ids);
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of_call: Vec<(&str, usize)> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        if !alive[i] || event.event_type.answers_a_call() {
            continue;
        }
        if let Some(call_id) = call_ids[i] {
            if repeated[i].is_some() {
                alive[i] = false;
                *unavailable += 1;
                notes.push_with(|| {
                    format!("recentEvents[{i}].payload.toolCallId: call {call_id:?} appears earlier, left out")
                });
                continue;
            }
            unit_of_call.push((call_id, units.len()));
        }
        units.push(Unit { members: vec![i] });
    }
    unit_of_call.sort_unstable();
    let unit_of = |id: &str| {
        unit_of_call
            .binary_search_by(|(c, _)| (*c).cmp(id))
            .ok()
            .map(|at| unit_of_call[at].1)
    };
    for (i, event) in events.iter().enumerate() {
        if !alive[i] || !event.event_type.answers_a_call() {
            continue;
        }
        match event.tool_call_id().and_then(unit_of) {
            Some(u) => units[u].members.push(i),
            None => {
                alive[i] = false;
                *unavailable += 1;
                notes.push_with(|| {
                    format!(
                        "recentEvents[{i}]: {} without its tool_call in the input, left out",
                        event.event_type
                    )
                });
            }
        }
    }
    units
}

fn message(event: &RuntimeEvent) -> ContextMessage {
    let (content, cut) = event_text(event);
    let role = match event.event_type {
        RuntimeEventType::ToolCall => MessageRole::Assistant,
        RuntimeEventType::ToolResult | RuntimeEventType::ToolError => MessageRole::Tool,
        _ => MessageRole::User,
    };
    let tool_ids = matches!(role, MessageRole::Assistant | MessageRole::Tool);
    ContextMessage {
        role,
        content,
        tool_call_id: tool_ids
            .then(|| event.tool_call_id().map(str::to_owned))
            .flatten(),
        tool_name: tool_ids
            .then(|| event.tool_name().map(str::to_owned))
            .flatten(),
        metadata: Some(MessageMetadata {
            source: Some(format!("event:{}", event.event_type)),
            priority: Some(priority(&event.event_type)),
            original_size: None,
            truncated: cut,
        }),
    }
}

/// How much each kind of event matters, errors most, reported in metadata.
fn priority(event_type: &RuntimeEventType) -> f64 {
    match event_type {
        RuntimeEventType::ToolError => 1.0,
        RuntimeEventType::UserInterruption => 0.9,
        RuntimeEventType::ExecutionResult => 0.7,
        RuntimeEventType::ToolResult => 0.6,
        RuntimeEventType::ToolCall => 0.5,
        RuntimeEventType::AgentSwitch => 0.4,
        RuntimeEventType::Checkpoint => 0.3,
        RuntimeEventType::Other(_) => 0.5,
    }
}
