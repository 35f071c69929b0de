//! `ctxmon hooks <hook>`: the subcommands are the application's one hook enum, given to clap
//! by hand (clap's derive cannot describe a type of another crate), each with its help.

use clap::error::ErrorKind;
use clap::{ArgMatches, FromArgMatches, Subcommand};
use ctxmon_application::hooks::Hook;

/// The hook a `ctxmon hooks` line runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookCommand(pub Hook);

impl HookCommand {
    /// Every hook subcommand, in the order `--help` lists them.
    pub const ALL: [HookCommand; 7] = [
        HookCommand(Hook::PromptSubmit),
        HookCommand(Hook::SessionStart),
        HookCommand(Hook::PreCompact),
        HookCommand(Hook::PreToolUse),
        HookCommand(Hook::PostToolUse),
        HookCommand(Hook::PostCompact),
        HookCommand(Hook::SessionEnd),
    ];

    /// The hook this command answers.
    pub const fn hook(self) -> Hook {
        self.0
    }

    /// The subcommand's name (`prompt-submit`).
    pub const fn name(self) -> &'static str {
        self.0.name()
    }
}

/// The one-line and the long help of `ctxmon hooks <hook> --help`.
fn help(hook: Hook) -> (&'static str, &'static str) {
    match hook {
        Hook::PromptSubmit => (
            "Before the agent answers a prompt: inject the <context-monitor> tag",
            "Measures the fill from the transcript's end and injects `<context-monitor>` (40 to \
             200 tokens: fill, tier, tokens, window, room to auto-compact, what to do) as \
             context_monitor.inject allows. After a compaction it adds a one-time \
             `<compaction-alert>`, and the resumption context when the session start's answer \
             was lost or the agent has none after a compaction (Gemini CLI).",
        ),
        Hook::SessionStart => (
            "Session start: hand back the essentials after compaction or resume",
            "After `compact` or `resume` (and at `startup`, `clear` or `fork` for a checkpoint \
             younger than resumption.max_age_hours) injects `<resumption-context>` from the \
             newest unacknowledged checkpoint: at most 760 tokens, most important first.",
        ),
        Hook::PreCompact => (
            "Before compaction: checkpoint the session",
            "Saves the fill, git branch and head, and what the session was doing (the \
             resumption: section of resumption.source_file, else the transcript's tail) as the \
             next cx-NNN checkpoint, and records the compaction. Answers nothing the model reads.",
        ),
        Hook::PreToolUse => (
            "Before a tool call: warn when the resumption file is stale (context only)",
            "When the agent writes or edits resumption.source_file while its \
             `resumption.updated_at` is older than resumption.stale_after_minutes, adds a short \
             `<resumption-staleness>` note. Never blocks, approves or changes the tool call: the \
             agent asks for permission as it would without ctxmon.",
        ),
        Hook::PostToolUse => (
            "After a tool call: warn inside long tool loops when the tier rose",
            "Runs after every tool call, measures the fill like prompt-submit and injects the \
             same `<context-monitor>` tag only when the tier rose above the last one injected \
             into this session (by either hook): a loop of 200 tool calls gets at most one tag \
             per tier. A fall (a compaction) lowers that record, so the next rise is reported \
             again. Off with context_monitor.post_tool_use = false.",
        ),
        Hook::PostCompact => (
            "After compaction: record the compaction",
            "Appends the event to .ctxmon/events.jsonl so the next prompt knows the context \
             shrank. Answers nothing.",
        ),
        Hook::SessionEnd => (
            "Session end: record the end of the session",
            "Appends the event to .ctxmon/events.jsonl. Answers nothing.",
        ),
    }
}

impl FromArgMatches for HookCommand {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, _)) = matches.subcommand() else {
            return Err(clap::Error::raw(
                ErrorKind::MissingSubcommand,
                "no hook named (e.g. `ctxmon hooks prompt-submit`)\n",
            ));
        };
        Hook::from_name(name).map(HookCommand).ok_or_else(|| {
            clap::Error::raw(
                ErrorKind::InvalidSubcommand,
                format!("no hook named '{name}'\n"),
            )
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = HookCommand::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for HookCommand {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        HookCommand::ALL.into_iter().fold(cmd, |cmd, h| {
            let (about, long_about) = help(h.0);
            cmd.subcommand(
                clap::Command::new(h.name())
                    .about(about)
                    .long_about(format!("{about}.\n\n{long_about}")),
            )
        })
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        HookCommand::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        Hook::from_name(name).is_some()
    }
}
