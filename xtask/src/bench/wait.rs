//! Reaps a child process and reports its peak resident set size, from `wait4(2)`'s rusage.
//!
//! This is the only `unsafe` code in the workspace, and the reason the workspace's
//! `unsafe_code` lint is `deny` rather than `forbid` (a `forbid` cannot be allowed locally;
//! `cargo xtask tidy` rejects the allow anywhere but here): std's
//! `Child::wait` throws away the rusage the kernel returns, and no safe wrapper of `wait4` is in
//! the dependency tree (`rustix` has none). `getrusage(RUSAGE_CHILDREN)` would need `unsafe` as
//! well and only gives the maximum over all children ever reaped, not one run's peak.

use std::io;
use std::process::{Child, ExitStatus};

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reaped {
    pub status: ExitStatus,
    /// Peak resident set size in KiB; `None` where the platform does not report it.
    pub max_rss_kib: Option<u64>,
}

/// Waits for `child` with `wait4`. After this the child is reaped: never call `child.wait()`.
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn wait_with_rusage(child: &mut Child) -> io::Result<Reaped> {
    use std::os::unix::process::ExitStatusExt;

    let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct of integers, for which all-zero bytes are valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers come from live, exclusive locals that outlive the call, and `pid`
        // is our own child, which nothing has reaped yet (std only reaps in `wait`/`try_wait`).
        let rc = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
        if rc == pid {
            break;
        }
        let error = io::Error::last_os_error();
        if rc == -1 && error.kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return Err(if rc == -1 {
            error
        } else {
            io::Error::other(format!("wait4 returned {rc} for child {pid}"))
        });
    }
    // Linux reports KiB, macOS bytes.
    let raw = u64::try_from(usage.ru_maxrss).ok();
    let max_rss_kib = if cfg!(target_os = "macos") {
        raw.map(|bytes| bytes / 1024)
    } else {
        raw
    };
    Ok(Reaped {
        status: ExitStatus::from_raw(status),
        max_rss_kib,
    })
}

/// Without `wait4` the peak RSS is unknown.
#[cfg(not(unix))]
pub fn wait_with_rusage(child: &mut Child) -> io::Result<Reaped> {
    Ok(Reaped {
        status: child.wait()?,
        max_rss_kib: None,
    })
}
