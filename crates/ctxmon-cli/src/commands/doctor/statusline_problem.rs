//! Doctor's `statusline output` check: why the status line last showed no figure (`ctx --`) or
//! could not use its format. Claude Code shows neither the status line's stderr nor its
//! reasons, so the status line keeps its latest troubled run in `.ctxmon/status-line/` and
//! clears it on the next good one (`FsStatusLineProblems`); the check appears only while such
//! a record exists.

use ctxmon_application::ports::Clock;
use ctxmon_domain::Timestamp;
use ctxmon_infra_fs::{FsStatusLineProblems, ProjectLayout, StatusLineProblem, SystemClock};

use super::check::{Check, Status};
use crate::render::local_time;

const NAME: &str = "statusline output";
/// A problem older than this is history, as for the hook log.
const RECENT_MS: i64 = 24 * 60 * 60 * 1000;

pub fn problem(layout: &ProjectLayout) -> Option<Check> {
    problem_at(layout, SystemClock.now())
}

fn problem_at(layout: &ProjectLayout, now: Timestamp) -> Option<Check> {
    let p = match FsStatusLineProblems::new(layout.clone()).load() {
        Ok(Some(p)) => p,
        Ok(None) => return None,
        Err(e) => {
            return Some(
                Check::new(NAME, Status::Warn, format!("cannot read its record: {e}")).with_fix(
                    "delete .ctxmon/status-line/.problem.json; the status line rewrites it",
                ),
            );
        }
    };
    let when = local_time(p.at);
    let session = p
        .session_id
        .as_deref()
        .map(|s| format!(", session {s}"))
        .unwrap_or_default();
    let what = if p.reason == "format" {
        format!(
            "at {when}{session} the status line could not use its format and printed the line without it: {}",
            p.detail
        )
    } else {
        format!(
            "at {when}{session} the status line showed `ctx --`: {}",
            p.detail
        )
    };
    if now.millis().saturating_sub(p.at.millis()) >= RECENT_MS {
        return Some(Check::ok(
            NAME,
            format!("nothing in the last 24 hours; the last problem: {what}"),
        ));
    }
    // A session shows no figure until its first answer: worth knowing, not a problem.
    let status = if p.reason == "no-response-yet" {
        Status::Skip
    } else {
        Status::Warn
    };
    Some(Check::new(NAME, status, what).with_fix(fix(&p)))
}

fn fix(p: &StatusLineProblem) -> &'static str {
    match p.reason.as_str() {
        "format" => {
            "correct --format in the statusLine command or statusline.format (`ctxmon statusline --help` lists the fields)"
        }
        "config" => "fix the configuration (see the config check)",
        "input" => {
            "run it from Claude Code's statusLine setting (or a status line that passes Claude Code's JSON on stdin)"
        }
        "transcript" => "check that the transcript exists and is readable by your user",
        "no-transcript" => {
            "the status line needs Claude Code's JSON with context_window.current_usage or transcript_path; update Claude Code"
        }
        "scan-limit" => "raise context_monitor.max_scan_bytes so the reader reaches a response",
        _ => "the figure comes with the session's first answer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_problems_warn_and_old_ones_are_history() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join(".ctxmon")).expect("mkdir");
        let layout = ProjectLayout::new(dir.path());
        let now = Timestamp(10 * RECENT_MS);
        assert!(problem_at(&layout, now).is_none());
        let store = FsStatusLineProblems::new(layout.clone());
        let record = |reason: &str, at: i64| {
            store
                .record(&StatusLineProblem {
                    schema_version: 1,
                    at: Timestamp(at),
                    reason: reason.into(),
                    detail: format!("{reason} happened"),
                    session_id: Some("s1".into()),
                })
                .expect("record");
        };
        record("transcript", now.millis() - 1_000);
        let check = problem_at(&layout, now).expect("a check");
        assert_eq!(check.status, Status::Warn);
        assert!(
            check
                .message
                .contains("session s1 the status line showed `ctx --`: transcript happened"),
            "{}",
            check.message
        );
        record("no-response-yet", now.millis() - 1_000);
        assert_eq!(
            problem_at(&layout, now).map(|c| c.status),
            Some(Status::Skip)
        );
        record("format", now.millis() - RECENT_MS);
        let old = problem_at(&layout, now).expect("a check");
        assert_eq!(old.status, Status::Ok);
        assert!(
            old.message.contains("could not use its format"),
            "{}",
            old.message
        );
    }
}
