//! How a reader reaches a transcript's bytes: the one thing it cannot do itself, since this
//! crate opens no file. The binary's adapter opens regular files only (a FIFO would block a
//! hook) and lists a session's subagent folder; an embedder can pass a closure that opens a
//! file (`|path: &Path| std::fs::File::open(path)`), or serve bytes from anywhere else.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::ports::TranscriptError;

/// Opens transcripts (and lists folders) for the readers.
pub trait FileAccess {
    /// What an opened transcript is read through.
    type File: Read + Seek;

    /// Opens the transcript at `path` for reading, positioned at its start, with its length
    /// at this moment (bytes a writer appends later are not read). The error's kind says what
    /// went wrong (`TranscriptError::from_io` sorts an I/O error).
    fn open(&self, path: &Path) -> Result<(Self::File, u64), TranscriptError>;

    /// The files of folder `dir` with their modification times, in any order; none when it
    /// cannot be listed. Only a Claude Code session's subagent transcripts are looked for this
    /// way (`<session>/subagents/`), so the default, which lists nothing, loses only the file
    /// writes of subagents that Claude Code keeps apart from the session's own transcript.
    fn list(&self, dir: &Path) -> Vec<(SystemTime, PathBuf)> {
        let _ = dir;
        Vec::new()
    }

    /// Another reader of the transcript at `path`, one that can be read on another thread,
    /// holding at least `len` bytes: a long window is then read in two halves at once. The
    /// default has none, and every window is read by one thread.
    fn open_another(&self, path: &Path, len: u64) -> Option<Box<dyn SendReader>> {
        let _ = (path, len);
        None
    }
}

/// A reader that can move to another thread ([`FileAccess::open_another`]).
pub trait SendReader: Read + Seek + Send {}

impl<T: Read + Seek + Send> SendReader for T {}

/// A closure that opens a path is a [`FileAccess`] that lists nothing.
impl<F, R> FileAccess for F
where
    F: Fn(&Path) -> io::Result<R>,
    R: Read + Seek,
{
    type File = R;

    fn open(&self, path: &Path) -> Result<(R, u64), TranscriptError> {
        let io = |e: io::Error| TranscriptError::from_io(path, &e);
        let mut file = self(path).map_err(io)?;
        let len = file.seek(SeekFrom::End(0)).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        Ok((file, len))
    }
}

/// Opens `path` through `access`, at its start, with its length. An empty transcript is the
/// `Empty` error: a session before its first answer.
pub(crate) fn open_sized<A: FileAccess + ?Sized>(
    access: &A,
    path: &Path,
) -> Result<(A::File, u64), TranscriptError> {
    let (file, len) = access.open(path)?;
    if len == 0 {
        return Err(TranscriptError::empty(path));
    }
    Ok((file, len))
}
