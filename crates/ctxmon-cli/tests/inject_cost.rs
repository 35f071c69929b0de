//! What each `context_monitor.inject` policy costs on real sessions, and
//! that the default, `tiered`, still warns every time it matters.
//!
//! Each long session in `../shared` is replayed prompt by prompt the way Claude Code runs the
//! hook: `ctxmon hooks prompt-submit` sees the transcript as it was when the prompt was typed
//! (every line before the prompt's own), one session state across the prompts, one fresh
//! project per policy. `ctxmon --json status` on the same prefix gives the tier at each prompt,
//! whatever the policy. A session is replayed at its real window and at a window it fills to
//! about 90%, so that the tiers from NOMINAL to EMERGENCY are crossed.
//!
//! The costs: tags and tokens injected, and the tokens read again, because a tag stays in the
//! conversation: every later API call of the session sends it again (ceil(chars / 4) each).
//! A prompt needs a tag when it is the first one measured, its tier is LOW or above, or its
//! tier rose since the previous prompt; `tiered` must miss none, and cost less than `always`.
//! The test prints the table that docs/inject-policy.md quotes (`cargo xtask inject-cost`).

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{Sandbox, shared_fixtures};
use ctxmon_application::ports::RecordBody;
use ctxmon_domain::{ThresholdTier, estimate_tokens};
use ctxmon_infra_fs::transcript::records_from_values;
use serde_json::{Value, json};

/// The sessions replayed: the real ones with the most prompts.
const SESSIONS: [&str; 3] = [
    "cc-1.0.51-streaming-duplicates.jsonl",
    "cc-2.0.37-sonnet-4-5.jsonl",
    "cc-2.1.42-opus-4-6.jsonl",
];
const POLICIES: [&str; 4] = ["always", "tiered", "on-change", "warning-and-above"];
const CHOSEN: &str = "tiered";
const SESSION_ID: &str = "replayed-session";

/// A prompt of the session: where its line is, and how many API responses of the main chain
/// came after it (each sends the conversation, and so every tag in it, again).
struct Prompt {
    line: usize,
    responses_after: u64,
}

/// What `status` measured when the prompt was typed; `None` before the first response.
#[derive(Clone, Copy)]
struct Measured {
    tier: ThresholdTier,
}

struct Cost {
    tags: u64,
    tokens: u64,
    reread: u64,
    /// Prompts that needed a tag and got none.
    missed: u64,
}

/// The session's lines, with the id of the API response each line belongs to (main chain,
/// with usage), parsed once.
struct Session {
    name: &'static str,
    lines: Vec<String>,
    response_ids: Vec<Option<String>>,
}

impl Session {
    fn read(dir: &Path, name: &'static str) -> Session {
        let lines: Vec<String> = std::fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        let response_ids = lines.iter().map(|l| response_id(l)).collect();
        Session {
            name,
            lines,
            response_ids,
        }
    }

    /// Distinct API responses of the main chain from line `from` on.
    fn responses_after(&self, from: usize) -> u64 {
        let ids: std::collections::BTreeSet<&String> =
            self.response_ids[from..].iter().flatten().collect();
        ids.len() as u64
    }

    /// The prompts typed in the main conversation, as the transcript adapter reads requests.
    fn prompts(&self) -> Vec<Prompt> {
        let mut found = Vec::new();
        for (i, line) in self.lines.iter().enumerate() {
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let typed = records_from_values(&[value]).iter().any(|r| {
                !r.sidechain && matches!(&r.body, RecordBody::Request(q) if q.kind.is_real())
            });
            if typed {
                found.push(Prompt {
                    line: i,
                    responses_after: self.responses_after(i),
                });
            }
        }
        found
    }

    /// A chatty user's session: a prompt before every API response (the first line of each),
    /// so the fill at each prompt is the session's real one but the prompts are many.
    fn prompts_before_every_response(&self) -> Vec<Prompt> {
        let mut seen = std::collections::BTreeSet::new();
        let mut found = Vec::new();
        for (i, id) in self.response_ids.iter().enumerate() {
            if let Some(id) = id
                && seen.insert(id)
            {
                found.push(Prompt {
                    line: i,
                    responses_after: self.responses_after(i),
                });
            }
        }
        found
    }
}

/// The message id of a main-chain API response line with usage.
fn response_id(line: &str) -> Option<String> {
    let v = serde_json::from_str::<Value>(line).ok()?;
    let main = v["type"] == "assistant" && v["isSidechain"] != true;
    (main && v["message"]["usage"].is_object())
        .then(|| v["message"]["id"].as_str().map(str::to_string))
        .flatten()
}

/// The transcript as it was when prompt `p` was typed, kept under `dir`.
fn prefix(dir: &Path, lines: &[String], p: &Prompt, n: usize) -> PathBuf {
    let path = dir.join(format!("prefix-{n:03}.jsonl"));
    let mut text = lines[..p.line].join("\n");
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    path
}

fn sandbox(window: Option<u64>) -> Sandbox {
    let mut sb = Sandbox::new();
    if let Some(w) = window {
        sb.set_env("CTXMON_CONTEXT_MONITOR__CONTEXT_WINDOW", &w.to_string());
    }
    sb
}

fn measure(window: Option<u64>, prefixes: &[PathBuf]) -> Vec<Option<Measured>> {
    let sb = sandbox(window);
    prefixes
        .iter()
        .map(|path| {
            let run = sb.run(
                &["--json", "status", "--transcript", path.to_str().unwrap()],
                "",
            );
            if run.code != 0 {
                return None;
            }
            let v: Value = serde_json::from_str(&run.stdout).unwrap();
            // Before the first response status says 0 with exit 0 (contract C13): nothing
            // measured yet.
            if v["awaiting_first_response"] == true {
                return None;
            }
            let tier = ThresholdTier::parse(v["threshold_tier"].as_str().unwrap()).unwrap();
            Some(Measured { tier })
        })
        .collect()
}

/// Whether each prompt needs a tag: the first measured one, LOW and above, and a rise.
fn needed(measured: &[Option<Measured>]) -> Vec<bool> {
    let mut previous: Option<ThresholdTier> = None;
    measured
        .iter()
        .map(|m| match m {
            None => false,
            Some(m) => {
                let need = previous.is_none_or(|p| m.tier > p) || m.tier >= ThresholdTier::Low;
                previous = Some(m.tier);
                need
            }
        })
        .collect()
}

/// The `<context-monitor>` tag of a prompt-submit answer, if it has one.
fn monitor_tag(stdout: &str) -> Option<String> {
    if stdout.trim().is_empty() {
        return None;
    }
    let context = common::additional_context(stdout, "UserPromptSubmit");
    let start = context.find("<context-monitor ")?;
    let end = context[start..].find("</context-monitor>")? + start + "</context-monitor>".len();
    Some(context[start..end].to_string())
}

fn replay(
    policy: &str,
    window: Option<u64>,
    prompts: &[Prompt],
    prefixes: &[PathBuf],
    need: &[bool],
) -> Cost {
    let mut sb = sandbox(window);
    sb.set_env("CTXMON_CONTEXT_MONITOR__INJECT", policy);
    let mut cost = Cost {
        tags: 0,
        tokens: 0,
        reread: 0,
        missed: 0,
    };
    for ((p, path), needs) in prompts.iter().zip(prefixes).zip(need) {
        let input = json!({
            "session_id": SESSION_ID, "transcript_path": path, "cwd": sb.dir(),
            "hook_event_name": "UserPromptSubmit", "prompt": "replayed",
        });
        let run = sb.run(&["hooks", "prompt-submit"], input.to_string());
        assert_eq!(run.code, 0, "{}", run.stderr);
        match monitor_tag(&run.stdout) {
            Some(tag) => {
                let tokens = estimate_tokens(&tag).get();
                cost.tags += 1;
                cost.tokens += tokens;
                cost.reread += tokens * p.responses_after;
            }
            None if *needs => cost.missed += 1,
            None => {}
        }
    }
    cost
}

fn thousands(n: u64) -> String {
    ctxmon_domain::human::thousands(n)
}

/// The rows of one replay (a session, its prompts, a window) and each policy's cost.
struct Replayed {
    rows: Vec<String>,
    costs: Vec<(&'static str, Cost)>,
}

fn replay_all(
    scratch: &Path,
    session: &Session,
    label: &str,
    prompts: &[Prompt],
    policies: &[&'static str],
) -> Vec<Replayed> {
    let folder = scratch.join(format!("{}-{}", session.name, prompts.len()));
    std::fs::create_dir_all(&folder).unwrap();
    let prefixes: Vec<PathBuf> = prompts
        .iter()
        .enumerate()
        .map(|(n, p)| prefix(&folder, &session.lines, p, n))
        .collect();
    let real = measure(None, &prefixes);
    // The window this session fills to about 90% at its last prompt.
    let last_tokens = {
        let sb = sandbox(None);
        let path = prefixes.last().unwrap().to_str().unwrap();
        let run = sb.run(&["--json", "status", "--transcript", path], "");
        let v: Value = serde_json::from_str(&run.stdout).unwrap();
        v["input_tokens"].as_u64().unwrap()
    };
    let tight = (last_tokens * 10 / 9).div_ceil(1_000) * 1_000;
    let mut out = Vec::new();
    for (window, measured) in [(None, real), (Some(tight), measure(Some(tight), &prefixes))] {
        let need = needed(&measured);
        let shown_window = window.map_or("200,000 (its own)".to_string(), thousands);
        let mut tiers: Vec<&str> = Vec::new();
        for m in measured.iter().flatten() {
            if tiers.last() != Some(&m.tier.key()) {
                tiers.push(m.tier.key());
            }
        }
        let mut replayed = Replayed {
            rows: Vec::new(),
            costs: Vec::new(),
        };
        for policy in policies {
            let cost = replay(policy, window, prompts, &prefixes, &need);
            replayed.rows.push(format!(
                "| {} | {label} | {} | {shown_window} | {} | {policy} | {} | {} | {} | {} |",
                session.name,
                prompts.len(),
                tiers.join(" → "),
                cost.tags,
                thousands(cost.tokens),
                thousands(cost.reread),
                cost.missed
            ));
            replayed.costs.push((policy, cost));
        }
        let always = &replayed.costs[0].1;
        let chosen = &replayed.costs.iter().find(|(p, _)| *p == CHOSEN).unwrap().1;
        let what = format!("{} ({label}) at {shown_window}", session.name);
        assert_eq!(chosen.missed, 0, "{what}: {CHOSEN} missed a warning");
        assert_eq!(always.missed, 0, "{what}: always missed one");
        assert!(
            chosen.tokens <= always.tokens && chosen.reread <= always.reread,
            "{what}: {CHOSEN} costs more than always"
        );
        out.push(replayed);
    }
    out
}

#[test]
fn the_default_policy_warns_whenever_it_matters_for_less_than_always() {
    let Some(dir) = shared_fixtures() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let mut replays = Vec::new();
    for name in SESSIONS {
        let session = Session::read(&dir, name);
        let prompts = session.prompts();
        assert!(prompts.len() >= 5, "{name}: {} prompts", prompts.len());
        replays.extend(replay_all(
            scratch.path(),
            &session,
            "typed",
            &prompts,
            &POLICIES,
        ));
    }
    // The longest session again with a prompt before each of its responses: a chatty user,
    // where what `always` costs grows with the prompts and what `tiered` costs does not.
    let longest = Session::read(&dir, SESSIONS[0]);
    let chatty = longest.prompts_before_every_response();
    assert!(chatty.len() > 100, "{}", chatty.len());
    replays.extend(replay_all(
        scratch.path(),
        &longest,
        "one per response",
        &chatty,
        &["always", CHOSEN],
    ));

    let mut totals = std::collections::BTreeMap::<&str, (u64, u64)>::new();
    for (policy, cost) in replays.iter().flat_map(|r| &r.costs) {
        let total = totals.entry(policy).or_default();
        total.0 += cost.tokens;
        total.1 += cost.reread;
    }
    let (always, chosen) = (totals["always"], totals[CHOSEN]);
    assert!(
        chosen.0 < always.0 && chosen.1 < always.1,
        "{CHOSEN} {chosen:?} is not cheaper than always {always:?}"
    );
    let mut table = String::from(
        "### Inject cost: tokens per policy on real sessions\n\n\
         | session | prompts | how many | window | tiers | policy | tags | tokens injected | tokens read again | missed warnings |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in replays.iter().flat_map(|r| &r.rows) {
        table.push_str(row);
        table.push('\n');
    }
    let typed: Vec<&Replayed> = replays
        .iter()
        .filter(|r| r.costs.len() == POLICIES.len())
        .collect();
    table.push_str("\nTyped prompts only, all sessions and both windows:\n\n| policy | tokens injected | tokens read again | missed warnings |\n|---|---|---|---|\n");
    for policy in POLICIES {
        let (mut tokens, mut reread, mut missed) = (0, 0, 0);
        for (_, cost) in typed
            .iter()
            .flat_map(|r| &r.costs)
            .filter(|(p, _)| *p == policy)
        {
            tokens += cost.tokens;
            reread += cost.reread;
            missed += cost.missed;
        }
        table.push_str(&format!(
            "| {policy} | {} | {} | {missed} |\n",
            thousands(tokens),
            thousands(reread)
        ));
    }
    table.push_str(&format!(
        "\nAll replays: {CHOSEN} injects {} fewer tokens than always ({} against {}) and has {} \
         fewer read again ({} against {}), and misses no warning.\n",
        percent_less(chosen.0, always.0),
        thousands(chosen.0),
        thousands(always.0),
        percent_less(chosen.1, always.1),
        thousands(chosen.1),
        thousands(always.1),
    ));
    println!("\n{table}");
}

/// `40% fewer`-style share, rounded down like every percentage ctxmon shows.
fn percent_less(part: u64, whole: u64) -> String {
    let saved = whole.saturating_sub(part);
    format!("{}%", saved * 100 / whole.max(1))
}
