//! Opens a transcript safely: regular files only, and errors sorted into the port's kinds.

use std::fs::File;
use std::io;
use std::path::Path;

use ctxmon_application::ports::{TranscriptError, TranscriptErrorKind};

use crate::fsutil::{self, OpenRegularError};

/// Opens `path` for reading and returns the file with its length at this moment.
///
/// Only a regular file is opened (`fsutil::open_regular`): opening a FIFO for reading blocks
/// until a writer appears, which would hang a hook or a command.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), TranscriptError> {
    let (file, meta) = fsutil::open_regular(path).map_err(|e| match e {
        OpenRegularError::Io(e) => io_error(path, &e),
        OpenRegularError::NotAFile(what) => not_a_file(path, what),
    })?;
    if meta.len() == 0 {
        return Err(TranscriptError::new(
            TranscriptErrorKind::Empty,
            format!(
                "transcript {} is empty: it has no usage record yet, wait for the first response",
                path.display()
            ),
        ));
    }
    Ok((file, meta.len()))
}

fn not_a_file(path: &Path, what: &str) -> TranscriptError {
    TranscriptError::new(
        TranscriptErrorKind::NotAFile,
        format!(
            "transcript path {} is not a regular file ({what})",
            path.display()
        ),
    )
}

/// Maps an I/O failure to the port's error kinds. A missing file's message says only what was
/// found: what to check depends on who named the path ([`TranscriptError::named_by`]).
pub(crate) fn io_error(path: &Path, e: &io::Error) -> TranscriptError {
    let shown = path.display();
    match e.kind() {
        // A path through a regular file ("a.jsonl/x") also means there is no transcript there.
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => TranscriptError::new(
            TranscriptErrorKind::NotFound,
            format!("transcript not found at {shown}"),
        ),
        io::ErrorKind::PermissionDenied => TranscriptError::new(
            TranscriptErrorKind::PermissionDenied,
            format!("cannot read transcript {shown}: permission denied, check its owner and mode"),
        ),
        io::ErrorKind::IsADirectory => not_a_file(path, "a directory"),
        _ => TranscriptError::new(
            TranscriptErrorKind::Io,
            format!("cannot read transcript {shown}: {e}"),
        ),
    }
}
