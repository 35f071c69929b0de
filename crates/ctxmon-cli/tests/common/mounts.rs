//! A project whose `.ctxmon/` sits on a hostile file system: a tiny tmpfs filled to the last
//! block and inode, or a read-only one. Mounting needs root (CAP_SYS_ADMIN); where it is not
//! permitted the project falls back, with a notice, to what an unprivileged user can build: a
//! read-only folder (mode 0555, which does not stop root) or `.ctxmon` being a regular file, so
//! that every `mkdir` and write below it fails.
//!
//! Mounts live inside the sandbox's temp dir and are undone by `Drop`, also when a test fails.
//! Used as `common::mounts`.

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::Sandbox;

/// A tmpfs mounted at a folder; unmounted when dropped.
#[derive(Debug)]
pub struct Mount {
    path: PathBuf,
}

impl Mount {
    /// Mounts a tmpfs with `options` (e.g. `size=64k`) at `dir`, creating it. `None`, with a
    /// notice on stderr, when this machine does not let the test mount.
    /// `CTXMON_TEST_NO_MOUNT=1` forces the fallback, to try it on a machine that can mount.
    pub fn tmpfs(dir: &Path, options: &str) -> Option<Mount> {
        fs::create_dir_all(dir).unwrap();
        if std::env::var_os("CTXMON_TEST_NO_MOUNT").is_some_and(|v| v == "1") {
            eprintln!("notice: CTXMON_TEST_NO_MOUNT=1; using the fallback");
            return None;
        }
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir)
            .output();
        match out {
            Ok(out) if out.status.success() => Some(Mount {
                path: dir.to_path_buf(),
            }),
            Ok(out) => {
                eprintln!(
                    "notice: cannot mount a tmpfs here ({}); using the fallback",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("notice: cannot run mount ({e}); using the fallback");
                None
            }
        }
    }

    /// `mount -o remount,<options>`: `ro`, `nr_inodes=N`, …
    pub fn remount(&self, options: &str) {
        let out = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "remount,{options}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.path)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            // Busy (a child still inside?): detach it now, the kernel frees it when unused.
            let lazy = Command::new("umount")
                .arg("-l")
                .arg(&self.path)
                .status()
                .is_ok_and(|s| s.success());
            if !lazy {
                eprintln!("warning: could not unmount {}", self.path.display());
            }
        }
    }
}

/// `(total, free)` inodes of the file system holding `dir` (`stat -f`).
fn inodes(dir: &Path) -> (u64, u64) {
    let out = Command::new("stat")
        .args(["-f", "-c", "%c %d"])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut parts = text.split_whitespace().map(|p| p.parse::<u64>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap())
}

/// Bytes the file system holding `dir` still has for files (`stat -f`: free blocks × size).
pub fn free_bytes(dir: &Path) -> u64 {
    let out = Command::new("stat")
        .args(["-f", "-c", "%a %S"])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut parts = text.split_whitespace().map(|p| p.parse::<u64>().unwrap());
    parts.next().unwrap() * parts.next().unwrap()
}

/// Writes `dir/name` so that exactly `leave` bytes stay free (a multiple of the page size).
pub fn fill_leaving(dir: &Path, name: &str, leave: u64) {
    let take = free_bytes(dir)
        .checked_sub(leave)
        .unwrap_or_else(|| panic!("less than {leave} bytes free in {}", dir.display()));
    let file = fs::File::create(dir.join(name)).unwrap();
    let mut writer = std::io::BufWriter::new(file);
    let chunk = vec![0x5a_u8; 4096];
    let mut left = take;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        writer.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    writer.flush().unwrap();
    assert_eq!(free_bytes(dir), leave, "filled to the page");
}

/// Writes `dir/name` until the file system says it is full; returns the bytes written.
pub fn fill_blocks(dir: &Path, name: &str) -> u64 {
    let mut file = fs::File::create(dir.join(name)).unwrap();
    let chunk = vec![0x5a_u8; 4096];
    let mut written = 0;
    loop {
        match file.write(&chunk) {
            Ok(0) => break,
            Ok(n) => written += n as u64,
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("filling {}: {e}", dir.display()),
        }
    }
    written
}

/// How the project's `.ctxmon` is made hostile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// No space and no inode left.
    Full,
    ReadOnly,
}

/// What was actually built (the fallbacks are weaker and the tests say so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Built {
    /// A 64 KiB tmpfs, every block and inode taken.
    FullTmpfs,
    /// A tmpfs remounted read-only.
    ReadOnlyTmpfs,
    /// Not root: the folder tree made 0555 / 0444.
    ReadOnlyFolder,
    /// `.ctxmon` is a regular file: nothing below it can be created (no earlier files to keep).
    RegularFile,
}

impl Built {
    /// The OS error every failed write reports in this setup.
    pub fn error_text(self) -> &'static str {
        match self {
            Built::FullTmpfs => "No space left on device",
            Built::ReadOnlyTmpfs => "Read-only file system",
            Built::ReadOnlyFolder => "Permission denied",
            Built::RegularFile => "Not a directory",
        }
    }

    /// Whether files written before the file system turned hostile exist (and must survive).
    pub fn has_earlier_files(self) -> bool {
        self != Built::RegularFile
    }
}

/// A sandboxed project whose `.ctxmon` turns hostile once [`HostileProject::seal`] is called.
/// Field order matters: the mount is dropped (unmounted) before the sandbox's temp dir goes.
pub struct HostileProject {
    mount: Option<Mount>,
    chmodded: bool,
    pub built: Built,
    pub sb: Sandbox,
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl HostileProject {
    /// Prepares `.ctxmon` (a tmpfs when possible). Until `seal`, it is an ordinary writable
    /// folder, so the test can let ctxmon write the files that must later survive.
    pub fn new(kind: Hostile) -> HostileProject {
        let sb = Sandbox::new();
        let mount = Mount::tmpfs(&sb.path(".ctxmon"), "size=64k,mode=0700");
        let built = match (kind, &mount) {
            (Hostile::Full, Some(_)) => Built::FullTmpfs,
            (Hostile::ReadOnly, Some(_)) => Built::ReadOnlyTmpfs,
            (Hostile::ReadOnly, None) if !is_root() => Built::ReadOnlyFolder,
            (_, None) => {
                eprintln!(
                    "notice: falling back to .ctxmon as a regular file (no earlier files to keep)"
                );
                Built::RegularFile
            }
        };
        if built == Built::RegularFile {
            let _ = fs::remove_dir(sb.path(".ctxmon"));
        }
        HostileProject {
            mount,
            chmodded: false,
            built,
            sb,
        }
    }

    /// Makes `.ctxmon` hostile: full, read-only or a regular file.
    pub fn seal(&mut self) {
        let root = self.sb.path(".ctxmon");
        match self.built {
            Built::FullTmpfs => {
                let mount = self.mount.as_ref().unwrap();
                fill_blocks(&root, "zz-filler");
                let (total, free) = inodes(&root);
                mount.remount(&format!("nr_inodes={}", total - free));
                assert_eq!(inodes(&root).1, 0, "no inode left");
            }
            Built::ReadOnlyTmpfs => self.mount.as_ref().unwrap().remount("ro"),
            Built::ReadOnlyFolder => {
                set_tree_mode(&root, true);
                self.chmodded = true;
            }
            Built::RegularFile => {
                fs::write(&root, b"not a folder\n").unwrap();
            }
        }
        eprintln!("hostile .ctxmon: {:?}", self.built);
    }

    /// Every file below `.ctxmon` with its bytes (the filler excepted), to prove later that
    /// nothing was damaged.
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = Vec::new();
        collect(&self.sb.path(".ctxmon"), &mut files);
        files.retain(|(p, _)| !p.ends_with("zz-filler"));
        files.sort();
        files
    }
}

fn collect(path: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        for entry in fs::read_dir(path).unwrap() {
            collect(&entry.unwrap().path(), out);
        }
    } else {
        out.push((path.to_path_buf(), fs::read(path).unwrap()));
    }
}

#[cfg(unix)]
fn set_tree_mode(path: &Path, read_only: bool) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        if !read_only {
            fs::set_permissions(path, fs::Permissions::from_mode(0o700)).unwrap();
        }
        for entry in fs::read_dir(path).unwrap() {
            set_tree_mode(&entry.unwrap().path(), read_only);
        }
        if read_only {
            fs::set_permissions(path, fs::Permissions::from_mode(0o555)).unwrap();
        }
    } else {
        let mode = if read_only { 0o444 } else { 0o600 };
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }
}

impl Drop for HostileProject {
    fn drop(&mut self) {
        // Writable again, so the temp dir can be removed.
        if self.chmodded {
            set_tree_mode(&self.sb.path(".ctxmon"), false);
        }
    }
}
