//! Doctor's hook checks: scans Claude Code's settings files (found and read by
//! `settings_files`) and judges ctxmon's registrations (`event_check` judges Codex's too, for
//! `codex.rs`).
//!
//! What ctxmon registers and how its command lines are recognised come from the `install`
//! module (`hooks_for`, `ctxmon_command`), so doctor checks exactly what install writes.

use std::path::Path;

use ctxmon_application::agents::DuplicateHooks;
use ctxmon_application::readers::json::depth::Bounded;
use ctxmon_application::readers::json::repair::from_str_lenient;
use serde_json::Value;

use super::check::{Check, Status};
use super::matchers::{codex_matcher_finding, matcher_finding};
use super::settings_files::{SettingsFile, read_text};
use crate::cli::{Agent, Hook, agent_flag};
use crate::install::command_line::ctxmon_command;
use crate::install::table::{Registration, hooks_for};
use crate::origin::Origin;
use crate::paths::{Resolved, resolve_program};

/// One ctxmon command found in a settings file.
#[derive(Debug, Clone)]
struct Found {
    file: String,
    event: String,
    matcher: Option<String>,
    command: String,
    program: String,
    args: Vec<String>,
    /// The timeout registered with it, in seconds (both agents' files call it `timeout`).
    timeout_secs: Option<f64>,
}

/// The program and arguments of a ctxmon command line, owned.
fn ctxmon_args(command: &str) -> Option<(String, Vec<String>)> {
    let (program, args) = ctxmon_command(command)?;
    Some((program, args.into_iter().map(str::to_string).collect()))
}

/// What the settings files say, read once for all hook checks.
#[derive(Debug, Default)]
pub struct SettingsScan {
    registrations: Vec<Found>,
    /// `(file, command)` of a ctxmon status line.
    statusline: Option<(String, String, Vec<String>)>,
    /// Another tool's status line, reported so the user knows why ctxmon's is absent.
    other_statusline: Option<String>,
    /// `enabledPlugins` keys that look like ctxmon's plugin.
    plugins: Vec<String>,
    pub present: Vec<String>,
    pub absent: Vec<String>,
    pub problems: Vec<Check>,
}

pub fn scan(files: &[SettingsFile]) -> SettingsScan {
    let mut out = SettingsScan::default();
    for file in files {
        let value = match read_text(&file.path).and_then(|text| {
            // Claude Code's CLI reads a file that starts with a byte-order mark, and so does
            // install.
            let text = text
                .as_deref()
                .map(|t| t.strip_prefix('\u{feff}').unwrap_or(t));
            // Read as leniently as Claude Code reads it (a lone surrogate, a number beyond f64
            // or deep nesting do not stop it), so doctor never calls a file it uses broken.
            text.map(|t| from_str_lenient::<Bounded>(t).map(|b| b.0))
                .transpose()
                .map_err(|e| format!("is not valid JSON ({e})"))
        }) {
            Ok(None) => {
                out.absent.push(file.label.clone());
                continue;
            }
            Ok(Some(value)) => value,
            Err(why) => {
                out.problems.push(
                    Check::new(
                        format!("settings {}", file.label),
                        Status::Fail,
                        format!("{} {why}; Claude Code cannot use its hooks", file.label),
                    )
                    .with_fix("make it strict JSON (no comments or trailing commas)"),
                );
                continue;
            }
        };
        out.present.push(file.label.clone());
        collect(&file.label, &value, &mut out);
    }
    out
}

/// Adds what `settings` (a settings file, or any document with a `hooks` object of that shape)
/// registers to `out`, naming the file `label`.
pub fn collect(label: &str, settings: &Value, out: &mut SettingsScan) {
    if let Some(hooks) = settings.get("hooks").and_then(Value::as_object) {
        for (event, groups) in hooks {
            for group in groups.as_array().into_iter().flatten() {
                let matcher = group
                    .get("matcher")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let entries = group.get("hooks").and_then(Value::as_array);
                for entry in entries.into_iter().flatten() {
                    let Some(command) = entry.get("command").and_then(Value::as_str) else {
                        continue;
                    };
                    if let Some((program, args)) = ctxmon_args(command) {
                        out.registrations.push(Found {
                            file: label.to_string(),
                            event: event.clone(),
                            matcher: matcher.clone(),
                            command: command.to_string(),
                            program,
                            args,
                            timeout_secs: entry.get("timeout").and_then(Value::as_f64),
                        });
                    }
                }
            }
        }
    }
    if let Some(command) = settings
        .pointer("/statusLine/command")
        .and_then(Value::as_str)
    {
        match ctxmon_args(command) {
            Some((program, args)) => out.statusline = Some((label.to_string(), program, args)),
            None => out.other_statusline = Some(format!("{label}: {command}")),
        }
    }
    if let Some(plugins) = settings.get("enabledPlugins").and_then(Value::as_object) {
        for (name, enabled) in plugins {
            if name.starts_with("ctxmon@") && enabled.as_bool() == Some(true) {
                out.plugins.push(name.clone());
            }
        }
    }
}

/// One line per hook event (or one line when none is registered at all), then the status line.
/// `post_tool_use_on` is whether the configuration wants the PostToolUse hook
/// (`context_monitor.post_tool_use` and `.enabled`): when it does not, a missing registration
/// is no problem.
pub fn checks(
    scan: &SettingsScan,
    project_dir: &Path,
    env: &[(String, String)],
    post_tool_use_on: bool,
) -> Vec<Check> {
    let mut checks = Vec::new();
    let looked = [scan.present.clone(), scan.absent.clone()]
        .concat()
        .join(", ");
    if scan.registrations.is_empty() {
        checks.push(if let Some(plugin) = scan.plugins.first() {
            Check::ok(
                "hooks",
                format!("provided by the enabled plugin {plugin} (its wrappers find the binary)"),
            )
        } else {
            Check::new(
                "hooks",
                Status::Fail,
                format!("none of ctxmon's seven hooks is registered (looked in {looked})"),
            )
            .with_fix("run `ctxmon install` (or `--scope user` for every project)")
        });
    } else {
        for reg in &hooks_for(Agent::ClaudeCode) {
            let check = event_check(scan, reg, Agent::ClaudeCode, project_dir, env);
            let unwanted = reg.name == Hook::PostToolUse.name()
                && !post_tool_use_on
                && !scan.registrations.iter().any(|r| r.event == reg.event);
            checks.push(if unwanted {
                Check::new(
                    check.check,
                    Status::Skip,
                    "not registered, and not needed: context_monitor.post_tool_use is off",
                )
            } else {
                check
            });
        }
    }
    checks.push(statusline_check(scan, project_dir, env));
    checks
}

/// What a project where Claude Code does not run ctxmon gets in place of [`checks`]. With
/// ctxmon registered for Codex (`codex_looked` is `None`), Claude Code is simply not this
/// project's agent: one line says so, as something to know. With ctxmon registered for no
/// agent, one failing line names the files of both agents and both ways to install, and the
/// status-line line follows as usual.
pub fn unregistered(
    scan: &SettingsScan,
    project_dir: &Path,
    env: &[(String, String)],
    codex_looked: Option<&[String]>,
) -> Vec<Check> {
    let looked = [scan.present.clone(), scan.absent.clone()]
        .concat()
        .join(", ");
    let Some(codex_looked) = codex_looked else {
        return vec![
            Check::new(
                "hooks",
                Status::Skip,
                format!(
                    "ctxmon's hooks are not registered for Claude Code (looked in {looked}); \
                     this project runs them through another agent"
                ),
            )
            .with_fix("if you also use Claude Code here: `ctxmon install`"),
        ];
    };
    vec![
        Check::new(
            "hooks",
            Status::Fail,
            format!(
                "ctxmon's hooks are registered for no agent (looked in {looked}, {})",
                codex_looked.join(", ")
            ),
        )
        .with_fix(
            "run `ctxmon install` for Claude Code (`--scope user` for every project), \
             `ctxmon install --agent codex` for Codex, or `ctxmon install --agent gemini` for \
             Gemini CLI",
        ),
        statusline_check(scan, project_dir, env),
    ]
}

impl SettingsScan {
    /// Whether `scan` holds any of ctxmon's hook registrations.
    pub fn has_registrations(&self) -> bool {
        !self.registrations.is_empty()
    }

    /// Each `ctxmon hooks <name>` registration with a timeout: (file, event, name, seconds).
    pub fn timeouts(&self) -> Vec<(String, String, String, f64)> {
        self.registrations
            .iter()
            .filter(|r| r.args.len() == 2 && r.args[0] == "hooks")
            .filter_map(|r| {
                let secs = r.timeout_secs?;
                Some((r.file.clone(), r.event.clone(), r.args[1].clone(), secs))
            })
            .collect()
    }

    /// The programs ctxmon's hooks and status line are run by, each once, as written.
    pub fn programs(&self) -> Vec<String> {
        let mut programs: Vec<String> = Vec::new();
        let all = self.registrations.iter().map(|r| &r.program);
        for program in all.chain(self.statusline.as_ref().map(|s| &s.1)) {
            if !programs.contains(program) {
                programs.push(program.clone());
            }
        }
        programs
    }

    /// Whether a Claude Code settings file runs ctxmon as its status line.
    pub fn statusline_installed(&self) -> bool {
        self.statusline.is_some()
    }

    /// Whether Claude Code runs anything of ctxmon's from these files: a hook, the plugin or
    /// the status line.
    pub fn claude_uses_ctxmon(&self) -> bool {
        self.has_registrations() || !self.plugins.is_empty() || self.statusline.is_some()
    }
}

/// How the lines of `agent` are named and what fixes them.
fn install_command(agent: Agent) -> String {
    format!("`ctxmon install{}`", agent_flag(agent))
}

/// One thing doctor found wrong with a registration: how bad, what, and the fix if it knows one.
type Finding = (Status, String, Option<String>);

/// The check of one registration ctxmon wants in `agent`'s files: registered, missing, or
/// running a binary that is gone (the stale command path a moved binary leaves).
pub fn event_check(
    scan: &SettingsScan,
    want: &Registration,
    agent: Agent,
    project_dir: &Path,
    env: &[(String, String)],
) -> Check {
    let event = want.event;
    let name = if agent == Agent::default() {
        format!("hook {event}")
    } else {
        format!("{} hook {event}", agent.description().flag)
    };
    let regs: Vec<&Found> = scan
        .registrations
        .iter()
        .filter(|r| r.event == event)
        .collect();
    if regs.is_empty() {
        return not_registered(scan, want, agent, name);
    }
    let mut findings: Vec<Finding> = Vec::new();
    for r in &regs {
        findings.extend(registration_findings(r, want, agent, project_dir, env));
    }
    findings.extend(duplicates(&regs, agent));
    if !scan.plugins.is_empty() {
        findings.push((
            Status::Warn,
            format!(
                "also provided by the plugin {}: it runs twice",
                scan.plugins.join(", ")
            ),
            Some("disable the plugin or `ctxmon uninstall` the settings entries".to_string()),
        ));
    }
    verdict(name, regs[0], &findings, project_dir, env)
}

/// A hook ctxmon wants that `agent`'s files do not register, and where it went if it is
/// registered under another event.
fn not_registered(scan: &SettingsScan, want: &Registration, agent: Agent, name: String) -> Check {
    let elsewhere = scan
        .registrations
        .iter()
        .find(|r| r.args == ["hooks", want.name])
        .map(|r| {
            format!(
                "; `hooks {}` is registered under {} instead",
                want.name, r.event
            )
        })
        .unwrap_or_default();
    Check::new(name, Status::Fail, format!("not registered{elsewhere}")).with_fix(format!(
        "run {} to add the missing hooks",
        install_command(agent)
    ))
}

/// What is wrong with one registration of the hook: its arguments, its program, its matcher.
fn registration_findings(
    r: &Found,
    want: &Registration,
    agent: Agent,
    project_dir: &Path,
    env: &[(String, String)],
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if r.args != ["hooks", want.name] {
        findings.push((
            Status::Fail,
            format!(
                "{} runs `ctxmon {}` for {}, expected `ctxmon hooks {}`",
                r.file,
                r.args.join(" "),
                want.event,
                want.name
            ),
            Some(format!(
                "run {}, which rewrites ctxmon's entries",
                install_command(agent)
            )),
        ));
    }
    findings.extend(program_finding(r, agent, project_dir, env));
    let matcher = r.matcher.as_deref();
    let finding = match agent {
        Agent::ClaudeCode => Hook::ALL
            .into_iter()
            .find(|h| h.name() == want.name)
            .and_then(|hook| matcher_finding(hook, matcher, &r.file))
            .map(|(status, message, fix)| (status, message, fix.map(str::to_string))),
        Agent::Codex | Agent::Gemini => codex_matcher_finding(agent, want, matcher, &r.file),
    };
    findings.extend(finding);
    findings
}

/// Whether the registration's program is one that runs here.
fn program_finding(
    r: &Found,
    agent: Agent,
    project_dir: &Path,
    env: &[(String, String)],
) -> Option<Finding> {
    let install = install_command(agent);
    match resolve_program(&r.program, project_dir, env) {
        Resolved::Executable(_) => None,
        // A bare name that PATH does not find: the file may be a teammate's, written for
        // every machine with ctxmon installed.
        Resolved::Missing(why) if !r.program.contains('/') => Some((
            Status::Fail,
            format!("{} runs `{}`, but {why}", r.file, r.command),
            Some(format!(
                "put ctxmon on PATH ({}), or run {install} to write this binary's path",
                Origin::current(env).path_fix()
            )),
        )),
        Resolved::Missing(why) => Some((
            Status::Fail,
            format!("{} runs `{}`, but {why}", r.file, r.command),
            Some(format!("run {install} to point the hooks at this binary")),
        )),
        Resolved::Unknown(why) => Some((
            Status::Warn,
            format!("cannot check `{}` ({why})", r.command),
            Some(format!(
                "use a program doctor can find: `ctxmon` on PATH or the binary's absolute \
                 path ({install} writes one of them)"
            )),
        )),
    }
}

/// The check from what was found: ok naming what `first` runs, else the worst status with
/// every finding and the fixes of the worst ones, each once.
fn verdict(
    name: String,
    first: &Found,
    findings: &[Finding],
    project_dir: &Path,
    env: &[(String, String)],
) -> Check {
    let Some(worst) = findings.iter().map(|f| f.0).max() else {
        // A bare `ctxmon` (install's choice for a shared project file) runs what PATH
        // finds: say which binary that is here.
        let found = match resolve_program(&first.program, project_dir, env) {
            Resolved::Executable(path) if !first.program.contains('/') => {
                format!(" (on PATH: {})", path.display())
            }
            _ => String::new(),
        };
        return Check::ok(
            name,
            format!("{} runs {}{found}", first.file, first.command),
        );
    };
    let mut fixes: Vec<&str> = Vec::new();
    for fix in findings
        .iter()
        .filter(|f| f.0 == worst)
        .filter_map(|f| f.2.as_deref())
    {
        if !fixes.contains(&fix) {
            fixes.push(fix);
        }
    }
    let message: Vec<String> = findings.iter().map(|f| f.1.clone()).collect();
    let check = Check::new(name, worst, message.join("; "));
    if fixes.is_empty() {
        check
    } else {
        check.with_fix(fixes.join("; "))
    }
}

/// The same hook registered more than once. Claude Code and Gemini CLI run identical commands
/// once, so only different commands make the hook run twice; Codex runs every copy (its
/// dispatcher keeps duplicate handlers), so there any second entry does.
fn duplicates(regs: &[&Found], agent: Agent) -> Option<Finding> {
    let files: Vec<&str> = regs.iter().map(|r| r.file.as_str()).collect();
    let mut commands: Vec<&str> = regs.iter().map(|r| r.command.as_str()).collect();
    commands.sort_unstable();
    commands.dedup();
    let files = files.join(", ");
    let message = match agent.description().install.duplicates {
        DuplicateHooks::IdenticalRunOnce if commands.len() > 1 => format!(
            "registered {} times with different commands ({files}): each runs, so the agent \
             sees duplicates",
            commands.len()
        ),
        DuplicateHooks::EveryCopyRuns if regs.len() > 1 => format!(
            "registered {} times ({files}): {} runs every copy, so the agent sees duplicates",
            regs.len(),
            agent.name()
        ),
        _ => return None,
    };
    let mut fix = format!(
        "keep one: `ctxmon uninstall{} --scope …` for the others",
        agent_flag(agent)
    );
    if let Some(config) = agent.description().settings.config_file {
        fix.push_str(&format!(", or remove the entry from {config}'s [hooks]"));
    }
    Some((Status::Warn, message, Some(fix)))
}

fn statusline_check(scan: &SettingsScan, project_dir: &Path, env: &[(String, String)]) -> Check {
    let Some((file, program, args)) = &scan.statusline else {
        let message = match &scan.other_statusline {
            Some(other) => format!("another status line is configured ({other})"),
            None => "not configured (optional)".to_string(),
        };
        return Check::new("statusline", Status::Skip, message)
            .with_fix("`ctxmon install --statusline` shows the fill under the prompt");
    };
    if args.first().map(String::as_str) != Some("statusline") {
        return Check::new(
            "statusline",
            Status::Fail,
            format!(
                "{file} runs `ctxmon {}`, expected `ctxmon statusline`",
                args.join(" ")
            ),
        )
        .with_fix("run `ctxmon install --statusline`");
    }
    match resolve_program(program, project_dir, env) {
        Resolved::Executable(path) => Check::ok(
            "statusline",
            format!("{file} runs {} {}", path.display(), args.join(" ")),
        ),
        Resolved::Missing(why) => Check::new(
            "statusline",
            Status::Fail,
            format!("{file} runs `{program} statusline`, but {why}"),
        )
        .with_fix("run `ctxmon install --statusline` to point it at this binary"),
        Resolved::Unknown(why) => Check::new(
            "statusline",
            Status::Warn,
            format!("cannot check `{program}` ({why})"),
        )
        .with_fix("use the absolute path of the binary"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_recognised_through_quoting() {
        let (p, a) = ctxmon_args("'/opt/my tools/ctxmon' hooks prompt-submit").unwrap_or_default();
        assert_eq!(
            (p.as_str(), a),
            (
                "/opt/my tools/ctxmon",
                vec!["hooks".to_string(), "prompt-submit".into()]
            )
        );
        assert!(ctxmon_args("\"/x/ctxmon\" statusline").is_some());
        assert!(ctxmon_args("/x/ctxmonitor hooks x").is_none());
        assert!(ctxmon_args("bash -c 'ctxmon hooks x'").is_none());
        assert!(ctxmon_args("'unterminated").is_none());
    }
}
