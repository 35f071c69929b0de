//! The stored JSON keeps numbers as the agent's tokens and strings as strings, reads back
//! equal, and reads a hand-edited log as serde_json alone would, or fails as it would.

use std::collections::BTreeMap;

use ctxmon_domain::{ContextMetrics, ContextValue, JsonNumber, ResumeLog};

use super::*;

fn log_with(context: &str) -> ResumeLog {
    let mut log = ResumeLog::new("s1", ContextMetrics::default());
    log.mission_summary = "m".into();
    log.critical_context =
        match exact::critical_context(&format!(r#"{{"critical_context": {context}}}"#)) {
            Some(map) => map,
            None => panic!("not a critical context: {context}"),
        };
    log
}

fn number(text: &str) -> ContextValue {
    ContextValue::Number(JsonNumber::new(text).unwrap())
}

const NUMBERS: &str = r#"{"big": 18446744073709551616, "neg": -0, "huge": 1e400, "cents": 1.50,
    "tenth": 0.1, "int": 7, "text": "7", "deep": [{"e": 1E2}, -12, "1.50"]}"#;

#[test]
fn numbers_are_written_as_the_tokens_written_and_strings_as_strings() {
    let log = log_with(NUMBERS);
    let context = &log.critical_context;
    assert_eq!(context["big"], number("18446744073709551616"));
    assert_eq!(context["text"], ContextValue::from("7"));
    let json = serde_json::to_string(&ExactJson(&log)).unwrap();
    assert!(
        json.contains(
            r#""critical_context":{"big":18446744073709551616,"cents":1.50,"deep":[{"e":1E2},-12,"1.50"],"huge":1e400,"int":7,"neg":-0,"tenth":0.1,"text":"7"}"#
        ),
        "{json}"
    );
    assert_eq!(from_json(json.as_bytes()).unwrap(), log);
    let pretty = serde_json::to_vec_pretty(&ExactJson(&log)).unwrap();
    let text = String::from_utf8(pretty.clone()).unwrap();
    for token in [
        "\"big\": 18446744073709551616,",
        "\"huge\": 1e400,",
        "\"neg\": -0,",
        "\"cents\": 1.50,",
        "\"tenth\": 0.1,",
        "\"int\": 7,",
        "\"text\": \"7\"",
    ] {
        assert!(text.contains(token), "{token}: {text}");
    }
    assert_eq!(from_json(&pretty).unwrap(), log);
}

#[test]
fn the_writer_changes_nothing_but_the_numbers() {
    let mut log = log_with(r#"{"path": "/w/a.rs", "n": 3, "flag": true, "none": null}"#);
    log.next_steps = vec!["go".into()];
    log.omitted_tokens = BTreeMap::from([("mission_summary".into(), 4)]);
    assert_eq!(
        serde_json::to_string(&ExactJson(&log)).unwrap(),
        serde_json::to_string(&log).unwrap()
    );
    assert_eq!(
        serde_json::to_string_pretty(&ExactJson(&log)).unwrap(),
        serde_json::to_string_pretty(&log).unwrap()
    );
}

#[test]
fn a_log_written_with_numbers_as_strings_keeps_them_strings() {
    let mut old = serde_json::to_value(ResumeLog::new("s1", ContextMetrics::default())).unwrap();
    old["critical_context"] = serde_json::json!({"big": "18446744073709551616", "n": 2});
    let log = from_json(old.to_string().as_bytes()).unwrap();
    assert_eq!(
        log.critical_context["big"],
        ContextValue::from("18446744073709551616")
    );
    assert_eq!(log.critical_context["n"], ContextValue::Integer(2));
}

/// A hand-edited log: read as serde_json alone reads it, or refused with its error, at the
/// same place.
#[test]
fn weird_stored_logs_read_or_fail_as_serde_json_alone_would() {
    // Numbers serde_json reads (as f64), so its own reading gets past them to the edit.
    let context = r#"{"big": 18446744073709551616, "cents": 1.50, "huge": 1e300, "tenth": 0.1}"#;
    let good =
        String::from_utf8(serde_json::to_vec_pretty(&ExactJson(&log_with(context))).unwrap())
            .unwrap();
    let plain = |text: &str| serde_json::from_str::<ResumeLog>(text).map_err(|e| e.to_string());
    let ours = |text: &str| from_json(text.as_bytes()).map_err(|e| e.to_string());
    let edits = [
        // A bad value after the critical context: the same line and column.
        good.replace("\"trigger\": \"\"", "\"trigger\": 5"),
        good.replace("\"mission_summary\": \"m\"", "\"mission_summary\": [1e400]"),
        // Not an object, a list, nothing at all, broken syntax, two of them.
        good.replace(
            &good[good.find("\"critical_context\"").unwrap()..good.find("\"metadata\"").unwrap()],
            "\"critical_context\": 5,\n  ",
        ),
        good.replace("\"critical_context\"", "\"critical_contexts\""),
        good.replace("\"huge\": 1e300", "\"huge\": 1e"),
        good.replace("\"huge\": 1e300", "\"huge\": 01"),
        good.replace(
            "\"mission_summary\"",
            "\"critical_context\": {\"a\": 1},\n  \"mission_summary\"",
        ),
        "[]".into(),
        String::new(),
        good[..good.len() / 2].to_string(),
    ];
    for edited in &edits {
        let expected = plain(edited);
        let got = ours(edited);
        match (&expected, &got) {
            (Err(a), Err(b)) => assert_eq!(a, b, "{edited}"),
            (Ok(_), Ok(_)) => {}
            _ => panic!("{expected:?} but {got:?} for {edited}"),
        }
        assert!(
            got.is_err() || edited.contains("critical_contexts"),
            "{edited}"
        );
    }
    // With a number serde_json refuses in the critical context, the error elsewhere is still
    // the one it gives for the log with a number it reads.
    let bad_trigger = good.replace("\"trigger\": \"\"", "\"trigger\": 5");
    assert_eq!(
        ours(&bad_trigger.replace("1e300", "1e400")),
        plain(&bad_trigger)
    );
    // A lone surrogate in a key cannot be walked: serde_json's own reading refuses it.
    let surrogate = good.replace("\"tenth\"", "\"t\\ud800\"");
    assert_eq!(ours(&surrogate), plain(&surrogate));
    assert!(ours(&surrogate).is_err());
    // Not UTF-8: serde_json's message.
    let mut bytes = good.clone().into_bytes();
    bytes[5] = 0xff;
    assert!(from_json(&bytes).is_err());
}

#[test]
fn the_blank_keeps_every_line_and_column() {
    let text = "{\"a\": 1,\n \"critical_context\": {\"k\": [1.50,\n \"é\"]},\n \"b\": 2}";
    let (blanked, context) = exact_context(text).unwrap();
    // `"k": [1.50,` is 11 bytes, ` "é"]` 6 (é is two).
    let blank = format!("{{{}\n{}}}", " ".repeat(11), " ".repeat(6));
    assert_eq!(
        blanked,
        format!("{{\"a\": 1,\n \"critical_context\": {blank},\n \"b\": 2}}")
    );
    assert_eq!(blanked.len(), text.len());
    assert_eq!(
        context["k"],
        ContextValue::List(vec![number("1.50"), ContextValue::from("é")])
    );
}
