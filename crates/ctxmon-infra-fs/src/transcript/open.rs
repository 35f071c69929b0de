//! Opens a transcript safely: regular files only, and errors sorted into the port's kinds.

use std::fs::File;
use std::io;
use std::path::Path;

use ctxmon_application::ports::{TranscriptError, TranscriptErrorKind};

/// Opens `path` for reading and returns the file with its length at this moment.
///
/// The type is checked from metadata *before* opening: opening a FIFO for reading blocks until
/// a writer appears, which would hang a hook. The type is checked again on the open handle in
/// case the path was swapped in between (a FIFO swapped in during that window would still block
/// the open; closing that gap needs `O_NONBLOCK`, which std does not expose portably).
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), TranscriptError> {
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    if !meta.is_file() {
        return Err(not_a_file(path));
    }
    let file = File::open(path).map_err(|e| io_error(path, &e))?;
    let meta = file.metadata().map_err(|e| io_error(path, &e))?;
    if !meta.is_file() {
        return Err(not_a_file(path));
    }
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

fn not_a_file(path: &Path) -> TranscriptError {
    TranscriptError::new(
        TranscriptErrorKind::NotAFile,
        format!(
            "transcript path {} is not a regular file: pass the .jsonl file named in the hook input",
            path.display()
        ),
    )
}

/// Maps an I/O failure to the port's error kinds, with a message that says what to do.
pub(crate) fn io_error(path: &Path, e: &io::Error) -> TranscriptError {
    let shown = path.display();
    match e.kind() {
        // A path through a regular file ("a.jsonl/x") also means there is no transcript there.
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => TranscriptError::new(
            TranscriptErrorKind::NotFound,
            format!(
                "transcript not found at {shown}: check the transcript_path from the hook input"
            ),
        ),
        io::ErrorKind::PermissionDenied => TranscriptError::new(
            TranscriptErrorKind::PermissionDenied,
            format!("cannot read transcript {shown}: permission denied, check its owner and mode"),
        ),
        io::ErrorKind::IsADirectory => not_a_file(path),
        _ => TranscriptError::new(
            TranscriptErrorKind::Io,
            format!("cannot read transcript {shown}: {e}"),
        ),
    }
}
