//! The arguments of `ctxmon install` and `ctxmon uninstall`: the agent, the scope and the
//! flags of each.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use ctxmon_application::agents::{AGENTS, AgentKind};

/// ` --agent <flag>` in a command line about `agent` (what `--agent` takes); nothing for the
/// default agent, which needs no flag.
pub fn agent_flag(agent: AgentKind) -> String {
    if agent == AgentKind::default() {
        String::new()
    } else {
        format!(" --agent {}", agent.description().flag)
    }
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Which agent's hook file to edit.
    #[arg(long, value_parser = agent_parser(), default_value = "claude")]
    pub agent: AgentKind,
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
    #[arg(long, value_parser = agent_parser(), default_value = "claude")]
    pub agent: AgentKind,
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

/// The `--agent` values, one per agent description, with the files each edits as its help.
fn agent_parser() -> impl clap::builder::TypedValueParser<Value = AgentKind> {
    let values = AGENTS.iter().map(|d| {
        let s = &d.settings;
        let help = format!(
            "{}: {folder}/{file} in the project, or the user's (~/{folder}{env})",
            d.name,
            folder = s.folder,
            file = s.hooks_file,
            env = s
                .user_dir_env
                .map(|e| format!(" or ${e}"))
                .unwrap_or_default(),
        );
        PossibleValue::new(d.flag).help(help)
    });
    PossibleValuesParser::new(values).map(|flag| AgentKind::from_flag(&flag).unwrap_or_default())
}

/// The settings file `install` and `uninstall` edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SettingsScope {
    /// the project's file: .claude/settings.json (committed, shared with the team),
    /// .codex/hooks.json with --agent codex, or .gemini/settings.json with --agent gemini
    #[default]
    Project,
    /// .claude/settings.local.json in the project (personal, not committed; Claude Code only)
    Local,
    /// ~/.claude/settings.json or $CLAUDE_CONFIG_DIR/settings.json; with --agent codex
    /// $CODEX_HOME/hooks.json, default ~/.codex/hooks.json; with --agent gemini
    /// ~/.gemini/settings.json (every project)
    User,
}
