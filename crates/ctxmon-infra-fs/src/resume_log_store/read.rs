//! Reading one stored log and deciding whether ctxmon can trust it: a regular file within the
//! size cap, JSON of a schema this build knows, holding the session its name claims.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use ctxmon_application::handoff::resume_log;
use ctxmon_application::ports::{PortError, PortErrorKind};
use ctxmon_domain::session::is_safe;
use ctxmon_domain::{ResumeLog, SessionKey};

use crate::fsutil::io_error;

/// Logs ctxmon writes stay far below this (the agent's document is capped at 2 MiB and the
/// derived content is capped item by item); a larger file is not one of ours, and refusing it
/// bounds what `list` reads.
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

fn invalid(path: &Path, why: impl std::fmt::Display) -> PortError {
    PortError::new(
        PortErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// The session key in a file name `session-<key><ext>`, when it is one ctxmon could have
/// written.
pub(super) fn key_of(name: &str, ext: &str) -> Option<SessionKey> {
    let key = name.strip_prefix("session-")?.strip_suffix(ext)?;
    is_safe(key).then(|| SessionKey::from_raw(key))
}

/// `Ok(None)` when there is no file; the log and the file's size otherwise.
pub(super) fn read_log(
    path: &Path,
    key: &SessionKey,
) -> Result<Option<(ResumeLog, u64)>, PortError> {
    let Some(bytes) = read_bounded(path)? else {
        return Ok(None);
    };
    let log = resume_log::from_json(&bytes)
        .map_err(|e| invalid(path, format_args!("corrupt resume-log JSON ({e})")))?;
    if log.schema_version > ResumeLog::SCHEMA_VERSION {
        return Err(invalid(
            path,
            format_args!(
                "schema version {} is newer than this ctxmon understands ({}); upgrade ctxmon to read it",
                log.schema_version,
                ResumeLog::SCHEMA_VERSION
            ),
        ));
    }
    if SessionKey::from_raw(&log.session_id) != *key {
        return Err(invalid(
            path,
            format_args!(
                "holds the log of another session (key {})",
                SessionKey::from_raw(&log.session_id)
            ),
        ));
    }
    Ok(Some((log, bytes.len() as u64)))
}

/// The stored markdown, when there is a readable UTF-8 one.
pub(super) fn read_markdown(path: &Path) -> Option<String> {
    String::from_utf8(read_bounded(path).ok()??).ok()
}

fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, PortError> {
    // symlink_metadata: a symlink planted under a log's name must not make ctxmon read (and
    // echo) a file elsewhere.
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path, &e)),
    };
    if !meta.is_file() {
        return Err(invalid(path, "not a regular file"));
    }
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path, &e)),
    };
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(MAX_LOG_BYTES)).unwrap_or(0));
    // take(): the size check above cannot stop a file that grows after it.
    file.take(MAX_LOG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, &e))?;
    if bytes.len() as u64 > MAX_LOG_BYTES {
        return Err(invalid(
            path,
            format_args!(
                "larger than {} MiB, not a resume log ctxmon wrote",
                MAX_LOG_BYTES / (1024 * 1024)
            ),
        ));
    }
    Ok(Some(bytes))
}
