//! The agent's document in the resume log's JSON format: every field lands in the log, the
//! agent's figures beside ctxmon's measurement, never instead of it.

use serde_json::{Value, json};

use super::*;

/// An agent's document in the resume log's JSON format, with every section, nested critical
/// context and the agent's own figures.
const EXAMPLE_DOCUMENT: &str =
    include_str!("../../../../../fixtures/resume-logs/agent-document.json");

/// Every leaf of a JSON value: strings, numbers and booleans (an empty list has none).
fn leaves(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| leaves(v, out)),
        leaf => out.push(leaf.clone()),
    }
}

/// How the markdown writes a number: with thousands separators (`200,000`), a percentage as a
/// whole percent rounded down (`85%`), or as written.
fn number_forms(n: &serde_json::Number) -> Vec<String> {
    let mut forms = vec![n.to_string()];
    if let Some(u) = n.as_u64() {
        let digits = u.to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        forms.push(grouped);
    }
    if let Some(f) = n.as_f64() {
        forms.push(ctxmon_domain::human::percent_of_100(f));
    }
    forms
}

#[test]
fn every_field_of_the_example_document_is_in_the_markdown() {
    let w = World::new();
    let example: Value = serde_json::from_str(EXAMPLE_DOCUMENT).unwrap();
    let agent: ResumeLogDraft = serde_json::from_value(example.clone()).unwrap();
    let generated = w.now(Some(&agent)).generated;
    let md = generated.rendered.markdown();
    let mut all = Vec::new();
    leaves(&example, &mut all);
    assert!(all.len() > 25, "{all:?}");
    for leaf in all {
        let forms = match &leaf {
            Value::String(s) => vec![s.clone()],
            Value::Number(n) => number_forms(n),
            other => vec![other.to_string()],
        };
        assert!(
            forms.iter().any(|f| md.contains(f.as_str())),
            "{leaf} is not in the markdown:\n{md}"
        );
    }
    // The keys of the nested critical context label their entries.
    for key in [
        "file_paths",
        "auth_service",
        "important_ids",
        "environment_variables",
    ] {
        assert!(md.contains(&format!("**{key}:**")), "{key}\n{md}");
    }
}

#[test]
fn the_agents_figures_are_shown_beside_the_measurement() {
    let w = World::new();
    let agent: ResumeLogDraft = serde_json::from_str(EXAMPLE_DOCUMENT).unwrap();
    let outcome = w.now(Some(&agent));
    let (log, md) = (
        &outcome.generated.log,
        outcome.generated.rendered.markdown(),
    );
    // ctxmon measured 170,000 of the 200,000 default window from the transcript's usage.
    assert_eq!(log.context_metrics.used_tokens, 170_000);
    assert_eq!(log.context_metrics.stop_reason, "manual");
    let reported = log.agent_metrics.as_ref().unwrap();
    assert_eq!(reported.stop_reason.as_deref(), Some("end_turn"));
    assert!(md.contains(
        "- Stop Reason: manual\n\nAs the agent reported them (not measured by ctxmon):\n"
    ));
    // The log is for this session (s1); the document named another, and the log says so.
    assert_eq!(log.session_id, "s1");
    assert_eq!(
        log.metadata.notes["session_id in the agent's document"],
        "20251101_115000"
    );
    assert_eq!(log.metadata.session_duration_minutes, Some(154));
    // What is stored reads back as it was.
    let stored = w.store.load(&SessionKey::from_raw("s1")).unwrap().unwrap();
    assert_eq!(&stored.log, log);
}

#[test]
fn a_metadata_list_over_the_cap_keeps_its_newest_entries_and_counts_the_rest() {
    let w = World::new();
    let commands: Vec<String> = (0..250)
        .map(|i| format!("cargo test --test t{i}"))
        .collect();
    let agent: ResumeLogDraft =
        serde_json::from_value(json!({"metadata": {"commands_run": commands}})).unwrap();
    let outcome = w.now(Some(&agent));
    let (log, md) = (
        &outcome.generated.log,
        outcome.generated.rendered.markdown(),
    );
    // The agent's 250, then the transcript's one: the newest 200 are kept.
    assert_eq!(log.metadata.commands_run.len(), 200);
    assert_eq!(log.metadata.commands_run[0], "cargo test --test t51");
    assert_eq!(log.metadata.commands_run[199], "cargo test");
    assert_eq!(log.metadata.older_left_out["commands_run"], 51);
    assert!(
        md.contains("**Commands Run (51 older left out):**\n\n- cargo test --test t51\n"),
        "{md}"
    );
}
