//! Finding the project from a folder inside it (contract C12): a command run in `proj/src` works
//! on `proj`, as git finds its repository from any folder of its work tree.
//!
//! The project is the nearest folder, at or above the start, that holds `.ctxmon`, `.claude`
//! or `.git`. The walk never reaches the home folder or `/`: `~/.claude` is Claude Code's own
//! settings folder, not a project, and ctxmon keeps no `.ctxmon` in either unless one is
//! named with `--project-dir` (docs/hardening.md, finding 9). Nor does
//! it climb into a folder of `GIT_CEILING_DIRECTORIES`, which tells git the same about its
//! repository search (a shared `/tmp`, slow network mounts). A start with no marker on the way
//! up stays the project, as before.
//!
//! Only commands a person runs walk. Hooks and the status line take the folder their agent
//! names (`CLAUDE_PROJECT_DIR`, the input's `cwd` or `workspace.project_dir`): it is the
//! folder the agent files its transcripts under, and their `.ctxmon`, made there, is what a
//! command run from any folder below finds.

use std::path::{Path, PathBuf};

/// What makes a folder a project.
pub const MARKERS: [&str; 3] = [".ctxmon", ".claude", ".git"];

/// The project of `start`: `Some(folder)` when a folder above `start` (not `start` itself) is
/// the nearest one with a marker; `None` when `start` has one itself or none was found below
/// `stops` (the home folder and the ceilings) and `/`, so `start` stays as it is (shown as the
/// user typed or the system gave it).
pub fn above(start: &Path, stops: &[PathBuf]) -> Option<PathBuf> {
    // Resolved, so `..` and links climb the real tree and compare with the real stops.
    let start = std::fs::canonicalize(start).ok()?;
    let stops: Vec<PathBuf> = stops
        .iter()
        .map(|s| std::fs::canonicalize(s).unwrap_or_else(|_| s.clone()))
        .collect();
    for dir in start.ancestors() {
        if dir.parent().is_none() || stops.iter().any(|s| s == dir) {
            return None;
        }
        if MARKERS
            .iter()
            .any(|m| std::fs::symlink_metadata(dir.join(m)).is_ok())
        {
            return (dir != start).then(|| dir.to_path_buf());
        }
    }
    None
}

/// The folders of `GIT_CEILING_DIRECTORIES` (its value): absolute paths separated by `:`;
/// empty and relative entries are ignored, as git ignores them.
pub fn ceilings(value: Option<&str>) -> Vec<PathBuf> {
    value
        .unwrap_or_default()
        .split(':')
        .filter(|entry| Path::new(entry).is_absolute())
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("home/me/proj/src/deep")).unwrap();
        std::fs::create_dir_all(root.join("home/me/loose/sub")).unwrap();
        std::fs::create_dir_all(root.join("home/me/.claude")).unwrap();
        std::fs::create_dir_all(root.join("home/me/.git")).unwrap();
        (tmp, root)
    }

    #[test]
    fn the_nearest_marked_folder_above_is_the_project() {
        let (_tmp, root) = tree();
        let home = root.join("home/me");
        let stops = [home.clone()];
        let proj = home.join("proj");
        for marker in MARKERS {
            let _ = std::fs::remove_dir_all(proj.join(".git"));
            let _ = std::fs::remove_dir_all(proj.join(".claude"));
            let _ = std::fs::remove_dir_all(proj.join(".ctxmon"));
            std::fs::create_dir(proj.join(marker)).unwrap();
            assert_eq!(
                above(&proj.join("src/deep"), &stops),
                Some(proj.clone()),
                "{marker}"
            );
            // Already at the project: nothing to change.
            assert_eq!(above(&proj, &stops), None, "{marker}");
        }
        // A worktree's or submodule's `.git` is a file.
        std::fs::write(proj.join("src/.git"), "gitdir: ../.git/worktrees/x\n").unwrap();
        assert_eq!(
            above(&proj.join("src/deep"), &stops),
            Some(proj.join("src"))
        );
        // `..` climbs the real tree.
        assert_eq!(
            above(&proj.join("src/deep/../deep"), &stops),
            Some(proj.join("src"))
        );
    }

    /// The home folder's `.claude` (Claude Code's settings) and `.git` (dotfiles) make no
    /// project of it: a folder below it without a marker stays its own project.
    #[test]
    fn the_walk_stops_below_home_ceilings_and_root() {
        let (_tmp, root) = tree();
        let home = root.join("home/me");
        let stops = [home.clone()];
        assert_eq!(above(&home.join("loose/sub"), &stops), None);
        assert_eq!(above(&home, &stops), None);
        assert_eq!(above(Path::new("/"), &stops), None);
        // Outside home, the walk goes on up to, not into, `/`.
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("srv/app")).unwrap();
        assert_eq!(above(&root.join("srv/app"), &stops), Some(root.clone()));
        // A ceiling is not climbed into: the marker above it is not found.
        let ceiling = [home.clone(), root.join("srv")];
        assert_eq!(above(&root.join("srv/app"), &ceiling), None);
        // A start that does not exist is left for the caller to refuse.
        assert_eq!(above(&root.join("nowhere"), &[]), None);
    }

    /// `GIT_CEILING_DIRECTORIES`: absolute paths split on `:`, the others ignored.
    #[test]
    fn ceilings_are_read_like_git_reads_them() {
        assert_eq!(
            ceilings(Some("/tmp::relative:/srv/mnt/")),
            vec![PathBuf::from("/tmp"), PathBuf::from("/srv/mnt/")]
        );
        assert!(ceilings(None).is_empty());
    }
}
