//! Which fact or list of the session metadata a piece shows: the names both the pieces
//! (`pieces`, whose `Origin` points at one) and the metadata's own pieces (`pieces_meta`) use.

use super::SessionMetadata;

/// The one-line facts at the top of "Session Metadata", in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MetaField {
    Trigger,
    Sources,
    Transcript,
    Git,
    Duration,
    /// The duration the agent's document reported.
    ReportedDuration,
}

/// The labelled lists of "Session Metadata", in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MetaList {
    FilesModified,
    SubagentFiles,
    Dirty,
    Errors,
    Commands,
    Agents,
}

impl MetaList {
    pub(super) const ALL: [MetaList; 6] = [
        MetaList::FilesModified,
        MetaList::SubagentFiles,
        MetaList::Dirty,
        MetaList::Errors,
        MetaList::Commands,
        MetaList::Agents,
    ];

    /// The field's name in the JSON (`older_left_out` is keyed by it).
    pub(super) fn key(self) -> &'static str {
        match self {
            MetaList::FilesModified => "files_modified",
            MetaList::SubagentFiles => "files_modified_by_subagents",
            MetaList::Dirty => "git_dirty_files",
            MetaList::Errors => "errors",
            MetaList::Commands => "commands_run",
            MetaList::Agents => "agents_used",
        }
    }

    pub(super) fn label(self) -> &'static str {
        match self {
            MetaList::FilesModified => "Files Modified",
            MetaList::SubagentFiles => "Files Modified by Subagents",
            MetaList::Dirty => "Uncommitted Changes (git status)",
            MetaList::Errors => "Errors/Warnings",
            MetaList::Commands => "Commands Run",
            MetaList::Agents => "Agents Used",
        }
    }

    /// Paths and porcelain entries name a file: cut, they would name one that does not exist.
    pub(super) fn is_atom(self) -> bool {
        matches!(
            self,
            MetaList::FilesModified | MetaList::SubagentFiles | MetaList::Dirty
        )
    }

    pub(super) fn of(self, m: &SessionMetadata) -> &Vec<String> {
        match self {
            MetaList::FilesModified => &m.files_modified,
            MetaList::SubagentFiles => &m.files_modified_by_subagents,
            MetaList::Dirty => &m.git_dirty_files,
            MetaList::Errors => &m.errors,
            MetaList::Commands => &m.commands_run,
            MetaList::Agents => &m.agents_used,
        }
    }

    pub(super) fn of_mut(self, m: &mut SessionMetadata) -> &mut Vec<String> {
        match self {
            MetaList::FilesModified => &mut m.files_modified,
            MetaList::SubagentFiles => &mut m.files_modified_by_subagents,
            MetaList::Dirty => &mut m.git_dirty_files,
            MetaList::Errors => &mut m.errors,
            MetaList::Commands => &mut m.commands_run,
            MetaList::Agents => &mut m.agents_used,
        }
    }
}
