//! `list`, `show`, `latest`, `cleanup` and `stats`: what the resume-log folder holds, for
//! people (tables, the markdown) and programs (`--json`). `show` takes a session id or any
//! unique beginning of one (the tables cut long ids); a beginning several logs share is a usage
//! error (exit 2) that names them.

use anyhow::anyhow;
use ctxmon_application::handoff::resume_log::ExactJson;
use ctxmon_application::ports::{PortErrorKind, ResumeLogEntry, ResumeLogStore, StoredResumeLog};
use ctxmon_domain::human::{count, thousands};
use ctxmon_domain::{SessionKey, Timestamp};
use ctxmon_infra_fs::FsResumeLogStore;
use serde_json::{Value, json};

use crate::commands::output::{self, Align, clip, emit, note, storage};
use crate::exit::{CmdResult, Failure};
use crate::json_out;
use crate::render::local_time;

/// How many candidates an ambiguous id's error names.
const CANDIDATES_SHOWN: usize = 8;

pub fn list(store: &FsResumeLogStore, as_json: bool) -> CmdResult {
    let listing = store.list().map_err(storage)?;
    for problem in &listing.problems {
        note(problem);
    }
    if as_json {
        let items: Vec<Value> = listing.entries.iter().map(entry_json).collect();
        return json_out::print(&Value::Array(items));
    }
    if listing.entries.is_empty() {
        return emit(&format!("no resume logs in {}", store.dir().display()));
    }
    emit(table(&listing.entries).trim_end())
}

/// The log of session `id`, else the newest. Text: the markdown as stored (rendered again from
/// the JSON if the markdown is missing). JSON: the log itself.
pub fn show(store: &FsResumeLogStore, id: Option<&str>, as_json: bool) -> CmdResult {
    let stored = match id {
        Some(id) => load(store, id, as_json)?,
        None => {
            let listing = store.list().map_err(storage)?;
            for problem in &listing.problems {
                note(problem);
            }
            let latest = store.latest().map_err(storage)?.ok_or_else(|| {
                Failure::Other(anyhow!(
                    "no resume logs in {} yet; `ctxmon resume-log generate` writes one",
                    store.dir().display()
                ))
            })?;
            Some(latest)
        }
    };
    let Some(stored) = stored else {
        // `load` already printed the stored markdown of a log whose JSON is unreadable.
        return Ok(());
    };
    if as_json {
        return json_out::print(&ExactJson(&stored.log));
    }
    let markdown = stored.markdown.unwrap_or_else(|| stored.log.to_markdown());
    emit(markdown.trim_end())
}

/// `Ok(Some)` for a readable log; `Ok(None)` once the markdown of a log with a corrupt JSON has
/// been shown (text mode only: `--json` has no data to show and fails).
fn load(
    store: &FsResumeLogStore,
    id: &str,
    as_json: bool,
) -> Result<Option<StoredResumeLog>, Failure> {
    if id.trim().is_empty() {
        return Err(Failure::usage(anyhow!(
            "the session id is empty; `ctxmon resume-log list` shows the sessions there are"
        )));
    }
    let exact = SessionKey::from_raw(id);
    let key = match store.load(&exact) {
        Ok(None) => match by_prefix(store, id)? {
            Some(key) => key,
            None => {
                return Err(Failure::Other(anyhow!(
                    "no resume log for session {} in {}; `ctxmon resume-log list` shows the sessions there are",
                    clip(id, 40),
                    store.dir().display()
                )));
            }
        },
        _ => exact,
    };
    match store.load(&key) {
        Ok(Some(stored)) => Ok(Some(stored)),
        Ok(None) => Err(Failure::Other(anyhow!(
            "the resume log of session {} was removed meanwhile",
            clip(id, 40)
        ))),
        Err(e) if e.kind == PortErrorKind::InvalidData && !as_json => {
            let md = std::fs::read_to_string(store.markdown_path(&key))
                .map_err(|_| storage(e.clone()))?;
            note(&format!("warning: {e}; showing the stored markdown"));
            emit(md.trim_end())?;
            Ok(None)
        }
        Err(e) => Err(storage(e)),
    }
}

/// The one log whose session id begins with `prefix` (a trailing `…`, as the tables cut long ids,
/// is ignored); `None` when none does, a usage error naming them when several do.
fn by_prefix(store: &FsResumeLogStore, prefix: &str) -> Result<Option<SessionKey>, Failure> {
    let prefix = prefix.trim().trim_end_matches('…');
    let listing = store.list().map_err(storage)?;
    for problem in &listing.problems {
        note(problem);
    }
    let matches: Vec<&ResumeLogEntry> = listing
        .entries
        .iter()
        .filter(|e| !prefix.is_empty() && e.session_id.starts_with(prefix))
        .collect();
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.key.clone())),
        many => {
            let mut names: Vec<String> = many
                .iter()
                .take(CANDIDATES_SHOWN)
                .map(|e| clip(&e.session_id, 60))
                .collect();
            if many.len() > CANDIDATES_SHOWN {
                names.push(format!("and {} more", many.len() - CANDIDATES_SHOWN));
            }
            Err(Failure::usage(anyhow!(
                "session id {:?} is ambiguous: it begins {} with a resume log ({}); give more of the id",
                clip(prefix, 40),
                count(many.len() as u64, "session id", "session ids"),
                names.join(", ")
            )))
        }
    }
}

/// Deletes all but the newest `keep` logs (at least 1, checked by the caller); files it cannot
/// read are left alone.
pub fn cleanup(store: &FsResumeLogStore, keep: u64, as_json: bool) -> CmdResult {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    let removed = store.cleanup(keep).map_err(storage)?;
    let names: Vec<&str> = removed.iter().map(SessionKey::as_str).collect();
    if as_json {
        return json_out::print(&json!({"removed": names, "keep": keep}));
    }
    let kept = format!("kept the newest {keep}");
    match names.as_slice() {
        [] => emit(&format!("nothing to clean up ({kept})")),
        [one] => emit(&format!("removed the resume log of {one} ({kept})")),
        many => emit(&format!(
            "removed {} resume logs: {} ({kept})",
            many.len(),
            many.join(", ")
        )),
    }
}

pub fn stats(store: &FsResumeLogStore, as_json: bool) -> CmdResult {
    let stats = store.stats().map_err(storage)?;
    let utc = |t: Option<Timestamp>| t.map(Timestamp::to_rfc3339);
    if as_json {
        return json_out::print(&json!({
            "dir": store.dir().display().to_string(),
            "count": stats.count,
            "bytes": stats.bytes,
            "oldest": utc(stats.oldest),
            "newest": utc(stats.newest),
            "problems": stats.problems,
        }));
    }
    for problem in &stats.problems {
        note(problem);
    }
    let mut out = format!(
        "{} in {}\n{}",
        count(stats.count as u64, "resume log", "resume logs"),
        store.dir().display(),
        count(stats.bytes, "byte", "bytes")
    );
    if let (Some(oldest), Some(newest)) = (stats.oldest, stats.newest) {
        out.push_str(&format!(
            "\noldest {}\nnewest {}",
            local_time(oldest),
            local_time(newest)
        ));
    }
    if !stats.problems.is_empty() {
        out.push_str(&format!(
            "\n{} skipped (named on stderr)",
            count(
                stats.problems.len() as u64,
                "unreadable file",
                "unreadable files"
            )
        ));
    }
    emit(&out)
}

fn entry_json(e: &ResumeLogEntry) -> Value {
    json!({
        "session_id": e.session_id,
        "key": e.key.as_str(),
        "generated_at": e.generated_at.map(Timestamp::to_rfc3339),
        "trigger": e.trigger,
        "markdown_path": e.location,
        "json_path": e.json_location,
        "bytes": e.bytes,
    })
}

fn table(entries: &[ResumeLogEntry]) -> String {
    let rows: Vec<[String; 4]> = entries
        .iter()
        .map(|e| {
            [
                clip(&e.session_id, 40),
                e.generated_at.map_or_else(|| "-".to_string(), local_time),
                clip(&e.trigger, 20),
                thousands(e.bytes),
            ]
        })
        .collect();
    output::table(
        [
            ("SESSION", Align::Left),
            ("GENERATED", Align::Left),
            ("TRIGGER", Align::Left),
            // Sizes are numbers: right-aligned so they line up.
            ("BYTES", Align::Right),
        ],
        &rows,
    )
}
