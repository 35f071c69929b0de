//! Uncommitted changes from `git status --porcelain=v1 -z`: the one place ctxmon runs git.
//!
//! Why a process here when `head` reads `.git` directly: deciding what is modified means
//! comparing the index with the work tree (stat caches, filters, ignore rules), which only git
//! does right. It is affordable because only resume-log generation asks — a few times per
//! session, never on the per-prompt path — and it is bounded: a timeout after which git is
//! killed, a cap on the output read, `--no-optional-locks` so the user's own git commands never
//! find the index locked by ctxmon. And `-c core.fsmonitor=false`: a repository's own
//! configuration can name a program as its file-system monitor, which `git status` runs; a
//! hook looking at the work tree must not start a program a cloned project chose (nor pay for
//! one). The same goes for the clean filters a project's `.gitattributes` names (`filter=…`,
//! run through `filter.<name>.clean` or `.process`): `GIT_ATTR_SOURCE` names the empty tree as
//! where attributes come from, so git reads none from the work tree and runs no filter (git
//! 2.40 and later; an older git ignores the variable). A file whose stat changed is then
//! compared unfiltered, and may show as modified when only a filter would have said otherwise.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Long enough for `git status` on a large repository with a warm cache, short enough to fit
/// well inside a hook's deadline (1.5 s by default).
pub const STATUS_TIMEOUT: Duration = Duration::from_millis(700);

/// More output than this is read and discarded (git must not block on a full pipe).
const MAX_OUTPUT: u64 = 1024 * 1024;

/// A resume log lists this many changes at most.
const MAX_ENTRIES: usize = 200;

/// The id of the tree with nothing in it, which every SHA-1 repository knows without storing.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// `XY path` entries (`XY old -> new` for renames and copies), or `None` when git is missing,
/// `dir` is not in a work tree, git failed or ran past `timeout`.
pub fn dirty_files(dir: &Path, timeout: Duration) -> Option<Vec<String>> {
    Running::start(dir, timeout)?.finish()
}

/// A `git status` started and not yet answered: the caller may do other work meanwhile. The
/// timeout runs from the start; dropped unanswered, git is killed.
pub struct Running {
    child: Child,
    rx: mpsc::Receiver<io::Result<Vec<u8>>>,
    deadline: Instant,
    done: bool,
}

impl Running {
    /// Starts git in `dir`; `None` when it cannot be started (not installed).
    pub fn start(dir: &Path, timeout: Duration) -> Option<Running> {
        let mut child = Command::new("git")
            .arg("--no-optional-locks")
            .args(["-c", "core.fsmonitor=false"])
            .args(["status", "--porcelain=v1", "-z", "--untracked-files=normal"])
            .current_dir(dir)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_ATTR_SOURCE", EMPTY_TREE)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let deadline = Instant::now() + timeout;
        let Some(mut stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        };
        let (tx, rx) = mpsc::channel();
        // A reader thread keeps the pipe drained so git can finish however much it prints.
        thread::spawn(move || {
            let mut kept = Vec::new();
            let result = (&mut stdout)
                .take(MAX_OUTPUT)
                .read_to_end(&mut kept)
                .and_then(|_| io::copy(&mut stdout, &mut io::sink()));
            let _ = tx.send(result.map(|_| kept));
        });
        Some(Running {
            child,
            rx,
            deadline,
            done: false,
        })
    }

    /// Waits for git (until the deadline at most) and parses what it printed.
    pub fn finish(mut self) -> Option<Vec<String>> {
        self.done = true;
        let mut output = None;
        // The deadline is checked before git's status, so an answer that comes after it is
        // never taken, however the scheduler orders this thread and git (on a loaded machine
        // git could otherwise finish before the first look and beat a zero timeout).
        let status = loop {
            let in_time = Instant::now() < self.deadline;
            match self.child.try_wait() {
                Ok(Some(status)) if in_time => break status,
                Ok(None) if in_time => wait_a_little(&self.rx, &mut output),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        };
        if !status.success() {
            return None;
        }
        // git has exited; its output is complete unless a child of its own still holds the
        // pipe.
        let bytes = match output {
            Some(read) => read.ok()?,
            None => self
                .rx
                .recv_timeout(Duration::from_millis(100))
                .ok()?
                .ok()?,
        };
        Some(parse_porcelain_z(&bytes))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Between two looks at git: until its output ends (which it does as git exits), or 2 ms. A
/// plain 2 ms sleep made every PreCompact wait about a millisecond more than git took.
fn wait_a_little(
    rx: &mpsc::Receiver<io::Result<Vec<u8>>>,
    output: &mut Option<io::Result<Vec<u8>>>,
) {
    if output.is_some() {
        // Its output has ended: git is exiting.
        thread::sleep(Duration::from_micros(100));
        return;
    }
    match rx.recv_timeout(Duration::from_millis(2)) {
        Ok(read) => *output = Some(read),
        Err(mpsc::RecvTimeoutError::Timeout) => {}
        Err(mpsc::RecvTimeoutError::Disconnected) => thread::sleep(Duration::from_millis(2)),
    }
}

/// Parses NUL-separated porcelain v1 entries; an incomplete last entry (output cut at the cap)
/// is dropped.
pub fn parse_porcelain_z(bytes: &[u8]) -> Vec<String> {
    let mut fields = bytes.split(|b| *b == 0).peekable();
    let mut out = Vec::new();
    let complete = bytes.last() == Some(&0);
    while let Some(field) = fields.next() {
        if fields.peek().is_none() && !complete {
            break;
        }
        if field.len() < 4 || field[2] != b' ' {
            continue;
        }
        let xy = String::from_utf8_lossy(&field[..2]).into_owned();
        let path = clean(&field[3..]);
        let entry = if xy.contains('R') || xy.contains('C') {
            // Renames and copies carry the source path as the next field.
            let from = fields.next().map(clean).unwrap_or_default();
            format!("{xy} {from} -> {path}")
        } else {
            format!("{xy} {path}")
        };
        out.push(entry);
        if out.len() == MAX_ENTRIES {
            break;
        }
    }
    out
}

/// A path as text: lossy UTF-8, control characters (legal in file names) made visible.
fn clean(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_porcelain_entries() {
        let out = b" M src/a.rs\0A  new.rs\0R  b.rs\0old b.rs\0?? notes\nx.md\0 D gone";
        assert_eq!(
            parse_porcelain_z(out),
            [
                " M src/a.rs",
                "A  new.rs",
                "R  old b.rs -> b.rs",
                "?? notes?x.md"
            ]
        );
        assert!(parse_porcelain_z(b"").is_empty());
        assert!(parse_porcelain_z(b"garbage\0").is_empty());
    }

    fn git(dir: &Path, args: &[&str]) -> bool {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    #[test]
    fn reads_a_real_work_tree() {
        let dir = tempfile::tempdir().unwrap();
        if !git(dir.path(), &["init", "-q"]) {
            eprintln!("notice: git is not installed; skipping the git status test");
            return;
        }
        std::fs::write(dir.path().join("staged.txt"), "a").unwrap();
        assert!(git(dir.path(), &["add", "staged.txt"]));
        std::fs::write(dir.path().join("untracked.txt"), "b").unwrap();
        let mut found = dirty_files(dir.path(), Duration::from_secs(10)).unwrap();
        found.sort();
        assert_eq!(found, ["?? untracked.txt", "A  staged.txt"]);
        // No repository, or no time at all: unknown, never an error.
        let plain = tempfile::tempdir().unwrap();
        assert_eq!(dirty_files(plain.path(), Duration::from_secs(10)), None);
        assert_eq!(dirty_files(dir.path(), Duration::ZERO), None);
    }

    /// A project's `.gitattributes` naming a clean filter its configuration defines: reading
    /// the status runs no program of the project's (the filter would leave a file behind).
    #[test]
    fn a_projects_clean_filter_is_not_run() {
        let dir = tempfile::tempdir().unwrap();
        if !git(dir.path(), &["init", "-q"]) {
            eprintln!("notice: git is not installed; skipping the git status test");
            return;
        }
        let ran = dir.path().join("filter-ran");
        let filter = format!("sh -c 'touch {}; cat'", ran.display());
        assert!(git(dir.path(), &["config", "filter.x.clean", &filter]));
        std::fs::write(dir.path().join(".gitattributes"), "*.txt filter=x\n").unwrap();
        std::fs::write(dir.path().join("a.txt"), "one").unwrap();
        assert!(git(dir.path(), &["add", "a.txt", ".gitattributes"]));
        std::fs::remove_file(&ran).unwrap();
        // The same bytes with another time: git must look at the content, through the filter.
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join("a.txt"))
            .unwrap();
        file.set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000))
            .unwrap();
        drop(file);
        let found = dirty_files(dir.path(), Duration::from_secs(10)).unwrap();
        assert!(found.contains(&"A  a.txt".to_string()), "{found:?}");
        assert!(!ran.exists(), "git ran the project's clean filter");
    }

    /// Started, then answered after other work: the same entries; the timeout runs from the
    /// start, so an answer taken after it is none.
    #[test]
    fn a_started_status_answers_later_within_its_timeout() {
        let dir = tempfile::tempdir().unwrap();
        if !git(dir.path(), &["init", "-q"]) {
            eprintln!("notice: git is not installed; skipping the git status test");
            return;
        }
        std::fs::write(dir.path().join("untracked.txt"), "b").unwrap();
        let running = Running::start(dir.path(), Duration::from_secs(10)).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(running.finish().unwrap(), ["?? untracked.txt"]);
        let late = Running::start(dir.path(), Duration::from_millis(20)).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(late.finish(), None);
        // Dropped unanswered: git is not left behind (killed and reaped).
        drop(Running::start(dir.path(), Duration::from_secs(10)).unwrap());
    }
}
