//! File-system primitives every store shares: private folders, atomic replacement, bounded locks.
//!
//! Why these shapes: a reader must see an old or a new file, never a torn one (temp file in the
//! same folder + rename); concurrent hook processes coordinate through a separate `.lock` file
//! (never the data file, which rename replaces); and a lock wait is bounded so a stuck process
//! can never hang a prompt.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use ctxmon_application::ports::{PortError, PortErrorKind};

/// How hard a write tries to survive a power loss, not just a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync the file before the rename and the folder after: checkpoints, resume logs, config.
    Fsync,
    /// Rename only: still never torn after a process crash, and cheap enough for every prompt.
    /// For data that is rebuilt on the next prompt anyway (per-session state).
    RenameOnly,
}

/// Creates `dir` and its parents with mode 0700 (spec §15: ctxmon's files are private).
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Atomically replaces `path` with `bytes` (mode 0600).
pub fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    prepare_atomic(path, bytes, durability)?.commit()
}

/// The temp-file prefix of [`write_atomic`]: readers skip such names, and a folder's writers
/// may remove them under the folder's lock (they belong to writers that died mid-write).
pub const TEMP_PREFIX: &str = ".tmp-";

/// A replacement written completely beside its target but not yet in place: [`Prepared::commit`]
/// renames it over the target; dropping it removes the temp file. Preparing every file of a
/// group before committing any keeps a full disk or a crash while writing from leaving half
/// of the group new.
#[derive(Debug)]
pub struct Prepared {
    tmp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
    durability: Durability,
}

/// Writes (and with `Fsync`, syncs) `bytes` to a temp file beside `path` (mode 0600).
pub fn prepare_atomic(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<Prepared> {
    let dir = parent_dir(path);
    ensure_private_dir(dir)?;
    // tempfile creates the file 0600 on unix, so the data is never readable by others, even
    // between creation and rename.
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if durability == Durability::Fsync {
        tmp.as_file().sync_all()?;
    }
    Ok(Prepared {
        tmp,
        path: path.to_path_buf(),
        durability,
    })
}

impl Prepared {
    /// Renames the temp file over the target (a reader sees the old file or this one).
    pub fn commit(self) -> io::Result<()> {
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        if self.durability == Durability::Fsync {
            // The rename itself is only durable once the folder's entry is on disk.
            if let Ok(d) = File::open(parent_dir(&self.path)) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Removes the `.tmp-*` files in `dir`. Only for a folder whose every writer holds one lock
/// from creating its temp file to renaming it, and only under that lock: then no temp file
/// belongs to a live writer. Best effort; a leftover is invisible to readers anyway.
pub fn remove_orphaned_temps(dir: &Path) {
    remove_temps_older_than(dir, Duration::ZERO);
}

/// Removes the `.tmp-*` files in `dir` last written more than `age` ago: for a folder without
/// one lock over all its writers, where only age tells a dead writer's temp file from a live
/// one's (a live writer holds its temp file for milliseconds). Best effort.
pub fn remove_temps_older_than(dir: &Path, age: Duration) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        if !entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let old_enough = age.is_zero()
            || entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|e| e > age));
        if old_enough {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Opens (creating, 0600) a regular file for appending.
///
/// Non-blocking on unix, like [`open_regular`]: opening a FIFO for writing blocks until a
/// reader appears (or, without one, fails at once with `O_NONBLOCK`). Anything but a regular
/// file is refused, so a FIFO planted as a log or lock file costs an error, not a hang.
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, not a regular file",
                path.display(),
                kind_of(&meta)
            ),
        ));
    }
    Ok(file)
}

/// Why [`open_regular`] did not hand out a file.
#[derive(Debug)]
pub enum OpenRegularError {
    /// The path could not be inspected or opened (missing, permission denied, …).
    Io(io::Error),
    /// The path exists but is not a regular file; the text says what it is (`"a FIFO"`).
    NotAFile(&'static str),
}

/// Opens `path` for reading only when it is a regular file, and returns the file with the
/// metadata of the open handle.
///
/// Opening a FIFO for reading blocks in `open(2)` until a writer appears, which no deadline
/// inside the call can interrupt. So the type is checked from metadata first (a FIFO, socket
/// or device is never opened), the open itself is non-blocking on unix (`O_NONBLOCK`: a FIFO
/// swapped in after the check opens at once instead of waiting for a writer; for a regular
/// file the flag changes nothing), and the type is checked again on the open handle.
pub fn open_regular(path: &Path) -> Result<(File, fs::Metadata), OpenRegularError> {
    let meta = fs::metadata(path).map_err(OpenRegularError::Io)?;
    if !meta.is_file() {
        return Err(OpenRegularError::NotAFile(kind_of(&meta)));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(OpenRegularError::Io)?;
    let meta = file.metadata().map_err(OpenRegularError::Io)?;
    if !meta.is_file() {
        return Err(OpenRegularError::NotAFile(kind_of(&meta)));
    }
    Ok((file, meta))
}

/// What a path that is not a regular file is, for messages: "a directory", "a FIFO", …
pub fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_file() {
        return "a regular file";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    "not a regular file"
}

/// Runs `f` while holding an exclusive lock on `lock_path`, waiting at most `wait`. The lock's
/// folder must exist: it is created by whoever knows it belongs in a project
/// ([`ProjectLayout::ensure_dir`](crate::ProjectLayout::ensure_dir)), never here.
pub fn with_lock<T>(
    lock_path: &Path,
    wait: Duration,
    f: impl FnOnce() -> Result<T, PortError>,
) -> Result<T, PortError> {
    let file = open_append(lock_path).map_err(|e| io_error(lock_path, &e))?;
    let mut lock = fd_lock::RwLock::new(file);
    let started = Instant::now();
    let mut pause = Duration::from_micros(200);
    loop {
        match lock.try_write() {
            Ok(_guard) => return f(),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if started.elapsed() >= wait {
                    return Err(PortError::new(
                        PortErrorKind::Busy,
                        format!(
                            "{} is held by another process for over {wait:?}",
                            lock_path.display()
                        ),
                    ));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Err(e) => return Err(io_error(lock_path, &e)),
        }
    }
}

/// Proves that files can be created in `dir` by creating and removing a temp file there (what
/// `ctxmon doctor` needs: permission bits cannot tell, ACLs, read-only mounts and full disks
/// only show when one tries). The file is removed on every path, including errors.
pub fn probe_writable(dir: &Path) -> io::Result<()> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".doctor-")
        .tempfile_in(dir)?;
    tmp.write_all(b"ctxmon doctor")?;
    tmp.close()
}

/// Maps an I/O error to a port error that names the path.
pub fn io_error(path: &Path, e: &io::Error) -> PortError {
    let kind = match e.kind() {
        io::ErrorKind::NotFound => PortErrorKind::NotFound,
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            PortErrorKind::PermissionDenied
        }
        io::ErrorKind::InvalidData => PortErrorKind::InvalidData,
        _ => PortErrorKind::Io,
    };
    PortError::new(kind, format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_regular_opens_files_and_names_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        fs::write(&file, b"abc").unwrap();
        let (_, meta) = open_regular(&file).unwrap();
        assert_eq!(meta.len(), 3);
        assert!(matches!(
            open_regular(dir.path()),
            Err(OpenRegularError::NotAFile("a directory"))
        ));
        assert!(matches!(
            open_regular(&dir.path().join("missing")),
            Err(OpenRegularError::Io(e)) if e.kind() == io::ErrorKind::NotFound
        ));
    }

    #[cfg(unix)]
    #[test]
    fn open_regular_never_blocks_on_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("notice: mkfifo unavailable; skipping");
            return;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(matches!(
                open_regular(&fifo),
                Err(OpenRegularError::NotAFile("a FIFO"))
            ));
        });
        assert!(rx.recv_timeout(Duration::from_secs(10)).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn open_append_refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("events.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("notice: mkfifo unavailable; skipping");
            return;
        }
        // Without O_NONBLOCK, opening a FIFO for writing waits for a reader forever.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(open_append(&fifo).is_err());
        });
        assert!(rx.recv_timeout(Duration::from_secs(10)).unwrap());
        // A regular file still appends.
        let file = dir.path().join("log");
        open_append(&file).unwrap().write_all(b"a").unwrap();
        open_append(&file).unwrap().write_all(b"b").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"ab");
    }

    #[test]
    fn atomic_write_replaces_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/state.json");
        write_atomic(&path, b"one", Durability::Fsync).unwrap();
        write_atomic(&path, b"two", Durability::RenameOnly).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
            assert_eq!(
                fs::metadata(dir.path().join("a"))
                    .unwrap()
                    .permissions()
                    .mode()
                    & 0o777,
                0o700
            );
        }
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn probing_leaves_nothing_behind_and_fails_where_nothing_can_be_created() {
        let dir = tempfile::tempdir().unwrap();
        probe_writable(dir.path()).unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        let file = dir.path().join("not-a-folder");
        fs::write(&file, "x").unwrap();
        assert!(probe_writable(&file).is_err());
        assert!(probe_writable(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn a_held_lock_times_out_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let lock_path = dir.path().join(".lock");
        let outer = with_lock(&lock_path, Duration::from_millis(50), || {
            // fd-lock locks are per open file description, so a second open contends like
            // another process would.
            let inner = with_lock(&lock_path, Duration::from_millis(30), || Ok(()));
            Ok(inner)
        })
        .unwrap();
        assert_eq!(outer.unwrap_err().kind, PortErrorKind::Busy);
        assert!(with_lock(&lock_path, Duration::from_millis(30), || Ok(1)).is_ok());
    }
}
