//! Gemini CLI chats for the benchmark, generated at run time like the Claude Code transcripts
//! (`transcript_gen`): JSONL as gemini-cli writes it — a metadata line, then each message as a
//! line of its own, a response written again when its tool calls finish (an upsert of the same
//! id) and `$set` lines for `lastUpdated` — ending in a response whose `tokens.input` is
//! [`GEMINI_EXPECTED_TOKENS`].

use std::io::Write;

use anyhow::Result;
use serde_json::json;

/// The context a correct reader reports for a generated chat: 450,000 of Gemini's 1,048,576,
/// past the warning share of its compression point, so prompt-submit injects a tag.
pub const GEMINI_EXPECTED_TOKENS: u64 = 450_000;

/// Distinct turns in the repeating body; their ids repeat every cycle, which a reader that
/// stops at the newest counted response never compares.
const CYCLE_TURNS: u64 = 32;

/// Writes a chat of about `target_bytes` to `out` and returns the bytes written.
pub fn write_chat(out: &mut impl Write, target_bytes: u64) -> Result<u64> {
    let meta = json!({"sessionId": "bench-gemini", "projectHash": "0".repeat(64),
        "startTime": "2026-11-20T08:00:00.000Z", "lastUpdated": "2026-11-20T08:00:00.000Z", "kind": "main"});
    let head = format!("{meta}\n");
    let mut last = Vec::new();
    turn(&mut last, CYCLE_TURNS, GEMINI_EXPECTED_TOKENS)?;
    let budget = target_bytes.saturating_sub((head.len() + last.len()) as u64);
    let mut cycle = Vec::new();
    let mut ends = Vec::new();
    for t in 0..CYCLE_TURNS {
        if cycle.len() as u64 >= budget {
            break;
        }
        turn(&mut cycle, t, 20_000 + t * 10_000)?;
        ends.push(cycle.len() as u64);
    }
    out.write_all(head.as_bytes())?;
    let mut written = head.len() as u64;
    let cycle_len = cycle.len() as u64;
    let mut body = 0u64;
    while cycle_len > 0 && body + cycle_len <= budget {
        out.write_all(&cycle)?;
        body += cycle_len;
    }
    if let Some(&end) = ends.iter().rev().find(|&&end| body + end <= budget) {
        out.write_all(&cycle[..usize::try_from(end)?])?;
        body += end;
    }
    out.write_all(&last)?;
    written += body + last.len() as u64;
    out.flush()?;
    Ok(written)
}

/// One exchange: the request, the response as first written, the same response again with
/// its finished tool call (a test run's output), and the `$set` lines between them.
fn turn(out: &mut Vec<u8>, t: u64, input: u64) -> Result<()> {
    let at = |s: u64| format!("2026-11-20T09:{:02}:{:02}.000Z", (t / 60) % 60, s);
    let set = |s: u64| json!({"$set": {"lastUpdated": at(s)}});
    let user = json!({"id": format!("u-{t}"), "timestamp": at(1), "type": "user",
        "content": [{"text": format!("Step {t}: run the billing tests and fix what fails in tax.rs.")}]});
    let tokens = json!({"input": input, "output": 310, "cached": input / 2, "thoughts": 420, "tool": 0, "total": input + 730});
    let text = format!("Running the tests for step {t}. ").repeat(20);
    let first = json!({"id": format!("g-{t}"), "timestamp": at(4), "type": "gemini", "content": text,
        "tokens": tokens, "model": "gemini-3-flash-preview"});
    let output = "test billing::tax::rounds_per_line ... ok\n".repeat(150);
    let done = json!({"id": format!("g-{t}"), "timestamp": at(4), "type": "gemini", "content": text,
        "tokens": tokens, "model": "gemini-3-flash-preview",
        "toolCalls": [{"id": format!("c-{t}"), "name": "run_shell_command",
            "args": {"command": "cargo test -p billing", "description": "Run the billing tests"},
            "status": "success",
            "result": [{"functionResponse": {"id": format!("c-{t}"), "name": "run_shell_command",
                "response": {"output": output}}}]}]});
    for line in [user, set(2), first, set(5), done, set(9)] {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_has_the_size_asked_and_ends_with_the_known_response() {
        for target in [1024_u64, 3 * 1024 * 1024] {
            let mut out = Vec::new();
            let n = write_chat(&mut out, target).unwrap();
            assert_eq!(n, out.len() as u64);
            let text = String::from_utf8(out).unwrap();
            let lines: Vec<serde_json::Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(lines[0]["sessionId"], "bench-gemini");
            let newest = lines.iter().rev().find(|l| l["type"] == "gemini").unwrap();
            assert_eq!(newest["tokens"]["input"], GEMINI_EXPECTED_TOKENS);
            if target > 1024 {
                // Within one cycle's turn of the target.
                assert!(n <= target + 64 * 1024 && n + 64 * 1024 >= target, "{n}");
            }
        }
    }
}
