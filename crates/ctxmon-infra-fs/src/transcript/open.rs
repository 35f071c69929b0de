//! Opens a transcript safely for the readers: regular files only (opening a FIFO for reading
//! blocks until a writer appears, which would hang a hook or a command), and errors sorted into
//! the port's kinds.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ctxmon_application::ports::TranscriptError;
use ctxmon_application::readers::{FileAccess, SendReader};

use crate::fsutil::{self, OpenRegularError};

/// The file access of the binary's transcript reader: regular files only, and a session's
/// subagent folder listed for the subagents' own transcripts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegularFiles;

impl FileAccess for RegularFiles {
    type File = File;

    fn open(&self, path: &Path) -> Result<(File, u64), TranscriptError> {
        open_regular(path)
    }

    fn open_another(&self, path: &Path, len: u64) -> Option<Box<dyn SendReader>> {
        // A file replaced or cut since the first was opened is not the same transcript.
        let (file, now) = open_regular(path).ok()?;
        (now >= len).then(|| Box::new(file) as Box<dyn SendReader>)
    }

    fn list(&self, dir: &Path) -> Vec<(SystemTime, PathBuf)> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .map(|e| {
                let path = e.path();
                let modified = std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                (modified, path)
            })
            .collect()
    }
}

/// Opens `path` for reading and returns the file with its length at this moment; only a
/// regular file is opened (`fsutil::open_regular`).
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), TranscriptError> {
    let (file, meta) = fsutil::open_regular(path).map_err(|e| match e {
        OpenRegularError::Io(e) => TranscriptError::from_io(path, &e),
        OpenRegularError::NotAFile(what) => TranscriptError::not_a_file(path, what),
    })?;
    Ok((file, meta.len()))
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn another_reader_is_given_only_of_the_same_regular_file_still_as_long() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, b"{\"type\":\"user\"}\n").expect("write");
        let mut another = RegularFiles
            .open_another(&path, 16)
            .expect("another reader");
        let mut text = String::new();
        another.read_to_string(&mut text).expect("read");
        assert_eq!(text, "{\"type\":\"user\"}\n");
        // Cut since the first reader opened it: not the same transcript any more.
        assert!(RegularFiles.open_another(&path, 17).is_none());
        assert!(
            RegularFiles
                .open_another(&dir.path().join("gone"), 0)
                .is_none()
        );
        assert!(RegularFiles.open_another(dir.path(), 0).is_none());
    }
}
