//! This user's recent automatic compactions in the other transcripts of a Claude Code
//! project folder (the folder the transcript being measured lies in), for where their
//! compactions really fired.
//!
//! The newest [`MAX_FILES`] other transcripts are read with the application's
//! `CompactionScan`; what each showed is kept in `.ctxmon/compaction-history.json` with how
//! far it was read, so a later call reads only what the files gained since, and at most
//! [`MAX_NEW_BYTES`] of that per call (the rest waits for the next call): a hook pays a
//! bounded cost whatever the folder holds. Without a `.ctxmon` folder the findings are not
//! kept (a command run in a project ctxmon never served creates nothing).

use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use ctxmon_application::monitor::fill::PastCompaction;
use ctxmon_application::readers::claude_code::CompactionScan;

use crate::fsutil::open_regular;
use crate::layout::ProjectLayout;

/// How many of the folder's other transcripts (the most recently written) are read.
pub const MAX_FILES: usize = 8;
/// The most bytes one call reads of what is not yet in the cache.
pub const MAX_NEW_BYTES: u64 = 64 * 1024 * 1024;
/// The largest cache file read back.
const MAX_CACHE_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    #[serde(default)]
    schema_version: u32,
    /// Per transcript file name: how far it was read and what it showed.
    #[serde(default)]
    files: BTreeMap<String, CompactionScan>,
}

/// The automatic compactions of the newest other transcripts beside `transcript`, as far as
/// this call's budget reads them. Problems (an unreadable folder, file or cache) cost what
/// they hide, never the call.
pub fn recent_auto_compactions(transcript: &Path, layout: &ProjectLayout) -> Vec<PastCompaction> {
    refreshed(transcript, layout)
}

/// What the cache already holds of the other transcripts beside `transcript`, without reading
/// them: what a hook on every prompt and tool call uses, so that sessions running side by
/// side never read each other's growing transcripts (a session's start and `status` refresh
/// it).
pub fn cached_auto_compactions(transcript: &Path, layout: &ProjectLayout) -> Vec<PastCompaction> {
    let own = transcript.file_name().and_then(|n| n.to_str());
    load(layout)
        .files
        .iter()
        .filter(|(name, _)| Some(name.as_str()) != own)
        .flat_map(|(_, scan)| scan.compactions.iter().cloned())
        .collect()
}

fn load(layout: &ProjectLayout) -> Cache {
    layout
        .load_json(
            &layout.compaction_history_file(),
            MAX_CACHE_BYTES,
            |c: &Cache| c.schema_version,
            0,
        )
        .ok()
        .flatten()
        .unwrap_or_default()
}

fn refreshed(transcript: &Path, layout: &ProjectLayout) -> Vec<PastCompaction> {
    let Some(folder) = transcript.parent() else {
        return Vec::new();
    };
    let own = transcript.file_name();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut others: Vec<(SystemTime, String, u64)> = entries
        .filter_map(Result::ok)
        .filter(|e| Some(e.file_name().as_os_str()) != own)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            // `symlink_metadata`: a link in the folder is not followed.
            let meta = e.path().symlink_metadata().ok()?;
            let is_transcript = name.ends_with(".jsonl") && meta.is_file();
            is_transcript.then(|| {
                (
                    meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    name,
                    meta.len(),
                )
            })
        })
        .collect();
    if others.is_empty() {
        return Vec::new();
    }
    others.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    others.truncate(MAX_FILES);

    let path = layout.compaction_history_file();
    let mut cache = load(layout);
    let mut budget = MAX_NEW_BYTES;
    let mut changed = false;
    let mut kept = BTreeMap::new();
    for (_, name, len) in &others {
        let mut scan = cache.files.remove(name).unwrap_or_default();
        let new = len.saturating_sub(scan.offset);
        if (scan.offset != *len) && new <= budget {
            let before = scan.clone();
            if read_on(&folder.join(name), &mut scan, *len).is_ok() {
                budget = budget.saturating_sub(new);
            } else {
                scan = before;
            }
            changed = true;
        }
        kept.insert(name.clone(), scan);
    }
    // Files no longer among the newest leave the cache.
    changed |= !cache.files.is_empty();
    let found: Vec<PastCompaction> = kept
        .values()
        .flat_map(|s| s.compactions.iter().cloned())
        .collect();
    if changed && layout.root().is_dir() {
        let cache = Cache {
            schema_version: 0,
            files: kept,
        };
        // A cache that cannot be written is read again next time: slower, never wrong.
        let _ = layout.save_json(layout.root(), &path, &cache);
    }
    found
}

fn read_on(path: &Path, scan: &mut CompactionScan, len: u64) -> std::io::Result<()> {
    let (mut file, meta) =
        open_regular(path).map_err(|_| std::io::Error::other("not a regular file"))?;
    if meta.len() < scan.offset {
        *scan = CompactionScan::default();
    }
    file.seek(SeekFrom::Start(scan.offset))?;
    scan.read_on(file, len.min(meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundary(pre: u64) -> String {
        format!(
            "{{\"type\":\"assistant\",\"message\":{{\"model\":\"claude-opus-4-5-20251101\"}}}}\n{{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"version\":\"2.0.57\",\"timestamp\":\"2025-12-03T11:24:26.520Z\",\"compactMetadata\":{{\"trigger\":\"auto\",\"preTokens\":{pre}}}}}\n"
        )
    }

    #[test]
    fn the_other_transcripts_compactions_are_found_and_kept() {
        let project = tempfile::tempdir().expect("temp");
        let folder = tempfile::tempdir().expect("temp");
        let layout = ProjectLayout::new(project.path());
        std::fs::create_dir_all(layout.root()).expect("mkdir");
        let own = folder.path().join("own.jsonl");
        std::fs::write(&own, boundary(1)).expect("write");
        std::fs::write(folder.path().join("a.jsonl"), boundary(123_096)).expect("write");
        std::fs::write(folder.path().join("notes.txt"), boundary(2)).expect("write");
        let found = recent_auto_compactions(&own, &layout);
        assert_eq!(
            found.iter().map(|c| c.pre_tokens).collect::<Vec<_>>(),
            [123_096]
        );
        assert_eq!(found[0].model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert!(layout.compaction_history_file().is_file());
        // Hooks read the cache only, without the session's own transcript.
        assert_eq!(cached_auto_compactions(&own, &layout), found);
        assert!(cached_auto_compactions(&folder.path().join("a.jsonl"), &layout).is_empty());
        // Grown: only the new lines are read, the old finding kept.
        let mut more = boundary(123_096);
        more.push_str(&boundary(127_141));
        std::fs::write(folder.path().join("a.jsonl"), more).expect("write");
        let found = recent_auto_compactions(&own, &layout);
        assert_eq!(
            found.iter().map(|c| c.pre_tokens).collect::<Vec<_>>(),
            [123_096, 127_141]
        );
    }

    #[test]
    fn a_damaged_cache_or_a_missing_folder_costs_nothing_but_the_cache() {
        let project = tempfile::tempdir().expect("temp");
        let folder = tempfile::tempdir().expect("temp");
        let layout = ProjectLayout::new(project.path());
        std::fs::create_dir_all(layout.root()).expect("mkdir");
        std::fs::write(layout.compaction_history_file(), "{not json").expect("write");
        std::fs::write(folder.path().join("a.jsonl"), boundary(155_121)).expect("write");
        let own = folder.path().join("own.jsonl");
        assert_eq!(recent_auto_compactions(&own, &layout).len(), 1);
        let gone = folder.path().join("missing").join("own.jsonl");
        assert!(recent_auto_compactions(&gone, &layout).is_empty());
    }
}
