//! The turns-left estimate against real sessions: for every automatic compaction in the
//! shared transcripts, `ctxmon status --json` at responses that lie a known number of
//! responses before it, its `turns_left` beside the responses that really came before the
//! compaction. The table is written into docs/benchmarks.md between its markers: the test
//! fails when the page holds another one, and `CTXMON_WRITE_BENCHMARKS=1` rewrites it.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use super::{Compaction, Session, compactions, sessions, status_at};
use crate::common;

/// How many responses before the compaction the estimate is asked at.
const AHEAD: [usize; 6] = [3, 5, 10, 20, 40, 80];

const BEGIN: &str = "<!-- turns-left table: written by compaction_points::turns_left -->";
const END: &str = "<!-- end of turns-left table -->";

/// The last line of each main-chain response of `session` before line `end` and after the
/// compaction before it (a response written as several lines sharing an id counts once).
fn responses(session: &Session, end: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut last_id: Option<String> = None;
    for (i, line) in session.lines[..end].iter().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["isSidechain"] == true {
            continue;
        }
        if v["subtype"] == "compact_boundary" {
            out.clear();
            last_id = None;
            continue;
        }
        if v["type"] != "assistant" || !v["message"]["usage"].is_object() {
            continue;
        }
        let id = v["message"]["id"].as_str().map(str::to_string);
        if id.is_some() && id == last_id {
            if let Some(l) = out.last_mut() {
                *l = i;
            }
            continue;
        }
        last_id = id;
        out.push(i);
    }
    out
}

/// One estimate: the responses that really came, and what `status` said.
struct Case {
    ahead: usize,
    estimate: Option<u64>,
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let mid = xs.len() / 2;
    Some(if xs.len().is_multiple_of(2) {
        (xs[mid - 1] + xs[mid]) / 2.0
    } else {
        xs[mid]
    })
}

#[allow(clippy::cast_precision_loss)]
fn row(label: &str, cases: &[&Case]) -> String {
    let given: Vec<(f64, f64)> = cases
        .iter()
        .filter_map(|c| c.estimate.map(|e| (e as f64, c.ahead as f64)))
        .collect();
    let errors: Vec<f64> = given.iter().map(|(e, a)| (e - a).abs()).collect();
    let within = given
        .iter()
        .filter(|(e, a)| (e - a).abs() <= 0.3 * a)
        .count();
    let over = given.iter().filter(|(e, a)| e > a).count();
    let share = |n: usize| {
        if given.is_empty() {
            "–".to_string()
        } else {
            format!("{:.0}%", n as f64 * 100.0 / given.len() as f64)
        }
    };
    format!(
        "| {label} | {} | {} | {} | {} | {} |\n",
        cases.len(),
        given.len(),
        median(errors).map_or("–".to_string(), |m| format!("{m:.1}")),
        share(within),
        share(over),
    )
}

fn table(cases: &[Case], compactions: usize) -> String {
    let mut out = format!(
        "{BEGIN}\n\n{compactions} automatic compactions; the estimate asked at the response that lay \
         the given number of responses before each.\n\n\
         | responses really left | asked | estimated | median absolute error (turns) | within ±30% | above the truth |\n\
         |---:|---:|---:|---:|---:|---:|\n"
    );
    for ahead in AHEAD {
        let these: Vec<&Case> = cases.iter().filter(|c| c.ahead == ahead).collect();
        if !these.is_empty() {
            out.push_str(&row(&ahead.to_string(), &these));
        }
    }
    let all: Vec<&Case> = cases.iter().collect();
    out.push_str(&row("all", &all));
    let _ = write!(out, "\n{END}");
    out
}

fn collect(sessions: &[Session], found: &[Compaction]) -> Vec<Case> {
    let mut cases = Vec::new();
    for c in found {
        let before = responses(&sessions[c.session], c.line);
        for ahead in AHEAD {
            // The response `ahead` responses before the compaction: `ahead` more came after
            // it, the last of them the one that crossed the point.
            let Some(index) = before.len().checked_sub(ahead + 1) else {
                continue;
            };
            let v = status_at(sessions, c, before[index] + 1);
            cases.push(Case {
                ahead,
                estimate: v["turns_left"].as_u64(),
            });
        }
    }
    cases
}

#[test]
fn the_turns_left_table_in_the_benchmarks_is_this_measurement() {
    let Some(transcripts) = common::shared_fixtures() else {
        return;
    };
    let dirs = [
        transcripts.clone(),
        transcripts
            .parent()
            .unwrap()
            .join("claude-code-compactions"),
    ];
    let sessions = sessions(&dirs);
    let found = compactions(&sessions);
    let cases = collect(&sessions, &found);
    assert!(cases.len() >= 40, "too few cases: {}", cases.len());
    let table = table(&cases, found.len());
    println!("{table}");
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/benchmarks.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/benchmarks.md has no turns-left markers");
    };
    let current = &text[start..end + END.len()];
    if current == table {
        return;
    }
    if std::env::var_os("CTXMON_WRITE_BENCHMARKS").is_some() {
        let updated = format!("{}{table}{}", &text[..start], &text[end + END.len()..]);
        std::fs::write(&page, updated).unwrap();
        return;
    }
    panic!(
        "docs/benchmarks.md holds another turns-left table; rerun with \
         CTXMON_WRITE_BENCHMARKS=1 to write this one:\n{table}"
    );
}

#[test]
fn a_response_is_counted_once_and_the_count_restarts_at_a_compaction() {
    let session = Session {
        name: "s.jsonl".into(),
        lines: [
            r#"{"type":"assistant","message":{"id":"a","usage":{}}}"#,
            r#"{"type":"system","subtype":"compact_boundary"}"#,
            r#"{"type":"assistant","message":{"id":"b","usage":{}}}"#,
            r#"{"type":"assistant","message":{"id":"b","usage":{}}}"#,
            "not json",
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"c","usage":{}}}"#,
            r#"{"type":"assistant","message":{"id":"d","usage":{}}}"#,
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect(),
        times: Vec::new(),
        cwd: None,
    };
    assert_eq!(responses(&session, 7), vec![3, 6]);
    assert_eq!(responses(&session, 1), vec![0]);
}
