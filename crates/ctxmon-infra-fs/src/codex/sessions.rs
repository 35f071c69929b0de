//! Where Codex keeps its rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
//! (`~/.codex` without `CODEX_HOME`). Hooks whose input has no `transcript_path` find their
//! session's file by its id; `status` and `report` find a project's newest session by the
//! `cwd` its `session_meta` line records.
//!
//! Both searches are bounded: by days for a hook (it runs on every prompt), by a count of
//! files for the commands. Nothing here fails: a folder that cannot be read is skipped.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ctxmon_application::readers::codex::{self, META_BYTES, SessionMeta};
use ctxmon_domain::Timestamp;

use crate::fsutil;

/// Days before today whose folders a hook searches for its session. Codex names the folder
/// after the session's local start date and appends to the same file when it is resumed, so
/// a session started more than this long ago is not found (the hook then fails open).
pub const SESSION_LOOKBACK_DAYS: i64 = 7;

/// Most rollouts whose first line `status` and `report` read while looking for a project's.
pub const MAX_ROLLOUTS_EXAMINED: usize = 400;

/// The rollout of session `id` under `codex_home`, searched in the day folders from
/// tomorrow back to [`SESSION_LOOKBACK_DAYS`] before today (UTC): the folders are named by the
/// local date, which is within a day of the UTC one. The newest match wins.
pub fn find_session_rollout(codex_home: &Path, id: &str, now: Timestamp) -> Option<PathBuf> {
    let id = id.trim();
    // An id is matched against file names, never joined into a path; one that could not be
    // part of a Codex file name matches nothing.
    if id.is_empty() || id.len() > 128 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return None;
    }
    let suffix = format!("-{id}.jsonl");
    let sessions = codex_home.join("sessions");
    for offset in -1..=SESSION_LOOKBACK_DAYS {
        let day = Timestamp::from_millis(now.millis() - offset * 86_400_000).to_rfc3339();
        let (Some(y), Some(m), Some(d)) = (day.get(0..4), day.get(5..7), day.get(8..10)) else {
            continue;
        };
        let Ok(entries) = fs::read_dir(sessions.join(y).join(m).join(d)) else {
            continue;
        };
        let found = entries
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("rollout-") && name.ends_with(&suffix)
            })
            .map(|e| e.path())
            .max();
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The most recently written rollout whose `session_meta.payload.cwd` is `project_dir`
/// (compared canonicalized), with its modification time.
pub fn latest_project_rollout(
    codex_home: &Path,
    project_dir: &Path,
) -> Option<(SystemTime, PathBuf)> {
    let project = fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_path_buf());
    let mut files = Vec::new();
    collect_rollouts(&codex_home.join("sessions"), 0, &mut files);
    files.sort_by(|a, b| b.cmp(a));
    files
        .into_iter()
        .take(MAX_ROLLOUTS_EXAMINED)
        .find(|(_, path)| {
            session_cwd(path).is_some_and(|cwd| {
                let cwd = PathBuf::from(cwd);
                fs::canonicalize(&cwd).unwrap_or(cwd) == project
            })
        })
}

/// Every `rollout-*.jsonl` below `dir` (the `YYYY/MM/DD` folders), with its modification time.
fn collect_rollouts(dir: &Path, depth: u8, out: &mut Vec<(SystemTime, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth < 3 {
            collect_rollouts(&path, depth + 1, out);
        } else if kind.is_file() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("rollout-") && name.ends_with(".jsonl") {
                let modified = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                out.push((modified, path));
            }
        }
    }
}

/// The `cwd` of a rollout's `session_meta` line; `None` when the file is no rollout.
pub fn session_cwd(path: &Path) -> Option<String> {
    session_meta(path)?.cwd
}

/// The session id a rollout's `session_meta` line records (the id hooks receive); `None` when
/// the file is no rollout.
pub fn session_id(path: &Path) -> Option<String> {
    session_meta(path)?.id
}

/// What a rollout's first line says, when it is its `session_meta`.
fn session_meta(path: &Path) -> Option<SessionMeta> {
    let (file, _) = fsutil::open_regular(path).ok()?;
    let mut first = Vec::new();
    let mut reader = std::io::BufReader::new(file.take(META_BYTES));
    std::io::BufRead::read_until(&mut reader, b'\n', &mut first).ok()?;
    codex::session_meta(&first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_found_by_id_in_recent_day_folders_only() {
        let home = tempfile::tempdir().expect("tmp");
        let now = Timestamp::parse_rfc3339("2026-02-24T00:30:00Z").expect("time");
        let id = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff";
        // Local date ahead of UTC (the folder of "tomorrow" in UTC terms).
        let ahead = home.path().join("sessions/2026/02/25");
        fs::create_dir_all(&ahead).expect("mkdir");
        let file = ahead.join(format!("rollout-2026-02-25T01-30-00-{id}.jsonl"));
        fs::write(&file, "{}\n").expect("write");
        assert_eq!(find_session_rollout(home.path(), id, now), Some(file));
        assert_eq!(find_session_rollout(home.path(), "other", now), None);
        assert_eq!(find_session_rollout(home.path(), "../x", now), None);
        // Too old: outside the look-back.
        let old_id = "aaaa";
        let old = home.path().join("sessions/2026/02/10");
        fs::create_dir_all(&old).expect("mkdir");
        fs::write(old.join(format!("rollout-x-{old_id}.jsonl")), "{}\n").expect("write");
        assert_eq!(find_session_rollout(home.path(), old_id, now), None);
        assert_eq!(
            find_session_rollout(Path::new("/nonexistent"), id, now),
            None
        );
    }

    #[test]
    fn the_newest_rollout_of_the_project_is_found_by_its_cwd() {
        let home = tempfile::tempdir().expect("tmp");
        let project = tempfile::tempdir().expect("tmp");
        let day = home.path().join("sessions/2026/02/23");
        fs::create_dir_all(&day).expect("mkdir");
        let meta = |cwd: &Path| {
            format!(
                "{{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"x\",\"cwd\":{}}}}}\n",
                serde_json::to_string(&cwd.display().to_string()).expect("json")
            )
        };
        let mine = day.join("rollout-a-1.jsonl");
        fs::write(&mine, meta(project.path())).expect("write");
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(day.join("rollout-b-2.jsonl"), meta(Path::new("/elsewhere"))).expect("write");
        fs::write(day.join("notes.txt"), "x").expect("write");
        let found = latest_project_rollout(home.path(), project.path()).map(|(_, p)| p);
        assert_eq!(found, Some(mine));
        assert_eq!(
            latest_project_rollout(home.path(), Path::new("/nowhere")),
            None
        );
    }
}
