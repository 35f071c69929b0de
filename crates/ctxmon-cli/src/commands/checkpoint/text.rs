//! `checkpoint list` and `checkpoint show` for people: the table, newest first, and one
//! checkpoint as a short page (what was measured, where the session was, what it was doing).
//! Programs get the JSON (`--json`); this text is not meant to be parsed.
//!
//! Everything here came from a file a session wrote, so every value is one line, cut to a
//! width, with control characters made visible: a transcript's text cannot garble the terminal.

use ctxmon_application::ports::StoredCheckpoint;
use ctxmon_domain::human::{percent, plural, thousands};
use ctxmon_domain::resumption::ResumptionState;

use crate::commands::output::{self, Align, clip};
use crate::render::local_time;

/// The widest value a line of `show` prints before cutting it with `…`.
const VALUE_CHARS: usize = 100;
/// The most items of one list `show` prints; the rest are counted.
const LIST_ITEMS: usize = 5;

/// The table of `list`: one row per checkpoint, in the order given (newest first).
pub fn table(checkpoints: &[StoredCheckpoint]) -> String {
    let rows: Vec<[String; 7]> = checkpoints
        .iter()
        .map(|c| {
            let d = &c.data;
            [
                d.checkpoint_id.to_string(),
                local_time(d.created_at_ms),
                d.session_info
                    .session_id
                    .as_deref()
                    .map_or_else(|| "-".to_string(), |s| clip(s, 16)),
                d.trigger.key().to_string(),
                percent(d.context_state.fill_percentage),
                // Upper case, as every tag, status line and report names a tier.
                d.context_state.threshold_tier.name().to_string(),
                if c.acknowledged { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    output::table(
        [
            ("ID", Align::Left),
            ("CREATED", Align::Left),
            ("SESSION", Align::Left),
            ("TRIGGER", Align::Left),
            // A number: right-aligned so the percentages line up.
            ("FILL", Align::Right),
            ("TIER", Align::Left),
            ("ACK", Align::Left),
        ],
        &rows,
    )
}

/// One checkpoint as a page: a heading line, the facts, then what the session was doing.
pub fn page(stored: &StoredCheckpoint, file: &str) -> String {
    let d = &stored.data;
    let fill = &d.context_state;
    let mut out = format!(
        "{} · {} · {} compaction · {}\n\n",
        d.checkpoint_id,
        local_time(d.created_at_ms),
        d.trigger.key(),
        if stored.acknowledged {
            "acknowledged"
        } else {
            "not acknowledged yet"
        }
    );
    let mut fact = |label: &str, value: String| {
        out.push_str(&format!("  {label:<15}{value}\n"));
    };
    let info = &d.session_info;
    let session = info.session_id.as_deref().map_or_else(
        || "unknown".to_string(),
        |s| format!("{} (its compaction {})", clip(s, 60), d.compaction_sequence),
    );
    fact("session", session);
    let mut measured = format!(
        "{} of {} tokens, {}, {} (source {})",
        thousands(fill.input_tokens.get()),
        thousands(fill.context_window_size.get()),
        percent(fill.fill_percentage),
        fill.threshold_tier.name(),
        fill.source.key()
    );
    if let Some(model) = &fill.model {
        measured.push_str(&format!(", model {}", clip(model, 40)));
    }
    fact("fill", measured);
    let git = match (&info.git_branch, &info.git_head) {
        (Some(branch), Some(head)) => Some(format!("{} at {}", clip(branch, 60), clip(head, 12))),
        (Some(branch), None) => Some(clip(branch, 60)),
        (None, Some(head)) => Some(clip(head, 12)),
        (None, None) => None,
    };
    // Two branches can be shown: git's, read when the checkpoint was saved, and the one the
    // transcript last recorded (below); each line says which it is.
    let git = git.map(|g| format!("{g} (git, when saved)"));
    let optional = [
        ("git", git),
        ("project", info.project_dir.as_deref().map(one_line)),
        ("transcript", info.transcript_path.as_deref().map(one_line)),
        (
            "instructions",
            d.custom_instructions
                .as_deref()
                .filter(|s| !s.trim().is_empty())
                .map(one_line),
        ),
    ];
    for (label, value) in optional {
        if let Some(value) = value {
            fact(label, value);
        }
    }
    match d.resumption_state.as_ref().filter(|s| !s.is_empty()) {
        Some(state) => out.push_str(&resumption(state)),
        None => out.push_str("\nNo record of what the session was doing.\n"),
    }
    out.push_str(&format!(
        "\nfile: {}\nAll of it as JSON: ctxmon --json checkpoint show {}\n",
        one_line(file),
        d.checkpoint_id
    ));
    out
}

/// What the session was doing, most useful first, as the resumption context orders it.
fn resumption(s: &ResumptionState) -> String {
    let origin = match s.origin {
        ctxmon_domain::ResumptionOrigin::SourceFile => "the resumption file",
        ctxmon_domain::ResumptionOrigin::Transcript => "the transcript",
    };
    let mut out = format!("\nWhat the session was doing (from {origin}):\n");
    let mut one = |label: &str, value: Option<String>| {
        if let Some(value) = value {
            out.push_str(&format!("  {label:<15}{value}\n"));
        }
    };
    one(
        "last request",
        s.last_user_requests.last().map(|r| one_line(r)),
    );
    one("first request", s.goal.as_deref().map(one_line));
    one("summary", s.summary.as_deref().map(one_line));
    one(
        "failure",
        s.failure
            .as_ref()
            .map(|f| format!("{}: {}", one_line(&f.command), one_line(&f.excerpt))),
    );
    one(
        "last check",
        s.last_check.as_ref().map(|c| {
            let outcome = if c.passed { "passed" } else { "failed" };
            format!("{} ({outcome})", one_line(&c.command))
        }),
    );
    one(
        "changes",
        s.uncommitted_changes.map(|n| {
            format!(
                "{} uncommitted {}",
                thousands(n),
                plural(n, "file", "files")
            )
        }),
    );
    one(
        "branch",
        s.git_branch
            .as_deref()
            .map(|b| format!("{} (as the transcript recorded it)", one_line(b))),
    );
    let todos = if s.tasks.is_empty() {
        &s.todos
    } else {
        &s.tasks
    };
    let mut list = |label: &str, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        out.push_str(&format!("  {label}\n"));
        // The newest are the end of every list ctxmon keeps.
        let skipped = items.len().saturating_sub(LIST_ITEMS);
        if skipped > 0 {
            out.push_str(&format!("    … {skipped} earlier\n"));
        }
        for item in items.iter().skip(skipped) {
            out.push_str(&format!("    - {item}\n"));
        }
    };
    list(
        "next steps",
        s.next_steps.iter().map(|x| one_line(x)).collect(),
    );
    list(
        "tasks",
        todos
            .iter()
            .map(|t| format!("[{}] {}", clip(&t.status, 12), one_line(&t.content)))
            .collect(),
    );
    list(
        "files touched",
        s.files_touched.iter().map(|x| one_line(x)).collect(),
    );
    list("commits", s.commits.iter().map(|x| one_line(x)).collect());
    list(
        "decisions",
        s.decisions
            .iter()
            .map(|d| one_line(&d.to_string()))
            .collect(),
    );
    list(
        "subagents running",
        s.subagents_running.iter().map(|x| one_line(x)).collect(),
    );
    list(
        "constraints",
        s.user_constraints.iter().map(|x| one_line(x)).collect(),
    );
    out
}

/// The text on one line (line breaks become ` ⏎ `), cut to [`VALUE_CHARS`].
fn one_line(text: &str) -> String {
    let joined = text
        .trim()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ⏎ ");
    clip(&joined, VALUE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_values_stay_short_and_harmless() {
        assert_eq!(one_line("  a\n  b\r\nc  "), "a ⏎ b ⏎ c");
        assert_eq!(one_line("\u{1b}[31mred"), "?[31mred");
        let long = "x".repeat(300);
        assert_eq!(one_line(&long).chars().count(), VALUE_CHARS + 1);
    }
}
