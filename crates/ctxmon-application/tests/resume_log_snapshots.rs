//! Golden markdown of a rich and a minimal resume log, generated through the real generator
//! from fixed inputs (no clock, no file system). Reviewed like code; CI never writes them.

use std::collections::BTreeMap;

use ctxmon_application::config::ResumeLogsConfig;
use ctxmon_application::fakes::records;
use ctxmon_application::handoff::resume_log::{
    GenerationInputs, GitSnapshot, ResumeLogGenerator, TriggerKind,
};
use ctxmon_application::handoff::resumption::TranscriptHead;
use ctxmon_application::ports::GitHead;
use ctxmon_domain::resume_log::DraftMetadata;
use ctxmon_domain::{
    ContextWindow, Decision, FillEstimate, FillSource, Measured, ResumeLogDraft, ThresholdTier,
    Thresholds, Timestamp, TokenCount,
};

fn render(inputs: &GenerationInputs<'_>) -> String {
    ResumeLogGenerator::from_config(&ResumeLogsConfig::default())
        .generate(inputs)
        .rendered
        .markdown()
}

#[test]
fn rich_log() {
    let fill = FillEstimate::measured(Measured {
        tokens: TokenCount(166_400),
        window: ContextWindow::DEFAULT,
        thresholds: &Thresholds::default(),
        auto_compact_reserve: TokenCount(33_000),
        source: FillSource::Transcript,
        model: Some("claude-opus-4-6".into()),
    });
    let agent = ResumeLogDraft {
        mission_summary: Some(
            "Add tax support to the billing service: VAT per line item, a tax.rs module, and \
             migrations for the new columns.\n\nThe ledger export must keep its format."
                .into(),
        ),
        accomplishments: vec![
            "Split billing.rs into invoice.rs and totals.rs".into(),
            "Drafted tax.rs with per-line rounding".into(),
        ],
        key_findings: vec![
            "VAT is rounded per line, not per invoice (see ledger.csv, rows 12-40).".into(),
            "The `Money` type already carries a currency; no new type is needed.".into(),
        ],
        decisions: vec![
            Decision {
                decision: "Round per line".into(),
                rationale: "Matches the ledger and the accountants' spreadsheet".into(),
            },
            Decision {
                decision: "Keep f64 out of money".into(),
                rationale: String::new(),
            },
        ],
        next_steps: vec![
            "Write the migration for invoice_lines.tax_cents".into(),
            "Run cargo test -p billing\nthen the ledger export check".into(),
        ],
        critical_context: BTreeMap::from([
            ("ledger".into(), "/w/shop/ledger.csv".into()),
            ("migration id".into(), "20261120_tax".into()),
        ]),
        metadata: DraftMetadata {
            agents_used: vec!["Engineer".into(), "QA".into()],
            notes: BTreeMap::from([("reviewer".into(), "dana".into())]),
            ..Default::default()
        },
        ..Default::default()
    };
    let tail = vec![
        records::request("Refactor billing and add tax.rs"),
        records::write("Edit", "/w/shop/src/billing.rs"),
        records::write("Write", "/w/shop/src/tax.rs"),
        records::shell("3", "cargo test -p billing"),
        records::result_record(records::result(
            "3",
            true,
            "error[E0308]: mismatched types in tax.rs:41",
        ))
        .at("2026-11-20T09:59:30.000Z"),
    ];
    let head = TranscriptHead {
        first_request: Some("Refactor billing and add tax.rs".into()),
        started_at: Some("2026-11-20T07:26:00.000Z".into()),
        goal: None,
        first_asked: None,
    };
    let git = GitSnapshot {
        head: GitHead {
            branch: Some("feature/tax".into()),
            head: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
        },
        dirty_files: Some(vec![" M src/billing.rs".into(), "?? src/tax.rs".into()]),
    };
    let inputs = GenerationInputs {
        session_id: "ef958aa1-19fa-41d2-9c3e-7b1f0a2d4c55",
        trigger: TriggerKind::Tier(ThresholdTier::Critical),
        now: Timestamp(1_795_168_800_000),
        fill: Some(&fill),
        agent: Some(&agent),
        checkpoint: None,
        tail: Some(&tail),
        derived: None,
        head: Some(&head),
        git: Some(&git),
        transcript_path: Some("/home/you/.claude/projects/-w-shop/ef958aa1.jsonl"),
        previous: None,
    };
    let md = render(&inputs);
    // What PreCompact hands over, the tail's state derived once for its checkpoint, makes the
    // same log as deriving it here.
    let derived = ctxmon_application::handoff::resumption::derive_tail(&tail, &[]);
    assert_eq!(
        render(&GenerationInputs {
            derived: Some(&derived),
            ..inputs
        }),
        md
    );
    insta::assert_snapshot!("resume_log_rich", md);
}

#[test]
fn minimal_log() {
    let md = render(&GenerationInputs {
        session_id: "s1",
        trigger: TriggerKind::SessionEnd,
        now: Timestamp(1_795_168_800_000),
        fill: None,
        agent: None,
        checkpoint: None,
        tail: None,
        derived: None,
        head: None,
        git: None,
        transcript_path: None,
        previous: None,
    });
    insta::assert_snapshot!("resume_log_minimal", md);
}
