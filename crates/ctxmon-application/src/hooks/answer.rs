//! One hook invocation from its parsed input to its answer: the policy around the use cases.
//!
//! The composition root reads stdin, loads the configuration, finds the transcript and builds
//! the adapters; [`answer`] decides the rest, the same way for every hook:
//! - a configuration that did not load is reported one line per bad key, and the hooks run on
//!   the built-in defaults (prompt-submit's own warning says that it shows no tier);
//! - an input that could not be read, or that names another hook's event, gets no answer;
//! - invalid thresholds fall back to the defaults;
//! - a transcript that could not be found (a Codex session's rollout) is reported, except
//!   after every tool call, where the next prompt reports it once;
//! - post-tool-use first looks without the session lock, a write or the agent's settings
//!   files, and goes on only when the tier rose or fell;
//! - pre-tool-use measures no fill, so the agent's settings files are not read for it;
//! - one session's hooks run one at a time under the session lock (each loads, changes and
//!   saves the state); a lock that cannot be taken within its wait costs a warning, and the
//!   hook runs unlocked rather than not at all.

use std::path::Path;

use super::lifecycle::{post_compact, session_end};
use super::post_tool_use::{assess, post_tool_use};
use super::pre_compact::{PreCompactInput, pre_compact};
use super::pre_tool_use::pre_tool_use;
use super::prompt_submit::prompt_submit;
use super::session_start::session_start;
use crate::agents::{AnswerShape, Hook};
use crate::config::Config;
use crate::handoff::checkpoint_ack::AlertGiven;
use crate::handoff::delivery::Delivery;
use crate::monitor::fill::FillSettings;
use crate::monitor::tier_record::ToolVerdict;
use crate::ports::{AgentKind, ResumeLogStore};
use crate::run::{HookContext, HookPorts, Warning};

/// What the use cases read of the hook's input.
#[derive(Debug, Clone, Copy, Default)]
pub struct HookFields<'a> {
    /// `hook_event_name`: checked against the hook that was run.
    pub hook_event_name: Option<&'a str>,
    /// `session_id`: the key of the session's state.
    pub session_id: Option<&'a str>,
    /// `cwd`: the agent's working folder.
    pub cwd: Option<&'a str>,
    /// SessionStart's `startup|resume|clear|compact|fork`.
    pub source: Option<&'a str>,
    /// PreCompact's and PostCompact's `manual|auto`.
    pub trigger: Option<&'a str>,
    /// PreCompact's `custom_instructions` (what the user gave `/compact`).
    pub custom_instructions: Option<&'a str>,
    /// PreToolUse's `tool_name`.
    pub tool_name: Option<&'a str>,
    /// The file a tool call writes (`tool_input.file_path`, or a notebook's path).
    pub file_path: Option<&'a str>,
    /// PostCompact's `compact_summary` (only its length is recorded).
    pub compact_summary: Option<&'a str>,
    /// SessionEnd's reason.
    pub reason: Option<&'a str>,
}

/// One invocation as the composition root hands it over.
#[derive(Debug, Clone, Copy)]
pub struct HookCall<'a> {
    /// Which hook runs.
    pub hook: Hook,
    /// How the hook was invoked (`prompt-submit`), for a warning about a wrong event.
    pub command: &'a str,
    /// The input, or why it could not be read.
    pub input: Result<HookFields<'a>, &'a str>,
    /// The configuration, or the built-in defaults when it did not load.
    pub config: &'a Config,
    /// Why the configuration did not load, one line per bad key.
    pub config_error: Option<&'a str>,
    /// The project folder.
    pub project_dir: &'a Path,
    /// False when nothing may be stored (the project does not exist, or it is `/` or the home
    /// folder nobody named): the hook answers without a session's state or lock.
    pub stores_state: bool,
    /// Which agent sent the input.
    pub agent: AgentKind,
    /// The transcript to measure and read.
    pub transcript_path: Option<&'a Path>,
    /// Why the agent's transcript could not be found.
    pub transcript_problem: Option<&'a str>,
}

/// What the composition root provides besides the ports.
pub trait HookHost {
    /// A problem for the hook log and stderr, as it arises.
    fn warn(&self, warning: &Warning);
    /// Housekeeping worth a line in the hook log, not a problem.
    fn info(&self, message: &str);
    /// Applies the agent's own auto-compact settings (its settings files and environment) to
    /// `settings`; returns each value it ignored and why.
    fn agent_settings(&self, settings: &mut FillSettings) -> Vec<String>;
}

/// The answer, in parts; the wire format is the composition root's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookAnswer {
    /// Text for the agent's context (`additionalContext`).
    pub additional_context: Option<String>,
    /// A message for the user (`systemMessage`).
    pub system_message: Option<String>,
    /// The compaction alert the context carries. Its checkpoint is acknowledged only after
    /// the answer has been written (`checkpoint_ack::acknowledge_given`): an answer that never
    /// reaches the agent must leave the alert to the next prompt.
    pub alert: Option<AlertGiven>,
    /// The resumption context SessionStart's answer carries: recorded as delivered only after
    /// the answer has been written (`delivery::record_delivery`), for the same reason.
    pub delivery: Option<Delivery>,
}

/// Answers one invocation (see the module documentation). Never fails; every problem goes to
/// `host` as it arises.
pub fn answer(
    call: &HookCall<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    host: &dyn HookHost,
) -> HookAnswer {
    if let Some(error) = call.config_error {
        for line in error.lines() {
            host.warn(&Warning::ConfigInvalid {
                line: line.to_string(),
                on_defaults: call.hook != Hook::PromptSubmit,
            });
        }
    }
    let fields = match call.input {
        Ok(fields) => fields,
        Err(problem) => {
            host.warn(&Warning::InputUnreadable(problem.to_string()));
            return HookAnswer::default();
        }
    };
    let expected = expected_event(call);
    match fields.hook_event_name {
        Some(received) if !runs(received, call.hook) => {
            host.warn(&Warning::WrongEvent {
                received: received.to_string(),
                command: call.command.to_string(),
                expected,
            });
            return HookAnswer::default();
        }
        None => host.warn(&Warning::NoEventName),
        Some(_) => {}
    }
    let Some(mut settings) = fill_settings(call.config, host) else {
        return HookAnswer::default();
    };
    if let Some(problem) = call.transcript_problem
        && call.hook != Hook::PostToolUse
    {
        host.warn(&Warning::TranscriptNotFound(problem.to_string()));
    }
    if call.hook == Hook::PostToolUse {
        // Without stored state there is no record, and a tag it cannot remember would follow
        // every call; with state, the common case (the tier neither rose nor fell) is
        // answered from one state read and the transcript's tail (the tier does not depend on
        // the agent's settings).
        let first_look = context(call, &fields, &settings);
        if !call.stores_state || assess(&first_look, ports) == ToolVerdict::Unchanged {
            return HookAnswer::default();
        }
    }
    if call.hook != Hook::PreToolUse {
        for ignored in host.agent_settings(&mut settings) {
            host.warn(&Warning::AgentSettingIgnored(ignored));
        }
    }
    let ctx = context(call, &fields, &settings);
    let shape = call.agent.description().answer_of(call.hook);
    let run = || shaped(dispatch(call, &fields, &ctx, ports, logs, host), shape);
    // No state is stored without a project or a session, so there is nothing to serialise
    // (and no folder or name for the lock).
    let Some(key) = ctx.session_key().filter(|_| call.stores_state) else {
        return run();
    };
    let mut answered = None;
    match ports.states.with_lock(&key, &mut || answered = Some(run())) {
        Ok(()) => answered.unwrap_or_default(),
        Err(e) => {
            host.warn(&Warning::SessionLockNotTaken(e));
            answered.unwrap_or_else(run)
        }
    }
}

/// The event the served agent sends for the hook that runs; another agent's name for it when
/// the served agent has none (a hook run by hand), for the warning about a wrong event.
fn expected_event(call: &HookCall<'_>) -> &'static str {
    call.agent
        .description()
        .event_of(call.hook)
        .or_else(|| {
            crate::agents::AGENTS
                .iter()
                .find_map(|agent| agent.event_of(call.hook))
        })
        .unwrap_or(call.hook.name())
}

/// Whether `event` is one that runs `hook` for some agent. Any agent's name for the hook is
/// accepted: which agent sent an input is a guess when there is no transcript, and the
/// hook's work does not depend on the event's name.
fn runs(event: &str, hook: Hook) -> bool {
    crate::agents::AGENTS
        .iter()
        .any(|agent| agent.binding_named(event).is_some_and(|b| b.hook == hook))
}

/// The answer as the agent's event takes it: context only where the event may inject it, a
/// user message only where the agent shows it as one, nothing where it reads no answer (Codex
/// shows a PreCompact `systemMessage` as a warning, and a checkpoint saved is not one).
fn shaped(answer: HookAnswer, shape: AnswerShape) -> HookAnswer {
    match shape {
        AnswerShape::AdditionalContext => answer,
        AnswerShape::SystemMessage => HookAnswer {
            system_message: answer.system_message,
            ..HookAnswer::default()
        },
        AnswerShape::Nothing => HookAnswer::default(),
    }
}

/// The configured thresholds, else the defaults; `None` only if even those are refused.
fn fill_settings(config: &Config, host: &dyn HookHost) -> Option<FillSettings> {
    match FillSettings::from_config(config) {
        Ok(settings) => Some(settings),
        Err(e) => {
            host.warn(&Warning::ThresholdsInvalid(e.to_string()));
            FillSettings::from_config(&Config::default()).ok()
        }
    }
}

fn context<'a>(
    call: &HookCall<'a>,
    fields: &HookFields<'a>,
    settings: &'a FillSettings,
) -> HookContext<'a> {
    HookContext {
        config: call.config,
        settings,
        project_dir: call.project_dir,
        session_id: fields.session_id,
        transcript_path: call.transcript_path,
        cwd: fields.cwd,
        config_error: call.config_error,
    }
}

fn dispatch(
    call: &HookCall<'_>,
    fields: &HookFields<'_>,
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    host: &dyn HookHost,
) -> HookAnswer {
    let warn_all = |warnings: &[Warning]| warnings.iter().for_each(|w| host.warn(w));
    let context = |text: Option<String>| HookAnswer {
        additional_context: text,
        ..HookAnswer::default()
    };
    match call.hook {
        Hook::PromptSubmit => {
            let mut outcome = prompt_submit(ctx, ports, logs);
            // Why no transcript was found is told above; that no path was given is how the
            // agent (Codex, Gemini CLI) always sends it, so it would be a second, false warning.
            if call.transcript_path.is_none() && call.transcript_problem.is_some() {
                outcome
                    .warnings
                    .retain(|w| !matches!(w, Warning::FillNotMeasured(_)));
            }
            warn_all(&outcome.warnings);
            HookAnswer {
                additional_context: outcome.additional_context,
                system_message: None,
                alert: outcome.alert,
                delivery: None,
            }
        }
        Hook::SessionStart => {
            let outcome = session_start(ctx, ports, logs, fields.source);
            warn_all(&outcome.warnings);
            HookAnswer {
                delivery: outcome.delivery,
                ..context(outcome.additional_context)
            }
        }
        Hook::PreCompact => {
            let input = PreCompactInput {
                trigger: fields.trigger,
                custom_instructions: fields.custom_instructions,
            };
            let outcome = pre_compact(ctx, ports, logs, input);
            warn_all(&outcome.warnings);
            if !outcome.pruned.is_empty() {
                let ids: Vec<String> = outcome.pruned.iter().map(ToString::to_string).collect();
                host.info(&format!(
                    "pruned {} old checkpoint(s) beyond checkpoints.keep = {}: {}",
                    ids.len(),
                    ctx.config.checkpoints.keep,
                    ids.join(", ")
                ));
            }
            // Whether the agent reads it is its description's business (`shaped`).
            HookAnswer {
                system_message: outcome.system_message,
                ..HookAnswer::default()
            }
        }
        Hook::PreToolUse => {
            let outcome = pre_tool_use(ctx, ports, fields.tool_name, fields.file_path);
            warn_all(&outcome.warnings);
            context(outcome.additional_context)
        }
        Hook::PostToolUse => {
            let outcome = post_tool_use(ctx, ports);
            warn_all(&outcome.warnings);
            context(outcome.additional_context)
        }
        Hook::PostCompact => {
            warn_all(&post_compact(
                ctx,
                ports,
                fields.trigger,
                fields.compact_summary,
            ));
            HookAnswer::default()
        }
        Hook::SessionEnd => {
            warn_all(&session_end(ctx, ports, logs, fields.reason));
            HookAnswer::default()
        }
    }
}
