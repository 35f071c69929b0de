//! What an interrupted `install` or `uninstall` leaves in an agent's folder (`.claude/`,
//! `.codex/`, the user's): the temp copy of the settings it was writing (up to the settings'
//! size) and its write probe. The next run removes them; `doctor` names them.
//!
//! Only files that are ctxmon's are touched: regular files the user owns (never a link), older
//! than [`STALE_AFTER`] (a younger one may belong to an install running now), named as only
//! ctxmon names them ([`TEMP_PREFIX`], [`PROBE_PREFIX`]). Older versions wrote their temp
//! copies as `.tmp-` and six letters or digits, tempfile's default, which other programs use
//! too: such a file counts only when it is empty or mentions ctxmon, as every settings text
//! install writes does.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ctxmon_infra_fs::fsutil;

/// The prefix of install's temp copies of a settings file (renamed over it when complete).
pub const TEMP_PREFIX: &str = ".ctxmon-tmp-";

/// The prefix of install's write probe (`Target::check_writable`).
pub const PROBE_PREFIX: &str = ".ctxmon-probe-";

/// Far longer than any install takes, short enough that the next run a few minutes later
/// clears what a killed one left.
pub const STALE_AFTER: Duration = Duration::from_secs(5 * 60);

/// How much of an old-style temp file is read to find ctxmon in it: a settings file of this
/// size is not one install would have written.
const MAX_READ: u64 = 4 * 1024 * 1024;

/// ctxmon's stale leftovers in `dir`, sorted; empty when it has none or cannot be listed.
pub fn stale(dir: &Path, now: SystemTime) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fsutil::own_files(dir)
        .into_iter()
        .filter(|(_, meta)| {
            meta.modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age >= STALE_AFTER)
        })
        .map(|(path, _)| path)
        .filter(|path| is_ours(path))
        .collect();
    found.sort();
    found
}

/// Stale files in `dir` named as an older ctxmon named its temp copies (`.tmp-` and six letters
/// or digits) that do not show they are ctxmon's (a copy cut off before its hooks, or another
/// program's): never removed, but `doctor` names them so that nobody has to guess.
pub fn unattributed(dir: &Path, now: SystemTime) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fsutil::own_files(dir)
        .into_iter()
        .filter(|(_, meta)| {
            meta.modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age >= STALE_AFTER)
        })
        .map(|(path, _)| path)
        .filter(|path| old_style_name(path) && !is_ours(path))
        .collect();
    found.sort();
    found
}

/// Removes ctxmon's stale leftovers in each of `dirs` (each folder once) and returns what was
/// removed. Best effort: a file that cannot be removed stays for the next run (and doctor).
pub fn remove_stale(dirs: &[&Path]) -> Vec<PathBuf> {
    let now = SystemTime::now();
    let mut seen: Vec<&Path> = Vec::new();
    let mut removed = Vec::new();
    for dir in dirs {
        if seen.contains(dir) {
            continue;
        }
        seen.push(dir);
        for path in stale(dir, now) {
            if std::fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed
}

fn is_ours(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if name.starts_with(TEMP_PREFIX) || name.starts_with(PROBE_PREFIX) {
        return true;
    }
    old_style_name(path) && mentions_ctxmon(path)
}

/// `.tmp-` and six letters or digits: tempfile's default, as older versions named temp copies.
fn old_style_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name.strip_prefix(".tmp-")
        .is_some_and(|s| s.len() == 6 && s.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Empty, or holding `ctxmon` (an old-style temp copy of settings ctxmon was writing).
fn mentions_ctxmon(path: &Path) -> bool {
    let Ok((file, _)) = fsutil::open_regular(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    if file.take(MAX_READ).read_to_end(&mut bytes).is_err() {
        return false;
    }
    bytes.is_empty() || bytes.windows(6).any(|w| w == b"ctxmon")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ctxmons_own_stale_names_count() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        write(".ctxmon-tmp-a1", "{}");
        write(".ctxmon-probe-b2", "");
        write(".tmp-Ab3dE9", "{\"hooks\": \"ctxmon hooks\"}");
        write(".tmp-Zz0000", "");
        write(".tmp-Q1w2E3", "{\"theirs\": true}");
        write(".tmp-toolong1", "");
        write("settings.json", "ctxmon");
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            dir.path().join(".tmp-Zz0000"),
            dir.path().join(".ctxmon-tmp-link"),
        )
        .unwrap();
        let names = |found: Vec<PathBuf>| -> Vec<String> {
            found
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        // Nothing is stale yet.
        assert!(stale(dir.path(), SystemTime::now()).is_empty());
        let later = SystemTime::now() + STALE_AFTER;
        assert_eq!(
            names(stale(dir.path(), later)),
            [
                ".ctxmon-probe-b2",
                ".ctxmon-tmp-a1",
                ".tmp-Ab3dE9",
                ".tmp-Zz0000"
            ]
        );
        assert!(stale(&dir.path().join("missing"), later).is_empty());
        // The old-style name that does not show it is ctxmon's is named, never counted.
        assert_eq!(names(unattributed(dir.path(), later)), [".tmp-Q1w2E3"]);
    }
}
