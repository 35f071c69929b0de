//! Golden snapshots of `<resumption-context>` and `<compaction-alert>`, and the budget
//! properties that hold for any input: well-formed XML within 760 / 280 tokens.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use ctxmon_application::handoff::alert::{
    ALERT_MAX_TOKENS, SHORTENED_MARKER, render_compaction_alert,
};
use ctxmon_application::handoff::resume_log::pointer::{
    POINTER_MAX_TOKENS, PointerInput, PointerScope, render_resume_log_pointer,
};
use ctxmon_application::handoff::resumption::context::{
    HandBackMode, RESUMPTION_MAX_TOKENS, ResumptionInput, render_resumption_context,
};
use ctxmon_domain::{
    AgentNote, Check, CheckpointData, CheckpointId, CompactionTrigger, ContextMetrics,
    ContextWindow, Failure, FileToRead, FillEstimate, FillSource, Measured, QualityTrajectory,
    ResumeLog, ResumptionOrigin, ResumptionState, SessionInfo, Thresholds, Timestamp, Todo,
    TokenCount, estimate_tokens,
};
use proptest::prelude::*;

fn checkpoint(state: Option<ResumptionState>) -> CheckpointData {
    let fill = FillEstimate::measured(Measured {
        tokens: TokenCount(166_400),
        window: ContextWindow::DEFAULT,
        thresholds: &Thresholds::default(),
        auto_compact_reserve: TokenCount(33_000),
        source: FillSource::Transcript,
        model: Some("claude-sonnet-4-5".into()),
    });
    CheckpointData {
        schema_version: 1,
        checkpoint_id: CheckpointId::new(4).unwrap(),
        timestamp: "2026-11-20T10:15:00.000Z".into(),
        created_at_ms: Timestamp(1_795_169_700_000),
        compaction_sequence: 2,
        trigger: CompactionTrigger::Auto,
        custom_instructions: Some("Keep the migration plan".into()),
        context_state: fill,
        resumption_state: state,
        session_info: SessionInfo {
            session_id: Some("s1".into()),
            ..Default::default()
        },
    }
}

fn rich() -> ResumptionState {
    ResumptionState {
        origin: ResumptionOrigin::SourceFile,
        summary: Some("Phase 2 of 3: schema migration done, API layer in progress".into()),
        quality_trajectory: Some(QualityTrajectory {
            score: Some(0.92),
            iteration: Some(3),
        }),
        decisions: vec![
            "Use sqlx over diesel — compile-time checked queries".into(),
            "Keep v1 endpoints until clients move".into(),
        ],
        agent_summaries: vec!["reviewer: approved schema with 2 nits".into()],
        files_to_read: vec![
            FileToRead {
                path: "docs/plan.md".into(),
                priority: Some(1),
                reason: Some("the plan".into()),
            },
            FileToRead {
                path: "src/api/orders.rs".into(),
                priority: Some(2),
                reason: None,
            },
        ],
        next_steps: vec![
            "Port GET /orders to the new schema".into(),
            "Run the contract tests".into(),
        ],
        updated_at: Some("2026-11-20T10:10:00Z".into()),
        last_user_requests: vec![
            "Start the API port".into(),
            "Port the orders endpoints & keep <v1> alive".into(),
        ],
        todos: vec![],
        files_touched: vec!["src/db/schema.rs".into()],
        last_assistant_text: Some("Schema migrated; moving on to the API.".into()),
        ..Default::default()
    }
}

#[test]
fn snapshot_rich_resumption_context() {
    let cp = checkpoint(Some(rich()));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: Some("/p/.ctxmon/resume-logs/session-s1.md"),
        mode: HandBackMode::Alone,
    });
    roxmltree::Document::parse(&text).unwrap();
    insta::assert_snapshot!("resumption_context_rich", text);
}

/// A realistic session derived from its transcript: many requests, tasks in progress, a branch
/// with uncommitted changes and a commit, a test run that failed, a subagent still running and
/// a constraint the user gave when refusing an edit.
#[test]
fn snapshot_work_resumption_context() {
    let state = ResumptionState {
        origin: ResumptionOrigin::Transcript,
        goal: Some("Add VAT to the invoice totals; keep the ledger export byte-identical".into()),
        last_user_requests: vec![
            "Split billing.rs first".into(),
            "Now make the tax tests pass".into(),
        ],
        todos: vec![],
        tasks: vec![
            Todo {
                content: "Split billing.rs".into(),
                status: "completed".into(),
            },
            Todo {
                content: "Write tax.rs".into(),
                status: "in_progress".into(),
            },
            Todo {
                content: "Run the ledger export check".into(),
                status: "pending".into(),
            },
        ],
        git_branch: Some("feature/vat".into()),
        uncommitted_changes: Some(3),
        commits: vec!["1a2b3c4 Split billing.rs into invoice and ledger".into()],
        failure: Some(Failure {
            command: "cargo test -p billing".into(),
            excerpt: "test tax::rounding ... FAILED\nthread 'tax::rounding' panicked at src/tax.rs:41:5:\nassertion `left == right` failed\n  left: 1999\n right: 2000\ntest result: FAILED. 11 passed; 1 failed".into(),
        }),
        last_check: Some(Check {
            command: "cargo test -p billing".into(),
            passed: false,
        }),
        files_touched: vec!["/w/shop/src/billing.rs".into(), "/w/shop/src/tax.rs".into()],
        subagents_running: vec!["Review the ledger export format".into()],
        user_constraints: vec!["keep the old file name, only change the script entry".into()],
        last_assistant_text: Some("The rounding is off by one cent; fixing tax.rs next.".into()),
        ..Default::default()
    };
    let mut cp = checkpoint(Some(state));
    cp.session_info.git_branch = Some("feature/vat".into());
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: Some("/w/shop/.ctxmon/resume-logs/session-s1.md"),
        mode: HandBackMode::Alone,
    });
    roxmltree::Document::parse(&text).unwrap();
    assert!(estimate_tokens(&text).get() <= RESUMPTION_MAX_TOKENS);
    insta::assert_snapshot!("resumption_context_work", text);
}

#[test]
fn snapshot_minimal_resumption_context() {
    let state = ResumptionState {
        last_user_requests: vec!["Fix the flaky test".into()],
        ..Default::default()
    };
    let cp = checkpoint(Some(state));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: None,
        mode: HandBackMode::Alone,
    });
    insta::assert_snapshot!("resumption_context_minimal", text);
}

/// An ordinary compaction does not end the session: the injected text must not tell the agent
/// it was abandoned (the `SessionAbandoned` event stays in the event log only).
#[test]
fn an_ordinary_compaction_is_not_called_abandonment() {
    for state in [
        rich(),
        ResumptionState {
            last_user_requests: vec!["Fix the flaky test".into()],
            ..Default::default()
        },
    ] {
        let cp = checkpoint(Some(state));
        let text = render_resumption_context(ResumptionInput {
            checkpoint: &cp,
            resume_log: None,
            mode: HandBackMode::Alone,
        });
        assert!(!text.is_empty());
        assert!(!text.to_lowercase().contains("abandon"), "{text}");
        assert!(text.contains("fill-at-compaction=\"83%\""), "{text}");
    }
}

#[test]
fn the_goal_is_shown_once_not_again_among_earlier_requests() {
    let goal = "Make the CLI installable with uv";
    let cp = checkpoint(Some(ResumptionState {
        goal: Some(goal.into()),
        last_user_requests: vec![
            goal.into(),
            "Add a README section".into(),
            "Now fix CI".into(),
        ],
        ..Default::default()
    }));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: None,
        mode: HandBackMode::Alone,
    });
    assert_eq!(text.matches(goal).count(), 1, "{text}");
    // The first request is only ever called that, never the goal: the work moved on.
    assert!(
        text.contains("<first-request>Make the CLI installable with uv</first-request>"),
        "{text}"
    );
    assert!(!text.contains("<goal>"), "{text}");
    assert!(
        text.contains("<current-request>Now fix CI</current-request>"),
        "{text}"
    );
    // Earlier requests repeat the agent's own summary: they are not shown.
    assert!(!text.contains("Add a README section"), "{text}");
}

#[test]
fn no_resumption_state_renders_nothing() {
    for state in [None, Some(ResumptionState::default())] {
        let cp = checkpoint(state);
        assert_eq!(
            render_resumption_context(ResumptionInput {
                checkpoint: &cp,
                resume_log: None,
                mode: HandBackMode::Alone,
            }),
            ""
        );
    }
}

#[test]
fn snapshot_compaction_alert() {
    let cp = checkpoint(None);
    let text = render_compaction_alert(&cp, "/p/.ctxmon/checkpoints/cx-004-checkpoint.json");
    roxmltree::Document::parse(&text).unwrap();
    insta::assert_snapshot!("compaction_alert", text);
}

/// Found by fuzzing the checkpoint file: a long `timestamp` pushed the alert's opening tag
/// over the budget, which dropped it and left `</compaction-alert>` unbalanced.
#[test]
fn a_hand_edited_timestamp_cannot_break_the_alert() {
    for timestamp in ["x".repeat(1_300), "<&\"".repeat(2_000), String::new()] {
        let mut cp = checkpoint(None);
        cp.timestamp = timestamp;
        let text = render_compaction_alert(&cp, "/p/.ctxmon/checkpoints/cx-004-checkpoint.json");
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "compaction-alert");
        assert!(estimate_tokens(&text).get() <= ALERT_MAX_TOKENS, "{text}");
        assert!(text.contains("ctxmon checkpoint show cx-004"), "{text}");
    }
}

/// The parts of the alert contract C7 requires, whatever else it carries: the checkpoint id, its
/// time and the fill at compaction, what happened, what to do, and how to read the checkpoint.
fn assert_required_alert_parts(text: &str) {
    assert!(estimate_tokens(text).get() <= ALERT_MAX_TOKENS, "{text}");
    let doc = roxmltree::Document::parse(text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "compaction-alert");
    assert_eq!(root.attribute("checkpoint"), Some("cx-004"));
    assert_eq!(root.attribute("created"), Some("2026-11-20T10:15:00.000Z"));
    assert_eq!(root.attribute("fill-at-compaction"), Some("83%"));
    let child = |name: &str| {
        root.children()
            .find(|n| n.has_tag_name(name))
            .and_then(|n| n.text())
            .map(str::to_string)
    };
    assert!(child("what-happened").unwrap().contains("compacted at 83%"));
    assert!(child("what-to-do").is_some(), "{text}");
    assert_eq!(
        child("read-it").as_deref(),
        Some("ctxmon checkpoint show cx-004"),
        "{text}"
    );
}

/// Found by the audit: a 3.3 KB `/compact` instruction or a 3 KB project path pushed
/// `<what-to-do>`, `<checkpoint-file>` and `<read-it>` out of the alert.
#[test]
fn long_instructions_and_paths_never_push_out_the_required_parts() {
    let long_instructions = "Focus on the parser work please. ".repeat(100);
    let normal_path = "/p/.ctxmon/checkpoints/cx-004-checkpoint.json";
    let long_path = format!(
        "/{}/.ctxmon/checkpoints/cx-004-checkpoint.json",
        "project-folder/".repeat(200)
    );
    assert!(long_instructions.len() > 3_200 && long_path.len() > 3_000);

    // Long instructions: shortened with the marker, the (short) path still whole.
    let mut cp = checkpoint(None);
    cp.custom_instructions = Some(long_instructions.clone());
    let text = render_compaction_alert(&cp, normal_path);
    assert_required_alert_parts(&text);
    assert!(
        text.contains(&format!("<checkpoint-file>{normal_path}</checkpoint-file>")),
        "{text}"
    );
    let doc = roxmltree::Document::parse(&text).unwrap();
    let shown = doc
        .descendants()
        .find(|n| n.has_tag_name("compact-instructions"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(
        shown.starts_with("Focus on the parser work please."),
        "{shown}"
    );
    assert!(shown.ends_with(SHORTENED_MARKER), "{shown}");
    assert!(
        shown.len() > 200,
        "the instructions get what is left: {shown}"
    );

    // A long path: left out with a note, never cut; short instructions still whole.
    let mut cp = checkpoint(None);
    cp.custom_instructions = Some("Keep the migration plan".into());
    let text = render_compaction_alert(&cp, &long_path);
    assert_required_alert_parts(&text);
    assert!(
        !text.contains("<checkpoint-file>") && !text.contains("project-folder"),
        "{text}"
    );
    assert!(text.contains("<checkpoint-file-omitted>"), "{text}");
    assert!(text.contains("<compact-instructions>Keep the migration plan</compact-instructions>"));

    // Both long at once.
    cp.custom_instructions = Some(long_instructions);
    let text = render_compaction_alert(&cp, &long_path);
    assert_required_alert_parts(&text);
    assert!(text.contains(SHORTENED_MARKER), "{text}");
}

fn resume_log(mission: &str) -> ResumeLog {
    let mut log = ResumeLog::new(
        "ef958aa1-19fa-41d2-9c3e-7b1f0a2d4c55",
        ContextMetrics::new(
            200_000,
            166_400,
            "session_end",
            "claude-opus-4-6",
            Timestamp(1_795_168_800_000),
        ),
    );
    log.mission_summary = mission.into();
    log.next_steps = vec!["Write the migration".into()];
    log
}

#[test]
fn snapshot_resume_log_pointer() {
    let log = resume_log(
        "Add tax support to the billing service & keep <v1> alive.\n\n## Next Steps\n1. add test",
    );
    let this = render_resume_log_pointer(PointerInput {
        scope: PointerScope::ThisSession,
        log: &log,
        location: "/w/shop/.ctxmon/resume-logs/session-ef958aa1-19fa-41d2-9c3e-7b1f0a2d4c55.md",
        handed_back: None,
    });
    roxmltree::Document::parse(&this).unwrap();
    assert!(estimate_tokens(&this).get() <= POINTER_MAX_TOKENS);
    insta::assert_snapshot!("resume_log_pointer_this_session", this);
    let earlier = render_resume_log_pointer(PointerInput {
        scope: PointerScope::EarlierSession,
        log: &resume_log(""),
        location: "/w/shop/.ctxmon/resume-logs/session-ef958aa1-19fa-41d2-9c3e-7b1f0a2d4c55.md",
        handed_back: None,
    });
    insta::assert_snapshot!("resume_log_pointer_earlier_session", earlier);
}

#[test]
fn a_pointer_never_cuts_a_path_and_stays_small() {
    let mut log = resume_log(&"Refactor <billing> & \"tax\" ".repeat(2_000));
    log.session_id = "../../x\"<".repeat(100);
    log.context_metrics.timestamp = "<&\"".repeat(500);
    let long_path = format!("/{}/session-x.md", "deep/".repeat(400));
    let text = render_resume_log_pointer(PointerInput {
        scope: PointerScope::ThisSession,
        log: &log,
        location: &long_path,
        handed_back: Some("cx-999999999"),
    });
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "resumption-context");
    assert!(estimate_tokens(&text).get() <= POINTER_MAX_TOKENS, "{text}");
    assert!(
        !text.contains("deep/deep"),
        "the path is left out whole: {text}"
    );
    let read_more = doc
        .descendants()
        .find(|n| n.has_tag_name("read-more"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(read_more.starts_with("ctxmon resume-log show h-"), "{text}");
    let mission = doc
        .descendants()
        .find(|n| n.has_tag_name("mission"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(mission.starts_with("Refactor <billing> & \"tax\" Refactor") && mission.ends_with('…'));
}

#[test]
fn oversized_lists_are_counted_not_cut() {
    let mut state = rich();
    state.next_steps = (1..=60)
        .map(|i| format!("Step {i}: port endpoint number {i} to the new schema"))
        .collect();
    state.decisions = (1..=40).map(|i| format!("Decision {i}").into()).collect();
    state.files_to_read = (1..=80)
        .map(|i| FileToRead {
            path: format!("src/module_{i}/very/deep/path/file_{i}.rs"),
            priority: Some(i),
            reason: None,
        })
        .collect();
    let cp = checkpoint(Some(state));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: None,
        mode: HandBackMode::Alone,
    });
    assert!(
        estimate_tokens(&text).get() <= RESUMPTION_MAX_TOKENS,
        "{}",
        estimate_tokens(&text)
    );
    let doc = roxmltree::Document::parse(&text).unwrap();
    let left_out = doc
        .descendants()
        .find(|n| n.has_tag_name("left-out"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(left_out.contains("more next steps"), "{text}");
    assert!(
        left_out.ends_with("ctxmon checkpoint show cx-004"),
        "{text}"
    );
    // No list ends with a placeholder count of its own.
    assert!(!text.contains("- +"), "{text}");
    // Every listed path is complete: it appears exactly as in the input.
    let files = doc.descendants().find(|n| n.has_tag_name("files-to-read"));
    if let Some(files) = files {
        for line in files
            .text()
            .unwrap_or("")
            .lines()
            .filter(|l| l.starts_with("- src/"))
        {
            let path = line.trim_start_matches("- ");
            assert!(
                path.ends_with(".rs") && path.starts_with("src/module_"),
                "cut path: {path}"
            );
        }
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,40}",
        any::<String>(),
        "(</resumption-context>|&amp;|<x>|\\]\\]>){1,20}",
        "[a-z]{1,10}".prop_map(|w| w.repeat(400)),
    ]
}

fn state() -> impl Strategy<Value = ResumptionState> {
    (
        proptest::option::of(text()),
        proptest::collection::vec(text(), 0..30),
        proptest::collection::vec(text(), 0..30),
        proptest::collection::vec((text(), proptest::option::of(any::<i64>())), 0..30),
        proptest::collection::vec(text(), 0..10),
        proptest::collection::vec((text(), "(pending|in_progress|completed)"), 0..30),
        proptest::collection::vec(text(), 0..30),
        proptest::option::of(text()),
    )
        .prop_map(
            |(summary, next_steps, decisions, files, requests, todos, touched, last)| {
                ResumptionState {
                    origin: ResumptionOrigin::Transcript,
                    summary,
                    quality_trajectory: None,
                    decisions: decisions.into_iter().map(Into::into).collect(),
                    agent_summaries: vec![],
                    files_to_read: files
                        .into_iter()
                        .map(|(path, priority)| FileToRead {
                            path,
                            priority,
                            reason: None,
                        })
                        .collect(),
                    next_steps,
                    updated_at: None,
                    last_user_requests: requests,
                    todos: todos
                        .into_iter()
                        .map(|(content, status)| Todo { content, status })
                        .collect(),
                    files_touched: touched,
                    last_assistant_text: last,
                    ..Default::default()
                }
            },
        )
}

/// What the transcript says about the work: goal, tasks, work tree, failure, check,
/// subagents, constraints — hostile, huge and empty alike.
fn work() -> impl Strategy<Value = ResumptionState> {
    (
        proptest::option::of(text()),
        proptest::collection::vec((text(), "(pending|in_progress|completed|deleted|x)"), 0..30),
        proptest::option::of(text()),
        proptest::option::of(0u64..100_000),
        proptest::collection::vec(text(), 0..30),
        proptest::option::of((text(), text())),
        proptest::option::of((text(), any::<bool>())),
        proptest::collection::vec(text(), 0..20),
        proptest::collection::vec(text(), 0..20),
    )
        .prop_map(
            |(goal, tasks, branch, dirty, commits, failure, check, running, constraints)| {
                ResumptionState {
                    goal,
                    tasks: tasks
                        .into_iter()
                        .map(|(content, status)| Todo { content, status })
                        .collect(),
                    git_branch: branch,
                    uncommitted_changes: dirty,
                    commits,
                    failure: failure.map(|(command, excerpt)| Failure { command, excerpt }),
                    last_check: check.map(|(command, passed)| Check { command, passed }),
                    subagents_running: running,
                    user_constraints: constraints,
                    ..Default::default()
                }
            },
        )
}

/// A state with both: what the source or the derivation gives and the work.
fn full_state() -> impl Strategy<Value = ResumptionState> {
    (state(), work()).prop_map(|(base, work)| ResumptionState {
        goal: work.goal,
        tasks: work.tasks,
        git_branch: work.git_branch,
        uncommitted_changes: work.uncommitted_changes,
        commits: work.commits,
        failure: work.failure,
        last_check: work.last_check,
        subagents_running: work.subagents_running,
        user_constraints: work.user_constraints,
        ..base
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_state_fits_and_parses(s in full_state()) {
        let cp = checkpoint(Some(s));
        let text = render_resumption_context(ResumptionInput { checkpoint: &cp, resume_log: Some("/p/log.md"), mode: HandBackMode::Alone });
        prop_assert!(estimate_tokens(&text).get() <= RESUMPTION_MAX_TOKENS, "{} tokens", estimate_tokens(&text));
        if !text.is_empty() {
            prop_assert!(roxmltree::Document::parse(&text).is_ok(), "{}", text);
        }
    }

    #[test]
    fn any_alert_fits_and_parses(instructions in proptest::option::of(text()), path in text()) {
        let mut cp = checkpoint(None);
        cp.custom_instructions = instructions;
        let alert = render_compaction_alert(&cp, &path);
        prop_assert!(estimate_tokens(&alert).get() <= ALERT_MAX_TOKENS);
        prop_assert!(roxmltree::Document::parse(&alert).is_ok(), "{}", alert);
        prop_assert!(alert.contains("<what-to-do>"), "{}", alert);
        prop_assert!(alert.contains("<read-it>ctxmon checkpoint show cx-004</read-it>"), "{}", alert);
    }

    #[test]
    fn any_pointer_fits_and_parses(mission in text(), session in text(), stamp in text(), path in text(), this in any::<bool>()) {
        let mut log = resume_log(&mission);
        log.session_id = session;
        log.context_metrics.timestamp = stamp;
        let scope = if this { PointerScope::ThisSession } else { PointerScope::EarlierSession };
        let text = render_resume_log_pointer(PointerInput { scope, log: &log, location: &path, handed_back: Some("cx-999999999") });
        prop_assert!(estimate_tokens(&text).get() <= POINTER_MAX_TOKENS, "{} tokens", estimate_tokens(&text));
        prop_assert!(roxmltree::Document::parse(&text).is_ok(), "{}", text);
    }
}

fn noted() -> ResumptionState {
    ResumptionState {
        origin: ResumptionOrigin::Transcript,
        last_user_requests: vec!["Port the orders endpoints".into()],
        intent: Some("Let me run the contract tests next.".into()),
        todos: vec![Todo {
            content: "Port GET /orders".into(),
            status: "in_progress".into(),
        }],
        goal: Some("Start the API port".into()),
        rules: vec!["Never push to main".into()],
        commands_ok: vec!["cargo test -p api".into()],
        lessons: vec![
            "use `py -m pytest`, not `python3 -m pytest` (python3: command not found)".into(),
        ],
        environment: vec!["database: shop (psql)".into()],
        note: Some(AgentNote {
            text: "Goal: API on the new schema. Gotcha: the v1 routes stay.".into(),
            location: "/p/.ctxmon/notes/s1.md".into(),
            written_at: Some("2026-11-20T10:00:00.000Z".into()),
            requests_after: vec!["Port the orders endpoints".into()],
            files_after: vec!["/p/src/api/orders.rs".into()],
            completed_after: vec!["Port GET /users".into()],
            calls_after: 12,
        }),
        ..Default::default()
    }
}

#[test]
fn beside_a_summary_the_hand_back_carries_the_note_and_checked_facts_only() {
    let cp = checkpoint(Some(noted()));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: Some("/p/.ctxmon/resume-logs/session-s1.md"),
        mode: HandBackMode::BesideSummary,
    });
    roxmltree::Document::parse(&text).unwrap();
    // The note leads, said to be behind what came after it, then what came after it.
    let note_at = text.find("<your-note>").expect(&text);
    assert!(
        note_at < text.find("<since-your-note>").expect(&text),
        "{text}"
    );
    assert!(
        text.contains("since then 1 user request and 12 tool calls"),
        "{text}"
    );
    assert!(
        text.contains("the user asked: &quot;Port the orders endpoints&quot;")
            || text.contains("the user asked: \"Port the orders endpoints\""),
        "{text}"
    );
    assert!(
        text.contains("marked completed since: Port GET /users"),
        "{text}"
    );
    assert!(
        text.contains("edited since: /p/src/api/orders.rs"),
        "{text}"
    );
    for fact in [
        "Never push to main",
        "cargo test -p api",
        "py -m pytest",
        "database: shop",
    ] {
        assert!(text.contains(fact), "{fact}: {text}");
    }
    // What a model's summary always restates, and ctxmon's own pointers, are left out.
    for redundant in [
        "<current-request>",
        "<in-progress>",
        "todo list",
        "<first-request>",
        "<left-out>",
        "<resume-log>",
        "ctxmon checkpoint show",
    ] {
        assert!(!text.contains(redundant), "{redundant}: {text}");
    }
    assert!(estimate_tokens(&text).get() <= RESUMPTION_MAX_TOKENS);
}

#[test]
fn alone_the_hand_back_also_says_what_is_asked_and_under_way() {
    let cp = checkpoint(Some(noted()));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        resume_log: None,
        mode: HandBackMode::Alone,
    });
    roxmltree::Document::parse(&text).unwrap();
    assert!(
        text.find("<your-note>") < text.find("<current-request>"),
        "{text}"
    );
    assert!(
        text.contains("<current-request>Port the orders endpoints</current-request>"),
        "{text}"
    );
    assert!(text.contains("Port GET /orders (todo list)"), "{text}");
    // The current request is not listed twice.
    assert_eq!(
        text.matches("Port the orders endpoints").count(),
        1,
        "{text}"
    );
    assert!(estimate_tokens(&text).get() <= RESUMPTION_MAX_TOKENS);
}
