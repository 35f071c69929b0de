//! `ctxmon doctor`: checks the installation and explains what is wrong, one line per check.
//!
//! Doctor changes nothing (the writability probe removes its temp file) and never stops at the
//! first problem: a broken configuration is reported and the other checks run on the defaults,
//! as the hooks would. Exit 0 when every check is ok or skipped, 1 when any warned or failed.
//!
//! Layout: `check` is the result type and its rendering, `settings_files` finds and reads Claude
//! Code's settings files, `hooks` judges what they register (`matchers` judges their matchers),
//! `codex` and `gemini` find and parse those agents' hook files and `agent_report` judges them
//! (`crate::paths` resolves programs like a shell), `deadlines` holds
//! each hook's deadline against its registered timeout, `payload` compares Claude Code's own figure with ctxmon's (as the status line last
//! saw them), `statusline_problem` says why the status line last showed no figure, `system`
//! holds the remaining checks.

mod agent_report;
mod check;
mod codex;
mod deadlines;
mod gemini;
mod hooks;
mod matchers;
mod payload;
mod settings_files;
mod statusline_problem;
mod system;

use std::io::IsTerminal;

use crate::bootstrap;
use crate::cli::GlobalArgs;
use crate::exit::{CmdResult, Failure};
use crate::json_out;
use crate::out::{out, outln};

pub fn run(global: &GlobalArgs) -> CmdResult {
    let project_dir = bootstrap::existing_project_dir(global)?;
    let env = bootstrap::env_pairs();
    let layout = bootstrap::layout_of(&project_dir);

    // The configuration is read first (its line still comes after the hooks'): whether the
    // PostToolUse hook is needed depends on it.
    let (config_check, config) =
        system::config(bootstrap::load_layers_checked(global, &project_dir, &[]));
    let cm = &config.context_monitor;
    let settings = hooks::scan(&settings_files::settings_files(&project_dir, &env));
    let codex = codex::checks(&project_dir, &env);
    let gemini = gemini::checks(&project_dir, &env);
    let registered = [
        settings.timeouts(),
        codex.timeouts.clone(),
        gemini.timeouts.clone(),
    ]
    .concat();
    let mut calls = settings.programs();
    for program in codex.programs.iter().chain(&gemini.programs) {
        if !calls.contains(program) {
            calls.push(program.clone());
        }
    }
    let mut checks = vec![system::binary(&env, &project_dir, &calls)];
    checks.extend(settings.problems.iter().cloned());
    // Each agent's checks run where that agent runs ctxmon: a project that uses only Codex
    // is not failed for lacking Claude Code's hooks, nor the other way round.
    let claude = settings.claude_uses_ctxmon();
    if claude {
        checks.extend(hooks::checks(
            &settings,
            &project_dir,
            &env,
            cm.enabled && cm.post_tool_use,
        ));
    } else {
        let looked: Vec<String> = codex.looked.iter().chain(&gemini.looked).cloned().collect();
        let no_agent = (!codex.registered && !gemini.registered).then_some(looked.as_slice());
        checks.extend(hooks::unregistered(&settings, &project_dir, &env, no_agent));
    }
    let announced = !claude && !codex.registered && !gemini.registered;
    checks.extend(codex.into_checks(announced));
    checks.extend(gemini.into_checks(announced));
    checks.extend(system::install_leftovers(&project_dir, &env));
    checks.push(config_check);
    checks.extend(deadlines::check(&registered, &config.hooks));
    checks.push(system::storage(&layout));
    checks.push(system::hook_log(&layout, &config));
    checks.push(system::transcript(&project_dir, &env, &config));
    let status_line = if settings.statusline_installed() {
        payload::StatusLine::Installed
    } else if claude {
        payload::StatusLine::Missing
    } else {
        payload::StatusLine::NotClaudeCode
    };
    checks.push(payload::payload(&layout, status_line));
    checks.extend(statusline_problem::problem(&layout));

    if global.json {
        json_out::print(&checks)?;
    } else {
        let color = std::io::stdout().is_terminal() && bootstrap::env_var("NO_COLOR").is_none();
        outln!("ctxmon doctor · project {}", project_dir.display())?;
        out!("{}", check::render(&checks, color))?;
        outln!("{}", check::summary(&checks))?;
    }
    if checks.iter().any(|c| c.status.is_problem()) {
        // The report above, summary included, is the explanation: exit 1 says the rest,
        // stderr does not repeat the summary, and under --json the checks stay stdout's one
        // document (a reported failure has no error object).
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}
