//! The error every storage port returns: a kind for callers to branch on, a message for people.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortErrorKind {
    NotFound,
    /// The data exists but is not what it should be (corrupt JSON, a future schema version).
    InvalidData,
    PermissionDenied,
    /// A lock could not be taken within its bound.
    Busy,
    Io,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortError {
    pub kind: PortErrorKind,
    pub message: String,
}

impl PortError {
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
