//! A pseudo-terminal for the tests of what a person's terminal gets (the report's width,
//! indented JSON): the binary writes to the terminal's slave side, the test reads the master.
//! Safe code only (rustix's `pty` and `termios`), as the workspace forbids `unsafe`.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::process::Stdio;

use rustix::fs::{Mode, OFlags};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{Winsize, tcsetwinsize};

/// The master side of a pseudo-terminal `columns` wide.
pub struct Terminal {
    master: OwnedFd,
    slave: std::ffi::CString,
    columns: u16,
}

/// A new terminal, or `None` with a notice where the system has none to give (no `/dev/ptmx`).
pub fn open(columns: u16) -> Option<Terminal> {
    let made = (|| {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
        grantpt(&master)?;
        unlockpt(&master)?;
        let slave = ptsname(&master, Vec::new())?;
        rustix::io::Result::Ok(Terminal {
            master,
            slave,
            columns,
        })
    })();
    match made {
        Ok(terminal) => Some(terminal),
        Err(e) => {
            ctxmon_test_support::skip!("no pseudo-terminal ({e}); skipping the terminal case");
            None
        }
    }
}

impl Terminal {
    /// A handle on the slave side, sized, for a child's stdout or stderr. Open it only for a
    /// command about to be spawned: the master reads until every handle is closed.
    pub fn stdio(&self) -> Stdio {
        let fd = rustix::fs::open(
            self.slave.as_c_str(),
            OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        let size = Winsize {
            ws_row: 40,
            ws_col: self.columns,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        tcsetwinsize(&fd, size).unwrap();
        Stdio::from(fd)
    }

    /// Everything written to the terminal until the last slave handle closed, with the
    /// terminal's `\r\n` line ends back to `\n`. Run it on its own thread while the child runs:
    /// a terminal's buffer is small.
    pub fn read_all(self) -> String {
        let mut file = std::fs::File::from(self.master);
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        // Linux answers EIO, not 0, once the slave side is closed.
        while let Ok(n) = file.read(&mut chunk) {
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&bytes).replace("\r\n", "\n")
    }
}
