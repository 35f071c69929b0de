//! Doctor's `statusline figure` check: whether Claude Code's own figure (the status-line
//! payload's `context_window.used_percentage`) and ctxmon's agree. Doctor has no payload; the
//! status line keeps its latest comparison per session in `.ctxmon/status-line/` (see the
//! application's `payload_check`), and this check reports the newest of them.

use ctxmon_application::ports::Clock;
use ctxmon_domain::human::thousands;
use ctxmon_domain::{FillSource, PayloadCheck, Timestamp};
use ctxmon_infra_fs::{FsPayloadCheckStore, ProjectLayout, SystemClock};

use super::check::{Check, Status};

const NAME: &str = "statusline figure";
/// A disagreement older than this is history, as for the hook log.
const RECENT_MS: i64 = 24 * 60 * 60 * 1000;

/// Where ctxmon's status line stands in the project: only Claude Code has a status line that
/// runs a command, so only its project without one is told to install it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusLine {
    /// A Claude Code settings file runs ctxmon's status line.
    Installed,
    /// Claude Code runs ctxmon's hooks here, but not its status line.
    Missing,
    /// Claude Code does not run ctxmon here (a Codex or Gemini CLI project).
    NotClaudeCode,
}

pub fn payload(layout: &ProjectLayout, status_line: StatusLine) -> Check {
    payload_at(layout, SystemClock.now(), status_line)
}

fn payload_at(layout: &ProjectLayout, now: Timestamp, status_line: StatusLine) -> Check {
    let latest = match FsPayloadCheckStore::new(layout.clone()).latest() {
        Ok(latest) => latest,
        Err(e) => {
            return Check::new(NAME, Status::Warn, format!("cannot read it: {e}"))
                .with_fix("make .ctxmon/status-line readable (the status line rewrites it)");
        }
    };
    let Some(c) = latest else {
        let none = "no status-line payload with Claude Code's own used_percentage seen yet";
        return match status_line {
            StatusLine::Missing => Check::new(NAME, Status::Skip, none).with_fix(
                "`ctxmon install --statusline`: recent Claude Code versions send used_percentage, and the status line compares it with ctxmon's figure",
            ),
            StatusLine::Installed => Check::new(
                NAME,
                Status::Skip,
                format!(
                    "{none}: the status line compares it with ctxmon's figure once Claude Code sends it (recent versions do)"
                ),
            ),
            StatusLine::NotClaudeCode => Check::new(
                NAME,
                Status::Skip,
                "not applicable: only Claude Code's status line sends its own figure, and Claude Code does not run ctxmon here",
            ),
        };
    };
    let session = c
        .session_id
        .as_deref()
        .map(|s| format!("; session {s}"))
        .unwrap_or_default();
    let figures = format!(
        "Claude Code {}%, ctxmon {:.1}% ({} of {} tokens from the {}{session})",
        c.used_percentage,
        c.ctxmon_percentage,
        thousands(c.tokens),
        thousands(c.window),
        c.source.key()
    );
    let age = now.millis().saturating_sub(c.checked_at.millis());
    if !c.disagrees {
        return Check::ok(
            NAME,
            format!(
                "Claude Code's figure and ctxmon's agree within {} points at {}: {figures}",
                PayloadCheck::MAX_POINTS,
                c.checked_at.to_rfc3339()
            ),
        );
    }
    if age >= RECENT_MS {
        return Check::ok(
            NAME,
            format!(
                "no comparison in the last 24 hours (the last, at {}, was {:.1} points apart: {figures})",
                c.checked_at.to_rfc3339(),
                c.difference_points()
            ),
        );
    }
    Check::new(
        NAME,
        Status::Warn,
        format!(
            "{:.1} points apart since {}: {figures}",
            c.difference_points(),
            c.since.to_rfc3339()
        ),
    )
    .with_fix(fix(&c))
}

/// The likely cause, from what the comparison was made of.
fn fix(c: &PayloadCheck) -> String {
    match c.payload_window {
        Some(theirs) if theirs != c.window => format!(
            "ctxmon counts a {} window, Claude Code a {} one: set context_monitor.context_window (or a context_monitor.models entry) to {theirs}, or remove the setting that gives {}",
            thousands(c.window),
            thousands(theirs),
            thousands(c.window)
        ),
        _ if c.source == FillSource::Compaction => "ctxmon assumes context_monitor.post_compaction_percent of the window right after a compaction, until the next response; this passes by itself".to_string(),
        _ => "compare `ctxmon status` with Claude Code's /context; if ctxmon's figure is the wrong one, report it with both figures".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_application::ports::PayloadCheckStore;
    use ctxmon_domain::SessionKey;

    fn check(used: f64, window: u64, payload_window: u64, at: i64) -> PayloadCheck {
        let ctxmon = 90_000.0 / window as f64 * 100.0;
        PayloadCheck {
            schema_version: 1,
            session_id: Some("s1".into()),
            used_percentage: used,
            ctxmon_percentage: ctxmon,
            tokens: 90_000,
            window,
            source: FillSource::Transcript,
            payload_window: Some(payload_window),
            disagrees: PayloadCheck::disagree(used, ctxmon),
            since: Timestamp(at),
            checked_at: Timestamp(at),
        }
    }

    #[test]
    fn a_recent_disagreement_warns_naming_both_windows() {
        let dir = tempfile::tempdir().expect("temp dir");
        let layout = ProjectLayout::new(dir.path());
        let now = Timestamp(10 * RECENT_MS);
        assert_eq!(
            payload_at(&layout, now, StatusLine::Installed).status,
            Status::Skip
        );
        let store = FsPayloadCheckStore::new(layout.clone());
        let key = SessionKey::from_raw("s1");

        store
            .save(&key, &check(45.0, 200_000, 200_000, now.millis() - 1_000))
            .expect("save");
        let agree = payload_at(&layout, now, StatusLine::Installed);
        assert_eq!(agree.status, Status::Ok, "{}", agree.message);
        assert!(
            agree.message.contains("agree within 2 points"),
            "{}",
            agree.message
        );

        store
            .save(&key, &check(9.0, 200_000, 1_000_000, now.millis() - 1_000))
            .expect("save");
        let apart = payload_at(&layout, now, StatusLine::Installed);
        assert_eq!(apart.status, Status::Warn, "{}", apart.message);
        assert!(
            apart.message.contains(" points apart since ")
                && apart.message.ends_with(": Claude Code 9%, ctxmon 45.0% (90,000 of 200,000 tokens from the transcript; session s1)")
                && apart.message.starts_with("36.0"),
            "{}",
            apart.message
        );
        let fix = apart.fix.unwrap_or_default();
        assert!(
            fix.contains("a 200,000 window, Claude Code a 1,000,000 one"),
            "{fix}"
        );

        store
            .save(
                &key,
                &check(9.0, 200_000, 1_000_000, now.millis() - RECENT_MS),
            )
            .expect("save");
        assert_eq!(
            payload_at(&layout, now, StatusLine::Installed).status,
            Status::Ok,
            "a day old"
        );
    }
}
