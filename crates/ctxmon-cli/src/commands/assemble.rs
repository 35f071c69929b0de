//! `ctxmon assemble`: reads a context-assembly input (JSON, contract C10), packs it into
//! its token budget and prints the bundle as JSON.
//!
//! Bad input is a usage error (exit 2) that names where the problem is: the file or stdin,
//! and the JSON path of the bad value. `--strategy` and `--max-tokens` override the input's
//! constraints.

pub(super) mod json_path;
pub(super) mod json_syntax;

use std::io::Read;

use anyhow::anyhow;
use ctxmon_application::assembly::{
    AssemblyErrorKind, ContextBuilderOptions, create_context_builder,
};
use ctxmon_domain::assembly::{AssemblyStrategyType, ContextBuildInput};
use serde_json::Value;

use crate::cli::{AssembleArgs, GlobalArgs};
use crate::exit::{CmdResult, Failure};
use crate::json_out;

pub fn run(args: &AssembleArgs, _global: &GlobalArgs) -> CmdResult {
    // Flags first: a bad flag should not wait for a 50 MB read.
    let strategy = match args.strategy.as_deref() {
        Some(s) => Some(AssemblyStrategyType::parse(s).ok_or_else(|| {
            Failure::usage(anyhow!(
                "--strategy {s:?} is not a strategy; use greedy, balanced or conservative"
            ))
        })?),
        None => None,
    };
    let (origin, bytes) = read_input(args.input.as_deref())?;
    let input = parse_input(&origin, &bytes, strategy, args.max_tokens)?;
    let bundle = create_context_builder(ContextBuilderOptions::default())
        .build(&input)
        .map_err(|e| match e.kind {
            AssemblyErrorKind::InvalidBudget | AssemblyErrorKind::BudgetTooSmall => {
                Failure::usage(anyhow!("{origin}: {e}"))
            }
            AssemblyErrorKind::Internal => Failure::Other(anyhow!("{origin}: {e}")),
        })?;
    // The bundle is JSON with or without --json, laid out by the one rule for JSON.
    json_out::print(&bundle)
}

/// The input's bytes and a name for it in messages (`stdin` or the path).
fn read_input(input: Option<&str>) -> Result<(String, Vec<u8>), Failure> {
    match input {
        None | Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::Other(anyhow!("reading stdin: {e}")))?;
            Ok(("stdin".to_owned(), bytes))
        }
        Some(path) => {
            let bytes =
                std::fs::read(path).map_err(|e| Failure::Other(anyhow!("reading {path}: {e}")))?;
            Ok((path.to_owned(), bytes))
        }
    }
}

/// Bytes → UTF-8 → JSON → flags applied → typed input, each step's failure a usage error.
pub(crate) fn parse_input(
    origin: &str,
    bytes: &[u8],
    strategy: Option<AssemblyStrategyType>,
    max_tokens: Option<u64>,
) -> Result<ContextBuildInput, Failure> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Failure::usage(anyhow!(
            "{origin}: not valid UTF-8 (the first bad byte is at offset {}); the input must be a UTF-8 JSON document",
            e.valid_up_to()
        ))
    })?;
    // Editors on Windows write a byte-order mark; it says nothing about the document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Failure::usage(anyhow!(
            "{origin}: empty input; expected a JSON object with runId, goal, agent and constraints"
        )));
    }
    let mut value: Value = serde_json::from_str(text)
        .map_err(|e| Failure::usage(anyhow!("{origin}: {}", json_syntax::describe(text, &e))))?;
    apply_flags(&mut value, strategy, max_tokens);
    json_path::from_value(&value).map_err(|e| Failure::usage(anyhow!("{origin}: {e}")))
}

/// Writes the flags into `constraints` before typed parsing, so an input may leave out what
/// the command line gives. A `constraints` that is not an object is left for the parser to
/// report.
fn apply_flags(value: &mut Value, strategy: Option<AssemblyStrategyType>, max_tokens: Option<u64>) {
    if strategy.is_none() && max_tokens.is_none() {
        return;
    }
    let Some(top) = value.as_object_mut() else {
        return;
    };
    let constraints = top
        .entry("constraints")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    let Some(constraints) = constraints.as_object_mut() else {
        return;
    };
    if let Some(strategy) = strategy {
        constraints.insert("strategy".into(), strategy.as_str().into());
    }
    if let Some(max_tokens) = max_tokens {
        constraints.insert("maxTokens".into(), max_tokens.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_message(result: Result<ContextBuildInput, Failure>) -> String {
        match result {
            Err(Failure::Usage(e)) => e.to_string(),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    const MINIMAL: &str = r#"{"runId":"r","goal":{"raw":"g"},"agent":{"id":"a","role":"coder"},"constraints":{"maxTokens":10}}"#;

    #[test]
    fn flags_override_and_fill_in_constraints() {
        let input = parse_input(
            "stdin",
            MINIMAL.as_bytes(),
            Some(AssemblyStrategyType::Greedy),
            Some(99),
        )
        .unwrap();
        assert_eq!(input.constraints.max_tokens, 99);
        assert_eq!(
            input.constraints.strategy,
            Some(AssemblyStrategyType::Greedy)
        );
        let bare = r#"{"runId":"r","goal":{"raw":"g"},"agent":{"id":"a","role":"coder"}}"#;
        let input = parse_input("stdin", bare.as_bytes(), None, Some(7)).unwrap();
        assert_eq!(input.constraints.max_tokens, 7);
    }

    #[test]
    fn each_parse_step_names_its_problem() {
        assert!(
            usage_message(parse_input("in.json", b"{\"a\":\"\xff\"}", None, None))
                .starts_with("in.json: not valid UTF-8 (the first bad byte is at offset 6)")
        );
        assert!(
            usage_message(parse_input("stdin", b"  \n", None, None))
                .starts_with("stdin: empty input")
        );
        assert!(
            usage_message(parse_input("stdin", b"{\"runId\":", None, None)).starts_with(
                "stdin: not valid JSON at runId (line 1, column 9): EOF while parsing"
            )
        );
        let bad = MINIMAL.replace("\"maxTokens\":10", "\"maxTokens\":-1");
        assert_eq!(
            usage_message(parse_input("stdin", bad.as_bytes(), None, None)),
            "stdin: constraints.maxTokens: invalid value: integer `-1`, expected a non-negative integer"
        );
    }
}
