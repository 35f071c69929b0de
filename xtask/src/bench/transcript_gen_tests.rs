//! Tests of the transcript generator: every line is JSON, the newest qualifying main-chain usage
//! (found here by an independent reading of contract C2) is the expected value, and the mix holds
//! what a realistic transcript holds. Small sizes only: no test writes more than a megabyte.

use serde_json::Value;

use super::*;

const SMALL: TranscriptSpec = TranscriptSpec {
    name: "1KiB",
    target_bytes: KIB,
    no_usage_tail_bytes: 0,
    gemini: false,
};
const MEDIUM: TranscriptSpec = TranscriptSpec {
    name: "300KiB",
    target_bytes: 300 * KIB,
    no_usage_tail_bytes: 0,
    gemini: false,
};
/// More than one cycle of distinct turns.
const CYCLES: TranscriptSpec = TranscriptSpec {
    name: "4MiB",
    target_bytes: 4 * MIB,
    no_usage_tail_bytes: 0,
    gemini: false,
};
const WORST: TranscriptSpec = TranscriptSpec {
    name: "300KiB-worst",
    target_bytes: 300 * KIB,
    no_usage_tail_bytes: 128 * KIB,
    gemini: false,
};

fn generate(spec: &TranscriptSpec) -> (Vec<u8>, Vec<Value>) {
    let mut bytes = Vec::new();
    let n = write_transcript(&mut bytes, spec).unwrap();
    assert_eq!(n, bytes.len() as u64);
    let text = std::str::from_utf8(&bytes).expect("UTF-8");
    assert!(text.ends_with('\n'));
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("line {i}: {e}")))
        .collect();
    (bytes, lines)
}

fn int(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The sum of contract C2 for a qualifying assistant line, `None` for every other line.
fn qualifying_tokens(line: &Value) -> Option<u64> {
    if line["type"] != "assistant"
        || line["isApiErrorMessage"] == true
        || line["message"]["model"] == "<synthetic>"
    {
        return None;
    }
    let usage = line["message"].get("usage")?;
    let mut creation = int(&usage["cache_creation_input_tokens"]);
    if creation == 0 {
        creation = int(&usage["cache_creation"]["ephemeral_5m_input_tokens"])
            + int(&usage["cache_creation"]["ephemeral_1h_input_tokens"]);
    }
    let sum = int(&usage["input_tokens"]) + creation + int(&usage["cache_read_input_tokens"]);
    (sum > 0).then_some(sum)
}

/// Index and tokens of the newest qualifying main-chain line.
fn newest_main_usage(lines: &[Value]) -> (usize, u64) {
    lines
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, l)| l["isSidechain"] != true)
        .find_map(|(i, l)| {
            assert_ne!(l["subtype"], "compact_boundary", "no boundary is generated");
            qualifying_tokens(l).map(|t| (i, t))
        })
        .expect("a qualifying line")
}

#[test]
fn the_newest_main_chain_usage_is_the_expected_value() {
    for spec in [SMALL, MEDIUM, WORST, CYCLES] {
        let (_, lines) = generate(&spec);
        let (_, tokens) = newest_main_usage(&lines);
        assert_eq!(tokens, EXPECTED_TOKENS, "{}", spec.name);
    }
    assert_eq!(EXPECTED_TOKENS, 157_321);
}

#[test]
fn every_other_usage_is_smaller_than_the_expected_value() {
    let (_, lines) = generate(&MEDIUM);
    let (last, _) = newest_main_usage(&lines);
    let others: Vec<u64> = lines[..last - 1]
        .iter()
        .filter_map(qualifying_tokens)
        .collect();
    assert!(others.len() > 20);
    assert!(others.iter().all(|&t| t < EXPECTED_TOKENS), "{others:?}");
    // After the final line: a sidechain usage a careless reader would report.
    let after: Vec<u64> = lines[last + 1..]
        .iter()
        .filter_map(qualifying_tokens)
        .collect();
    assert_eq!(after, [31_337]);
}

#[test]
fn sizes_are_close_to_the_target() {
    for spec in [SMALL, MEDIUM, WORST, CYCLES] {
        let (bytes, _) = generate(&spec);
        let len = bytes.len() as u64;
        let low = spec
            .target_bytes
            .saturating_sub(64 * KIB)
            .max(spec.target_bytes / 2);
        assert!(
            (low..=spec.target_bytes + KIB).contains(&len),
            "{}: {len}",
            spec.name
        );
    }
}

#[test]
fn the_mix_is_realistic() {
    let (_, lines) = generate(&MEDIUM);
    let tool = |name: &str| {
        lines
            .iter()
            .flat_map(|l| {
                l["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|c| c["type"] == "tool_use" && c["name"] == name)
            .count()
    };
    for name in ["Read", "Edit", "Write", "TodoWrite", "Bash"] {
        assert!(tool(name) > 0, "{name}");
    }
    let count = |key: &str, value: &str| lines.iter().filter(|l| l[key] == value).count();
    assert!(count("type", "progress") > 0);
    assert!(count("type", "file-history-snapshot") > 0);
    assert!(lines.iter().any(|l| l["isSidechain"] == true));
    // Streaming duplicates: several lines of one response share message.id and usage.
    let ids: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .map(|l| &l["message"]["id"])
        .collect();
    assert!(ids.windows(2).any(|w| w[0] == w[1]));
    // Tool results of several kilobytes.
    let big = lines
        .iter()
        .filter(|l| l["message"]["content"][0]["type"] == "tool_result")
        .filter(|l| l.to_string().len() > 8 * 1024)
        .count();
    assert!(big > 5, "{big}");
}

#[test]
fn the_worst_case_ends_with_usage_free_lines() {
    let (bytes, lines) = generate(&WORST);
    let (last, _) = newest_main_usage(&lines);
    let after: usize = lines[last + 1..]
        .iter()
        .map(|l| l.to_string().len() + 1)
        .sum();
    assert!(after as u64 >= WORST.no_usage_tail_bytes, "{after}");
    let tail = &bytes[bytes.len() - WORST.no_usage_tail_bytes as usize..];
    let tail = String::from_utf8_lossy(tail);
    // No usage key outside a string: inside tool output the quotes are escaped.
    assert!(!tail.contains("input_tokens\""));
    assert!(
        tail.contains("input_tokens\\\""),
        "the trap for pre-filters is present"
    );
}

#[test]
fn ensure_writes_once_and_then_reuses() {
    let dir = tempfile::tempdir().unwrap();
    let first = ensure(dir.path(), &MEDIUM).unwrap();
    assert!(!first.reused);
    assert_eq!(first.expected_tokens, EXPECTED_TOKENS);
    assert_eq!(fs::metadata(&first.path).unwrap().len(), first.bytes);
    let second = ensure(dir.path(), &MEDIUM).unwrap();
    assert!(second.reused);
    assert_eq!(second.bytes, first.bytes);
    // A file of an implausible size (an older, truncated one) is regenerated.
    fs::write(&first.path, b"{}\n").unwrap();
    assert!(!ensure(dir.path(), &MEDIUM).unwrap().reused);
}

#[test]
fn the_body_repeats_a_cycle_of_distinct_turns() {
    let (_, lines) = generate(&CYCLES);
    let prompts: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "user" && l["message"]["content"].is_string())
        .map(|l| &l["message"]["content"])
        .collect();
    let distinct: std::collections::BTreeSet<String> =
        prompts.iter().map(|p| p.to_string()).collect();
    assert!(prompts.len() as u64 > CYCLE_TURNS, "{}", prompts.len());
    // Every turn of the cycle, plus the final turn's prompt and the sidechain's.
    assert_eq!(distinct.len() as u64, CYCLE_TURNS + 2);
}
