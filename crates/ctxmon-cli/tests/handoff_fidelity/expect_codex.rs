//! What a resuming agent needs, read from a Codex CLI rollout by the fidelity test's own small
//! parser (serde_json over the lines, no ctxmon crate), by the same definitions as for Claude
//! Code (`expect.rs`): requests are `event_msg` `user_message`s, pending work the newest
//! `update_plan`'s steps that are not completed, files the paths `apply_patch` names, the
//! newest unresolved failure a tool output with a non-zero exit code, the branch
//! `session_meta.payload.git.branch`.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::expect::{Expected, Failure, failure_lines};

/// A rollout opens with its `session_meta` line.
pub fn is_rollout(lines: &[Value]) -> bool {
    lines
        .first()
        .and_then(|l| l.get("type"))
        .and_then(Value::as_str)
        == Some("session_meta")
}

fn kind(line: &Value) -> (&str, &str) {
    let s = |p: &str| line.pointer(p).and_then(Value::as_str).unwrap_or("");
    (s("/type"), s("/payload/type"))
}

/// The outcome of one call: what "the same command" means, and the failure if it failed.
struct Outcome {
    key: String,
    failure: Option<Failure>,
}

pub fn expected(lines: &[Value]) -> Expected {
    let mut out = Expected::default();
    let mut cwd = String::new();
    let mut calls: HashMap<String, (String, String)> = HashMap::new();
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut seen_files: HashSet<String> = HashSet::new();
    // Where each user message and each patched file was: the files of the last turns are
    // those patched since the message before the newest.
    let mut messages: Vec<usize> = Vec::new();
    let mut patched: Vec<(String, Option<String>, usize)> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let p = line.get("payload").unwrap_or(&Value::Null);
        let text = |key: &str| p.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        match kind(line) {
            ("session_meta", _) => {
                cwd = text("cwd");
                if let Some(b) = p.pointer("/git/branch").and_then(Value::as_str)
                    && !b.trim().is_empty()
                {
                    out.branch = Some(b.to_string());
                }
            }
            ("event_msg", "user_message") => {
                let m = text("message").trim().to_string();
                if !m.is_empty() {
                    messages.push(at);
                    out.goal.get_or_insert_with(|| m.clone());
                    out.latest_request = Some(m);
                }
            }
            ("response_item", "function_call" | "custom_tool_call") => {
                let name = text("name");
                let args: Value = serde_json::from_str(&text("arguments")).unwrap_or(Value::Null);
                if name == "update_plan"
                    && let Some(plan) = args.get("plan").and_then(Value::as_array)
                {
                    out.todos = plan
                        .iter()
                        .filter(|s| s.get("status").and_then(Value::as_str) != Some("completed"))
                        .filter_map(|s| s.get("step").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect();
                }
                let patch = if name == "apply_patch" {
                    p.get("input")
                        .or_else(|| args.get("input"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                } else {
                    ""
                };
                for l in patch.lines() {
                    let path = [
                        "*** Add File:",
                        "*** Update File:",
                        "*** Delete File:",
                        "*** Move to:",
                    ]
                    .iter()
                    .find_map(|m| l.trim_start().strip_prefix(m))
                    .map(str::trim)
                    .unwrap_or("");
                    if !path.is_empty() {
                        let relative = path
                            .strip_prefix(&format!("{}/", cwd.trim_end_matches('/')))
                            .filter(|_| !cwd.is_empty())
                            .map(str::to_string);
                        patched.push((path.to_string(), relative, at));
                    }
                }
                let command = args
                    .get("cmd")
                    .and_then(Value::as_str)
                    .or_else(|| args.get("command").and_then(Value::as_str))
                    .map(str::to_string)
                    .unwrap_or_else(|| {
                        patch
                            .lines()
                            .find(|l| l.contains(" File:"))
                            .unwrap_or("")
                            .to_string()
                    });
                calls.insert(text("call_id"), (name, command));
            }
            ("response_item", "function_call_output" | "custom_tool_call_output") => {
                let Some((name, command)) = calls.get(&text("call_id")) else {
                    continue;
                };
                let (code, body) = exit_code(&text("output"));
                let failed = code.is_some_and(|c| c != 0);
                outcomes.push(Outcome {
                    key: format!("{name}\u{0}{command}"),
                    failure: failed.then(|| Failure {
                        command: if command.is_empty() {
                            name.clone()
                        } else {
                            command.clone()
                        },
                        lines: failure_lines(&body),
                    }),
                });
            }
            _ => {}
        }
    }
    if let Some(last) = outcomes.iter().rposition(|o| o.failure.is_some()) {
        let key = &outcomes[last].key;
        if !outcomes[last + 1..].iter().any(|o| &o.key == key) {
            out.failure = outcomes[last].failure.clone();
        }
    }
    let from = messages.iter().rev().nth(1).copied().unwrap_or(0);
    out.files = patched
        .into_iter()
        .rev()
        .filter(|(path, _, at)| *at >= from && seen_files.insert(path.clone()))
        .map(|(path, relative, _)| (path, relative))
        .collect();
    out
}

/// The exit code of an output (its header, or its JSON metadata) and the text after the header.
fn exit_code(output: &str) -> (Option<i64>, String) {
    if let Ok(v) = serde_json::from_str::<Value>(output)
        && let Some(code) = v.pointer("/metadata/exit_code").and_then(Value::as_i64)
    {
        let body = v.get("output").and_then(Value::as_str).unwrap_or("");
        return (Some(code), body.to_string());
    }
    let mut code = None;
    for (i, line) in output.lines().enumerate() {
        if let Some(n) = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "))
        {
            code = n.trim().parse().ok();
        }
        if line == "Output:" {
            let body: Vec<&str> = output.lines().skip(i + 1).collect();
            return (code, body.join("\n"));
        }
    }
    (code, output.to_string())
}

/// Line indices after which to cut: tool outputs (the agent is mid-turn), preferring those
/// while the plan has open steps; up to three, spread over the session.
pub fn cut_points(lines: &[Value]) -> Vec<usize> {
    let results: Vec<usize> = lines
        .iter()
        .enumerate()
        .take(lines.len().saturating_sub(1))
        .filter(|(_, l)| {
            matches!(
                kind(l),
                (
                    "response_item",
                    "function_call_output" | "custom_tool_call_output"
                )
            )
        })
        .map(|(i, _)| i)
        .collect();
    let pending: Vec<usize> = results
        .iter()
        .copied()
        .filter(|&i| !expected(&lines[..=i]).todos.is_empty())
        .collect();
    let pool = if pending.len() >= 2 { pending } else { results };
    let n = pool.len();
    let mut picks: Vec<usize> = match n {
        0 => Vec::new(),
        1 | 2 => pool,
        _ => vec![pool[n / 4], pool[n / 2], pool[(3 * n) / 4]],
    };
    picks.dedup();
    picks
}
