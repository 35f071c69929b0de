//! Transcript records built by hand, for in-memory transcripts (tests, examples): the records
//! a tail adapter would report (for [`super::FakeTail`]) and the usage and compaction events a
//! transcript reader finds (for [`super::FakeTranscripts`]), without any file format.

use ctxmon_domain::{Todo, TokenCount};

use crate::ports::{
    CompactionBoundary, RecordBody, Request, RequestKind, TaskItem, ToolCall, ToolResult,
    TranscriptEvent, TranscriptRecord, UsageRecord,
};

/// A main-chain record of `body`.
pub fn record(body: RecordBody) -> TranscriptRecord {
    TranscriptRecord {
        body,
        ..TranscriptRecord::default()
    }
}

/// A request of `kind`.
pub fn request_of(kind: RequestKind, text: &str) -> TranscriptRecord {
    record(RecordBody::Request(Request {
        kind,
        text: text.trim().to_string(),
    }))
}

/// A request the user typed.
pub fn request(text: &str) -> TranscriptRecord {
    request_of(RequestKind::Typed, text)
}

/// What the assistant said.
pub fn text(t: &str) -> TranscriptRecord {
    record(RecordBody::AssistantText(t.to_string()))
}

/// A call of tool `name`, its kind as Claude Code's reader maps the name
/// ([`crate::readers::claude_code::tool_kind`]).
pub fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: Some(id.to_string()),
        name: name.to_string(),
        kind: crate::readers::claude_code::tool_kind(name),
        ..ToolCall::default()
    }
}

/// A call that writes `path`.
pub fn write(name: &str, path: &str) -> TranscriptRecord {
    record(RecordBody::ToolCall(ToolCall {
        file_path: Some(path.to_string()),
        ..call("w", name)
    }))
}

/// A shell call `id` running `command`.
pub fn shell(id: &str, command: &str) -> TranscriptRecord {
    record(RecordBody::ToolCall(ToolCall {
        command: Some(command.to_string()),
        ..call(id, "Bash")
    }))
}

/// A todo list of (content, status).
pub fn todos(items: &[(&str, &str)]) -> TranscriptRecord {
    record(RecordBody::ToolCall(ToolCall {
        todos: Some(
            items
                .iter()
                .map(|(content, status)| Todo {
                    content: (*content).to_string(),
                    status: (*status).to_string(),
                })
                .collect(),
        ),
        ..call("todo", "TodoWrite")
    }))
}

/// A task tool call (`TaskCreate`, `TaskUpdate`) about `task`.
pub fn task_call(id: &str, name: &str, task: TaskItem) -> TranscriptRecord {
    record(RecordBody::ToolCall(ToolCall {
        task: Some(task),
        ..call(id, name)
    }))
}

/// The result of call `id`.
pub fn result(id: &str, is_error: bool, text: &str) -> ToolResult {
    ToolResult {
        tool_use_id: Some(id.to_string()),
        is_error,
        text: text.to_string(),
        ..ToolResult::default()
    }
}

/// A record of a result.
pub fn result_record(result: ToolResult) -> TranscriptRecord {
    record(RecordBody::ToolResult(result))
}

impl TranscriptRecord {
    /// The same record, written at `timestamp`.
    pub fn at(mut self, timestamp: &str) -> TranscriptRecord {
        self.timestamp = Some(timestamp.to_string());
        self
    }

    /// The same record, written by a subagent.
    pub fn by_subagent(mut self) -> TranscriptRecord {
        self.sidechain = true;
        self
    }

    /// The same record, written while the shell was in `cwd`.
    pub fn in_folder(mut self, cwd: &str) -> TranscriptRecord {
        self.cwd = Some(cwd.to_string());
        self
    }

    /// The same record, on git branch `branch`.
    pub fn on_branch(mut self, branch: &str) -> TranscriptRecord {
        self.git_branch = Some(branch.to_string());
        self
    }
}

/// A main-chain usage record of `tokens` for `model`: one API response.
pub fn usage(tokens: u64, model: &str) -> TranscriptEvent {
    TranscriptEvent::Usage {
        sidechain: false,
        record: UsageRecord {
            version: None,
            tokens: TokenCount(tokens),
            model: Some(model.to_string()),
            ..UsageRecord::default()
        },
    }
}

/// A main-chain compaction boundary; `post_tokens` is the size it recorded, if any.
pub fn compaction(post_tokens: Option<u64>) -> TranscriptEvent {
    TranscriptEvent::Boundary {
        sidechain: false,
        boundary: CompactionBoundary {
            version: None,
            trigger: Some("auto".to_string()),
            post_tokens: post_tokens.map(TokenCount),
            ..CompactionBoundary::default()
        },
    }
}
