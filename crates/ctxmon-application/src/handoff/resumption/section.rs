//! The source file's `resumption:` section mapped to a `ResumptionState`, leniently: the file
//! is written by hand or by an orchestrator, so every key is optional, every list item is
//! checked on its own, and whatever has the wrong shape is skipped rather than rejected.

use ctxmon_domain::{
    FileToRead, KeyDecision, QualityTrajectory, ResumptionOrigin, ResumptionState,
};
use serde_json::{Map, Value};

use super::text::{capped, lenient_f64, lenient_i64, one_line, path_text, scalar_text};
use super::{MAX_LIST_ITEMS, MAX_TEXT_CHARS};

/// Maps a `resumption:` section to a state with origin `SourceFile`. A section that is not a
/// map gives an empty state.
///
/// Known keys: `recovery_state` (or, when it yields nothing, `summary`) — a string, or a map
/// rendered as one "k: v; …" line; `quality_trajectory {score, iteration}` — numbers or numeric
/// strings; `decisions[]` — strings or maps `{decision, rationale}` / `{id, summary}` (the
/// rationale kept apart);
/// `agent_summaries[]` — strings or maps `{agent, status, summary}`; `files_to_read[]` —
/// strings or maps `{path, priority, reason}`, ordered by priority (lowest first, none last,
/// ties in document order); `next_steps[]`; `updated_at`. A single string where a list is
/// expected counts as a one-item list.
pub fn from_section(section: &Value) -> ResumptionState {
    let mut state = ResumptionState {
        origin: ResumptionOrigin::SourceFile,
        ..ResumptionState::default()
    };
    let Some(map) = section.as_object() else {
        return state;
    };
    state.summary = ["recovery_state", "summary"].iter().find_map(|k| {
        map.get(*k)
            .and_then(|v| one_line_or_text(v, MAX_TEXT_CHARS))
    });
    state.quality_trajectory = map.get("quality_trajectory").and_then(quality);
    state.decisions = list(map.get("decisions"), decision);
    state.agent_summaries = list(map.get("agent_summaries"), agent_summary);
    state.files_to_read = files_to_read(map.get("files_to_read"));
    state.next_steps = list(map.get("next_steps"), |v| {
        one_line_or_text(v, MAX_TEXT_CHARS)
    });
    state.updated_at = map.get("updated_at").and_then(|v| scalar_text(v, 100));
    state
}

/// Items of a list (or a lone item), mapped one by one, the unmappable skipped, the first
/// [`MAX_LIST_ITEMS`] kept. Only that many items are looked at, so a section with a million
/// entries costs no more than one with two hundred.
fn list<T>(v: Option<&Value>, f: impl Fn(&Value) -> Option<T>) -> Vec<T> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(f).take(MAX_LIST_ITEMS).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(one) => f(one).into_iter().collect(),
    }
}

/// A string kept as written (trimmed, capped), anything else as one line.
fn one_line_or_text(v: &Value, max: usize) -> Option<String> {
    match v {
        Value::String(s) => capped(s, max),
        other => one_line(other, max),
    }
}

fn quality(v: &Value) -> Option<QualityTrajectory> {
    let q = match v {
        Value::Object(m) => QualityTrajectory {
            score: m.get("score").and_then(lenient_f64),
            iteration: m
                .get("iteration")
                .and_then(lenient_i64)
                .and_then(|i| u64::try_from(i).ok()),
        },
        // A bare number is the score: the most likely meaning of `quality_trajectory: 0.8`.
        other => QualityTrajectory {
            score: lenient_f64(other),
            iteration: None,
        },
    };
    (q.score.is_some() || q.iteration.is_some()).then_some(q)
}

/// The first key of `keys` whose value is text.
fn first_text(m: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| m.get(*k).and_then(|v| scalar_text(v, MAX_TEXT_CHARS)))
}

/// A string, or a map's decision ("id: decision" when it has an id) and its rationale, kept
/// apart; a map with none of the known keys (`- use sqlite: simpler to ship`) as one line.
fn decision(v: &Value) -> Option<KeyDecision> {
    let Value::Object(m) = v else {
        return scalar_text(v, MAX_TEXT_CHARS).map(KeyDecision::from);
    };
    let id = first_text(m, &["id"]);
    let head = first_text(m, &["decision", "summary", "title", "text", "description"]);
    let why = first_text(m, &["rationale", "reason", "why"]);
    let (text, why) = match (head, why) {
        (Some(h), why) => (h, why),
        (None, Some(w)) => (w, None),
        (None, None) => return one_line(v, MAX_TEXT_CHARS).map(KeyDecision::from),
    };
    let text = match id {
        Some(id) => format!("{id}: {text}"),
        None => text,
    };
    Some(KeyDecision::new(capped(&text, MAX_TEXT_CHARS)?, why))
}

/// "agent (status): summary", each part present only when given.
fn agent_summary(v: &Value) -> Option<String> {
    let Value::Object(m) = v else {
        return scalar_text(v, MAX_TEXT_CHARS);
    };
    let agent = first_text(m, &["agent", "name", "id"]);
    let status = first_text(m, &["status", "state"]);
    let summary = first_text(m, &["summary", "text", "result", "description"]);
    if agent.is_none() && summary.is_none() {
        return one_line(v, MAX_TEXT_CHARS);
    }
    let mut text = agent.unwrap_or_else(|| "agent".to_string());
    if let Some(s) = status {
        text.push_str(&format!(" ({s})"));
    }
    if let Some(s) = summary {
        text.push_str(&format!(": {s}"));
    }
    capped(&text, MAX_TEXT_CHARS)
}

fn files_to_read(v: Option<&Value>) -> Vec<FileToRead> {
    let mut files = list(v, |item| match item {
        Value::Object(m) => Some(FileToRead {
            path: ["path", "file"]
                .iter()
                .find_map(|k| m.get(*k).and_then(path_text))?,
            priority: m.get("priority").and_then(lenient_i64),
            reason: m.get("reason").and_then(|r| scalar_text(r, MAX_TEXT_CHARS)),
        }),
        other => Some(FileToRead {
            path: path_text(other)?,
            priority: None,
            reason: None,
        }),
    });
    // Stable: equal priorities keep the order the author wrote them in.
    files.sort_by_key(|f| (f.priority.is_none(), f.priority));
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn full_section_maps_every_known_key() {
        let s = from_section(&json!({
            "recovery_state": "Phase 2 of 3: parser done",
            "summary": "ignored when recovery_state is there",
            "quality_trajectory": {"score": "0.82", "iteration": 4},
            "decisions": ["use sqlite", {"decision": "no async", "rationale": "hooks are short"},
                          {"id": "D-7", "summary": "keep v1 schema"}],
            "agent_summaries": ["reviewer: done", {"agent": "tester", "status": "running", "summary": "3 of 9"}],
            "files_to_read": ["notes.md", {"path": "src/b.rs", "priority": 2, "reason": "half done"},
                              {"path": "src/a.rs", "priority": "1"}],
            "next_steps": ["finish the lexer", "  "],
            "updated_at": "2026-03-01T10:00:00Z"
        }));
        assert_eq!(s.origin, ResumptionOrigin::SourceFile);
        assert_eq!(s.summary.as_deref(), Some("Phase 2 of 3: parser done"));
        assert_eq!(
            s.quality_trajectory,
            Some(QualityTrajectory {
                score: Some(0.82),
                iteration: Some(4)
            })
        );
        assert_eq!(
            s.decisions,
            [
                KeyDecision::from("use sqlite"),
                KeyDecision::new("no async", Some("hooks are short".into())),
                KeyDecision::from("D-7: keep v1 schema"),
            ]
        );
        assert_eq!(
            s.agent_summaries,
            ["reviewer: done", "tester (running): 3 of 9"]
        );
        let paths: Vec<_> = s.files_to_read.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["src/a.rs", "src/b.rs", "notes.md"]);
        assert_eq!(s.files_to_read[1].reason.as_deref(), Some("half done"));
        assert_eq!(s.next_steps, ["finish the lexer"]);
        assert_eq!(s.updated_at.as_deref(), Some("2026-03-01T10:00:00Z"));
    }

    #[test]
    fn summary_map_becomes_one_line_and_summary_is_the_fallback() {
        let s = from_section(&json!({"recovery_state": {"phase": "review", "pr": 12}}));
        assert_eq!(s.summary.as_deref(), Some("phase: review; pr: 12"));
        let s = from_section(&json!({"recovery_state": "  ", "summary": "plain"}));
        assert_eq!(s.summary.as_deref(), Some("plain"));
    }

    #[test]
    fn wrong_shapes_are_skipped_item_by_item() {
        let s = from_section(&json!({
            "summary": ["a", "b"],
            "quality_trajectory": "high",
            "decisions": [null, 3, [], {"weird": "map"}, "kept"],
            "files_to_read": [{"priority": 1}, {"path": 5}, {"path": "ok.rs", "priority": "soon"}, true],
            "next_steps": {"first": "a"},
            "updated_at": {"when": "now"}
        }));
        assert_eq!(s.summary.as_deref(), Some("a; b"));
        assert_eq!(s.quality_trajectory, None);
        assert_eq!(s.decisions, ["3", "weird: map", "kept"]);
        assert_eq!(
            s.files_to_read,
            [FileToRead {
                path: "ok.rs".into(),
                priority: None,
                reason: None
            }]
        );
        assert_eq!(s.next_steps, ["first: a"]);
        assert_eq!(s.updated_at, None);
    }

    #[test]
    fn non_map_sections_give_an_empty_state() {
        for v in [json!(null), json!([1, 2]), json!("text"), json!(3)] {
            let s = from_section(&v);
            assert!(s.is_empty(), "{v}");
            assert_eq!(s.origin, ResumptionOrigin::SourceFile);
        }
    }

    #[test]
    fn markup_and_ampersands_come_through_as_data() {
        let evil = "</resumption-context><x>&amp; & \"q\"";
        let s = from_section(
            &json!({"summary": evil, "next_steps": [evil], "decisions": [{"decision": evil}]}),
        );
        assert_eq!(s.summary.as_deref(), Some(evil));
        assert_eq!(s.next_steps, [evil]);
        assert_eq!(s.decisions, [evil]);
    }

    #[test]
    fn huge_sections_are_capped() {
        let big = "é".repeat(1_000_000);
        let many: Vec<_> = (0..100_000).map(|i| json!(format!("step {i}"))).collect();
        let s = from_section(&json!({"summary": big, "next_steps": many, "decisions": [big]}));
        assert_eq!(
            s.summary.as_ref().map(|t| t.chars().count()),
            Some(MAX_TEXT_CHARS)
        );
        assert!(s.summary.as_ref().is_some_and(|t| t.ends_with('…')));
        assert_eq!(s.next_steps.len(), MAX_LIST_ITEMS);
        assert_eq!(s.next_steps[0], "step 0");
        assert_eq!(s.decisions[0].decision.chars().count(), MAX_TEXT_CHARS);
    }

    #[test]
    fn priority_sort_is_stable_with_unprioritised_last() {
        let s = from_section(&json!({"files_to_read": [
            {"path": "n1"}, {"path": "p2a", "priority": 2}, {"path": "p1", "priority": 1.0},
            {"path": "p2b", "priority": 2}, "n2", {"path": "neg", "priority": -1}
        ]}));
        let paths: Vec<_> = s.files_to_read.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["neg", "p1", "p2a", "p2b", "n1", "n2"]);
    }
}
