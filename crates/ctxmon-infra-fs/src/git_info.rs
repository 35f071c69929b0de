//! Branch and head commit read from `.git` without spawning git: a hook cannot afford a
//! process (and git may not be installed), and two small files answer the question.
//!
//! What is understood: a `.git` folder, or a `.git` file `gitdir: <path>` (worktrees and
//! submodules, with the worktree's `commondir` for shared refs); `HEAD` holding
//! `ref: refs/heads/<branch>` or a detached commit id; the ref as a loose file, as a symbolic
//! ref to another ref (a few hops), or as a line of `packed-refs`. Reftable repositories and
//! anything else unexpected give `head: None`. Every read is of a regular file and bounded, so
//! a FIFO, a huge file or garbage yields `None` fields, never a hang or a panic.
//!
//! The uncommitted changes a resume log lists are the exception: they do need git, which
//! `status` runs under a timeout, and only when a resume log is generated.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use ctxmon_application::ports::{GitHead, GitInfo, PendingDirtyFiles};

mod status;
pub use status::{STATUS_TIMEOUT, parse_porcelain_z};

/// `HEAD`, loose refs, `.git` files and `commondir` are one line; anything longer is not one.
const SMALL_FILE_CAP: u64 = 4 * 1024;

/// `packed-refs` grows with tags and branches; past this the head is reported unknown rather
/// than reading on (a hook has milliseconds).
const PACKED_REFS_CAP: u64 = 16 * 1024 * 1024;

/// How many symbolic refs are followed before giving up (git itself allows 5).
const MAX_SYMREF_HOPS: usize = 5;

/// Reads `.git` directly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FsGitInfo;

impl FsGitInfo {
    pub fn new() -> FsGitInfo {
        FsGitInfo
    }
}

impl GitInfo for FsGitInfo {
    /// `None` when no ancestor of `dir` (itself included) has a `.git`. Inside a work tree
    /// whose `HEAD` is unreadable or garbage, `Some` with both fields `None`.
    fn head(&self, dir: &Path) -> Option<GitHead> {
        let git_dir = find_git_dir(dir)?;
        let common = common_dir(&git_dir);
        let Some(head) = read_small(&git_dir.join("HEAD")) else {
            return Some(GitHead::default());
        };
        let head = head.trim();
        if let Some(target) = head.strip_prefix("ref:") {
            let Some(refname) = valid_refname(target.trim()) else {
                return Some(GitHead::default());
            };
            let branch = refname
                .strip_prefix("refs/heads/")
                .unwrap_or(refname)
                .to_string();
            Some(GitHead {
                branch: Some(branch),
                head: resolve(&git_dir, &common, refname),
            })
        } else {
            Some(GitHead {
                branch: None,
                head: object_id(head),
            })
        }
    }

    /// Runs `git status` (see `status`), only inside a work tree: outside one there is nothing
    /// to ask and no process is started. Nor is one started when `HEAD` is not a regular file:
    /// git would block opening a FIFO there until its timeout, only to fail.
    fn dirty_files(&self, dir: &Path) -> Option<Vec<String>> {
        if !worth_a_status(dir) {
            return None;
        }
        status::dirty_files(dir, STATUS_TIMEOUT)
    }

    /// Starts `git status` now (under the same conditions as [`GitInfo::dirty_files`]); its
    /// timeout runs from here, and the answer is read when asked for.
    fn dirty_files_started<'a>(&'a self, dir: &Path) -> PendingDirtyFiles<'a> {
        match worth_a_status(dir)
            .then(|| status::Running::start(dir, STATUS_TIMEOUT))
            .flatten()
        {
            Some(running) => Box::new(move || running.finish()),
            None => Box::new(|| None),
        }
    }
}

/// Whether `git status` may run for `dir`: inside a work tree whose `HEAD` is a regular file.
fn worth_a_status(dir: &Path) -> bool {
    find_git_dir(dir)
        .and_then(|git_dir| std::fs::metadata(git_dir.join("HEAD")).ok())
        .is_some_and(|meta| meta.is_file())
}

/// The git folder for `dir`: the first ancestor's `.git` folder, or the folder a `.git` file
/// points to.
fn find_git_dir(dir: &Path) -> Option<PathBuf> {
    for ancestor in dir.ancestors() {
        let dot_git = ancestor.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git);
        }
        if meta.is_file() {
            // A `.git` file that is not a gitdir link is a broken work tree; git stops there
            // too rather than looking further up.
            let target = read_small(&dot_git)?;
            let target = target.trim().strip_prefix("gitdir:")?.trim();
            if target.is_empty() {
                return None;
            }
            return Some(ancestor.join(target));
        }
    }
    None
}

/// Where shared refs live: a worktree's git folder names it in `commondir`; a normal one is
/// its own.
fn common_dir(git_dir: &Path) -> PathBuf {
    match read_small(&git_dir.join("commondir")) {
        Some(rel) if !rel.trim().is_empty() => git_dir.join(rel.trim()),
        _ => git_dir.to_path_buf(),
    }
}

/// The commit `refname` points to: a loose ref (per-worktree first, then shared), then
/// `packed-refs`, following symbolic refs a few hops.
fn resolve(git_dir: &Path, common: &Path, refname: &str) -> Option<String> {
    let mut name = refname.to_string();
    for _ in 0..MAX_SYMREF_HOPS {
        let loose = read_small(&git_dir.join(&name)).or_else(|| read_small(&common.join(&name)));
        match loose {
            Some(text) => {
                let text = text.trim();
                match text.strip_prefix("ref:") {
                    Some(next) => name = valid_refname(next.trim())?.to_string(),
                    None => return object_id(text),
                }
            }
            None => return packed_ref(&common.join("packed-refs"), &name),
        }
    }
    None
}

/// The id for `refname` in a `packed-refs` file (`<id> <refname>` lines; `#` headers and `^`
/// peeled lines are skipped), read line by line within [`PACKED_REFS_CAP`].
fn packed_ref(path: &Path, refname: &str) -> Option<String> {
    let file = open_regular(path)?;
    let mut reader = BufReader::new(file.take(PACKED_REFS_CAP));
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            continue;
        };
        if let Some((id, name)) = text.trim_end().split_once(' ')
            && name == refname
        {
            return object_id(id);
        }
    }
}

/// A ref name safe to join to the git folder: under `refs/`, relative, without `..`, empty
/// components, backslashes or control characters. Anything else is garbage, and reading it
/// could leave the git folder.
fn valid_refname(name: &str) -> Option<&str> {
    let ok = name.starts_with("refs/")
        && name.len() <= 1024
        && !name.contains('\\')
        && !name.chars().any(char::is_control)
        && name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    ok.then_some(name)
}

/// A full object id: 40 (SHA-1) or 64 (SHA-256) hex digits, lower-cased.
fn object_id(text: &str) -> Option<String> {
    let ok = (text.len() == 40 || text.len() == 64) && text.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| text.to_ascii_lowercase())
}

/// A small regular file's text, or `None` (missing, not regular, over the cap, not UTF-8).
fn read_small(path: &Path) -> Option<String> {
    let file = open_regular(path)?;
    let mut text = String::new();
    file.take(SMALL_FILE_CAP + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= SMALL_FILE_CAP).then_some(text)
}

/// Opens `path` only when it is a regular file: opening a FIFO would block.
fn open_regular(path: &Path) -> Option<File> {
    crate::fsutil::open_regular(path).ok().map(|(file, _)| file)
}
