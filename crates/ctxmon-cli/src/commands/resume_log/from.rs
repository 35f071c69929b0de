//! `--from FILE|-`: the agent's JSON document, read within a size cap and parsed strictly. Every
//! problem is a usage error (exit 2) in one line that names the input and, for a value of the wrong
//! shape or an unknown field, its JSON path. A document with every field of the resume log's JSON
//! format (its `session_id`, `context_metrics`, nested `critical_context`,
//! `session_duration_minutes`) is a valid document.

use std::fs::File;
use std::io::Read;

use anyhow::anyhow;
use ctxmon_application::readers::json::exact as json_exact;
use ctxmon_application::readers::json::repair as json_repair;
use ctxmon_domain::ResumeLogDraft;
use serde_json::Value;

use super::super::assemble::{json_path, json_syntax};
use crate::exit::Failure;

/// A rendered log is at most 10,000 tokens (about 40 KB); a document fifty times that is not a
/// resume log, and the cap keeps a runaway pipe from filling memory.
pub const MAX_FROM_BYTES: u64 = 2 * 1024 * 1024;

const SHAPE: &str = "a JSON object with any of session_id, context_metrics, mission_summary, accomplishments, key_findings, decisions ([{decision, rationale}]), next_steps, critical_context ({name: any JSON}) and metadata";

pub fn read_draft(from: &str) -> Result<ResumeLogDraft, Failure> {
    let (origin, bytes) = read_bounded(from)?;
    parse_draft(&origin, &bytes)
}

fn read_bounded(from: &str) -> Result<(String, Vec<u8>), Failure> {
    let (origin, reader): (String, Box<dyn Read>) = if from == "-" {
        ("stdin".into(), Box::new(std::io::stdin().lock()))
    } else {
        let file = File::open(from)
            .map_err(|e| Failure::usage(anyhow!("--from {from}: cannot open it: {e}")))?;
        (from.to_string(), Box::new(file))
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_FROM_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::usage(anyhow!("--from {origin}: cannot read it: {e}")))?;
    if bytes.len() as u64 > MAX_FROM_BYTES {
        return Err(Failure::usage(anyhow!(
            "{origin}: larger than {} MiB; a resume log holds at most 10,000 tokens (about 40 KB), so write a shorter document",
            MAX_FROM_BYTES / (1024 * 1024)
        )));
    }
    Ok((origin, bytes))
}

/// Bytes → UTF-8 → JSON → a typed draft, each step's failure named.
pub fn parse_draft(origin: &str, bytes: &[u8]) -> Result<ResumeLogDraft, Failure> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Failure::usage(anyhow!(
            "{origin}: not valid UTF-8 (the first bad byte is at offset {}); write the document as UTF-8 JSON",
            e.valid_up_to()
        ))
    })?;
    // Editors on Windows write a byte-order mark; it says nothing about the document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Failure::usage(anyhow!(
            "{origin}: empty document; expected {SHAPE}"
        )));
    }
    // A lone surrogate (Node's JSON.stringify of a cut emoji) or a number beyond f64 does not
    // refuse the document: the first reads as U+FFFD, the second as ±1e308, which a typed
    // field then refuses by its path, and the critical context reads again exactly (`json_exact`).
    let value: Value = json_repair::from_str_lenient(text)
        .map_err(|e| Failure::usage(anyhow!("{origin}: {}", json_syntax::describe(text, &e))))?;
    if !value.is_object() {
        return Err(Failure::usage(anyhow!(
            "{origin}: top level: expected {SHAPE}"
        )));
    }
    let mut draft: ResumeLogDraft =
        json_path::from_value(&value).map_err(|e| Failure::usage(anyhow!("{origin}: {e}")))?;
    if let Some(exact) = json_exact::critical_context(text) {
        draft.critical_context = exact;
    }
    Ok(draft)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(bytes: &[u8]) -> String {
        match parse_draft("in.json", bytes) {
            Err(Failure::Usage(e)) => e.to_string(),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn a_good_document_parses() {
        let d = parse_draft(
            "in.json",
            br#"{"mission_summary":"m","decisions":[{"decision":"d"}],"critical_context":{"k":"v"}}"#,
        )
        .unwrap();
        assert_eq!(d.decisions[0].rationale, "");
        assert_eq!(d.critical_context["k"], "v");
    }

    #[test]
    fn the_example_document_parses_whole() {
        let example = include_bytes!("../../../../../fixtures/resume-logs/agent-document.json");
        let d = parse_draft("agent-document.json", example).unwrap();
        assert_eq!(d.session_id.as_deref(), Some("20251101_115000"));
        assert_eq!(d.metadata.agents_used, ["PM", "Engineer", "QA"]);
        assert_eq!(d.metadata.session_duration_minutes, Some(154));
        assert!(d.critical_context["file_paths"].is_branch());
    }

    #[test]
    fn every_problem_is_named() {
        assert!(
            message(b"{\"a\":\"\xff\"}")
                .starts_with("in.json: not valid UTF-8 (the first bad byte is at offset 6)")
        );
        assert!(message(b" \n").starts_with("in.json: empty document"));
        assert!(message(b"{\"next_steps\":").starts_with(
            "in.json: not valid JSON at next_steps (line 1, column 14): EOF while parsing"
        ));
        assert!(message(b"[1]").starts_with("in.json: top level: expected a JSON object"));
        assert!(
            message(br#"{"next_step":["x"]}"#)
                .starts_with("in.json: next_step: unknown field `next_step`"),
            "{}",
            message(br#"{"next_step":["x"]}"#)
        );
        assert_eq!(
            message(br#"{"accomplishments":"all of it"}"#),
            "in.json: accomplishments: invalid type: string \"all of it\", expected an array"
        );
        assert_eq!(
            message(br#"{"decisions":[{"decision":"a","rationale":7}]}"#),
            "in.json: decisions[0].rationale: invalid type: integer `7`, expected a string"
        );
        // Any JSON under a critical-context key, but the section itself is an object.
        assert!(
            parse_draft(
                "in.json",
                br#"{"critical_context":{"paths":{"a":["b",1]}}}"#
            )
            .is_ok()
        );
        assert_eq!(
            message(br#"{"critical_context":["a"]}"#),
            "in.json: critical_context: invalid type: array, expected a map"
        );
        assert!(
            message(br#"{"session_id":"s","schema":1}"#)
                .starts_with("in.json: schema: unknown field `schema`"),
        );
        assert_eq!(
            message(br#"{"context_metrics":{"used_tokens":-5}}"#),
            "in.json: context_metrics.used_tokens: invalid value: integer `-5`, expected a non-negative integer"
        );
        // One past the largest count is a whole number too large, not a "floating point".
        assert_eq!(
            message(br#"{"context_metrics":{"total_budget":18446744073709551616}}"#),
            "in.json: context_metrics.total_budget: a whole number above 18446744073709551615, the largest count ctxmon keeps"
        );
        assert!(message(br#"{"context_metrics":{"total_budget":1.5}}"#).contains("floating point"));
        assert!(
            message(br#"{"metadata":{"files":[]}}"#)
                .starts_with("in.json: metadata.files: unknown field `files`")
        );
    }
}
