//! Running a process as a user that file modes bind, for tests of unreadable files.
//!
//! Root (and any process with CAP_DAC_OVERRIDE) reads a file of mode 000, and tests and CI run
//! as root, so a permission test that only runs "when the file is really unreadable" never
//! runs. When this process ignores modes, the process under test is started through `setpriv`
//! (util-linux) as nobody (65534) with no supplementary groups: changing the uid away from 0
//! also clears the capabilities. Without `setpriv` the caller skips that one case with a notice.
//! Shared by `ctxmon-infra-fs` and `ctxmon-cli` tests.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The user and group the process under test runs as: `nobody`/`nogroup` on Linux.
pub const NOBODY: u32 = 65_534;

/// How to start a process that `probe` (a file of mode 000) must refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// File modes bind this process already: start it as it is.
    Direct,
    /// Start it through this command line (`setpriv …`), followed by the program and its
    /// arguments.
    Unprivileged(Vec<String>),
}

/// Decides how to start a process that `probe` must refuse. `Err` is the notice to print when
/// this process ignores modes and has no way to drop its privileges.
pub fn launch(probe: &Path) -> Result<Launch, String> {
    assert_eq!(
        std::fs::metadata(probe).unwrap().permissions().mode() & 0o777,
        0,
        "the probe must have mode 000"
    );
    if std::fs::File::open(probe).is_err() {
        return Ok(Launch::Direct);
    }
    let prefix: Vec<String> = [
        "setpriv",
        &format!("--reuid={NOBODY}"),
        &format!("--regid={NOBODY}"),
        "--clear-groups",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // setpriv must exist, and must really drop: `cat` of the probe must fail under it.
    let dropped = Command::new(&prefix[0])
        .args(&prefix[1..])
        .arg("cat")
        .arg(probe)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match dropped {
        Ok(status) if !status.success() => Ok(Launch::Unprivileged(prefix)),
        Ok(_) => Err(format!(
            "notice: {} stays readable under setpriv; skipping the permission case",
            probe.display()
        )),
        Err(e) => Err(format!(
            "notice: running with privileges that ignore file modes and setpriv is unavailable ({e}); skipping the permission case"
        )),
    }
}

/// Gives `dir` to nobody, so a process running as nobody can enter it and write there.
pub fn give_to_nobody(dir: &Path) {
    std::os::unix::fs::chown(dir, Some(NOBODY), Some(NOBODY)).unwrap();
}

/// Whether a user that is neither the owner nor in the group can run `program`: every folder
/// above it searchable by others, the file readable and executable by others.
pub fn runnable_by_others(program: &Path) -> bool {
    let Ok(program) = std::fs::canonicalize(program) else {
        return false;
    };
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.mode()).unwrap_or(0);
    program
        .ancestors()
        .skip(1)
        .all(|dir| mode(dir) & 0o001 != 0)
        && mode(&program) & 0o005 == 0o005
}

/// `program`, or when others cannot run it where it is, a copy of it in `spare_dir` (which
/// must be reachable by them), mode 0755.
pub fn runnable_copy(program: &Path, spare_dir: &Path) -> PathBuf {
    if runnable_by_others(program) {
        return program.to_path_buf();
    }
    let copy = spare_dir.join(program.file_name().unwrap());
    std::fs::copy(program, &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    copy
}
