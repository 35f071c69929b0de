//! What doctor found for an agent other than Claude Code, whose hooks live in files of its own
//! (Codex's, Gemini CLI's): one report type for every such agent, its wording drawn from the
//! agent's description (its name, its `--agent` flag, its timeout unit, the trust it asks for).
//! Each agent's module only finds and parses its files.

use std::path::Path;

use super::check::{Check, Status};
use super::hooks::{SettingsScan, event_check};
use crate::cli::Agent;
use crate::install::table::hooks_for;

/// What doctor found in one agent's hook files: the lines to show, and whether ctxmon is
/// registered there at all (which decides whether Claude Code's checks are the project's
/// business).
#[derive(Debug)]
pub struct AgentReport {
    agent: Agent,
    /// ctxmon registers at least one hook in a file the agent reads.
    pub registered: bool,
    /// The hook files looked in, as shown to the user.
    pub looked: Vec<String>,
    /// The programs ctxmon's hooks for the agent are run by, as written.
    pub programs: Vec<String>,
    /// ctxmon's registrations with their timeouts in seconds (`SettingsScan::timeouts`).
    pub timeouts: Vec<(String, String, String, f64)>,
    /// Files the agent or doctor cannot read.
    problems: Vec<Check>,
    /// One line per hook the agent should run, when `registered`.
    hooks: Vec<Check>,
    /// The agent shows signs of use here, or one of its files exists.
    seen: bool,
}

/// What an agent's module found in its files, for [`AgentReport::new`].
pub struct Found {
    /// The registrations read from every file.
    pub scan: SettingsScan,
    /// The hook files looked in, as shown to the user.
    pub looked: Vec<String>,
    /// The agent shows signs of use here (its folder exists), or one of its files does.
    pub seen: bool,
    /// Files that cannot be read.
    pub problems: Vec<Check>,
}

impl AgentReport {
    /// Judges `found`: with any ctxmon hook registered, one line per hook the agent should run.
    pub fn new(agent: Agent, found: Found, project_dir: &Path, env: &[(String, String)]) -> Self {
        let Found {
            scan,
            looked,
            seen,
            problems,
        } = found;
        let description = agent.description();
        // A settings file gives timeouts in the agent's unit; the deadline check takes seconds.
        let per_second = description.timeout_unit.from_secs(1) as f64;
        let timeouts = scan
            .timeouts()
            .into_iter()
            .map(|(file, event, name, t)| (file, event, name, t / per_second))
            .collect();
        let registered = scan.has_registrations();
        let seen = seen || !problems.is_empty();
        let mut hooks = Vec::new();
        if registered {
            for reg in &hooks_for(agent) {
                let check = event_check(&scan, reg, agent, project_dir, env);
                // An agent that asks for trust asks again for every definition install writes
                // or changes, so a fix that reinstalls needs the user's trust too.
                let fix = check.fix.clone().filter(|f| f.contains("ctxmon install"));
                hooks.push(match (fix, trust_step(agent)) {
                    (Some(fix), Some(trust)) => check.with_fix(format!("{fix}; {trust}")),
                    _ => check,
                });
            }
        }
        AgentReport {
            agent,
            registered,
            looked,
            programs: scan.programs(),
            timeouts,
            problems,
            hooks,
            seen,
        }
    }

    /// The lines to print. `announced` is true when another line already said that ctxmon is
    /// registered for no agent, so "not registered for <agent>" would only repeat it.
    pub fn into_checks(self, announced: bool) -> Vec<Check> {
        let mut checks = self.problems;
        if self.registered {
            checks.extend(self.hooks);
        } else if self.seen && !announced {
            let description = self.agent.description();
            let mut fix = format!(
                "if you use {} here: `ctxmon install --agent {}`",
                description.name, description.flag
            );
            if let Some(trust) = trust_step(self.agent) {
                fix.push_str(&format!(", {trust}"));
            }
            checks.push(
                Check::new(
                    format!("{} hooks", description.flag),
                    Status::Skip,
                    format!(
                        "ctxmon's hooks are not registered for {} (looked in {})",
                        description.name,
                        self.looked.join(", ")
                    ),
                )
                .with_fix(fix),
            );
        }
        checks
    }
}

/// What to do after installing for an agent that asks to trust new hooks ("then trust the hooks
/// in Codex's /hooks"); `None` for an agent that runs them as they are.
fn trust_step(agent: Agent) -> Option<String> {
    let trust = agent.description().install.trust?;
    Some(format!(
        "then trust the hooks in {}'s {}",
        agent.name(),
        trust.place
    ))
}
