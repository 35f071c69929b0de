//! Whether a file the transcript named is still there: the resumption context never points
//! the agent at a file that was deleted, moved or is a directory.

use std::path::Path;

use ctxmon_application::ports::ProjectFiles;

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
}
