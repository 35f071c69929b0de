//! Budget checks for the compaction-resilience tags: `<resumption-context>` (760 tokens) and
//! `<compaction-alert>` (280 tokens), rendered from the largest inputs the readers let through
//! (200 items per list, 2,000-character texts full of characters that escaping lengthens,
//! 4,096-character paths).

use ctxmon_application::compaction_alert::{ALERT_MAX_TOKENS, render_compaction_alert};
use ctxmon_application::resumption_context::{
    HistoryEntry, RESUMPTION_MAX_TOKENS, ResumptionInput, render_resumption_context,
};
use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, ContextWindow, FileToRead, FillEstimate,
    FillSource, QualityTrajectory, ResumptionOrigin, ResumptionState, SessionInfo, Thresholds,
    Timestamp, Todo, TokenCount, estimate_tokens,
};

const ITEMS: usize = 200;

fn long_text(seed: usize, chars: usize) -> String {
    // `&` and `<` grow fivefold and fourfold when escaped: the worst case for a budget.
    let unit = format!("step {seed} & <tag> \"quoted\" ");
    unit.chars().cycle().take(chars).collect()
}

fn maximal_checkpoint() -> Result<CheckpointData, String> {
    let id = CheckpointId::new(999_999).ok_or("sample id")?;
    let fill = FillEstimate::measured(
        TokenCount(u64::MAX / 4),
        ContextWindow::ONE_MILLION,
        &Thresholds::default(),
        TokenCount(33_000),
        FillSource::Transcript,
        Some(long_text(0, 2_000)),
    );
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
        decisions: list(2),
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

/// `<resumption-context>` from the maximal checkpoint: within 760 tokens, well-formed, and the
/// shortened lists say how much they left out.
pub fn resumption_context() -> Result<String, String> {
    let cp = maximal_checkpoint()?;
    let history: Vec<HistoryEntry> = (1..=500)
        .map(|i| HistoryEntry {
            checkpoint_id: format!("cx-{i:03}"),
            fill_percent: 99,
        })
        .collect();
    let log = format!("/{}", "r/".repeat(2_000));
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &cp,
        history: &history,
        resume_log: Some(&log),
    });
    let tokens = estimate_tokens(&text).get();
    if tokens > RESUMPTION_MAX_TOKENS {
        return Err(format!(
            "  maximal input renders {tokens} tokens, budget {RESUMPTION_MAX_TOKENS}"
        ));
    }
    if !text.ends_with("</resumption-context>") || !text.contains("more next steps in cx-999999") {
        return Err(format!(
            "  the tag is not closed or does not count its omissions:\n{text}"
        ));
    }
    Ok(format!(
        "maximal input renders {tokens} tokens (budget {RESUMPTION_MAX_TOKENS})"
    ))
}

/// `<compaction-alert>` with a maximal custom instruction and checkpoint path: within 280.
pub fn compaction_alert() -> Result<String, String> {
    let cp = maximal_checkpoint()?;
    let path = format!("/{}", "p&/".repeat(1_365));
    let text = render_compaction_alert(&cp, &path);
    let tokens = estimate_tokens(&text).get();
    if tokens > ALERT_MAX_TOKENS || !text.ends_with("</compaction-alert>") {
        return Err(format!(
            "  maximal input renders {tokens} tokens, budget {ALERT_MAX_TOKENS}:\n{text}"
        ));
    }
    Ok(format!(
        "maximal input renders {tokens} tokens (budget {ALERT_MAX_TOKENS})"
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
