//! The command tree (contract C13), declared with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod hook_command;
mod install;
mod parse;
mod raw;

pub use ctxmon_application::agents::AgentKind as Agent;
pub use ctxmon_application::hooks::Hook;
pub use hook_command::HookCommand;
pub use install::{InstallArgs, SettingsScope, UninstallArgs, agent_flag};
pub use parse::parse;
pub use raw::RawInvocation;

/// Keeps a coding agent's work alive across context-window limits.
///
/// ctxmon measures how full the context of a Claude Code, Codex CLI or Gemini CLI session
/// really is, warns the agent in
/// graduated tiers whenever it matters, checkpoints the session before compaction and hands the
/// essentials back after it.
#[derive(Debug, Parser)]
#[command(
    name = "ctxmon",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_long_help = crate::help::ROOT
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Print machine-readable JSON instead of text (a failure: {"error", "exit_code"}; indented
    /// on a terminal, one line otherwise).
    #[arg(long, global = true)]
    pub json: bool,
    /// Project directory, taken as named (default: $CLAUDE_PROJECT_DIR; for a hook, its
    /// input's cwd, else the current directory as it is; for a command, the nearest folder at
    /// or above the current directory holding .ctxmon, .claude or .git, below the home folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub project_dir: Option<PathBuf>,
    /// An extra configuration file, layered above .ctxmon/config.local.toml.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show how full a session's context is.
    ///
    /// Reads the transcript backwards from its end (never the whole file) and reports the
    /// context fill, its tier, and the tokens left before the agent auto-compacts: a Claude
    /// Code transcript, a Codex CLI rollout or a Gemini CLI chat, told apart by their content.
    /// Without --transcript, the project's newest session of any of them is used.
    #[command(after_long_help = crate::help::STATUS)]
    Status(StatusArgs),
    /// Chart how a session's context filled up, response by response.
    ///
    /// Reads the whole transcript forward, one line at a time (memory stays small whatever its
    /// size), and takes one point per API response on the main chain: the lines Claude Code
    /// streams for one response share a message id and count once, subagent (sidechain) lines
    /// are left out unless the file is a subagent's own transcript, and the fill of each point
    /// uses the same formula, thresholds and window rules as the hooks. Prints a sparkline
    /// (one block per response, height = share of the window; with more responses than
    /// columns, each block is the fullest of its share and the line below says how many
    /// responses a column holds; a ^ under it marks each compaction's column) with min, max
    /// and last (what a compaction after the last response left, as `status` says), then
    /// every compaction and every tier crossing with its time. --svg also writes a chart;
    /// --json prints the points, compactions and crossings for programs.
    #[command(after_long_help = crate::help::REPORT)]
    Report(ReportArgs),
    /// Entry points for the agents' hooks (hook JSON on stdin; always exit 0).
    ///
    /// One subcommand per hook, named after Claude Code's event; Codex CLI runs five of them
    /// and Gemini CLI five under its own event names (BeforeAgent, SessionStart, PreCompress,
    /// AfterTool, SessionEnd). For Claude Code `ctxmon install` registers all seven (by the
    /// binary's absolute path, or `ctxmon` in a project's shared file when PATH finds it):
    /// SessionStart without a matcher (Claude Code fires the
    /// `compact` matcher unreliably, so ctxmon branches on the event's source itself),
    /// PreToolUse for Write|Edit|MultiEdit and PostToolUse for every tool.
    #[command(subcommand)]
    #[command(after_long_help = crate::help::HOOKS)]
    Hooks(HookCommand),
    /// Print a status line for Claude Code (status-line JSON on stdin, one line out).
    ///
    /// As fast as a hook: reads the status-line JSON, measures the fill (payload first, then the
    /// transcript's end) and prints the percentage, a bar, tokens, tier and the room left before
    /// auto-compaction — or, with --format or `statusline.format`, the fields you choose, e.g.
    /// as one widget of a combined status line. Never fails: what it cannot do it says on
    /// stderr, and the line stays.
    #[command(after_long_help = crate::help::STATUSLINE)]
    Statusline(StatuslineArgs),
    /// List, show, acknowledge and prune checkpoints.
    ///
    /// PreCompact saves a checkpoint (.ctxmon/checkpoints/cx-NNN-checkpoint.json) right before
    /// every compaction; SessionStart and the next prompt hand the newest unacknowledged one
    /// back. After each save, acknowledged checkpoints older than the newest
    /// `checkpoints.keep` (default 50) are pruned; `checkpoint prune` prunes by hand.
    #[command(subcommand)]
    #[command(after_long_help = crate::help::CHECKPOINT)]
    Checkpoint(CheckpointCommand),
    /// Generate and manage resume logs (markdown + JSON handoff documents).
    ///
    /// A resume log (.ctxmon/resume-logs/session-<id>.md and .json) tells the next session,
    /// or a person, where this one stopped: goal, progress, decisions, next steps and files.
    #[command(after_long_help = crate::help::RESUME_LOG)]
    #[command(subcommand, name = "resume-log")]
    ResumeLog(ResumeLogCommand),
    /// Show, query and change the layered configuration.
    ///
    /// Every key has a built-in default; files and CTXMON_* variables override it. Unknown keys
    /// and bad values are errors that name the key and the file or variable they came from.
    #[command(subcommand)]
    #[command(after_long_help = crate::help::CONFIG)]
    Config(ConfigCommand),
    /// Pack files, diffs, memories and events into a token budget, a token counted as four
    /// characters (JSON in, bundle JSON out).
    ///
    /// Reads a snapshot (goal, agent, files, diffs, symbols, memories, events) as JSON and
    /// writes the bundle that fits `maxTokens`: the system prompt and tools first, then each
    /// source's best candidates by the chosen strategy, with the measured token breakdown.
    #[command(after_long_help = crate::help::ASSEMBLE)]
    Assemble(AssembleArgs),
    /// Register ctxmon's hooks (and optionally its status line) in Claude Code's, Codex's or
    /// Gemini CLI's settings.
    ///
    /// Merges seven hooks (UserPromptSubmit, SessionStart, PreCompact, PreToolUse for
    /// Write|Edit|MultiEdit, PostToolUse for every tool, PostCompact, SessionEnd) that run this
    /// binary into the settings file of --scope. The project's file is shared, so it names the
    /// binary `ctxmon` when that is what PATH finds (else its absolute path, with a note that
    /// --scope local keeps machine paths out of shared files); local and user scope use the
    /// absolute path. Every other key and hook, and the file's layout, stay as they are; an
    /// entry pointing at an older ctxmon binary is updated in place. Running it twice changes
    /// nothing. The previous file is kept beside it as `<file>.ctxmon-backup`. Added lines
    /// follow the file's line ending, and a leading UTF-8 byte-order mark is kept. A file that
    /// is not strict JSON (comments, trailing commas) or has a hook event that is not a list is
    /// refused and left untouched (exit 1). It ends with what to do next: restart Claude Code
    /// (or check /hooks), then `ctxmon doctor`.
    ///
    /// With --agent codex the file is Codex's hooks.json (.codex/hooks.json, or
    /// $CODEX_HOME/hooks.json with --scope user) and the hooks are UserPromptSubmit,
    /// SessionStart, PreCompact, PostCompact and PostToolUse for every tool (Codex has no
    /// SessionEnd, and edits files through apply_patch, which ctxmon's PreToolUse does not
    /// read). Codex runs them only once you trust them in its /hooks. No --statusline, no
    /// --scope local; a file starting with a byte-order mark is refused (Codex cannot read it).
    ///
    /// With --agent gemini the file is Gemini CLI's settings.json (.gemini/settings.json, or
    /// ~/.gemini/settings.json with --scope user) and the hooks are BeforeAgent, SessionStart,
    /// PreCompress, AfterTool for every tool and SessionEnd, with timeouts in milliseconds
    /// (Gemini CLI's unit). Its `//` and `/* */` comments are allowed and kept. No
    /// --statusline, no --scope local.
    #[command(after_long_help = crate::help::INSTALL)]
    Install(InstallArgs),
    /// Remove exactly what `ctxmon install` added.
    ///
    /// Removes ctxmon's hook entries from the settings file of --scope (and lists and objects
    /// they leave empty), and its status line; a status line that `install
    /// --replace-statusline` replaced comes back from `<file>.ctxmon-statusline`, which is then
    /// deleted. Nothing of ctxmon's is left, so no backup is written and install's
    /// `<file>.ctxmon-backup` is deleted (the output names it). With --statusline only the
    /// status line goes and the hooks stay (a backup is kept, as install keeps one). With
    /// --agent codex, a hooks.json left with nothing in it is removed; with --agent gemini the
    /// file is Gemini CLI's settings.json.
    #[command(after_long_help = crate::help::UNINSTALL)]
    Uninstall(UninstallArgs),
    /// Check the installation and explain what is wrong.
    ///
    /// Runs every check and prints one line each: `ok`, `warn`, `fail` (or `skip` when there
    /// is nothing to check yet), what was found and how to fix it. Checks: ctxmon on PATH and
    /// whether it is this binary; ctxmon's seven hooks registered in .claude/settings.json,
    /// .claude/settings.local.json or the user's settings ($CLAUDE_CONFIG_DIR/settings.json,
    /// else ~/.claude/settings.json), each pointing at an existing executable, and SessionStart
    /// without the `compact` matcher Claude Code fires unreliably; where Codex is present, its
    /// registration (.codex/ and $CODEX_HOME hooks.json and config.toml [hooks]: registered,
    /// missing, stale binary path, registered twice), and likewise Gemini CLI's where it is
    /// present (.gemini/settings.json, ~/.gemini/settings.json); the configuration valid
    /// (a bad key is named with its file or variable); .ctxmon writable; hook problems logged in
    /// .ctxmon/logs/hooks.log in the last 24 hours; the project's newest transcript readable and
    /// measurable. It changes nothing. With --json, prints the checks as a JSON array.
    #[command(after_long_help = crate::help::DOCTOR)]
    Doctor,
    /// Print a shell completion script for bash, zsh, fish, elvish or PowerShell.
    ///
    /// The script completes subcommands, flags and values (scopes, shells). Load it once per
    /// shell session or install it where your shell looks for completions; see the examples.
    #[command(after_long_help = crate::help::COMPLETIONS)]
    Completions(CompletionsArgs),
}

#[derive(Debug, Args, Clone, Default)]
pub struct StatusArgs {
    /// The session transcript (JSONL) to measure.
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Context window size in tokens (overrides configuration and model rules).
    #[arg(long, value_name = "N")]
    pub window: Option<u64>,
    /// Model id for window rules, e.g. `claude-opus-4-6[1m]`.
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Redraw whenever the transcript changes (checked every second), until Ctrl-C or the end
    /// of input; with --json, one JSON line per change.
    #[arg(long)]
    pub watch: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct StatuslineArgs {
    /// What to print, e.g. '{percent} {bar} {until-compact}' (default: statusline.format).
    ///
    /// Text with fields in braces: percent, bar, tokens, window, tier, until-compact,
    /// turns-left, model, branch (`{{` and `}}` for braces). An unknown field is named on stderr and the line is
    /// printed as without --format (exit 0).
    #[arg(long, value_name = "TEMPLATE")]
    pub format: Option<String>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct ReportArgs {
    /// The session transcript (JSONL) to chart (default: the project's newest).
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Also write an SVG chart of the session to FILE (replaced if it exists).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Context window size in tokens (overrides configuration and model rules).
    #[arg(long, value_name = "N")]
    pub window: Option<u64>,
    /// Model id for window rules, e.g. `claude-opus-4-6[1m]` (transcripts never record `[1m]`).
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
}

#[derive(Debug, Args, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Subcommand)]
pub enum CheckpointCommand {
    /// List checkpoints, newest first.
    ///
    /// One row per checkpoint in .ctxmon/checkpoints: id, creation time, session, what
    /// triggered the compaction (auto or manual), the fill and tier at that moment, and whether
    /// it was acknowledged (handed back already).
    #[command(after_long_help = crate::help::CHECKPOINT_LIST)]
    List,
    /// Show one checkpoint (with --json: all of it as JSON).
    ///
    /// What PreCompact saved right before that compaction: the fill, what the session was
    /// doing (the resumption: section of the resumption file, or what the transcript's tail
    /// showed), the session and git facts, and whether it was acknowledged.
    #[command(after_long_help = crate::help::CHECKPOINT_SHOW)]
    Show {
        /// Checkpoint id or its number: `4`, `cx-4` or `cx-004` (see `ctxmon checkpoint list`).
        id: String,
    },
    /// Mark a checkpoint as acknowledged: it is no longer handed back.
    ///
    /// The first prompt after a compaction acknowledges its checkpoint by itself; this is for
    /// one you do not want handed to a new session (at startup, a recent unacknowledged
    /// checkpoint is offered as resumption context). Recorded in .ctxmon/events.jsonl; a
    /// checkpoint file ctxmon cannot read is refused.
    #[command(after_long_help = crate::help::CHECKPOINT_ACK)]
    Ack {
        /// Checkpoint id or its number: `4`, `cx-4` or `cx-004`.
        id: String,
    },
    /// Delete all but the newest N checkpoints.
    ///
    /// PreCompact prunes only acknowledged checkpoints beyond `checkpoints.keep`; prune keeps
    /// the newest N and deletes the rest, acknowledged or not. Only checkpoints ctxmon can read
    /// count and are deleted; an unreadable file is named on stderr and left alone.
    #[command(after_long_help = crate::help::CHECKPOINT_PRUNE)]
    Prune {
        /// How many of the newest checkpoints to keep (`0` deletes all; ids are never reused).
        #[arg(long, value_name = "N")]
        keep: u64,
    },
}

#[derive(Debug, Subcommand)]
pub enum ResumeLogCommand {
    /// Generate a resume log now.
    ///
    /// Writes the handoff document of one session (markdown for people and agents, JSON beside
    /// it) from what the agent knows (--from) and what ctxmon can read itself: the newest
    /// checkpoint, the transcript's tail and git. Hooks write one at pre_compact, session_end
    /// and tier:critical (resume_logs.triggers); this writes one whenever asked.
    #[command(after_long_help = crate::help::RESUME_LOG_GENERATE)]
    Generate {
        /// Session id (default: $CLAUDE_CODE_SESSION_ID, else the project's newest transcript).
        ///
        /// The id as Claude Code names the transcript (its file name without .jsonl): letters,
        /// digits, `-` and `_`, at most 128 characters; anything else exits 2.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// A JSON document the agent wrote (`-` for stdin).
        ///
        /// Its sections take precedence over everything ctxmon derives; its shape is below.
        #[arg(long, value_name = "FILE|-")]
        from: Option<String>,
    },
    /// List resume logs, newest first.
    ///
    /// One row per session that has a log in .ctxmon/resume-logs: its id, when the log was
    /// written, what wrote it, and its size.
    #[command(after_long_help = crate::help::RESUME_LOG_LIST)]
    List,
    /// Show one resume log (default: the latest).
    ///
    /// Prints a session's log as markdown, ready to read or to hand to an agent.
    #[command(after_long_help = crate::help::RESUME_LOG_SHOW)]
    Show {
        /// The log's session id, or a beginning of it only one log's id has.
        id: Option<String>,
    },
    /// Show the latest resume log.
    ///
    /// Prints the newest log as markdown: where the last session stopped.
    #[command(after_long_help = crate::help::RESUME_LOG_LATEST)]
    Latest,
    /// Delete all but the newest N resume logs.
    ///
    /// Each session has one log (a markdown and a JSON file); cleanup keeps the newest N
    /// sessions' logs and deletes the others. Hooks apply resume_logs.keep after every log
    /// they write, so this is for trimming by hand.
    #[command(after_long_help = crate::help::RESUME_LOG_CLEANUP)]
    Cleanup {
        /// How many of the newest logs to keep, at least 1 (default: `resume_logs.keep`, 10
        /// unless configured).
        #[arg(long, value_name = "N")]
        keep: Option<u64>,
    },
    /// Count, size and age of the stored resume logs.
    ///
    /// How many logs .ctxmon/resume-logs holds, their total size in bytes, and when the oldest
    /// and newest were written.
    #[command(after_long_help = crate::help::RESUME_LOG_STATS)]
    Stats,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Scope {
    /// .ctxmon/config.toml (to share it, add !config.toml to .ctxmon/.gitignore)
    #[default]
    Project,
    /// .ctxmon/config.local.toml (not committed)
    Local,
    /// the user's ~/.config/ctxmon/config.toml
    User,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the merged configuration (with --json: values and where each came from).
    ///
    /// The configuration every command and hook of this project uses: built-in defaults,
    /// then the user, project and local files, --config, and CTXMON_* variables, each layer
    /// overriding the ones before it.
    #[command(after_long_help = crate::help::CONFIG_SHOW)]
    Show,
    /// Print one value, e.g. `context_monitor.warning_threshold`, or a whole section.
    ///
    /// The merged value of one key, after every layer, as a script would want it; a section
    /// name (e.g. `hooks`) prints that section as TOML (with --json, as JSON).
    #[command(after_long_help = crate::help::CONFIG_GET)]
    Get {
        /// Dotted key, e.g. `context_monitor.warning_threshold`, or a section, e.g. `hooks`.
        key: String,
    },
    /// Set one value in a configuration file (checked before anything is written).
    ///
    /// Changes one key in the project, local or user file, refusing a value that would make
    /// the configuration invalid.
    #[command(after_long_help = crate::help::CONFIG_SET)]
    Set {
        /// Dotted key, e.g. `context_monitor.inject`.
        key: String,
        /// The new value, as TOML or a bare word (`0.72`, `on-change`, `true`).
        value: String,
        /// Which configuration file to write.
        #[arg(long, value_enum, default_value_t = Scope::Project)]
        scope: Scope,
    },
    /// Remove one key from a configuration file, so the layer below applies again.
    ///
    /// Removes the key from the file of --scope, else from the highest of the local, project
    /// and user files that sets it; says what the key's value is now and where it comes from.
    #[command(after_long_help = crate::help::CONFIG_UNSET)]
    Unset {
        /// Dotted key, e.g. `context_monitor.inject` or `context_monitor.models.claude-opus-4`.
        key: String,
        /// Which configuration file to edit (default: the highest that sets the key).
        #[arg(long, value_enum)]
        scope: Option<Scope>,
    },
    /// Print the configuration files, lowest precedence first.
    ///
    /// Where ctxmon looks for configuration in this project, whether each file exists, and
    /// which wins: a later line overrides an earlier one.
    #[command(after_long_help = crate::help::CONFIG_PATH)]
    Path,
    /// Print a JSON Schema of the whole configuration.
    ///
    /// Every key ctxmon knows, with its type, default, range and meaning, generated from the
    /// same table that validates configuration files.
    #[command(after_long_help = crate::help::CONFIG_SCHEMA)]
    Schema,
}

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// Input JSON (`-` or absent for stdin).
    #[arg(long, value_name = "FILE|-")]
    pub input: Option<String>,
    /// greedy, balanced or conservative (overrides constraints.strategy).
    #[arg(long, value_name = "S")]
    pub strategy: Option<String>,
    /// Token budget for the whole bundle (overrides constraints.maxTokens).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
}

#[cfg(test)]
mod tests;
