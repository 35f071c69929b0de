//! The arguments of `ctxmon install` and `ctxmon uninstall`: the agent, the scope and the
//! flags of each.

use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Which agent's hook file to edit.
    #[arg(long, value_enum, default_value_t = Agent::Claude)]
    pub agent: Agent,
    /// Which settings file to edit (`local` is Claude Code's only).
    #[arg(long, value_enum, default_value_t = SettingsScope::Project)]
    pub scope: SettingsScope,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also set `statusLine` to `ctxmon statusline`. Refuses when another status line is
    /// configured, unless --replace-statusline is given too.
    #[arg(long)]
    pub statusline: bool,
    /// Replace a status line that is not ctxmon's (it is kept in `<file>.ctxmon-statusline`,
    /// which later installs never change, and `ctxmon uninstall` puts it back).
    #[arg(long, requires = "statusline")]
    pub replace_statusline: bool,
    /// Register the hooks even though another scope of the same agent already does (the agent
    /// then runs each hook of both files, and the agent sees every tag twice).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Which agent's hook file to edit.
    #[arg(long, value_enum, default_value_t = Agent::Claude)]
    pub agent: Agent,
    /// Which settings file to edit (`local` is Claude Code's only).
    #[arg(long, value_enum, default_value_t = SettingsScope::Project)]
    pub scope: SettingsScope,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove only ctxmon's status line (the one it replaced comes back); the hooks stay.
    #[arg(long)]
    pub statusline: bool,
}

/// The agent whose hooks `install` and `uninstall` edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Agent {
    /// Claude Code: .claude/settings.json, .claude/settings.local.json, ~/.claude/settings.json
    #[default]
    Claude,
    /// Codex CLI: .codex/hooks.json, or $CODEX_HOME/hooks.json (default ~/.codex)
    Codex,
}

impl Agent {
    /// The agent's name in messages.
    pub fn label(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
        }
    }

    /// The `--agent` value.
    pub fn flag(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }
}

/// The settings file `install` and `uninstall` edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SettingsScope {
    /// the project's file: .claude/settings.json (committed, shared with the team), or
    /// .codex/hooks.json with --agent codex
    #[default]
    Project,
    /// .claude/settings.local.json in the project (personal, not committed; Claude Code only)
    Local,
    /// ~/.claude/settings.json or $CLAUDE_CONFIG_DIR/settings.json; with --agent codex
    /// $CODEX_HOME/hooks.json, default ~/.codex/hooks.json (every project)
    User,
}
