//! What ctxmon left in a project's `.ctxmon/`, read back completely and strictly: every event
//! line, state file, checkpoint, marker, `.next-id`, sequence mark, resume-log pair and the
//! `.gitignore` must be what its name says it is. A torn or interleaved file fails the audit with
//! its name; what the test then asserts about the contents (counts, ids, chains) is up to the test.
//!
//! Used by the hardening tests (`common::disk`).

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ctxmon_domain::{CheckpointData, CheckpointId, EventRecord, ResumeLog, SessionState};

/// The parsed contents of `.ctxmon/`.
#[derive(Debug, Default)]
pub struct Disk {
    /// Files read and checked (events, states, checkpoints, markers, `.next-id`, logs).
    pub files: usize,
    /// `events.jsonl`, every line, in file order.
    pub events: Vec<EventRecord>,
    /// Per-session state files by file stem (the session key).
    pub states: BTreeMap<String, SessionState>,
    /// Checkpoints by sequence number.
    pub checkpoints: BTreeMap<u32, CheckpointData>,
    /// Sequence numbers with a `cx-NNN.acknowledged` marker.
    pub markers: Vec<u32>,
    pub next_id: Option<u64>,
    /// Each session's next compaction sequence (`.seq-<key>`), by session key.
    pub sequence_marks: BTreeMap<String, u64>,
    /// Resume logs (their JSON) by session key.
    pub logs: BTreeMap<String, ResumeLog>,
    /// Keys whose markdown is missing or is not the rendering of the JSON beside it.
    pub unpaired_logs: Vec<String>,
    /// `.tmp-*` files anywhere below `.ctxmon/`.
    pub temps: Vec<PathBuf>,
    /// Lines of `events.jsonl` that stop short (valid JSON cut off): a writer killed inside its
    /// one `write`, which the kernel may end at a page boundary. Readers skip them and the
    /// next append starts a new line; only [`audit_after_kills`] accepts them.
    pub cut_lines: usize,
}

impl Disk {
    /// The events of one session, in file order.
    pub fn events_of<'a>(&'a self, session: &'a str) -> impl Iterator<Item = &'a EventRecord> {
        self.events
            .iter()
            .filter(move |e| e.session_id.as_deref() == Some(session))
    }

    /// The event's tag (`CheckpointCreated`, …).
    pub fn kind(event: &EventRecord) -> String {
        serde_json::to_value(&event.event).unwrap()["event"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn count(&self, session: &str, kind: &str) -> usize {
        self.events_of(session)
            .filter(|e| Disk::kind(e) == kind)
            .count()
    }

    /// Checkpoints taken for one session, by sequence number.
    pub fn checkpoints_of(&self, session: &str) -> Vec<&CheckpointData> {
        self.checkpoints
            .values()
            .filter(|c| c.session_info.session_id.as_deref() == Some(session))
            .collect()
    }
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn names(dir: &Path) -> Vec<String> {
    match fs::read_dir(dir) {
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("{}: {e}", dir.display()),
    }
}

/// A bookkeeping file of one number and a newline, whole.
fn read_number(path: &Path) -> u64 {
    let text = String::from_utf8(read(path)).unwrap();
    assert!(
        text.ends_with('\n'),
        "{} is complete: {text:?}",
        path.display()
    );
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("{} is torn ({e}): {text:?}", path.display()))
}

/// Reads `<project>/.ctxmon` and panics, naming the file, at the first thing that is not a
/// complete file of its kind.
pub fn audit(project: &Path) -> Disk {
    let disk = audit_after_kills(project);
    assert_eq!(
        disk.cut_lines, 0,
        "events.jsonl has lines cut short although no writer was killed"
    );
    disk
}

/// [`audit`] of a folder whose writers were killed with SIGKILL: a line of `events.jsonl` may
/// stop short (counted in [`Disk::cut_lines`]), but no line may be interleaved with another
/// or be anything but a prefix of an event.
pub fn audit_after_kills(project: &Path) -> Disk {
    let root = project.join(".ctxmon");
    let mut disk = Disk {
        temps: crate::common::temp_leftovers(&root),
        ..Disk::default()
    };

    // Written with the folder when ctxmon created it (contract C12): everything stays out of git.
    let gitignore = root.join(".gitignore");
    if gitignore.exists() {
        assert_eq!(
            read(&gitignore),
            b"*\n",
            ".gitignore is ctxmon's: {}",
            gitignore.display()
        );
        disk.files += 1;
    }

    let events = root.join("events.jsonl");
    if events.exists() {
        let bytes = read(&events);
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            // A cut may fall inside a character: only an incomplete one at the very end.
            let text = match std::str::from_utf8(line) {
                Ok(text) => text,
                Err(e) if e.error_len().is_none() => {
                    disk.cut_lines += 1;
                    continue;
                }
                Err(e) => panic!("events.jsonl line {} is not UTF-8 ({e})", n + 1),
            };
            match serde_json::from_str::<EventRecord>(text) {
                Ok(record) => disk.events.push(record),
                // Cut short: valid JSON up to its end. Interleaved lines fail otherwise.
                Err(e) if e.is_eof() => disk.cut_lines += 1,
                Err(e) => panic!(
                    "events.jsonl line {} is torn or interleaved ({e}): {text}",
                    n + 1
                ),
            }
        }
        disk.files += 1;
    }

    let state_dir = root.join("state");
    for name in names(&state_dir) {
        let path = state_dir.join(&name);
        if let Some(stem) = name.strip_suffix(".json") {
            let state: SessionState = serde_json::from_slice(&read(&path))
                .unwrap_or_else(|e| panic!("state file {name} is torn ({e})"));
            disk.states.insert(stem.to_string(), state);
            disk.files += 1;
        } else if name.ends_with(".lock") {
            assert_eq!(read(&path).len(), 0, "lock files stay empty: {name}");
        }
    }

    let cp_dir = root.join("checkpoints");
    for name in names(&cp_dir) {
        let path = cp_dir.join(&name);
        if let Some(stem) = name.strip_suffix("-checkpoint.json") {
            let id = CheckpointId::parse(stem).unwrap_or_else(|| panic!("bad name {name}"));
            let bytes = read(&path);
            let data: CheckpointData = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("{name} is torn ({} bytes): {e}", bytes.len()));
            assert_eq!(data.checkpoint_id, id, "{name} holds another id");
            disk.checkpoints.insert(id.sequence(), data);
            disk.files += 1;
        } else if let Some(stem) = name.strip_suffix(".acknowledged") {
            let id = CheckpointId::parse(stem).unwrap_or_else(|| panic!("bad marker {name}"));
            assert_eq!(read(&path).len(), 0, "markers are empty: {name}");
            disk.markers.push(id.sequence());
            disk.files += 1;
        } else if name == ".next-id" {
            let text = String::from_utf8(read(&path)).unwrap();
            let next: u64 = text
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!(".next-id is torn ({e}): {text:?}"));
            assert!(text.ends_with('\n'), ".next-id is complete: {text:?}");
            disk.next_id = Some(next);
            disk.files += 1;
        } else if let Some(key) = name.strip_prefix(".seq-") {
            disk.sequence_marks
                .insert(key.to_string(), read_number(&path));
            disk.files += 1;
        } else if name == ".sequences-since" {
            read_number(&path);
            disk.files += 1;
        }
    }

    let log_dir = root.join("resume-logs");
    let log_names = names(&log_dir);
    for name in &log_names {
        let path = log_dir.join(name);
        if let Some(key) = name
            .strip_prefix("session-")
            .and_then(|n| n.strip_suffix(".json"))
        {
            let bytes = read(&path);
            let log: ResumeLog = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                panic!("resume log {name} is torn ({} bytes): {e}", bytes.len())
            });
            disk.files += 1;
            let md = log_dir.join(format!("session-{key}.md"));
            match fs::read(&md) {
                Ok(md) => {
                    disk.files += 1;
                    if md != log.render().markdown().as_bytes() {
                        disk.unpaired_logs.push(key.to_string());
                    }
                }
                Err(_) => disk.unpaired_logs.push(key.to_string()),
            }
            disk.logs.insert(key.to_string(), log);
        } else if let Some(key) = name
            .strip_prefix("session-")
            .and_then(|n| n.strip_suffix(".md"))
            && !log_names.contains(&format!("session-{key}.json"))
        {
            disk.unpaired_logs.push(key.to_string());
        }
    }
    disk
}

/// [`audit_after_kills`] after a storm of kills: a resume log caught between its two renames (its new JSON
/// beside the old markdown) must be repaired by the next reader, so each such pair is read once
/// with `ctxmon resume-log show` and the folder audited again. Returns the final audit (every
/// pair matching) and how many pairs needed the repair.
pub fn audit_repairing(sb: &crate::common::Sandbox) -> (Disk, usize) {
    let disk = audit_after_kills(sb.dir());
    let caught = disk.unpaired_logs.len();
    if caught == 0 {
        return (disk, 0);
    }
    for key in &disk.unpaired_logs {
        let show = sb.run(&["resume-log", "show", key], "");
        assert_eq!(show.code, 0, "{key}: {}", show.stderr);
    }
    let disk = audit_after_kills(sb.dir());
    assert!(
        disk.unpaired_logs.is_empty(),
        "markdown that is not its JSON's rendering, even after reading: {:?}",
        disk.unpaired_logs
    );
    (disk, caught)
}
