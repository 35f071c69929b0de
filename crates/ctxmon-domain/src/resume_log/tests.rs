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

fn sample() -> ResumeLog {
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
    assert_eq!(
        headings,
        [
            "# Session Resume Log: s-1",
            "## Context Metrics",
            "## Mission Summary",
            "## Accomplishments",
            "## Key Findings",
            "## Decisions & Rationale",
            "## Next Steps",
            "## Critical Context",
            "## Session Metadata",
        ]
    );
    assert!(md.contains("- Used: 170,000 tokens (85.0%)"), "{md}");
    assert!(md.contains("1. Round percentages\n   - Rationale: Exact JSON round-trips"));
    assert!(md.contains("- **store:** .ctxmon/resume-logs"));
    assert!(md.ends_with("- src/a.rs\n"), "{md}");
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

#[test]
fn oversized_sections_are_truncated_with_a_marker() {
    let mut log = sample();
    log.key_findings = (0..2_000)
        .map(|i| format!("Finding {i} is a full sentence."))
        .collect();
    let rendered = log.render();
    let findings = &rendered.sections[3];
    assert_eq!(findings.section, ResumeLogSection::KeyFindings);
    assert!(findings.tokens <= ResumeLogSection::KeyFindings.budget());
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

prop_compose! {
    fn any_log()(
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
        critical in map(),
        files in list(),
        commands in list(),
        errors in list(),
        notes in map(),
        branch in proptest::option::of(text()),
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
            prop_assert!(s.tokens <= s.section.budget(), "{:?}: {} > {}", s.section, s.tokens, s.section.budget());
            prop_assert_eq!(s.tokens, estimate_tokens(&s.text));
        }
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
    fn markdown_is_deterministic(log in any_log()) {
        prop_assert_eq!(log.to_markdown(), log.clone().to_markdown());
    }
}
