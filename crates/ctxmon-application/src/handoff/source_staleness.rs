//! When the resumption source file (`ORCHESTRATION.yaml`) no longer describes the present:
//! its `resumption.updated_at` is missing, unreadable, older than the newest checkpoint, or
//! older than `resumption.stale_after_minutes`. PreToolUse reminds the agent when it edits the
//! file; PreCompact lets the transcript lead the handoff instead of a stale file.

use ctxmon_domain::Timestamp;
use ctxmon_domain::human::{count, thousands};

use crate::run::{HookRun, Warning};

/// Why `updated_at` is stale, or `None` when it is fresh.
pub fn staleness(run: &mut HookRun<'_>, updated_at: Option<&str>) -> Option<String> {
    let (ctx, ports) = (run.ctx, run.ports);
    let Some(raw) = updated_at else {
        return Some("resumption.updated_at is missing.".to_string());
    };
    let shown: String = raw.chars().take(40).collect();
    let Some(at) = Timestamp::parse_rfc3339(raw) else {
        return Some(format!(
            "resumption.updated_at ({shown}) is not an RFC 3339 time."
        ));
    };
    match ports.checkpoints.newest() {
        Ok(newest) => {
            if let Some(newest) = newest
                && at < newest.created_at_ms
            {
                return Some(format!(
                    "resumption.updated_at ({shown}) is older than checkpoint {} ({}).",
                    newest.checkpoint_id, newest.timestamp
                ));
            }
        }
        Err(e) => run.warn(Warning::CheckpointsUnreadable(e)),
    }
    let limit_ms = i64::try_from(
        ctx.config
            .resumption
            .stale_after_minutes
            .saturating_mul(60_000),
    )
    .unwrap_or(i64::MAX);
    let age_ms = ports.clock.now().millis().saturating_sub(at.millis());
    (age_ms > limit_ms).then(|| {
        format!(
            "resumption.updated_at ({shown}) is {} old (limit {}).",
            count(
                u64::try_from(age_ms / 60_000).unwrap_or(0),
                "minute",
                "minutes"
            ),
            thousands(ctx.config.resumption.stale_after_minutes)
        )
    })
}

/// Whether the file's `updated_at` is a time older than the newest checkpoint: the file was
/// not brought up to date since the last compaction, so the transcript knows better. A file
/// without a readable time is not judged here (the reminder at PreToolUse asks for one).
pub fn older_than_newest_checkpoint(run: &mut HookRun<'_>, updated_at: Option<&str>) -> bool {
    let Some(at) = updated_at.and_then(Timestamp::parse_rfc3339) else {
        return false;
    };
    match run.ports.checkpoints.newest() {
        Ok(newest) => newest.is_some_and(|newest| at < newest.created_at_ms),
        Err(e) => {
            run.warn(Warning::CheckpointsUnreadable(e));
            false
        }
    }
}
