//! The one error assembly returns: the budget cannot hold what must be sent.

/// What went wrong, for callers to branch on (the CLI maps the first two to exit code 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssemblyErrorKind {
    /// `maxTokens` is 0.
    InvalidBudget,
    /// The system prompt and tool definitions alone exceed `maxTokens`.
    BudgetTooSmall,
    /// A token counter disagreed with itself, so the bundle could not be proven to fit. Never
    /// happens with the default counter; reported rather than returning an over-budget bundle.
    Internal,
}

/// Why an assembly run returned no bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssemblyError {
    /// What went wrong.
    pub kind: AssemblyErrorKind,
    /// What went wrong, in words for people, with the figures.
    pub message: String,
}

impl AssemblyError {
    /// An error of `kind` with `message`.
    pub fn new(kind: AssemblyErrorKind, message: impl Into<String>) -> AssemblyError {
        AssemblyError {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AssemblyError {}
