//! Budget checks for the compaction-resilience tags: `<resumption-context>` (760 tokens) and
//! `<compaction-alert>` (280 tokens), rendered from the largest inputs the readers let through
//! (200 items per list, 2,000-character texts full of characters that escaping lengthens,
//! 4,096-character paths). Fitting is not enough: each check also asserts that the required
//! parts (contract C6, C7) are present, so a render that stays small by leaving them out fails.

use ctxmon_application::handoff::alert::{
    ALERT_MAX_TOKENS, SHORTENED_MARKER, render_compaction_alert,
};
use ctxmon_application::handoff::resumption::context::{
    HandBackMode, RESUMPTION_MAX_TOKENS, ResumptionInput, render_resumption_context,
};
use ctxmon_application::handoff::resumption::from_section;
use ctxmon_domain::xml::{escape_attr, escape_text};
use ctxmon_domain::{
    AgentNote, Check, CheckpointData, CheckpointId, CompactionTrigger, ContextWindow, Failure,
    FileToRead, FillEstimate, FillSource, LineRange, Measured, QualityTrajectory, ResumptionOrigin,
    ResumptionState, SessionInfo, Thresholds, Timestamp, Todo, TokenCount, estimate_tokens,
};

const ITEMS: usize = 200;

fn long_text(seed: usize, chars: usize) -> String {
    // `&` and `<` grow fivefold and fourfold when escaped: the worst case for a budget.
    let unit = format!("step {seed} & <tag> \"quoted\" ");
    unit.chars().cycle().take(chars).collect()
}

fn maximal_checkpoint() -> Result<CheckpointData, String> {
    let id = CheckpointId::new(999_999).ok_or("sample id")?;
    let fill = FillEstimate::measured(Measured {
        tokens: TokenCount(u64::MAX / 4),
        window: ContextWindow::ONE_MILLION,
        thresholds: &Thresholds::default(),
        auto_compact_reserve: TokenCount(33_000),
        source: FillSource::Transcript,
        model: Some(long_text(0, 2_000)),
    });
    let list = |k: usize| {
        (0..ITEMS)
            .map(|i| long_text(k * 1000 + i, 2_000))
            .collect::<Vec<_>>()
    };
    let state = ResumptionState {
        origin: ResumptionOrigin::SourceFile,
        summary: Some(long_text(1, 2_000)),
        quality_trajectory: Some(QualityTrajectory {
            score: Some(f64::MAX),
            iteration: Some(u64::MAX),
        }),
        decisions: list(2).into_iter().map(Into::into).collect(),
        agent_summaries: list(3),
        files_to_read: (0..ITEMS)
            .map(|i| FileToRead {
                path: format!("/{}", "d/".repeat(2_047)) + &i.to_string(),
                priority: Some(i as i64),
                reason: Some(long_text(i, 2_000)),
            })
            .collect(),
        next_steps: list(4),
        updated_at: Some(long_text(5, 2_000)),
        last_user_requests: list(6),
        todos: (0..ITEMS)
            .map(|i| Todo {
                content: long_text(i, 2_000),
                status: ["pending", "in_progress", "completed"][i % 3].into(),
            })
            .collect(),
        files_touched: (0..ITEMS)
            .map(|i| format!("/{}", "f&/".repeat(1_365)) + &i.to_string())
            .collect(),
        last_assistant_text: Some(long_text(7, 2_000)),
        goal: Some(long_text(10, 2_000)),
        tasks: (0..ITEMS)
            .map(|i| Todo {
                content: long_text(i + 7, 2_000),
                status: ["pending", "in_progress", "completed"][i % 3].into(),
            })
            .collect(),
        git_branch: Some(long_text(11, 200)),
        uncommitted_changes: Some(u64::MAX),
        commits: list(12),
        failure: Some(Failure {
            command: long_text(13, 2_000),
            excerpt: long_text(14, 1_500),
        }),
        last_check: Some(Check {
            command: long_text(15, 2_000),
            passed: true,
        }),
        subagents_running: list(16),
        user_constraints: list(17),
        request_answers: Some(long_text(18, 2_000)),
        intent: Some(long_text(19, 2_000)),
        request_answered: false,
        calls_since_intent: u64::MAX,
        rules: list(20),
        files_next: list(21),
        files_recent: list(22),
        files_read: list(32),
        line_ranges: list(32)
            .into_iter()
            .map(|path| LineRange {
                path,
                first: u64::MAX - 1,
                last: u64::MAX,
            })
            .collect(),
        files_created: list(23),
        commands_ok: list(24),
        environment: list(25),
        todo_noun: Some(long_text(26, 200)),
        lessons: list(27),
        note: Some(AgentNote {
            text: long_text(28, 2_000),
            location: format!("/{}", "n/".repeat(2_047)),
            written_at: Some(long_text(29, 200)),
            requests_after: list(30),
            files_after: list(31),
            completed_after: list(32),
            calls_after: u64::MAX,
        }),
    };
    Ok(CheckpointData {
        schema_version: 1,
        checkpoint_id: id,
        timestamp: long_text(8, 200),
        created_at_ms: Timestamp(i64::MAX),
        compaction_sequence: u32::MAX,
        trigger: CompactionTrigger::Manual,
        custom_instructions: Some(long_text(9, 2_000)),
        context_state: fill,
        resumption_state: Some(state),
        session_info: SessionInfo::default(),
    })
}

/// The items a list section shows and the count it ends with; `None` without the section.
fn list_of(text: &str, tag: &str, noun: &str, _id: &str) -> Option<(usize, usize)> {
    let shown = text.find(&format!("<{tag}>\n")).map_or(0, |at| {
        let start = at + tag.len() + 3;
        let end = text[start..]
            .find(&format!("</{tag}>"))
            .map_or(start, |e| start + e);
        text[start..end]
            .lines()
            .filter(|l| l.starts_with("- "))
            .count()
    });
    // What a list leaves out, `<left-out>` counts: "38 more next steps".
    let singular = noun.strip_suffix('s').unwrap_or(noun);
    let counted = text
        .find("<left-out>")
        .map(|at| &text[at + "<left-out>".len()..])
        .and_then(|rest| rest.split("</left-out>").next())
        .unwrap_or("")
        .split([',', ':'])
        .map(str::trim)
        .find_map(|part| {
            let (n, rest) = part.split_once(' ')?;
            let rest = rest.strip_prefix("more ").unwrap_or(rest);
            (rest == noun || rest == singular).then(|| n.parse::<usize>().ok())?
        })
        .unwrap_or(0);
    (shown + counted > 0).then_some((shown, counted))
}

/// Checks one render: within budget, closed, and every list of `lists` (tag, noun, items in
/// the input, whether at least one item must show) present with shown + counted = items.
fn check_resumption(
    name: &str,
    text: &str,
    id: &str,
    lists: &[(&str, &str, usize, bool)],
) -> Result<u64, String> {
    let tokens = estimate_tokens(text).get();
    let mut problems = Vec::new();
    if tokens > RESUMPTION_MAX_TOKENS {
        problems.push(format!("{tokens} tokens, budget {RESUMPTION_MAX_TOKENS}"));
    }
    let left_out = text.contains("<left-out>");
    if left_out
        && !text.ends_with(&format!(
            "ctxmon checkpoint show {id}</left-out>\n</resumption-context>"
        ))
    {
        problems.push("what was left out does not end with the pointer to the checkpoint".into());
    }
    // When not every count fits, `<left-out>` ends with "more:" and where the rest is.
    let counted = !text.contains("more: ctxmon checkpoint show");
    for &(tag, noun, items, first) in lists.iter().filter(|_| counted) {
        match list_of(text, tag, noun, id) {
            None => problems.push(format!("<{tag}> is missing (its count at least must show)")),
            Some((shown, counted)) => {
                if shown + counted != items {
                    problems.push(format!(
                        "<{tag}> shows {shown} and counts {counted} of {items}"
                    ));
                }
                if first && shown == 0 {
                    problems.push(format!("<{tag}> does not show its first item"));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(tokens)
    } else {
        Err(format!("  {name}: {}:\n{text}", problems.join("; ")))
    }
}

/// An orchestrator's `resumption:` section with `n` items in every list.
fn generated_section(n: usize) -> serde_json::Value {
    let each = |f: &dyn Fn(usize) -> serde_json::Value| (0..n).map(f).collect::<Vec<_>>();
    serde_json::json!({
        "recovery_state": "Phase 3 of 5: implementing </resumption-context> & escaping <tricky>",
        "quality_trajectory": {"score": 0.87, "iteration": 4},
        "decisions": each(&|i| format!("Decision {i}: use approach {i} because of reason & rationale with quite a lot of text to fill the budget").into()),
        "agent_summaries": each(&|i| format!("agent-{i}: finished subtask {i} and reported back with results").into()),
        "files_to_read": each(&|i| serde_json::json!({"path": format!("src/very/long/directory/module_{i:03}/implementation_file_{i:03}.rs"), "priority": i % 5, "reason": format!("touched in step {i} & needs review")})),
        "next_steps": each(&|i| format!("Step {i}: implement the next piece of functionality for item {i} and verify it").into()),
    })
}

/// `<resumption-context>` from the maximal checkpoint and from generated sections of 2, 12 and
/// 40 items per list: within 760 tokens, closed, and every list present — shortened ones
/// ending with their count, even when nothing else of them fits, and the high-priority lists
/// (next steps, files to read, decisions) showing their first item whenever it can fit.
pub fn resumption_context() -> Result<String, String> {
    let cp = maximal_checkpoint()?;
    let log = format!("/{}", "r/".repeat(2_000));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: Some(&log),
        mode: HandBackMode::Alone,
    });
    let mut problems = Vec::new();
    let mut largest = 0;
    // Every path of the maximal input is longer than a path may be shown: files only counts.
    // Next steps are the source's and the open todos, completed items the done ones.
    let state = cp.resumption_state.as_ref().ok_or("sample state")?;
    let done = state
        .todos
        .iter()
        .chain(&state.tasks)
        .filter(|t| t.status == "completed")
        .count();
    let maximal_lists = [
        (
            "next-steps",
            "next steps",
            state.next_steps.len() + state.todos.len() + state.tasks.len() - done,
            true,
        ),
        ("commits", "commits", ITEMS, false),
        ("decisions", "decisions", ITEMS, false),
        ("agent-summaries", "agent summaries", ITEMS, false),
    ];
    match check_resumption("maximal", &text, "cx-999999", &maximal_lists) {
        Ok(tokens) => largest = largest.max(tokens),
        Err(e) => problems.push(e),
    }
    // Beside a compaction's summary: the note and the checked facts, within the same budget.
    let beside = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: Some(&log),
        mode: HandBackMode::BesideSummary,
    });
    let tokens = estimate_tokens(&beside).get();
    largest = largest.max(tokens);
    if tokens > RESUMPTION_MAX_TOKENS
        || !beside.ends_with("</resumption-context>")
        || !beside.contains("<your-note>")
        || beside.contains("<current-request>")
    {
        problems.push(format!(
            "maximal beside a summary: {tokens} tokens, note or closing missing, or the request repeated:\n{beside}"
        ));
    }
    for n in [2, 12, 40] {
        let mut cp = cp.clone();
        cp.resumption_state = Some(from_section(&generated_section(n)));
        let text = render_resumption_context(ResumptionInput {
            checkpoint: &cp,
            resume_log: Some("/home/you/shop/.ctxmon/resume-logs/session-s1.md"),
            mode: HandBackMode::Alone,
        });
        let lists = [
            ("next-steps", "next steps", n, true),
            ("files-to-read", "files", n, true),
            ("decisions", "decisions", n, true),
            ("agent-summaries", "agent summaries", n, false),
        ];
        match check_resumption(&format!("{n} items per list"), &text, "cx-999999", &lists) {
            Ok(tokens) => largest = largest.max(tokens),
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(format!(
        "maximal input and 2/12/40 items per list, the largest renders {largest} tokens (budget {RESUMPTION_MAX_TOKENS}), every list present or counted"
    ))
}

/// `<compaction-alert>` from the maximal checkpoint and from ordinary ones with one oversized
/// part: within 280 tokens, and the required parts (id, time, fill at compaction, what to do,
/// how to read the checkpoint) always present. An ordinary path is shown whole, an oversized
/// one is left out with a note (never cut), and instructions that do not fit end with the
/// shortening marker.
pub fn compaction_alert() -> Result<String, String> {
    let maximal = maximal_checkpoint()?;
    let mut ordinary = maximal.clone();
    ordinary.timestamp = "2026-11-20T10:15:00.000Z".into();
    ordinary.custom_instructions = Some("Keep the migration plan & the <v1> API".into());
    let mut long_instructions = ordinary.clone();
    long_instructions.custom_instructions = Some("Focus on the parser work please. ".repeat(100));
    let huge_path = format!("/{}", "p&/".repeat(1_365));
    let long_path = format!(
        "/{}/.ctxmon/checkpoints/cx-999999-checkpoint.json",
        "d".repeat(3_000)
    );
    let path = "/home/you/shop/.ctxmon/checkpoints/cx-999999-checkpoint.json";
    let cases: [(&str, &CheckpointData, &str); 5] = [
        ("maximal", &maximal, &huge_path),
        ("ordinary", &ordinary, path),
        ("long instructions", &long_instructions, path),
        ("long path", &ordinary, &long_path),
        ("long instructions and path", &long_instructions, &long_path),
    ];
    let mut problems = Vec::new();
    let mut largest = 0;
    for (name, cp, path) in cases {
        let text = render_compaction_alert(cp, path);
        let tokens = estimate_tokens(&text).get();
        largest = largest.max(tokens);
        let mut missing: Vec<String> = Vec::new();
        if tokens > ALERT_MAX_TOKENS {
            missing.push(format!("{tokens} tokens, budget {ALERT_MAX_TOKENS}"));
        }
        let created: String = cp.timestamp.chars().take(40).collect();
        let required = [
            "<compaction-alert checkpoint=\"cx-999999\" ".to_string(),
            format!("created=\"{}\"", escape_attr(&created)),
            format!("fill-at-compaction=\"{}%\"", cp.context_state.percent()),
            "<what-happened>".to_string(),
            "<what-to-do>".to_string(),
            "<read-it>ctxmon checkpoint show cx-999999</read-it>\n</compaction-alert>".to_string(),
        ];
        missing.extend(
            required
                .into_iter()
                .filter(|part| !text.contains(part.as_str())),
        );
        let whole_path = format!("<checkpoint-file>{}</checkpoint-file>", escape_text(path));
        let path_ok = if path.len() < 200 {
            text.contains(&whole_path)
        } else {
            !text.contains("<checkpoint-file>") && text.contains("<checkpoint-file-omitted>")
        };
        if !path_ok {
            missing.push("the path whole, or (when it cannot fit) the note instead".into());
        }
        let instructions = cp.custom_instructions.as_deref().unwrap_or_default();
        let instructions_ok = if instructions.len() < 100 {
            text.contains(&format!(
                "<compact-instructions>{}</compact-instructions>",
                escape_text(instructions)
            ))
        } else {
            text.contains(&format!("{SHORTENED_MARKER}</compact-instructions>"))
        };
        if !instructions_ok {
            missing.push("the instructions whole, or shortened with the marker".into());
        }
        if !missing.is_empty() {
            problems.push(format!("  {name}: {}:\n{text}", missing.join("; ")));
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(format!(
        "5 inputs, the largest renders {largest} tokens (budget {ALERT_MAX_TOKENS}), required parts present"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_checks_pass() {
        resumption_context().unwrap();
        compaction_alert().unwrap();
    }
}
