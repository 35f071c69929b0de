//! Whether a file the transcript named is still there: the resumption context never points
//! the agent at a file that was deleted, moved or is a directory. Also the agent's own
//! resumption note (`.ctxmon/notes/<session>.md`), read as an untrusted file: only a regular
//! file reached through no link, inside the project, and only its first bytes.

use std::io::Read;
use std::path::Path;

use ctxmon_application::ports::{NoteFile, PortError, ProjectFiles};
use ctxmon_domain::{SessionKey, Timestamp};

use crate::fsutil::{OpenRegularError, io_error, is_symlink, open_regular};
use crate::layout::ProjectLayout;

/// Looks at the file system with `stat` (links followed: a linked file is a file to read).
#[derive(Debug, Default, Clone, Copy)]
pub struct FsProjectFiles;

impl ProjectFiles for FsProjectFiles {
    fn is_file(&self, project_dir: &Path, path: &str) -> bool {
        let p = Path::new(path);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            project_dir.join(p)
        };
        // `metadata` fails for a missing path or one we may not look at; either way the
        // agent is not sent there.
        std::fs::metadata(full).is_ok_and(|m| m.is_file())
    }

    fn note_location(&self, project_dir: &Path, session: &SessionKey) -> Option<String> {
        Some(
            ProjectLayout::new(project_dir)
                .note_file(session)
                .display()
                .to_string(),
        )
    }

    fn read_note(
        &self,
        project_dir: &Path,
        session: &SessionKey,
        max_bytes: usize,
    ) -> Result<Option<NoteFile>, PortError> {
        let layout = ProjectLayout::new(project_dir);
        let path = layout.note_file(session);
        // A link anywhere below the project would let the note be any file the user can read,
        // handed to the agent as its own words.
        if [
            layout.root().to_path_buf(),
            layout.notes_dir(),
            path.clone(),
        ]
        .iter()
        .any(|p| is_symlink(p))
        {
            return Err(io_error(&path, &crate::fsutil::symlink_refused(&path)));
        }
        let (file, meta) = match open_regular(&path) {
            Ok(opened) => opened,
            Err(OpenRegularError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(OpenRegularError::Io(e)) => return Err(io_error(&path, &e)),
            Err(OpenRegularError::NotAFile(kind)) => {
                return Err(io_error(
                    &path,
                    &std::io::Error::other(format!("the note is {kind}, not a file")),
                ));
            }
        };
        let limit = u64::try_from(max_bytes).unwrap_or(u64::MAX);
        let mut bytes = Vec::new();
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error(&path, &e))?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_millis()).ok())
            .map(Timestamp::from_millis);
        Ok(Some(NoteFile {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            modified,
            cut: meta.len() > limit,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_that_exist_count() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let abs = dir.path().join("a.rs");
        let files = FsProjectFiles;
        assert!(files.is_file(dir.path(), "a.rs"));
        assert!(files.is_file(Path::new("/elsewhere"), &abs.display().to_string()));
        assert!(!files.is_file(dir.path(), "sub"));
        assert!(!files.is_file(dir.path(), "gone.rs"));
        assert!(!files.is_file(dir.path(), ""));
        assert!(!files.is_file(dir.path(), "a.rs/inside"));
    }

    fn notes(dir: &Path) -> std::path::PathBuf {
        let notes = dir.join(".ctxmon").join("notes");
        std::fs::create_dir_all(&notes).unwrap();
        notes
    }

    #[test]
    fn the_note_is_read_bounded_with_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let key = SessionKey::from_raw("s1");
        let files = FsProjectFiles;
        assert_eq!(files.read_note(dir.path(), &key, 100).unwrap(), None);
        let location = files.note_location(dir.path(), &key).unwrap();
        assert!(location.ends_with(".ctxmon/notes/s1.md"), "{location}");
        std::fs::write(
            notes(dir.path()).join("s1.md"),
            "Goal: é parser\n".repeat(50),
        )
        .unwrap();
        let note = files.read_note(dir.path(), &key, 100).unwrap().unwrap();
        assert!(note.cut);
        assert!(note.text.len() <= 100);
        assert!(note.text.starts_with("Goal: é parser"));
        assert!(note.modified.is_some());
        let whole = files.read_note(dir.path(), &key, 10_000).unwrap().unwrap();
        assert!(!whole.cut);
    }

    #[cfg(unix)]
    #[test]
    fn a_note_that_is_a_link_or_not_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "api key").unwrap();
        let key = SessionKey::from_raw("s1");
        let files = FsProjectFiles;
        let note = notes(dir.path()).join("s1.md");
        std::os::unix::fs::symlink(outside.path().join("secret"), &note).unwrap();
        assert!(files.read_note(dir.path(), &key, 100).is_err());
        std::fs::remove_file(&note).unwrap();
        // A folder of notes that is a link elsewhere: refused too.
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir(other.path().join(".ctxmon")).unwrap();
        std::os::unix::fs::symlink(outside.path(), other.path().join(".ctxmon").join("notes"))
            .unwrap();
        std::fs::write(outside.path().join("s1.md"), "planted").unwrap();
        assert!(files.read_note(other.path(), &key, 100).is_err());
        // A FIFO is never opened (it would block).
        let fifo = notes(dir.path()).join("s1.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(files.read_note(dir.path(), &key, 100).is_err());
        }
    }
}
