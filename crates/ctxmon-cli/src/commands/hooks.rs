//! `ctxmon hooks …`: the Claude Code (and Codex CLI) entry points. Whatever happens, they exit 0, write nothing
//! but a valid answer to stdout, and answer within their own deadline (spec §14; the
//! `hooks.*_deadline_ms` keys, `config/deadlines.rs` in the application): short for the hooks
//! the user or the agent waits for, most of the registered timeout for PreCompact and
//! SessionStart, which must not lose a checkpoint to a busy machine.
//!
//! The work runs on a worker thread (`deadline`); the main thread waits for its answer until the
//! deadline and then exits, so a stdin that never closes or a slow disk cannot hang a prompt.
//! The deadline is the configured one from the start: the configuration that can be found
//! without stdin (`bootstrap::EarlyConfig`) is loaded before stdin is read, and until it is the
//! hook's built-in deadline applies (never a shorter shared one).
//! A timeout is reported on stderr and in `.ctxmon/logs/hooks.log`. A panic in the worker is
//! contained the same way: no answer, exit 0.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use ctxmon_application::config::{Config, HooksConfig};
use ctxmon_application::hooks::lifecycle::{post_compact, session_end};
use ctxmon_application::hooks::post_tool_use::{assess, post_tool_use};
use ctxmon_application::hooks::pre_compact::{PreCompactInput, pre_compact};
use ctxmon_application::hooks::pre_tool_use::pre_tool_use;
use ctxmon_application::hooks::prompt_submit::prompt_submit;
use ctxmon_application::hooks::session_start::session_start;
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::monitor::tier_record::ToolVerdict;
use ctxmon_application::ports::{AgentKind, Clock};
use ctxmon_application::run::{HookContext, HookPorts};
use ctxmon_infra_fs::fsutil;
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;
use ctxmon_infra_fs::{
    FsCheckpointRepository, FsEventLog, FsGitInfo, FsResumeLogStore, FsResumptionSource,
    FsSessionStateStore, HookLog, ProjectLayout, SystemClock,
};

use super::deadline::{self, Outcome, Progress};
use crate::bootstrap;
use crate::cli::{GlobalArgs, HookCommand, RawInvocation};
use crate::diag::{self, diag};
use crate::wire::hook_input::{HookInput, InputError, read_bounded};
use crate::wire::hook_output;

/// The deadline of `hook` under `hooks` (its own key, else `hooks.deadline_ms`, else built in).
fn deadline_of(hook: HookCommand, hooks: &HooksConfig) -> Duration {
    Duration::from_millis(hooks.deadline_ms(hook.deadline()))
}

pub fn run(hook: HookCommand, global: &GlobalArgs) -> ExitCode {
    let worker_global = global.clone();
    // Until the configuration is read: this hook's own built-in deadline.
    let built_in = deadline_of(hook, &HooksConfig::default());
    let outcome = deadline::run(format!("hook-{}", hook.name()), built_in, move |progress| {
        handle(hook, &worker_global, progress)
    });
    match outcome {
        Outcome::Answer(answer) => {
            if !answer.is_empty() {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{answer}");
                let _ = out.flush();
            }
            ExitCode::SUCCESS
        }
        Outcome::TimedOut { deadline, log } => {
            let message = format!("deadline of {deadline:?} reached; answering nothing");
            diag!("ctxmon hooks {}: {message}", hook.name());
            // Before the worker announced its log (stdin or the configuration still being
            // read), the project is the one the hook would use without a `cwd` in its input.
            let log = log.unwrap_or_else(|| {
                let layout = bootstrap::resolve_project_dir(global, None).layout();
                HookLog::new(&layout, Config::default().hooks.log_max_bytes)
            });
            deadline::log_bounded(log, hook.name(), message);
            // The worker may be blocked in a system call; exiting the process ends it.
            std::process::exit(0);
        }
        Outcome::WorkerLost => {
            diag!(
                "ctxmon hooks {}: internal error (worker stopped); answering nothing",
                hook.name()
            );
            ExitCode::SUCCESS
        }
    }
}

/// A hook command line clap refused (an unknown hook or flag, an extra word, an empty
/// `--project-dir "$CLAUDE_PROJECT_DIR"`): the message goes to stderr and the hooks log of the
/// project the words still name, nothing to stdout, and the exit code is 0.
pub fn usage_error(error: &clap::Error, raw: &RawInvocation) -> ExitCode {
    let rendered = error.render().to_string();
    diag::text(&rendered);
    let reason = if error.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    {
        "no hook named (e.g. `ctxmon hooks prompt-submit`)"
    } else {
        let first = rendered.lines().next().unwrap_or_default();
        first.strip_prefix("error: ").unwrap_or(first)
    };
    let message = format!("usage error: {reason}; answering nothing (hooks always exit 0)");
    let name = raw.hook_command.map_or("hooks", HookCommand::name);
    match raw.hook_command {
        Some(hook) => diag!("ctxmon hooks {}: {message}", hook.name()),
        None => diag!("ctxmon hooks: {message}"),
    }
    let global = GlobalArgs {
        project_dir: raw.project_dir.clone(),
        ..GlobalArgs::default()
    };
    let layout = bootstrap::resolve_project_dir(&global, None).layout();
    let log = HookLog::new(&layout, Config::default().hooks.log_max_bytes);
    deadline::log_bounded(log, name, message);
    ExitCode::SUCCESS
}

/// Everything a hook needs once its input is read.
struct HookEnv {
    hook: HookCommand,
    input: HookInput,
    layout: ProjectLayout,
    config: Config,
    log: HookLog,
    clock: SystemClock,
    /// The deadline this hook runs under; the waits inside it are shares of it.
    deadline: Duration,
    /// The agent served and the transcript measured (`agent::for_hook`).
    served: crate::agent::Served,
}

impl HookEnv {
    fn warn(&self, message: &str) {
        diag!("ctxmon hooks {}: {message}", self.hook.name());
        self.log
            .write(self.clock.now(), self.hook.name(), "warn", message);
    }

    /// Housekeeping worth a line in the hook log, not a problem: nothing on stderr (Claude Code
    /// shows a hook's stderr to the user), and `doctor` counts only `warn` and `error` lines.
    fn info(&self, message: &str) {
        self.log
            .write(self.clock.now(), self.hook.name(), "info", message);
    }

    fn warn_all(&self, warnings: &[String]) {
        for w in warnings {
            self.warn(w);
        }
    }
}

fn handle(hook: HookCommand, global: &GlobalArgs, progress: &Progress) -> String {
    // The deadline configured where it can be found without stdin bounds the read of stdin too.
    let early = bootstrap::EarlyConfig::load(global);
    if let Some(hooks) = early.hooks() {
        progress.deadline(deadline_of(hook, hooks));
    }
    let stdin = read_bounded(std::io::stdin().lock());
    answer_with(hook, global, stdin, progress, Some(early))
}

/// The answer for stdout (possibly empty) to what was read on stdin: parse it, load the project
/// and its configuration, run the use case. Never fails; separate from reading stdin so that
/// tests and the fuzz targets (`fuzz_targets.rs`) run the whole hook in-process.
#[cfg(test)]
pub(crate) fn answer(
    hook: HookCommand,
    global: &GlobalArgs,
    stdin: Result<Vec<u8>, InputError>,
    progress: &Progress,
) -> String {
    answer_with(hook, global, stdin, progress, None)
}

/// The answer to what was read on stdin (see `answer`), reusing the configuration loaded
/// before stdin when the input names its project.
fn answer_with(
    hook: HookCommand,
    global: &GlobalArgs,
    stdin: Result<Vec<u8>, InputError>,
    progress: &Progress,
    early: Option<bootstrap::EarlyConfig>,
) -> String {
    let parsed = stdin.and_then(|b| HookInput::parse(&b));
    let (input, input_problem) = match parsed {
        Ok(input) => (input, None),
        Err(e) => (HookInput::default(), Some(e.to_string())),
    };
    let resolved = bootstrap::resolve_project_dir(global, input.cwd.as_deref());
    let project_dir = resolved.path.clone();
    // A project that does not exist, or `/` or the home folder nobody named: nothing is stored.
    let missing_project = resolved.storage_problem();
    let layout = resolved.layout();
    let loaded = match early {
        Some(early) => early.for_project(global, &project_dir),
        None => bootstrap::load_config(global, &project_dir, &[]),
    };
    let (config, config_error) = match loaded {
        Ok(config) => (config, None),
        // A broken configuration must not break the user's prompts: the defaults stand in
        // for it, each use case decides what it can still do on them (`config_error`).
        Err(e) => (Config::default(), Some(format!("{e:#}"))),
    };
    let deadline = deadline_of(hook, &config.hooks);
    progress.deadline(deadline);
    let log = HookLog::new(&layout, config.hooks.log_max_bytes);
    progress.log(log.clone());
    let served = crate::agent::for_hook(&input);
    let env = HookEnv {
        hook,
        input,
        layout,
        config,
        log,
        clock: SystemClock,
        deadline,
        served,
    };
    if let Some(warning) = resolved.ignored_cwd_warning() {
        env.warn(&warning);
    }
    if let Some(problem) = &missing_project {
        // The adapters refuse to create it; what needs no stored state is still answered.
        env.warn(&format!(
            "{problem}; answering without ctxmon's stored state (nothing is saved)"
        ));
    }
    if let Some(error) = &config_error {
        // One line per bad key, each naming its file or variable.
        for line in error.lines() {
            match hook {
                // Its own warning says what it leaves out.
                HookCommand::PromptSubmit => env.warn(line),
                _ => env.warn(&format!("{line}; using built-in defaults")),
            }
        }
    }
    if let Some(problem) = input_problem {
        env.warn(&problem);
        return String::new();
    }
    match env.input.hook_event_name.as_deref() {
        Some(name) if name != hook.event_name() => {
            env.warn(&format!(
                "received a {name} event on `hooks {}` (expected {}); check the hook registration",
                hook.name(),
                hook.event_name()
            ));
            return String::new();
        }
        None => env.warn("hook input has no hook_event_name; treating it as this hook's event"),
        Some(_) => {}
    }
    let mut settings = match FillSettings::from_config(&env.config) {
        Ok(s) => s,
        Err(e) => {
            env.warn(&format!("invalid thresholds ({e}); using defaults"));
            match FillSettings::from_config(&Config::default()) {
                Ok(s) => s,
                Err(_) => return String::new(),
            }
        }
    };
    if let Some(problem) = &env.served.lookup_problem {
        // After every tool call this would repeat; the next prompt reports it once.
        if hook != HookCommand::PostToolUse {
            env.warn(problem);
        }
    }
    let adapters = Adapters::new(&env);
    let ports = adapters.ports(&env.clock);
    if hook == HookCommand::PostToolUse {
        // It runs after every tool call. Without stored state it has no record, and a tag it
        // cannot remember would follow every call; with state, the common case (the tier did
        // not rise or fall) is answered from one state read and the transcript's tail,
        // without the session lock, a write or the agent's settings files (the tier does
        // not depend on them).
        let first_look = context(&env, &settings, config_error.as_deref());
        if missing_project.is_some() || assess(&first_look, &ports) == ToolVerdict::Unchanged {
            return String::new();
        }
    }
    // PreToolUse measures no fill (it runs on every edit): the agent's settings files are
    // read only by the hooks that report room until auto-compact.
    if hook != HookCommand::PreToolUse {
        crate::agent::apply_auto_compact(
            &mut settings,
            env.served.agent,
            env.layout.project_dir(),
            |w| env.warn(w),
        );
    }
    let ctx = context(&env, &settings, config_error.as_deref());
    // No state is stored without a project or a session (`session_key`), so there is nothing
    // to serialise (and no folder or name for the lock).
    let key = ctx.session_key().filter(|_| missing_project.is_none());
    let Some(key) = key else {
        return dispatch(&env, &ctx, &ports, &adapters.logs);
    };
    // One session's hooks run one at a time: each loads, changes and saves the session state,
    // and two at once (a prompt while PreCompact runs) would lose one's update. The wait is
    // bounded well inside the deadline; past it the hook runs unlocked rather than not at all.
    let lock = env.layout.state_lock(&key);
    let wait = env.deadline / 3;
    let state_dir = env.layout.state_dir();
    let locked = env
        .layout
        .ensure_dir(&state_dir)
        .map_err(|e| fsutil::io_error(&state_dir, &e))
        .and_then(|()| {
            fsutil::with_lock(&lock, wait, || {
                Ok(dispatch(&env, &ctx, &ports, &adapters.logs))
            })
        });
    match locked {
        Ok(answer) => answer,
        Err(e) => {
            env.warn(&format!("session lock not taken ({e}); running unlocked"));
            dispatch(&env, &ctx, &ports, &adapters.logs)
        }
    }
}

/// What the use cases know about this invocation.
fn context<'a>(
    env: &'a HookEnv,
    settings: &'a FillSettings,
    config_error: Option<&'a str>,
) -> HookContext<'a> {
    HookContext {
        config: &env.config,
        settings,
        project_dir: env.layout.project_dir(),
        session_id: env.input.session_id.as_deref(),
        transcript_path: env.served.transcript.as_deref(),
        cwd: env.input.cwd.as_deref(),
        config_error,
    }
}

/// The file-system adapters behind every port, built once per hook.
struct Adapters {
    reader: JsonlTranscriptReader,
    states: FsSessionStateStore,
    events: FsEventLog,
    checkpoints: FsCheckpointRepository,
    source: FsResumptionSource,
    git: FsGitInfo,
    logs: FsResumeLogStore,
}

impl Adapters {
    fn new(env: &HookEnv) -> Adapters {
        let r = &env.config.resumption;
        Adapters {
            reader: JsonlTranscriptReader::new(),
            states: FsSessionStateStore::new(env.layout.clone()),
            events: FsEventLog::new(env.layout.clone()),
            // A lock held by a stuck peer must cost this hook less than its own deadline.
            checkpoints: FsCheckpointRepository::new(env.layout.clone())
                .with_lock_wait(env.deadline * 2 / 3),
            // Parsing a source file near its size cap takes seconds; PreCompact reads it
            // before it saves the checkpoint, which must not be lost to the deadline.
            source: FsResumptionSource::from_config(r).with_time_limit(env.deadline / 4),
            git: FsGitInfo::new(),
            logs: FsResumeLogStore::new(env.layout.clone()),
        }
    }

    fn ports<'a>(&'a self, clock: &'a SystemClock) -> HookPorts<'a> {
        HookPorts {
            transcripts: &self.reader,
            // The transcript reader also serves the tail (one adapter, one file format).
            tail: &self.reader,
            states: &self.states,
            events: &self.events,
            clock,
            checkpoints: &self.checkpoints,
            source: &self.source,
            git: &self.git,
        }
    }
}

fn dispatch(
    env: &HookEnv,
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &FsResumeLogStore,
) -> String {
    let event = env.hook.event_name();
    let input = &env.input;
    match env.hook {
        HookCommand::PromptSubmit => {
            let outcome = prompt_submit(ctx, ports, logs);
            env.warn_all(&outcome.warnings);
            outcome
                .additional_context
                .and_then(|text| hook_output::additional_context(event, &text))
                .unwrap_or_default()
        }
        HookCommand::SessionStart => {
            let outcome = session_start(ctx, ports, logs, input.source.as_deref());
            env.warn_all(&outcome.warnings);
            outcome
                .additional_context
                .and_then(|text| hook_output::additional_context(event, &text))
                .unwrap_or_default()
        }
        HookCommand::PreCompact => {
            let outcome = pre_compact(
                ctx,
                ports,
                logs,
                PreCompactInput {
                    trigger: input.trigger.as_deref(),
                    custom_instructions: input.custom_instructions.as_deref(),
                },
            );
            env.warn_all(&outcome.warnings);
            if !outcome.pruned.is_empty() {
                let ids: Vec<String> = outcome.pruned.iter().map(ToString::to_string).collect();
                env.info(&format!(
                    "pruned {} old acknowledged checkpoint(s) beyond checkpoints.keep = {}: {}",
                    ids.len(),
                    env.config.checkpoints.keep,
                    ids.join(", ")
                ));
            }
            // Codex shows a PreCompact `systemMessage` as a warning; a checkpoint saved is not
            // one, so Codex gets no answer (Claude Code discards it anyway).
            if env.served.agent == AgentKind::Codex {
                return String::new();
            }
            outcome
                .system_message
                .map(|m| hook_output::system_message(&m))
                .unwrap_or_default()
        }
        HookCommand::PreToolUse => {
            let file_path = input
                .tool_input
                .as_ref()
                .and_then(|t| t.get("file_path").or_else(|| t.get("notebook_path")))
                .and_then(|v| v.as_str());
            let outcome = pre_tool_use(ctx, ports, input.tool_name.as_deref(), file_path);
            env.warn_all(&outcome.warnings);
            // Context only: ctxmon never decides a permission (no `permissionDecision`, which
            // even as "allow" would skip the user's permission prompt), blocks or changes a
            // tool call.
            outcome
                .additional_context
                .and_then(|text| hook_output::additional_context(event, &text))
                .unwrap_or_default()
        }
        HookCommand::PostToolUse => {
            let outcome = post_tool_use(ctx, ports);
            env.warn_all(&outcome.warnings);
            outcome
                .additional_context
                .and_then(|text| hook_output::additional_context(event, &text))
                .unwrap_or_default()
        }
        HookCommand::PostCompact => {
            let summary = input.compact_summary.as_deref();
            env.warn_all(&post_compact(ctx, ports, input.trigger.as_deref(), summary));
            String::new()
        }
        HookCommand::SessionEnd => {
            env.warn_all(&session_end(ctx, ports, logs, input.reason.as_deref()));
            String::new()
        }
    }
}
