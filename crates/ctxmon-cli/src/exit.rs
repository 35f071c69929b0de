//! Exit codes (spec §13): 0 ok, 2 usage or configuration error, 1 any other failure.

use std::process::ExitCode;

/// A failure that knows its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or configuration: exit 2.
    Usage(anyhow::Error),
    /// Anything else: exit 1.
    Other(anyhow::Error),
}

impl Failure {
    pub fn usage(e: impl Into<anyhow::Error>) -> Failure {
        Failure::Usage(e.into())
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Usage(_) => ExitCode::from(2),
            Failure::Other(_) => ExitCode::from(1),
        }
    }

    pub fn error(&self) -> &anyhow::Error {
        match self {
            Failure::Usage(e) | Failure::Other(e) => e,
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

pub type CmdResult = Result<(), Failure>;
