//! File-system primitives every store shares: private folders, atomic replacement, bounded locks.
//!
//! Why these shapes: a reader must see an old or a new file, never a torn one (temp file in the
//! same folder + rename); concurrent hook processes coordinate through a separate `.lock` file
//! (never the data file, which rename replaces); and a lock wait is bounded so a stuck process
//! can never hang a prompt.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use ctxmon_application::ports::{PortError, PortErrorKind};

/// How hard a write tries to survive a power loss, not just a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync the file before the rename and the folder after: checkpoints, resume logs, config.
    Fsync,
    /// fsync the file before the rename, and leave the folder to the `Fsync` write into the
    /// same folder that follows (a folder's fsync makes every entry renamed into it durable):
    /// a save of several files of one folder pays one folder fsync, after its last file.
    FileFirst,
    /// Rename only: still never torn after a process crash, and cheap enough for every prompt.
    /// For data that is rebuilt on the next prompt anyway (per-session state).
    RenameOnly,
}

/// Creates `dir` and its parents with mode 0700 (contract C15: ctxmon's files are private).
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

/// [`write_atomic`] with its temp file named `prefix…`: for files outside `.ctxmon` (an agent's
/// settings), where a writer killed mid-write leaves a temp file among someone else's, and a
/// name only ctxmon uses is what lets a later run tell that leftover from theirs.
pub fn write_atomic_named(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
    prefix: &str,
) -> io::Result<()> {
    prepare_with_prefix(path, bytes, durability, prefix)?.commit()
}

/// The temp-file prefix of [`write_atomic`]: readers skip such names. A temp file is removed
/// by the process that created it (on commit or drop); ctxmon never deletes one it did not
/// create, because a name cannot prove who made the file (a cloned repository can plant one).
/// A writer killed mid-write therefore leaves its temp file behind, invisible to every reader.
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
    prepare_with_prefix(path, bytes, durability, TEMP_PREFIX)
}

fn prepare_with_prefix(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
    prefix: &str,
) -> io::Result<Prepared> {
    let dir = parent_dir(path);
    ensure_private_dir(dir)?;
    // tempfile creates the file 0600 on unix, so the data is never readable by others, even
    // between creation and rename.
    let mut tmp = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if matches!(durability, Durability::Fsync | Durability::FileFirst) {
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

/// Opens (creating, 0600) a regular file for appending.
///
/// Non-blocking on unix, like [`open_regular`]: opening a FIFO for writing blocks until a
/// reader appears (or, without one, fails at once with `O_NONBLOCK`). Anything but a regular
/// file is refused, so a FIFO planted as a log or lock file costs an error, not a hang.
///
/// A symbolic link is never followed (`O_NOFOLLOW`): every caller appends to or locks a file
/// inside `.ctxmon`, where a link committed to a cloned repository would otherwise make ctxmon
/// append to, or create, a file anywhere the user can write ([`symlink_refused`]).
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    open_private(path, &options)
}

/// Opens (creating, 0600) a regular file for writing in place, neither appending nor
/// truncating, with [`open_append`]'s guards (no link followed, no FIFO waited on).
pub fn open_in_place(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).write(true);
    open_private(path, &options)
}

fn open_private(path: &Path, options: &OpenOptions) -> io::Result<File> {
    let mut options = options.clone();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    if is_symlink(path) {
        return Err(symlink_refused(path));
    }
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW reports a link as ELOOP (Linux) or EMLINK (BSD): say what it is instead.
        if is_symlink(path) {
            symlink_refused(path)
        } else {
            e
        }
    })?;
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

/// Whether `path` itself is a symbolic link (not followed; false when it cannot be inspected).
pub fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The error for a symbolic link where ctxmon writes, appends, locks or deletes (contract C12:
/// nothing inside `.ctxmon` is followed through a link). `PermissionDenied`: it is a refusal,
/// not a missing file, and hooks report it as a warning and still answer.
pub fn symlink_refused(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{} is a symbolic link; ctxmon does not follow links inside .ctxmon",
            path.display()
        ),
    )
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

/// Reads a file ctxmon only consults (an agent's settings or config): at most `max_bytes` of a
/// regular file, as text. `None` when it cannot be used: quietly when the open failed with a
/// kind in `absent` (the file is simply not there), else with a warning naming the file, so a
/// broken file is ignored, never fatal, and a FIFO never blocks ([`open_regular`]).
pub fn read_consulted(
    path: &Path,
    max_bytes: u64,
    absent: &[io::ErrorKind],
    warnings: &mut Vec<String>,
) -> Option<String> {
    let bytes = read_consulted_bytes(path, max_bytes, absent, warnings)?;
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) => {
            warnings.push(format!(
                "{} cannot be read (stream did not contain valid UTF-8); ignored",
                path.display()
            ));
            None
        }
    }
}

/// [`read_consulted`] without the UTF-8 check, for a JSON file read as leniently as its own
/// program reads it (`json_repair::from_slice_lenient`).
pub fn read_consulted_bytes(
    path: &Path,
    max_bytes: u64,
    absent: &[io::ErrorKind],
    warnings: &mut Vec<String>,
) -> Option<Vec<u8>> {
    let file = match open_regular(path) {
        Ok((file, _)) => file,
        Err(OpenRegularError::Io(e)) if absent.contains(&e.kind()) => return None,
        Err(OpenRegularError::Io(e)) => {
            warnings.push(format!("{} cannot be read ({e}); ignored", path.display()));
            return None;
        }
        Err(OpenRegularError::NotAFile(what)) => {
            warnings.push(format!("{} is {what}, not a file; ignored", path.display()));
            return None;
        }
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.take(max_bytes).read_to_end(&mut bytes) {
        warnings.push(format!("{} cannot be read ({e}); ignored", path.display()));
        return None;
    }
    Some(bytes)
}

/// The regular files directly in `dir` that the effective user owns, with their metadata;
/// links, folders and anything else are left out (a name cannot prove whose a file is, an
/// owner can say whose it is not). Empty when `dir` cannot be listed.
pub fn own_files(dir: &Path) -> Vec<(std::path::PathBuf, fs::Metadata)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    #[cfg(unix)]
    let me = rustix::process::geteuid().as_raw();
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).ok()?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                if meta.uid() != me {
                    return None;
                }
            }
            meta.is_file().then_some((path, meta))
        })
        .collect()
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
    let text = e.to_string();
    let shown = path.display().to_string();
    // Errors made here (a FIFO, a refused link) already start with the path.
    if text.starts_with(&shown) {
        PortError::new(kind, text)
    } else {
        PortError::new(kind, format!("{shown}: {text}"))
    }
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

    #[test]
    fn a_consulted_file_is_read_bounded_and_its_absence_is_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "0123456789").unwrap();
        let mut warnings = Vec::new();
        let absent = [io::ErrorKind::NotFound];
        assert_eq!(
            read_consulted(&file, 4, &absent, &mut warnings).as_deref(),
            Some("0123")
        );
        let missing = dir.path().join("missing.json");
        assert_eq!(read_consulted(&missing, 4, &absent, &mut warnings), None);
        assert!(warnings.is_empty(), "{warnings:?}");
        // A path through a file is quiet only when the caller says so.
        let through = file.join("x");
        assert_eq!(read_consulted(&through, 4, &absent, &mut warnings), None);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].ends_with("; ignored"), "{warnings:?}");
        let both = [io::ErrorKind::NotFound, io::ErrorKind::NotADirectory];
        assert_eq!(read_consulted(&through, 4, &both, &mut warnings), None);
        assert_eq!(read_consulted(dir.path(), 4, &both, &mut warnings), None);
        assert_eq!(warnings.len(), 2, "a folder is not a file: {warnings:?}");
        assert!(warnings[1].contains("not a file; ignored"), "{warnings:?}");
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

    /// `events.jsonl`, `hooks.log` and the `.lock` files planted as links once made a hook append
    /// to files outside `.ctxmon` or create them there.
    #[cfg(unix)]
    #[test]
    fn open_append_follows_no_link_existing_or_dangling() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, b"mine").unwrap();
        let link = dir.path().join("events.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let e = open_append(&link).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(
            e.to_string(),
            format!(
                "{} is a symbolic link; ctxmon does not follow links inside .ctxmon",
                link.display()
            )
        );
        assert_eq!(fs::read(&outside).unwrap(), b"mine");

        let nowhere = dir.path().join("created-by-nobody.lock");
        let dangling = dir.path().join(".lock");
        std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
        let e = with_lock(&dangling, Duration::from_millis(30), || Ok(())).unwrap_err();
        assert_eq!(e.kind, PortErrorKind::PermissionDenied);
        assert!(e.message.contains("is a symbolic link"), "{e}");
        assert!(
            !e.message
                .starts_with(&format!("{}: {}", dangling.display(), dangling.display())),
            "the path is named once: {e}"
        );
        assert!(!nowhere.exists(), "a dangling link creates nothing");
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
