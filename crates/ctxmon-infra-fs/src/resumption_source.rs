//! The resumption source file adapter (contract C5): reads `resumption.source_file` (default
//! `ORCHESTRATION.yaml`) from the project and hands its `resumption:` section over as JSON.
//!
//! Decisions:
//! - With the default setting the file may also be `ORCHESTRATION.yml` or `ORCHESTRATION.json`
//!   (contract C5: JSON as well as YAML): the first of the three that exists is the file in use
//!   (`locate`), so a project never gets two sources mixed. A configured name is the only one.
//! - The path is user configuration, so it is trusted like any other setting: a relative path
//!   is taken from the project folder, an absolute one (or one through `..`) is used as given.
//!   An empty setting means "no source file".
//! - The file's type is checked from metadata before it is opened: opening a FIFO would block
//!   the hook until a writer appears. A directory, FIFO or device is reported, not read.
//! - Size is checked twice: from metadata (a file over the cap is not read at all), and while
//!   reading (at most cap + 1 bytes), in case it grew in between.
//! - `.json` files are read as JSON, everything else as YAML (a JSON file is YAML too, but
//!   the JSON parser's messages are clearer for JSON).
//! - Both are parsed under a budget of values, text bytes and depth (`bounded`), so a YAML
//!   alias bomb or a deeply nested document is a warning, not a hung hook.
//! - Warnings do not repeat the path: the caller prefixes it.

mod bounded;

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use ctxmon_application::config::ResumptionConfig;
use ctxmon_application::ports::{PortError, PortErrorKind, ResumptionSource, SourceDocument};
use serde_json::Value;

use crate::fsutil::{self, OpenRegularError};
use bounded::{LIMITS, MAX_FLOW_DEPTH, bounded_value, flow_depth_over};

/// Longest parser message kept in a warning: serde_norway prefixes its messages with the path
/// to the bad value, which for a deeply nested or long-keyed document is itself long.
const MAX_MESSAGE_CHARS: usize = 300;

/// Reads the project's resumption source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsResumptionSource {
    /// The names looked for, in order; the first that exists is read.
    candidates: Vec<String>,
    max_bytes: u64,
    time_limit: Option<Duration>,
}

impl FsResumptionSource {
    /// `source_file` relative to the project folder (or absolute), `max_bytes` the size above
    /// which the file is ignored (`resumption.max_source_bytes`, default 1 MiB). Only this one
    /// name is looked for; [`FsResumptionSource::from_config`] adds the default's alternatives.
    pub fn new(source_file: String, max_bytes: u64) -> FsResumptionSource {
        let name = source_file.trim();
        FsResumptionSource {
            candidates: if name.is_empty() {
                Vec::new()
            } else {
                vec![name.to_string()]
            },
            max_bytes,
            time_limit: None,
        }
    }

    /// The configured source: `resumption.source_file` (with the default, `ORCHESTRATION.yaml`,
    /// then `.yml`, then `.json`) and `resumption.max_source_bytes`.
    pub fn from_config(config: &ResumptionConfig) -> FsResumptionSource {
        FsResumptionSource {
            candidates: config
                .source_candidates()
                .into_iter()
                .map(str::to_string)
                .collect(),
            max_bytes: config.max_source_bytes,
            time_limit: None,
        }
    }

    /// Gives up waiting for the file after `limit`: a document near the size cap can take
    /// seconds to parse, and PreCompact, which reads it before it saves its checkpoint, must
    /// not lose the checkpoint to its deadline. The read goes on in a background thread (it
    /// ends with the process); the caller gets a warning and falls back to the transcript.
    pub fn with_time_limit(mut self, limit: Duration) -> FsResumptionSource {
        self.time_limit = Some(limit);
        self
    }

    /// The file in use in `project_dir`: the first candidate that exists in any form (a
    /// directory or FIFO too, so that `read` reports it rather than skipping to the next).
    pub fn path_in(&self, project_dir: &Path) -> Option<PathBuf> {
        self.candidates
            .iter()
            .map(|name| project_dir.join(name))
            .find(|path| match std::fs::metadata(path) {
                Ok(_) => true,
                // Unreadable is not absent: `read` reports why.
                Err(e) => !matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ),
            })
    }
}

impl ResumptionSource for FsResumptionSource {
    fn locate(&self, project_dir: &Path) -> Option<PathBuf> {
        self.path_in(project_dir)
    }

    fn read(&self, project_dir: &Path) -> Result<Option<SourceDocument>, PortError> {
        let Some(limit) = self.time_limit else {
            return self.read_now(project_dir);
        };
        let Some(path) = self.path_in(project_dir) else {
            return Ok(None);
        };
        let (tx, rx) = mpsc::channel();
        let this = self.clone();
        let dir = project_dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("resumption-source".into())
            .spawn(move || {
                let _ = tx.send(this.read_now(&dir));
            });
        if spawned.is_err() {
            return self.read_now(project_dir);
        }
        match rx.recv_timeout(limit) {
            Ok(result) => result,
            Err(_) => Ok(Some(SourceDocument {
                path: path.display().to_string(),
                section: None,
                warnings: vec![format!(
                    "ignored: not read within {} ms; keep the resumption: section short (a few KiB)",
                    ctxmon_domain::human::thousands(
                        u64::try_from(limit.as_millis()).unwrap_or(u64::MAX)
                    )
                )],
            })),
        }
    }
}

impl FsResumptionSource {
    fn read_now(&self, project_dir: &Path) -> Result<Option<SourceDocument>, PortError> {
        let Some(path) = self.path_in(project_dir) else {
            return Ok(None);
        };
        let mut doc = SourceDocument {
            path: path.display().to_string(),
            section: None,
            warnings: Vec::new(),
        };
        let meta = match std::fs::metadata(&path) {
            Ok(meta) => meta,
            // A path through a regular file ("notes.txt/x") also means there is no such file.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(io_error(&path, &e)),
        };
        if !meta.is_file() {
            doc.warnings.push(format!(
                "ignored: not a regular file ({}); point resumption.source_file at a YAML or JSON file",
                fsutil::kind_of(&meta)
            ));
            return Ok(Some(doc));
        }
        if meta.len() > self.max_bytes {
            doc.warnings.push(self.too_big(meta.len()));
            return Ok(Some(doc));
        }
        let Some(bytes) = self.read_capped(&path, &mut doc)? else {
            return Ok(Some(doc));
        };
        match parse(&path, &bytes) {
            Ok(top) => doc.section = section_of(top, &mut doc.warnings),
            Err(message) => doc.warnings.push(message),
        }
        Ok(Some(doc))
    }
}

impl FsResumptionSource {
    fn too_big(&self, len: u64) -> String {
        format!(
            "ignored: {} bytes, over the {} cap (resumption.max_source_bytes); keep the resumption: section short or raise the cap",
            ctxmon_domain::human::thousands(len),
            human_size(self.max_bytes)
        )
    }

    /// The file's bytes, or `None` (with a warning) when it is not a regular file after all or
    /// grew over the cap since its metadata was read.
    fn read_capped(
        &self,
        path: &Path,
        doc: &mut SourceDocument,
    ) -> Result<Option<Vec<u8>>, PortError> {
        let file = match fsutil::open_regular(path) {
            Ok((file, _)) => file,
            Err(OpenRegularError::Io(e)) => return Err(io_error(path, &e)),
            Err(OpenRegularError::NotAFile(what)) => {
                doc.warnings.push(format!(
                    "ignored: not a regular file ({what}); point resumption.source_file at a YAML or JSON file"
                ));
                return Ok(None);
            }
        };
        let mut bytes = Vec::new();
        file.take(self.max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| io_error(path, &e))?;
        if bytes.len() as u64 > self.max_bytes {
            doc.warnings.push(self.too_big(bytes.len() as u64));
            return Ok(None);
        }
        Ok(Some(bytes))
    }
}

/// The whole document as JSON, or a warning that says what is wrong and where.
fn parse(path: &Path, bytes: &[u8]) -> Result<Value, String> {
    let is_json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        // serde_json stops at 128 levels by itself, in linear time.
        let mut de = serde_json::Deserializer::from_slice(bytes);
        bounded_value(&mut de, LIMITS)
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| {
                format!(
                    "ignored: invalid JSON at line {} column {}: {}",
                    e.line(),
                    e.column(),
                    shorten(&e.to_string())
                )
            })
    } else {
        if flow_depth_over(bytes, MAX_FLOW_DEPTH) {
            return Err(format!(
                "ignored: invalid YAML: flow collections ([ or {{) nested more than {MAX_FLOW_DEPTH} levels deep; flatten it"
            ));
        }
        bounded_value(serde_norway::Deserializer::from_slice(bytes), LIMITS).map_err(|e| {
            // The location goes first so that shortening the message never loses it.
            let at = e
                .location()
                .map(|l| format!(" at line {} column {}", l.line(), l.column()))
                .unwrap_or_default();
            format!("ignored: invalid YAML{at}: {}", shorten(&e.to_string()))
        })
    }
}

/// The `resumption:` section of the top-level map, when it is a map itself.
fn section_of(top: Value, warnings: &mut Vec<String>) -> Option<Value> {
    let Value::Object(mut map) = top else {
        warnings.push(if top.is_null() {
            "has no resumption: section (the file is empty)".to_string()
        } else {
            "ignored: the top level must be a map with a resumption: key".to_string()
        });
        return None;
    };
    match map.remove("resumption") {
        Some(section @ Value::Object(_)) => Some(section),
        Some(_) => {
            warnings.push("ignored: resumption: must be a map".to_string());
            None
        }
        None => {
            warnings.push("has no resumption: section".to_string());
            None
        }
    }
}

fn shorten(message: &str) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => format!("{}…", message.get(..end).unwrap_or(message)),
        None => message.to_string(),
    }
}

fn human_size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    const KIB: u64 = 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes}-byte")
    }
}

fn io_error(path: &Path, e: &io::Error) -> PortError {
    let shown = path.display();
    match e.kind() {
        io::ErrorKind::PermissionDenied => PortError::new(
            PortErrorKind::PermissionDenied,
            format!("cannot read {shown}: permission denied, check its owner and mode"),
        ),
        _ => PortError::new(PortErrorKind::Io, format!("cannot read {shown}: {e}")),
    }
}
