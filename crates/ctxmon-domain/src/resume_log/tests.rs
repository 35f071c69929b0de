//! Resume-log rendering and serialisation: the layout, the budgets, the round-trip.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::estimate_tokens;

fn metrics() -> ContextMetrics {
    ContextMetrics::new(
        200_000,
        170_000,
        "pre_compact",
        "claude-sonnet-4-5",
        Timestamp(1_795_000_000_000),
    )
}

pub(super) fn sample() -> ResumeLog {
    let mut log = ResumeLog::new("s-1", metrics());
    log.mission_summary = "Implement resume logs.".into();
    log.accomplishments = vec!["Domain types".into(), "Rendering".into()];
    log.key_findings = vec!["serde_json floats need care".into()];
    log.decisions = vec![Decision {
        decision: "Round percentages".into(),
        rationale: "Exact JSON round-trips".into(),
    }];
    log.next_steps = vec!["Write the store".into()];
    log.critical_context = BTreeMap::from([("store".into(), ".ctxmon/resume-logs".into())]);
    log.metadata.trigger = "pre_compact".into();
    log.metadata.files_modified = vec!["src/a.rs".into()];
    log
}

#[test]
fn metrics_are_derived_and_rounded() {
    let m = ContextMetrics::new(200_000, 170_001, "x", "m", Timestamp(0));
    assert_eq!(m.percentage_used, 85.0);
    assert_eq!(m.remaining_tokens, 29_999);
    assert_eq!(
        ContextMetrics::new(0, 5, "x", "m", Timestamp(0)).percentage_used,
        0.0
    );
    assert_eq!(round_percent(f64::NAN), 0.0);
    assert_eq!(round_percent(12.345_678), 12.34);
    assert_eq!(round_percent(99.999_5), 99.99);
    assert_eq!(round_percent(round_percent(57.0)), 57.0);
}

#[test]
fn layout_follows_the_seed() {
    let md = sample().to_markdown();
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(headings, HEADINGS);
    assert!(md.contains("- Used: 170,000 tokens (85%)"), "{md}");
    assert!(md.contains("1. Round percentages\n   - Rationale: Exact JSON round-trips"));
    assert!(md.contains("- **store:** .ctxmon/resume-logs"));
    assert!(md.ends_with("- src/a.rs\n"), "{md}");
}

#[test]
fn the_session_duration_is_shown_when_both_times_are_known() {
    let mut log = sample();
    log.metadata.started_at = Some("2026-11-20T08:00:00.000Z".into());
    log.metadata.last_activity_at = Some("2026-11-20T10:34:59.000Z".into());
    assert!(
        log.to_markdown().contains(
            "- Session Duration: 2 h 34 min (2026-11-20T08:00:00.000Z to 2026-11-20T10:34:59.000Z)\n"
        ),
        "{}",
        log.to_markdown()
    );
    // A time that does not parse, or an end before the start, shows nothing and is not kept.
    for (start, end) in [
        ("yesterday", "2026-11-20T10:00:00Z"),
        ("2026-11-20T10:00:00Z", "2026-11-20T09:00:00Z"),
    ] {
        log.metadata.started_at = Some(start.into());
        log.metadata.last_activity_at = Some(end.into());
        assert!(!log.to_markdown().contains("Session Duration"));
        let mut fitted = log.clone();
        fitted.fit_to_budget();
        assert_eq!(
            (fitted.metadata.started_at, fitted.metadata.last_activity_at),
            (None, None)
        );
    }
}

#[test]
fn empty_sections_say_so() {
    let md = ResumeLog::new("", ContextMetrics::default()).to_markdown();
    assert!(md.starts_with("# Session Resume Log: (no session id)\n"));
    assert_eq!(md.matches("_None recorded._").count(), 7, "{md}");
}

#[test]
fn hostile_text_stays_inside_its_item_and_off_the_terminal() {
    let mut log = sample();
    log.next_steps = vec!["line one\r\n## Not a heading\n\x1b[31mred".into()];
    log.session_id = "a\nb".into();
    let md = log.to_markdown();
    assert!(
        md.contains("- [ ] line one\n      ## Not a heading\n      \u{FFFD}[31mred\n"),
        "{md}"
    );
    assert!(md.starts_with("# Session Resume Log: a b\n"));
    assert!(!md.contains('\x1b'));
}

/// Markdown that would open headings, a rule, a setext heading, a fence and a comment at the
/// top level of the document.
const HOSTILE_MD: &str =
    "# Task\nFix the login\n## Next Steps\n1. add test\n\n---\nSetext\n===\n```\n<!-- open";

const HEADINGS: [&str; 9] = [
    "# Session Resume Log: s-1",
    "## Context Metrics",
    "## Mission Summary",
    "## Accomplishments",
    "## Key Findings",
    "## Decisions & Rationale",
    "## Next Steps",
    "## Critical Context",
    "## Session Metadata",
];

#[test]
fn free_text_cannot_create_headings_or_break_structure() {
    let mut log = sample();
    log.mission_summary = HOSTILE_MD.into();
    log.accomplishments = vec![HOSTILE_MD.into()];
    log.key_findings = vec![HOSTILE_MD.into()];
    log.decisions = vec![Decision {
        decision: HOSTILE_MD.into(),
        rationale: HOSTILE_MD.into(),
    }];
    log.next_steps = vec![HOSTILE_MD.into()];
    log.critical_context.insert("ctx".into(), HOSTILE_MD.into());
    // Nested keys and values too, at every level and in lists.
    let nested = ContextValue::Map(BTreeMap::from([
        (HOSTILE_MD.to_string(), HOSTILE_MD.into()),
        (
            "list".to_string(),
            ContextValue::List(vec![
                HOSTILE_MD.into(),
                ContextValue::Map(BTreeMap::from([(
                    HOSTILE_MD.to_string(),
                    HOSTILE_MD.into(),
                )])),
            ]),
        ),
    ]));
    log.critical_context.insert(HOSTILE_MD.into(), nested);
    log.metadata.notes.insert("note".into(), HOSTILE_MD.into());
    log.metadata.errors = vec![HOSTILE_MD.into()];
    log.metadata.commands_run = vec![HOSTILE_MD.into()];
    let md = log.to_markdown();
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(headings, HEADINGS, "{md}");
    for line in md.lines() {
        for opener in ["---", "===", "```", "<!--", "Fix the", "Setext", "1. add"] {
            assert!(
                !line.starts_with(opener),
                "{line:?} is at the top level:\n{md}"
            );
        }
    }
    // The mission is a quote of the text as written.
    assert!(
        md.contains(
            "## Mission Summary\n\n> # Task\n> Fix the login\n> ## Next Steps\n> 1. add test\n>\n> ---\n> Setext\n> ===\n> ```\n> <!-- open\n\n## Accomplishments"
        ),
        "{md}"
    );
}

#[test]
fn a_fitted_log_holds_no_more_than_its_markdown_shows() {
    let mut log = sample();
    log.mission_summary = "The mission is long. ".repeat(3_000);
    log.key_findings = (0..300)
        .map(|i| format!("Finding {i}: {}", "detail ".repeat(140)))
        .collect();
    log.critical_context = (0..300)
        .map(|i| (format!("key {i:03}"), "v".repeat(1_000).into()))
        .collect();
    log.metadata.notes = (0..300)
        .map(|i| (format!("note {i:03}"), "n ".repeat(500)))
        .collect();
    log.metadata.files_modified = (0..300).map(|i| format!("src/file_{i}.rs")).collect();
    assert!(serde_json::to_string(&log).unwrap().len() > 900_000);
    let md = log.to_markdown();

    let mut fitted = log.clone();
    fitted.fit_to_budget();
    let json = serde_json::to_string(&fitted).unwrap();
    assert!(
        json.len() <= md.len() + 4_000,
        "JSON {} bytes, markdown {}",
        json.len(),
        md.len()
    );
    // The same log: its markdown is the original's, and every datum kept is in it.
    assert_eq!(fitted.to_markdown(), md);
    assert!(md.contains(&format!("> {}\n", fitted.mission_summary)));
    assert!(fitted.mission_summary.ends_with("long."));
    for f in &fitted.key_findings {
        assert!(md.contains(&format!("- {f}\n")), "{f}");
    }
    for (k, v) in &fitted.critical_context {
        let v = v.as_str().unwrap();
        assert!(md.contains(&format!("- **{k}:** {v}")), "{k}");
    }
    for (k, v) in &fitted.metadata.notes {
        assert!(md.contains(&format!("- **{k}:** {v}")), "{k}");
    }
    for f in &fitted.metadata.files_modified {
        assert!(md.contains(&format!("- {f}\n")), "{f}");
    }
    assert!(!fitted.key_findings.is_empty() && fitted.key_findings.len() < 300);
    // What was left out is counted, and the marker says so.
    for key in ["mission_summary", "key_findings", "critical_context"] {
        let n = fitted.omitted_tokens[key];
        assert!(n > 1_000, "{key}: {n}");
        assert!(
            md.contains(&format!(
                "… [truncated: {} omitted]",
                crate::human::tokens(n)
            )),
            "{key}"
        );
    }
    let mut again = fitted.clone();
    again.fit_to_budget();
    assert_eq!(again, fitted, "fitting is idempotent");
    assert_eq!(serde_json::from_str::<ResumeLog>(&json).unwrap(), fitted);
}

/// `log` with every section but the key findings far over its budget, so the findings get
/// their own share and (almost) nothing more.
fn others_full(mut log: ResumeLog) -> ResumeLog {
    let long = |i: usize| format!("Item {i} is long. {}", "word ".repeat(400));
    log.mission_summary = long(0).repeat(10);
    log.accomplishments = (0..40).map(long).collect();
    log.decisions = (0..40)
        .map(|i| Decision {
            decision: long(i),
            rationale: long(i),
        })
        .collect();
    log.next_steps = (0..40).map(long).collect();
    log.critical_context = (0..40)
        .map(|i| (format!("k{i:02}"), long(i).into()))
        .collect();
    log.metadata.commands_run = (0..40).map(long).collect();
    log
}

#[test]
fn the_item_that_does_not_fit_keeps_its_whole_sentences() {
    let mut log = others_full(sample());
    // Nine items fill about 90% of the findings' room; the tenth has room for a few sentences.
    log.key_findings = (0..9)
        .map(|i| format!("{i} {}", "x".repeat(1_080)))
        .collect();
    log.key_findings
        .push("First point. Second point. ".repeat(100));
    let md = log.to_markdown();
    let mut fitted = log.clone();
    fitted.fit_to_budget();
    assert_eq!(fitted.key_findings.len(), 10);
    let last = &fitted.key_findings[9];
    assert!(last.ends_with("point.") && last.len() > 100, "{last}");
    assert!(md.contains(&format!("- {last}\n\n… [truncated: ")), "{md}");
    // Without a sentence end in its room, it goes whole rather than mid-sentence.
    log.key_findings[9] = "word ".repeat(400);
    let mut fitted = log.clone();
    fitted.fit_to_budget();
    assert_eq!(fitted.key_findings.len(), 9);
}

#[test]
fn oversized_sections_are_truncated_with_a_marker() {
    let mut log = sample();
    log.key_findings = (0..2_000)
        .map(|i| format!("Finding {i} is a full sentence."))
        .collect();
    let rendered = log.render();
    let findings = &rendered.sections[3];
    assert_eq!(findings.section, ResumeLogSection::KeyFindings);
    // The other sections leave most of their shares unused: the findings get them.
    assert!(findings.tokens > ResumeLogSection::KeyFindings.budget());
    assert!(
        rendered.total_tokens().get() > 9_900,
        "{}",
        rendered.total_tokens()
    );
    assert!(findings.omitted_tokens > 0);
    assert!(
        findings.text.contains("sentence.\n\n… [truncated: "),
        "{}",
        findings.text
    );
    assert!(rendered.total_tokens() <= ResumeLogSection::TOTAL_BUDGET);
}

#[test]
fn json_round_trips_and_drafts_reject_unknown_fields() {
    let log = sample();
    let json = serde_json::to_string(&log).unwrap();
    assert_eq!(serde_json::from_str::<ResumeLog>(&json).unwrap(), log);
    let err = serde_json::from_str::<ResumeLogDraft>(r#"{"next_step":["x"]}"#).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `next_step`"),
        "{err}"
    );
    let err =
        serde_json::from_str::<ResumeLogDraft>(r#"{"decisions":[{"decision":"a","why":"b"}]}"#)
            .unwrap_err();
    assert!(err.to_string().contains("unknown field `why`"), "{err}");
    let err =
        serde_json::from_str::<ResumeLogDraft>(r#"{"context_metrics":{"used":1}}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `used`"), "{err}");
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,40}",
        any::<String>(),
        "([A-Za-z]{1,12}[ .!?\n]){0,200}",
        (1usize..12_000).prop_map(|n| "x".repeat(n)),
    ]
}

fn list() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 0..24)
}

fn map() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map(text(), text(), 0..12)
}

/// Any critical-context value: text, numbers and the like, nested lists and maps.
pub(super) fn context_value() -> impl Strategy<Value = ContextValue> {
    let leaf = prop_oneof![
        4 => text().prop_map(ContextValue::Text),
        1 => any::<i64>().prop_map(ContextValue::Integer),
        1 => any::<bool>().prop_map(ContextValue::Bool),
        1 => Just(ContextValue::Null),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(ContextValue::List),
            prop::collection::btree_map(text(), inner, 0..6).prop_map(ContextValue::Map),
        ]
    })
}

pub(super) fn context() -> impl Strategy<Value = BTreeMap<String, ContextValue>> {
    prop::collection::btree_map(text(), context_value(), 0..12)
}

fn reported() -> impl Strategy<Value = Option<ReportedMetrics>> {
    proptest::option::of(
        (
            proptest::option::of(any::<u64>()),
            proptest::option::of(any::<u64>()),
            proptest::option::of(0u64..20_000),
            proptest::option::of(text()),
            proptest::option::of(text()),
        )
            .prop_map(|(total, used, hundredths, stop, model)| ReportedMetrics {
                total_budget: total,
                used_tokens: used,
                percentage_used: hundredths.map(|h| h as f64 / 100.0),
                remaining_tokens: total.zip(used).map(|(t, u)| t.saturating_sub(u)),
                stop_reason: stop,
                model,
                timestamp: None,
            }),
    )
}

prop_compose! {
    pub(super) fn any_log()(
        session_id in text(),
        total in any::<u64>(),
        used in any::<u64>(),
        model in text(),
        stop in text(),
        at in any::<i64>(),
        mission in text(),
        accomplishments in list(),
        key_findings in list(),
        decisions in prop::collection::vec((text(), text()), 0..20),
        next_steps in list(),
        critical in context(),
        files in list(),
        commands in list(),
        errors in list(),
        notes in map(),
        branch in proptest::option::of(text()),
        times in proptest::option::of((0i64..4_000_000_000_000, 0i64..400_000_000)),
        agent in reported(),
        minutes in proptest::option::of(any::<u64>()),
    ) -> ResumeLog {
        let mut log = ResumeLog::new(session_id, ContextMetrics::new(total, used, stop, model, Timestamp(at / 1000)));
        log.mission_summary = mission;
        log.accomplishments = accomplishments;
        log.key_findings = key_findings;
        log.decisions = decisions.into_iter().map(|(decision, rationale)| Decision { decision, rationale }).collect();
        log.next_steps = next_steps;
        log.critical_context = critical;
        log.metadata.files_modified = files;
        log.metadata.commands_run = commands;
        log.metadata.errors = errors;
        log.metadata.notes = notes;
        log.metadata.git_branch = branch;
        log.agent_metrics = agent;
        log.metadata.session_duration_minutes = minutes;
        if let Some((start, length)) = times {
            log.metadata.started_at = Some(Timestamp(start).to_rfc3339());
            log.metadata.last_activity_at = Some(Timestamp(start + length).to_rfc3339());
        }
        log
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_log_renders_within_budget(log in any_log()) {
        let rendered = log.render();
        prop_assert_eq!(rendered.sections.len(), ResumeLogSection::ALL.len());
        for s in &rendered.sections {
            prop_assert_eq!(s.tokens, estimate_tokens(&s.text));
        }
        // The metrics never borrow: a few capped lines.
        prop_assert!(rendered.sections[0].tokens <= ResumeLogSection::ContextMetrics.budget());
        let md = rendered.markdown();
        prop_assert!(estimate_tokens(&md) <= ResumeLogSection::TOTAL_BUDGET);
        prop_assert_eq!(estimate_tokens(&md), rendered.total_tokens());
    }

    #[test]
    fn json_round_trips_exactly(log in any_log()) {
        let json = serde_json::to_string(&log).unwrap();
        let back: ResumeLog = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &log);
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn fitting_changes_no_markdown_and_keeps_only_what_it_shows(log in any_log()) {
        let md = log.to_markdown();
        let mut fitted = log.clone();
        fitted.fit_to_budget();
        prop_assert_eq!(&fitted.to_markdown(), &md);
        let mut again = fitted.clone();
        prop_assert_eq!(again.fit_and_render(), log.render());
        prop_assert_eq!(&again, &fitted);
        // Every text kept is shown (the session id, the log's identity, is kept whole).
        let shown = md.chars().count() + fitted.session_id.chars().count();
        prop_assert!(text_chars(&fitted) <= shown, "{} > {}", text_chars(&fitted), shown);
        let json = serde_json::to_string(&fitted).unwrap();
        prop_assert_eq!(serde_json::from_str::<ResumeLog>(&json).unwrap(), fitted);
    }

    #[test]
    fn markdown_is_deterministic(log in any_log()) {
        prop_assert_eq!(log.to_markdown(), log.clone().to_markdown());
    }
}

/// Characters of every text a log holds.
fn text_chars(log: &ResumeLog) -> usize {
    let n = |s: &str| s.chars().count();
    let m = &log.context_metrics;
    let meta = &log.metadata;
    let lists = [
        &log.accomplishments,
        &log.key_findings,
        &log.next_steps,
        &meta.sources,
        &meta.files_modified,
        &meta.files_modified_by_subagents,
        &meta.git_dirty_files,
        &meta.commands_run,
        &meta.errors,
        &meta.agents_used,
    ];
    n(&m.model)
        + n(&m.stop_reason)
        + n(&m.timestamp)
        + n(&log.mission_summary)
        + lists
            .iter()
            .flat_map(|l| l.iter())
            .map(|s| n(s))
            .sum::<usize>()
        + log
            .decisions
            .iter()
            .map(|d| n(&d.decision) + n(&d.rationale))
            .sum::<usize>()
        + context_chars(&log.critical_context)
        + meta.notes.iter().map(|(k, v)| n(k) + n(v)).sum::<usize>()
        + log.agent_metrics.as_ref().map_or(0, |a| {
            [&a.model, &a.stop_reason, &a.timestamp]
                .into_iter()
                .flatten()
                .map(|t| n(t))
                .sum()
        })
        + n(&meta.trigger)
        + meta.transcript_path.as_deref().map_or(0, n)
        + meta.git_branch.as_deref().map_or(0, n)
        + meta.git_head.as_deref().map_or(0, n)
        + meta.started_at.as_deref().map_or(0, n)
        + meta.last_activity_at.as_deref().map_or(0, n)
}

/// Characters of the keys and scalar texts of a critical context.
fn context_chars(map: &BTreeMap<String, ContextValue>) -> usize {
    map.iter()
        .map(|(k, v)| k.chars().count() + value_chars(v))
        .sum()
}

fn value_chars(v: &ContextValue) -> usize {
    match v {
        ContextValue::List(items) => items.iter().map(value_chars).sum(),
        ContextValue::Map(map) => context_chars(map),
        scalar => scalar.scalar_text().map_or(0, |t| t.chars().count()),
    }
}

#[test]
fn a_log_names_the_checkpoint_it_drew_on() {
    let mut log = sample();
    assert_eq!(log.named_checkpoints(), vec![]);
    log.metadata.sources = vec!["agent document".into(), "checkpoint cx-004".into()];
    log.critical_context.insert(
        "checkpoint".into(),
        "cx-004 (compaction 2 of this session, 83% full; `ctxmon checkpoint show cx-004`)".into(),
    );
    assert_eq!(
        log.named_checkpoints(),
        CheckpointId::new(4).into_iter().collect::<Vec<_>>()
    );
    // A hand-edited log may disagree with itself: both are named. Other text is not an id.
    log.critical_context
        .insert("checkpoint".into(), "cx-002".into());
    log.metadata.sources.push("checkpoint cx-1;rm".into());
    log.metadata.sources.push("transcript cx-009".into());
    assert_eq!(
        log.named_checkpoints(),
        [2, 4]
            .iter()
            .filter_map(|&n| CheckpointId::new(n))
            .collect::<Vec<_>>()
    );
}
