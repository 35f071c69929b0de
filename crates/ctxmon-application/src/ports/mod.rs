//! Ports: the traits through which use cases reach the world. Adapters in `ctxmon-infra-fs`
//! implement them; tests implement them in memory.

mod checkpoints;
mod context;
mod error;
mod resume_logs;
mod stores;
mod transcript;
mod transcript_records;

pub use checkpoints::{
    Allocation, AutoPrune, CheckpointListing, CheckpointRepository, GitHead, GitInfo,
    PendingDirtyFiles, PruneOutcome, ResumptionSource, SourceDocument, StoredCheckpoint,
};
pub use context::{ContextItem, ItemKind, RecentContext};
pub use error::{PortError, PortErrorKind};
pub use resume_logs::{
    ResumeLogEntry, ResumeLogListing, ResumeLogStats, ResumeLogStore, SavedResumeLog,
    StoredResumeLog, sort_newest_first,
};
pub use stores::{Clock, EventLog, NoteFile, PayloadCheckStore, ProjectFiles, SessionStateStore};
pub use transcript::{
    AgentKind, ChainScope, CompactionBoundary, PathOrigin, ScanLimits, TranscriptError,
    TranscriptErrorKind, TranscriptEvent, TranscriptReader, TranscriptReading, UsageRecord,
};
pub use transcript_records::{
    RecordBody, Request, RequestKind, TaskItem, ToolCall, ToolKind, ToolResult, TranscriptRecord,
    TranscriptTail,
};
