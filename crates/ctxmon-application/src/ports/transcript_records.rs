//! The transcript-tail port: a transcript's recent content as typed records.
//!
//! The adapter knows the file format (Claude Code's JSONL lines today; another agent's format
//! can plug in behind the same trait) and reports what each line says — a request and of which
//! kind, a tool call and what it touches, a tool result and whether it failed — without
//! judging it. The use cases decide what matters for a handoff; they never see raw lines.

use std::ops::ControlFlow;
use std::path::Path;

use ctxmon_domain::Todo;

use super::TranscriptError;

/// One fact from the transcript, in file order, with what its line said about where it was.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranscriptRecord {
    /// Written by a subagent (Claude Code's `isSidechain`), not by the main conversation.
    pub sidechain: bool,
    /// When the line was written, as the file spells it.
    pub timestamp: Option<String>,
    /// The git branch the agent's tool reported for this line (Claude Code's `gitBranch`).
    pub git_branch: Option<String>,
    /// The folder the agent's shell was in when the line was written (Claude Code's `cwd`).
    pub cwd: Option<String>,
    /// What the line says.
    pub body: RecordBody,
}

/// What one transcript line says, as far as a handoff cares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RecordBody {
    /// Something in the user's turn that is not a tool result.
    Request(Request),
    /// The agent called a tool.
    ToolCall(ToolCall),
    /// A tool call's result.
    ToolResult(ToolResult),
    /// A non-empty text block of a real answer (error placeholders are not answers).
    AssistantText(String),
    /// The agent compacted its context here.
    CompactionBoundary,
    /// A line that says none of the above; kept for its timestamp and branch.
    #[default]
    Other,
}

/// A user-turn text and who wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Who wrote it.
    pub kind: RequestKind,
    /// Trimmed; wrappers the tool added around a prompt are removed. A slash command is
    /// "/name args". Not capped: the consumers cap what they keep.
    pub text: String,
}

/// Who wrote a user-turn text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// A prompt the person typed.
    Typed,
    /// A slash command that asks for work ("/review src", "/init").
    SlashCommand,
    /// A slash command that steers the tool itself ("/exit", "/clear", "/model").
    ControlCommand,
    /// Injected by the tool: skill and command bodies, caveats.
    Meta,
    /// A command's output, a system reminder, a hook's or the IDE's note.
    CommandOutput,
    /// "[Request interrupted by user]".
    Interrupt,
    /// The summary the tool wrote after an earlier compaction.
    CompactionSummary,
}

impl RequestKind {
    /// A request the user made: typed, or a slash command asking for work.
    pub fn is_real(self) -> bool {
        matches!(self, RequestKind::Typed | RequestKind::SlashCommand)
    }
}

/// What a tool call is for, as far as a handoff cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolKind {
    /// Writes or edits `file_path`.
    FileWrite,
    /// Runs `command` in a shell.
    Shell,
    /// Replaces the todo list with `todos`.
    TodoList,
    /// Creates a task (`task.subject`).
    TaskCreate,
    /// Changes a task (`task.id`, `task.status`, maybe `task.subject`).
    TaskUpdate,
    /// Lists the tasks; its result carries them.
    TaskList,
    /// Starts a subagent (`description`).
    Subagent,
    /// Any other tool.
    #[default]
    Other,
}

/// A tool call, with the arguments a handoff uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    /// The call's id; results name it in `tool_use_id`.
    pub id: Option<String>,
    /// The tool's name as the file spells it.
    pub name: String,
    /// What the call is for.
    pub kind: ToolKind,
    /// The file a [`ToolKind::FileWrite`] writes or edits.
    pub file_path: Option<String>,
    /// The command a [`ToolKind::Shell`] call runs.
    pub command: Option<String>,
    /// What the call says it does (a shell call's or a subagent's description).
    pub description: Option<String>,
    /// The new list of a [`ToolKind::TodoList`] call (empty when the agent cleared it).
    pub todos: Option<Vec<Todo>>,
    /// The task a task tool creates or changes.
    pub task: Option<TaskItem>,
    /// The call creates `file_path` (a patch that adds the file).
    pub creates: bool,
}

/// A task of the agent's task tools; every field as the call or result gave it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TaskItem {
    /// The task's id.
    pub id: Option<String>,
    /// The task's title.
    pub subject: Option<String>,
    /// `pending`, `in_progress`, `completed`, `deleted` (others kept as given).
    pub status: Option<String>,
}

/// A tool call's result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolResult {
    /// The call this answers.
    pub tool_use_id: Option<String>,
    /// The tool reported an error (`is_error`).
    pub is_error: bool,
    /// A shell command's exit code, when the result says it.
    pub exit_code: Option<i64>,
    /// The result's text without the tool's error wrapper; long text keeps its start and its
    /// end around a "…" line. Present for failures, refusals, task tools and `git commit`
    /// runs; empty for other successes, whose text the adapter need not read.
    pub text: String,
    /// The user refused the call; `Some(reason)` when they said why.
    pub rejected: Option<Option<String>>,
    /// The id a [`ToolKind::TaskCreate`] result gave the new task.
    pub created_task: Option<String>,
    /// The tasks a [`ToolKind::TaskList`] result listed.
    pub task_list: Option<Vec<TaskItem>>,
    /// The result says its call created the file it wrote (not an update of one).
    pub created_file: bool,
    /// The first and last line numbers of the file the result showed (a read, an edit's
    /// snippet), when the tool numbers them.
    pub lines: Option<(u64, u64)>,
}

/// The end of a transcript as typed records, oldest first; and its start, for what only the
/// start says (the session's first request, when it began).
pub trait TranscriptTail {
    /// The records of the last `max_bytes` of the transcript, oldest first. An adapter may
    /// append subagent records kept elsewhere (Claude Code 2.x writes subagents to files of
    /// their own), marked `sidechain`.
    fn read_tail(
        &self,
        path: &Path,
        max_bytes: u64,
    ) -> Result<Vec<TranscriptRecord>, TranscriptError>;

    /// Hands the records of the transcript's first `max_bytes` to `visit`, oldest first,
    /// until it answers `Break`. A line the limit cuts is not handed over; records the tail
    /// leaves out may be left out here too.
    fn read_head(
        &self,
        path: &Path,
        max_bytes: u64,
        visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
    ) -> Result<(), TranscriptError>;
}
