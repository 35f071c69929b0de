//! `.ctxmon/resume-logs/`: the file-system `ResumeLogStore` (contract C9, C12).
//!
//! Layout: `session-<key>.json` (the data) and `session-<key>.md` (the rendering people and
//! agents open), one pair per session, `<key>` a [`SessionKey`] so a session id with `/` or
//! `..` becomes a hash and never a path. Both files are replaced atomically by rename (0600,
//! folder 0700) — see [`FsResumeLogStore::with_durability`] for why without fsync by default; a writer holds `.lock` so that two hooks of one session never leave the JSON
//! of one next to the markdown of the other. Readers take no lock and trust only the JSON: a
//! corrupt or foreign one is reported and skipped, never fatal, and never deleted.
//!
//! The markdown is always the rendering of the JSON beside it. Two files cannot be replaced in
//! one step, so a save writes both completely before renaming either (a full disk or a kill
//! while writing leaves the old pair), then renames the JSON and the markdown back to back. A
//! process killed between those two renames leaves the new JSON beside the old markdown (or,
//! in `delete`, the JSON alone); readers notice (`load` compares the markdown with the JSON's
//! rendering, `list` looks for a missing markdown or one older than its JSON) and write the
//! markdown again from the JSON. A writer killed mid-write leaves its temp file (`.tmp-*`, a name
//! no reader looks at); ctxmon deletes only the temp files of the process that made them.

mod read;

use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use ctxmon_application::handoff::resume_log::ExactJson;
use ctxmon_application::ports::{
    PortError, ResumeLogEntry, ResumeLogListing, ResumeLogStore, SavedResumeLog, StoredResumeLog,
    sort_newest_first,
};
use ctxmon_domain::{ResumeLog, SessionKey};

use crate::fsutil::{Durability, io_error, prepare_atomic, with_lock, write_atomic};
use crate::layout::ProjectLayout;
pub use read::MAX_LOG_BYTES;

const LOCK_NAME: &str = ".lock";
/// How long a reader waits to repair a stale markdown: a holder of the lock is a writer, and it
/// leaves a matching pair anyway.
const REPAIR_LOCK_WAIT: Duration = Duration::from_millis(100);

#[derive(Debug, Clone)]
pub struct FsResumeLogStore {
    layout: ProjectLayout,
    lock_wait: Duration,
    durability: Durability,
}

impl FsResumeLogStore {
    /// Each holder writes two small files; a longer wait means a wedged process, which is
    /// reported rather than waited out.
    pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(2);

    pub fn new(layout: ProjectLayout) -> FsResumeLogStore {
        FsResumeLogStore {
            layout,
            lock_wait: Self::DEFAULT_LOCK_WAIT,
            durability: Durability::RenameOnly,
        }
    }

    /// `RenameOnly` (the default) replaces each file by rename, so a crash or a SIGKILL never
    /// leaves a torn log — the reader sees the old version or the new one — and keeps
    /// generating and saving within contract C16's 1 ms (about 0.8 ms;
    /// `examples/resume_log_bench.rs`). `Fsync`
    /// adds four fsyncs per save (each file, and the folder after each rename) so a saved log
    /// also survives a power loss, at 1.5 to 3 ms. Logs are derived data: the checkpoint they
    /// come from is fsynced, and `ctxmon resume-log generate` rebuilds a lost one, so the
    /// hooks take the faster default.
    pub fn with_durability(mut self, durability: Durability) -> FsResumeLogStore {
        self.durability = durability;
        self
    }

    /// A hook with a deadline may want to give up sooner.
    pub fn with_lock_wait(mut self, wait: Duration) -> FsResumeLogStore {
        self.lock_wait = wait;
        self
    }

    pub fn dir(&self) -> PathBuf {
        self.layout.resume_logs_dir()
    }

    pub fn markdown_path(&self, key: &SessionKey) -> PathBuf {
        self.dir().join(format!("session-{key}.md"))
    }

    pub fn json_path(&self, key: &SessionKey) -> PathBuf {
        self.dir().join(format!("session-{key}.json"))
    }

    fn locked<T>(&self, f: impl FnOnce() -> Result<T, PortError>) -> Result<T, PortError> {
        self.locked_for(self.lock_wait, f)
    }

    fn locked_for<T>(
        &self,
        wait: Duration,
        f: impl FnOnce() -> Result<T, PortError>,
    ) -> Result<T, PortError> {
        let dir = self.dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        with_lock(&dir.join(LOCK_NAME), wait, f)
    }

    /// Writes the markdown of `key` again from its JSON when it is not that JSON's rendering
    /// (a save or delete interrupted between its two renames). Best effort: a reader must not
    /// fail because the folder is read-only or busy. Returns the rendering.
    fn repair(&self, key: &SessionKey, log: &ResumeLog) -> String {
        let rendered = log.to_markdown();
        let md_path = self.markdown_path(key);
        let _ = self.locked_for(REPAIR_LOCK_WAIT, || {
            // Under the lock, from the JSON as it is now: a save may have finished meanwhile.
            let Some((current, _)) = read::read_log(&self.json_path(key), key)? else {
                return Ok(());
            };
            let current_md = current.to_markdown();
            if read::read_markdown(&md_path).as_deref() != Some(current_md.as_str()) {
                write_atomic(&md_path, current_md.as_bytes(), self.durability)
                    .map_err(|e| io_error(&md_path, &e))?;
            }
            Ok(())
        });
        rendered
    }

    /// Whether the pair of `key` may be out of step: no markdown, or one older than its JSON
    /// (a save writes the JSON's temp file first, so a matching markdown is never older).
    fn looks_unpaired(&self, key: &SessionKey) -> bool {
        let mtime = |p: PathBuf| fs::symlink_metadata(p).and_then(|m| m.modified()).ok();
        match (mtime(self.json_path(key)), mtime(self.markdown_path(key))) {
            (Some(json), Some(md)) => md < json,
            (Some(_), None) => true,
            _ => false,
        }
    }

    fn entry(&self, log: &ResumeLog, bytes: u64) -> ResumeLogEntry {
        let key = SessionKey::from_raw(&log.session_id);
        ResumeLogEntry::of(
            log,
            self.markdown_path(&key).display().to_string(),
            self.json_path(&key).display().to_string(),
            bytes,
        )
    }
}

impl ResumeLogStore for FsResumeLogStore {
    fn save(&self, log: &ResumeLog, markdown: &str) -> Result<SavedResumeLog, PortError> {
        let key = SessionKey::from_raw(&log.session_id);
        let json = serde_json::to_vec_pretty(&ExactJson(log)).map_err(|e| {
            PortError::new(
                ctxmon_application::ports::PortErrorKind::InvalidData,
                format!("resume log not serialisable: {e}"),
            )
        })?;
        let (json_path, md_path) = (self.json_path(&key), self.markdown_path(&key));
        self.locked(|| {
            // Both complete before either replaces anything: a full disk or a kill now leaves
            // the old pair as it was.
            let json_tmp = prepare_atomic(&json_path, &json, self.durability)
                .map_err(|e| io_error(&json_path, &e))?;
            let md_tmp = prepare_atomic(&md_path, markdown.as_bytes(), self.durability)
                .map_err(|e| io_error(&md_path, &e))?;
            // The JSON first: it is the record, and a markdown left behind by a kill between
            // the two renames is rendered again from it by the next reader.
            json_tmp.commit().map_err(|e| io_error(&json_path, &e))?;
            md_tmp.commit().map_err(|e| io_error(&md_path, &e))
        })?;
        Ok(self.entry(log, (json.len() + markdown.len()) as u64))
    }

    fn load(&self, key: &SessionKey) -> Result<Option<StoredResumeLog>, PortError> {
        let json_path = self.json_path(key);
        let Some((log, json_bytes)) = read::read_log(&json_path, key)? else {
            return Ok(None);
        };
        let markdown = match read::read_markdown(&self.markdown_path(key)) {
            Some(md) if md == log.to_markdown() => md,
            // Missing, unreadable or another version's: the JSON is the record.
            _ => self.repair(key, &log),
        };
        let markdown = Some(markdown);
        let md_bytes = markdown.as_ref().map_or(0, String::len);
        Ok(Some(StoredResumeLog {
            entry: self.entry(&log, json_bytes + md_bytes as u64),
            log,
            markdown,
        }))
    }

    fn list(&self) -> Result<ResumeLogListing, PortError> {
        let dir = self.dir();
        let names = match fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect::<Vec<String>>(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_error(&dir, &e)),
        };
        let mut listing = ResumeLogListing::default();
        let mut sorted = names.clone();
        sorted.sort();
        for name in &sorted {
            if let Some(key) = read::key_of(name, ".json") {
                match read::read_log(&dir.join(name), &key) {
                    Ok(Some((log, json_bytes))) => {
                        if self.looks_unpaired(&key) {
                            self.repair(&key, &log);
                        }
                        let md = fs::metadata(self.markdown_path(&key)).map_or(0, |m| m.len());
                        listing.entries.push(self.entry(&log, json_bytes + md));
                    }
                    // Deleted since the folder was read: not a problem, just gone.
                    Ok(None) => {}
                    Err(e) => listing.problems.push(format!("skipped: {e}")),
                }
            } else if let Some(key) = read::key_of(name, ".md") {
                let json_name = format!("session-{key}.json");
                if !names.contains(&json_name) {
                    listing.problems.push(format!(
                        "skipped: {}: no {json_name} beside it",
                        dir.join(name).display()
                    ));
                }
            }
        }
        sort_newest_first(&mut listing.entries);
        Ok(listing)
    }

    fn delete(&self, key: &SessionKey) -> Result<bool, PortError> {
        // The markdown first: interrupted, this leaves a JSON alone (a whole log, its markdown
        // written again by the next reader and deleted by the next cleanup), never a markdown
        // without its JSON.
        let paths = [self.markdown_path(key), self.json_path(key)];
        if !paths.iter().any(|p| p.exists()) {
            return Ok(false);
        }
        self.locked(|| {
            let mut removed = false;
            for path in &paths {
                match fs::remove_file(path) {
                    Ok(()) => removed = true,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_error(path, &e)),
                }
            }
            Ok(removed)
        })
    }
}

#[cfg(test)]
mod tests;
