//! The critical context as agents write it, any JSON: nested maps and lists render as a
//! nested list, the agent's own figures beside ctxmon's, and the stored JSON keeps the shapes.

use super::tests::sample;
use super::*;

/// An agent's document in the resume log's JSON format, with every section, nested critical
/// context and the agent's own figures.
const EXAMPLE_DOCUMENT: &str = include_str!("../../../../fixtures/resume-logs/agent-document.json");

#[test]
fn the_example_document_is_a_draft_and_its_context_a_nested_list() {
    let draft: ResumeLogDraft = serde_json::from_str(EXAMPLE_DOCUMENT).unwrap();
    assert_eq!(draft.session_id.as_deref(), Some("20251101_115000"));
    let reported = draft.context_metrics.clone().unwrap();
    assert_eq!(reported.used_tokens, Some(170_000));
    assert_eq!(reported.percentage_used, Some(85.0));
    assert_eq!(draft.metadata.session_duration_minutes, Some(154));
    let mut log = sample();
    log.critical_context = draft.critical_context.clone();
    log.agent_metrics = draft.context_metrics.clone();
    log.metadata.session_duration_minutes = draft.metadata.session_duration_minutes;
    let md = log.to_markdown();
    assert!(
        md.contains(
            "## Critical Context\n\n\
             - **environment_variables:**\n  - JWT_SECRET\n  - JWT_EXPIRATION_HOURS\n\
             - **file_paths:**\n  - **auth_service:** src/services/auth.py\n  \
             - **login_endpoint:** src/api/routes/auth.py\n\
             - **important_ids:**\n  - **migration_id:** 20251101_auth_schema\n\n## Session Metadata"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "- Stop Reason: pre_compact\n\nAs the agent reported them (not measured by ctxmon):\n\n\
             - Model: claude-sonnet-4.5\n- Total Budget: 200,000 tokens\n\
             - Used: 170,000 tokens (85%)\n- Remaining: 30,000 tokens\n\
             - Stop Reason: end_turn\n- At: 2025-11-01T11:50:00\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("- Session Duration (as the agent reported it): 2 h 34 min (154 min)\n"),
        "{md}"
    );
    // ctxmon's own figures stay the log's: the agent's are shown beside them.
    assert!(md.contains(
        "- Used: 170,000 tokens (85%)\n- Remaining: 30,000 tokens\n- Stop Reason: pre_compact"
    ));
    let json = serde_json::to_string(&log).unwrap();
    assert_eq!(serde_json::from_str::<ResumeLog>(&json).unwrap(), log);
}

#[test]
fn nested_context_values_keep_their_kind_and_deep_text_stays_in_its_item() {
    let mut log = sample();
    log.critical_context = serde_json::from_str(
        r#"{"deep": {"a": {"b": {"c": {"d": "line one\n## Not a heading\nline three"}}}},
            "mixed": [1, true, null, [], {}, [["x"]], {"k": "v"}],
            "ratio": 0.87}"#,
    )
    .unwrap();
    let md = log.to_markdown();
    assert!(
        md.contains(
            "- **deep:**\n  - **a:**\n    - **b:**\n      - **c:**\n        - **d:** line one\n          ## Not a heading\n          line three\n"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "- **mixed:**\n  - 1\n  - true\n  - null\n  - (none)\n  - (none)\n  - **#6:**\n    - **#1:**\n      - x\n  - **#7:**\n    - **k:** v\n- **ratio:** 0.87\n"
        ),
        "{md}"
    );
}
