//! The coding agents ctxmon serves, each one description: a `'static` table entry that says
//! what the agent's hooks are called and how they are answered, where its settings and
//! sessions live, how it compacts and what it calls its task list. Claude Code, Codex CLI and
//! Gemini CLI are one module each ([`claude_code`], [`codex`], [`gemini`]); [`AGENTS`] lists
//! them.
//!
//! The use cases ask the description (`agent.description().event_of(hook)`), never which
//! agent it is, so a fourth agent is a new module, its reader, and a line in [`AGENTS`] (and a
//! variant of [`AgentKind`], the identity every record carries). These modules are the only
//! place that names an agent's events: `cargo xtask check-arch` fails on an event name written
//! anywhere else in the crates' code.
//!
//! A description says, besides the events and how each is answered: the timeout unit, the
//! settings files (and whether they allow comments), the transcript format, how a session is
//! looked up, the auto-compaction rule and the tier basis, the hand-back, the task list's noun,
//! and the install rules (an unreadable byte-order mark, a hooks-only file, the trust the
//! agent asks for, the variable naming the project, how duplicate hooks run). [`Hook`] is the
//! one hook enum: its subcommand name, deadline key and timeout.
//!
//! Pure data: nothing here reads a file or the environment; the adapters and the composition
//! root read what a description names.

pub mod claude_code;
pub mod codex;
pub mod gemini;
mod hook;

pub use hook::{Hook, TIMEOUT_MARGIN_MS};

/// Which coding agent a transcript, a hook input or an installation is about: the identity
/// every reading and record carries. What the agent *is* lives in its [`AgentDescription`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AgentKind {
    /// Anthropic's Claude Code (a JSONL transcript under `~/.claude/projects`).
    #[default]
    ClaudeCode,
    /// OpenAI's Codex CLI (a rollout file under `$CODEX_HOME/sessions`).
    Codex,
    /// Google's Gemini CLI (a chat file under `~/.gemini/tmp/<project>/chats`).
    Gemini,
}

/// Every agent ctxmon serves, in the order `--agent` lists them.
pub static AGENTS: [&AgentDescription; 3] = [&claude_code::AGENT, &codex::AGENT, &gemini::AGENT];

impl AgentKind {
    /// The agent's description ([`AGENTS`]).
    pub fn description(self) -> &'static AgentDescription {
        AGENTS
            .iter()
            .copied()
            .find(|d| d.kind == self)
            .unwrap_or(&claude_code::AGENT)
    }

    /// The agent's name as users know it.
    pub fn name(self) -> &'static str {
        self.description().name
    }

    /// A short machine key (`--json` output).
    pub fn key(self) -> &'static str {
        self.description().key
    }

    /// The agent whose `--agent` value is `flag`.
    pub fn from_flag(flag: &str) -> Option<AgentKind> {
        AGENTS.iter().find(|d| d.flag == flag).map(|d| d.kind)
    }

    /// The agent whose events include `event` when only one agent sends it (`BeforeAgent`);
    /// `None` for an event several agents share (`SessionStart`) or none sends.
    pub fn sole_sender_of(event: &str) -> Option<AgentKind> {
        let mut senders = AGENTS
            .iter()
            .filter(|d| d.events.iter().any(|b| b.event == event));
        match (senders.next(), senders.next()) {
            (Some(only), None) => Some(only.kind),
            _ => None,
        }
    }
}

/// One agent: everything ctxmon needs to know about it besides its transcript reader.
#[derive(Debug)]
pub struct AgentDescription {
    /// The identity this description belongs to.
    pub kind: AgentKind,
    /// The agent's name as users know it ("Claude Code").
    pub name: &'static str,
    /// A short machine key for `--json` output (`claude-code`).
    pub key: &'static str,
    /// The `--agent` value of `install`, `uninstall` and `doctor` (`claude`).
    pub flag: &'static str,
    /// The agent's hook events ctxmon registers, each with the hook it runs and how it is
    /// answered, in the order install writes them.
    pub events: &'static [EventBinding],
    /// The unit the agent's settings file gives hook timeouts in.
    pub timeout_unit: TimeoutUnit,
    /// Where the agent's settings live and how they layer.
    pub settings: SettingsFiles,
    /// The transcript's format and where the agent writes sessions.
    pub transcript: TranscriptFormat,
    /// The window of the agent's models by id prefix, when its transcript does not report it;
    /// `[context_monitor.models]` outranks it.
    pub model_windows: &'static [(&'static str, u64)],
    /// The window of a model no rule knows.
    pub default_window: u64,
    /// How a session's transcript is found when the hook input gives no path.
    pub session_lookup: SessionLookup,
    /// When the agent compacts on its own, and which of its settings move that point.
    pub auto_compact: AutoCompactRule,
    /// What the tier thresholds are fractions of unless `context_monitor.tier_basis` says.
    pub tier_basis: TierBasisDefault,
    /// How the work is handed back after a compaction.
    pub hand_back: HandBack,
    /// A `/clear` ends the session with a hook ctxmon waits on (SessionEnd, reason `clear`),
    /// so the work is checkpointed then and handed to the session that follows.
    pub clears_with_handback: bool,
    /// What the agent calls the list its todo tool keeps ("todo list", "plan").
    pub task_list: &'static str,
    /// What in a hook input tells that this agent sent it, when the transcript cannot.
    pub input_marks: InputMarks,
    /// The agent runs a status-line command (`ctxmon install --statusline`).
    pub status_line: bool,
    /// How the agent treats the hooks `ctxmon install` writes.
    pub install: InstallRules,
}

impl AgentDescription {
    /// The event of this agent that runs `hook`, if the agent has one.
    pub fn binding_of(&self, hook: Hook) -> Option<&'static EventBinding> {
        self.events.iter().find(|b| b.hook == hook)
    }

    /// The name of the event of this agent that runs `hook` (`BeforeAgent` for prompt-submit
    /// under Gemini CLI).
    pub fn event_of(&self, hook: Hook) -> Option<&'static str> {
        self.binding_of(hook).map(|b| b.event)
    }

    /// The binding of the event named `event`, if this agent sends it.
    pub fn binding_named(&self, event: &str) -> Option<&'static EventBinding> {
        self.events.iter().find(|b| b.event == event)
    }

    /// How the answer to `hook` is shaped (no answer for a hook the agent does not run).
    pub fn answer_of(&self, hook: Hook) -> AnswerShape {
        self.binding_of(hook)
            .map_or(AnswerShape::Nothing, |b| b.answer)
    }
}

/// One of an agent's hook events and what ctxmon does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventBinding {
    /// The event's name in the agent's settings and in `hook_event_name`.
    pub event: &'static str,
    /// The hook it runs.
    pub hook: Hook,
    /// The matcher install registers; `None` for every occurrence (no `matcher` key).
    pub matcher: Option<&'static str>,
    /// How the answer is shaped.
    pub answer: AnswerShape,
}

/// How the answer to an event is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerShape {
    /// `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`: the event may add
    /// context the model reads.
    AdditionalContext,
    /// `{"systemMessage"}` only: a line for the user; the model reads nothing.
    SystemMessage,
    /// Nothing on stdout (the agent reads no answer to it, or would show one as a warning).
    Nothing,
}

impl AnswerShape {
    /// True when an answer of this shape can put text in the model's context.
    pub fn injects(self) -> bool {
        self == AnswerShape::AdditionalContext
    }
}

/// The unit of the `timeout` of a hook entry in the agent's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutUnit {
    /// Whole seconds (Claude Code, Codex).
    Seconds,
    /// Milliseconds (Gemini CLI).
    Milliseconds,
}

impl TimeoutUnit {
    /// `secs` seconds in this unit.
    pub const fn from_secs(self, secs: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => secs,
            TimeoutUnit::Milliseconds => secs.saturating_mul(1_000),
        }
    }

    /// A timeout written in this unit, in whole seconds (rounded down).
    pub const fn to_secs(self, value: u64) -> u64 {
        match self {
            TimeoutUnit::Seconds => value,
            TimeoutUnit::Milliseconds => value / 1_000,
        }
    }
}

/// Where an agent keeps its settings, relative to the project and to the user's home.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingsFiles {
    /// The folder, in the project and in the home folder (`.claude`).
    pub folder: &'static str,
    /// The file hooks are registered in, inside the folder (`settings.json`, `hooks.json`).
    pub hooks_file: &'static str,
    /// A personal project file beside it that is not committed, when the agent reads one.
    pub local_file: Option<&'static str>,
    /// The variable that names the user's folder instead of `~/<folder>`.
    pub user_dir_env: Option<&'static str>,
    /// The file with the agent's own other settings, when it is not `hooks_file`
    /// (Codex's `config.toml`).
    pub config_file: Option<&'static str>,
    /// A system-wide settings file, when the agent reads one.
    pub system_file: Option<&'static str>,
    /// How the files layer, in words (for docs and `doctor`).
    pub layering: &'static str,
    /// The agent strips `//` and `/* */` comments from its JSON settings before reading them
    /// (Gemini CLI), so ctxmon reads and edits them with their comments kept.
    pub comments: bool,
}

/// An agent's transcript format; each has its own reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptFormat {
    /// Claude Code's JSONL transcript: one line per message, usage on assistant lines.
    ClaudeCodeJsonl,
    /// Codex CLI's rollout: JSONL opening with `session_meta`, counts in `token_count` events.
    CodexRollout,
    /// Gemini CLI's chat file: JSONL with a metadata first line (or, from older releases, one
    /// JSON document), replayed by message id.
    GeminiChat,
}

/// How a session's transcript is found without a path in the hook input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionLookup {
    /// The project's transcripts are one folder named after the project's path.
    ProjectFolder,
    /// Rollouts sit in dated folders under the agent's home and name the session id.
    SessionsById,
    /// Chats sit in a folder of the project under the agent's home, named by time and the
    /// session id's start.
    ProjectChats,
}

/// When an agent compacts on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoCompactRule {
    /// A reserve below the window, moved by the user's settings and variables (Claude Code).
    ReserveBelowWindow {
        /// The settings keys and variables that move or disable it.
        settings: &'static [&'static str],
    },
    /// A token limit below a share of the raw window (Codex).
    TokenLimit {
        /// The settings key of the limit.
        settings: &'static [&'static str],
    },
    /// A share of the window (Gemini CLI).
    ShareOfWindow {
        /// The share without configuration, in percent.
        default_percent: u64,
        /// The settings key of the share.
        settings: &'static [&'static str],
    },
}

/// What the tier thresholds are fractions of, when `context_monitor.tier_basis` is not set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierBasisDefault {
    /// The window: the agent compacts late enough for every tier to be reached first.
    Window,
    /// The auto-compaction point: the agent compacts early (half the window), so tiers of
    /// the window would never be reached.
    AutoCompact,
    /// Whichever makes every tier reachable: the window while EMERGENCY's share of it lies
    /// below the compaction point, else the compaction point.
    Reachable,
}

/// How the work is handed back after a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandBack {
    /// The agent starts the session again with source `compact`: SessionStart hands back
    /// (and the next prompt, if that answer was lost).
    AtSessionStart,
    /// The agent fires its pre-compaction hook also when nothing is compacted and has no
    /// session start after one: the first prompt after the transcript shows the compaction
    /// hands back.
    AtFirstPromptAfterCompaction,
}

impl HandBack {
    /// True when a checkpoint does not mean the context was compacted (the hook fires on every
    /// attempt): only the transcript can say so.
    pub fn transcript_shows_compaction(self) -> bool {
        self == HandBack::AtFirstPromptAfterCompaction
    }
}

/// How an agent treats the hooks registered in its settings files: what `install`, `uninstall`
/// and `doctor` must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstallRules {
    /// The agent ignores every hook of a settings file that starts with a UTF-8 byte-order
    /// mark, so install refuses such a file rather than register hooks that never run.
    pub bom_unreadable: bool,
    /// What to add when install keeps a byte-order mark the file had (a settings file that
    /// starts with one and the agent reads): a reader of the same file that does not, when the
    /// agent has one.
    pub bom_note: Option<&'static str>,
    /// The hooks file holds hooks and nothing else, so uninstall deletes it once nothing is
    /// left in it (Codex's `hooks.json`).
    pub hooks_file_is_hooks_only: bool,
    /// What the agent asks of the user before it runs a new or changed hook, when it asks.
    pub trust: Option<HookTrust>,
    /// The variable the agent gives every hook naming the project folder, when it gives one:
    /// a project's own npm install of ctxmon is registered through it.
    pub project_dir_env: Option<&'static str>,
    /// How the agent runs one hook registered in more than one file.
    pub duplicates: DuplicateHooks,
}

/// The approval an agent asks for before it runs a hook it has not run before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookTrust {
    /// What the user does, and when the agent asks again, in a sentence or two.
    pub explain: &'static str,
    /// Where the user gives it (`/hooks`).
    pub place: &'static str,
}

/// How an agent runs one hook found in several settings files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateHooks {
    /// Identical hooks run once; hooks with different commands each run.
    IdenticalRunOnce,
    /// Every copy runs, identical or not.
    EveryCopyRuns,
}

/// What in a hook input tells which agent sent it, when there is no transcript to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputMarks {
    /// Keys only this agent's inputs carry.
    pub keys: &'static [&'static str],
    /// The agent sends `transcript_path` as `null` when it has none.
    pub null_transcript_path: bool,
    /// Environment variables only this agent sets for its hooks.
    pub env: &'static [&'static str],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_has_one_description_and_unique_names() {
        let kinds = [AgentKind::ClaudeCode, AgentKind::Codex, AgentKind::Gemini];
        for kind in kinds {
            assert_eq!(kind.description().kind, kind);
            assert_eq!(AgentKind::from_flag(kind.description().flag), Some(kind));
            assert_eq!(
                AGENTS.iter().filter(|d| d.kind == kind).count(),
                1,
                "{kind:?}"
            );
        }
        assert_eq!(AGENTS.len(), kinds.len());
        assert_eq!(AgentKind::from_flag("vim"), None);
    }

    #[test]
    fn each_agent_binds_an_event_once_and_a_hook_once() {
        for agent in AGENTS {
            for b in agent.events {
                assert_eq!(
                    agent.events.iter().filter(|o| o.event == b.event).count(),
                    1,
                    "{} {}",
                    agent.name,
                    b.event
                );
                assert_eq!(
                    agent.events.iter().filter(|o| o.hook == b.hook).count(),
                    1,
                    "{} {:?}",
                    agent.name,
                    b.hook
                );
                assert_eq!(agent.binding_named(b.event), Some(b));
                assert_eq!(agent.event_of(b.hook), Some(b.event));
            }
            // Every agent measures on its prompts and checkpoints before compacting.
            assert!(
                agent.answer_of(Hook::PromptSubmit).injects(),
                "{}",
                agent.name
            );
            assert!(
                agent.binding_of(Hook::PreCompact).is_some(),
                "{}",
                agent.name
            );
        }
    }

    #[test]
    fn an_event_only_one_agent_sends_names_that_agent() {
        let gemini = gemini::AGENT
            .event_of(Hook::PromptSubmit)
            .unwrap_or_default();
        assert_eq!(AgentKind::sole_sender_of(gemini), Some(AgentKind::Gemini));
        let shared = claude_code::AGENT
            .event_of(Hook::SessionStart)
            .unwrap_or_default();
        assert_eq!(AgentKind::sole_sender_of(shared), None);
        assert_eq!(AgentKind::sole_sender_of("NoSuchEvent"), None);
    }

    #[test]
    fn timeouts_convert_between_units() {
        assert_eq!(TimeoutUnit::Milliseconds.from_secs(5), 5_000);
        assert_eq!(TimeoutUnit::Seconds.from_secs(5), 5);
        assert_eq!(TimeoutUnit::Milliseconds.to_secs(10_000), 10);
        assert_eq!(TimeoutUnit::Seconds.to_secs(10), 10);
    }
}
