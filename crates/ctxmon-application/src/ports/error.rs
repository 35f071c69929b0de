//! The error every storage port returns: a kind for callers to branch on, a message for people.

/// What kind of failure a storage port met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortErrorKind {
    /// What was asked for does not exist.
    NotFound,
    /// The data exists but is not what it should be (corrupt JSON, a future schema version).
    InvalidData,
    /// The store may not be read or written.
    PermissionDenied,
    /// A lock could not be taken within its bound.
    Busy,
    /// Any other I/O error.
    Io,
}

/// A storage port's failure: a kind to branch on, a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortError {
    /// What kind of failure it is.
    pub kind: PortErrorKind,
    /// What happened, naming the file or record; shown to people as is.
    pub message: String,
}

impl PortError {
    /// An error of `kind` with `message`.
    pub fn new(kind: PortErrorKind, message: impl Into<String>) -> PortError {
        PortError {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for PortError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PortError {}
