//! Exit codes (spec §13): 0 ok, 2 usage or configuration error, 1 any other failure; a closed
//! stdout ends a command with 0 (see `out`).

use std::process::ExitCode;

/// A failure that knows its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or configuration: exit 2.
    Usage(anyhow::Error),
    /// Anything else: exit 1.
    Other(anyhow::Error),
    /// Stdout's reader has gone (`| head -1`): the command stops writing and exits 0 quietly,
    /// as a SIGPIPE would end it (see `out`).
    StdoutClosed,
}

impl Failure {
    pub fn usage(e: impl Into<anyhow::Error>) -> Failure {
        Failure::Usage(e.into())
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Usage(_) => ExitCode::from(2),
            Failure::Other(_) => ExitCode::from(1),
            Failure::StdoutClosed => ExitCode::SUCCESS,
        }
    }

    /// What to tell the user; `None` when there is nothing to say (a closed stdout).
    pub fn error(&self) -> Option<&anyhow::Error> {
        match self {
            Failure::Usage(e) | Failure::Other(e) => Some(e),
            Failure::StdoutClosed => None,
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

pub type CmdResult = Result<(), Failure>;
