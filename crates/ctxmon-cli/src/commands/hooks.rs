//! `ctxmon hooks …`: the entry points of the agents' hooks (Claude Code, Codex CLI, Gemini
//! CLI). Whatever happens, they exit 0, write nothing but a valid answer to stdout, and answer
//! within their own deadline (contract C14; the `hooks.*_deadline_ms` keys,
//! `config/deadlines.rs` in the application): short for the hooks the user or the agent waits
//! for, most of the registered timeout for PreCompact and SessionStart, which must not lose a
//! checkpoint to a busy machine.
//!
//! The work runs under a watchdog (`deadline`) that ends the process at the deadline, so a stdin
//! that never closes or a slow disk cannot hang a prompt.
//! The deadline is the configured one from the start: the configuration that can be found
//! without stdin (`bootstrap::EarlyConfig`) is loaded before stdin is read, and until it is the
//! hook's built-in deadline applies (never a shorter shared one).
//! A timeout is reported on stderr and in `.ctxmon/logs/hooks.log`. A panic in the work is
//! contained the same way: no answer, exit 0.
//!
//! What to answer is the application's (`hooks::answer`: the configuration fallback, the event
//! check, the session lock, post-tool-use's first look); this file reads stdin, finds the
//! project, its configuration, the transcript and the adapters, and writes the wire format.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use ctxmon_application::config::{Config, HooksConfig};
use ctxmon_application::handoff::checkpoint_ack::{AlertGiven, acknowledge_given, release_given};
use ctxmon_application::handoff::delivery::{Delivery, record_delivery};
use ctxmon_application::hooks::{self, HookCall, HookFields, HookHost};
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::ports::Clock;
use ctxmon_application::run::{HookPorts, Warning};
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;
use ctxmon_infra_fs::{
    FsCheckpointRepository, FsEventLog, FsGitInfo, FsProjectFiles, FsResumeLogStore,
    FsResumptionSource, FsSessionStateStore, HookLog, ProjectLayout, SystemClock,
};

use super::deadline::{self, Outcome, Progress};
use crate::bootstrap;
use crate::cli::{GlobalArgs, Hook, RawInvocation};
use crate::diag::{self, diag};
use crate::wire::hook_input::{HookInput, InputError, read_bounded};
use crate::wire::hook_output;

/// The deadline of `hook` under `hooks` (its own key, else `hooks.deadline_ms`, else built in).
fn deadline_of(hook: Hook, hooks: &HooksConfig) -> Duration {
    Duration::from_millis(hooks.deadline_ms(hook))
}

pub fn run(hook: Hook, global: &GlobalArgs) -> ExitCode {
    let timeout_global = global.clone();
    // Until the configuration is read: this hook's own built-in deadline.
    let built_in = deadline_of(hook, &HooksConfig::default());
    let outcome = deadline::run(
        built_in,
        |progress| handle(hook, global, progress),
        move |deadline, log| timed_out(hook, &timeout_global, deadline, log),
    );
    match outcome {
        Outcome::Answer(answer) => {
            let written = answer.text.is_empty() || {
                let mut out = std::io::stdout().lock();
                writeln!(out, "{}", answer.text).is_ok()
                    && out.flush().is_ok()
                    && !stdout_is_the_null_device()
            };
            // What the answer told the agent counts as told only once it is out: an alert
            // whose answer could not be written stays unacknowledged for the next prompt.
            if let Some(after) = answer.after_written {
                after(written);
            }
            ExitCode::SUCCESS
        }
        Outcome::TimedOut => deadline::wait_for_exit(),
        Outcome::Lost => {
            diag!(
                "ctxmon hooks {}: internal error (worker stopped); answering nothing",
                hook.name()
            );
            ExitCode::SUCCESS
        }
    }
}

/// The deadline passed (on the watchdog thread): said on stderr and in the hook log, then the
/// process ends with nothing on stdout, whatever the work is still blocked in.
fn timed_out(hook: Hook, global: &GlobalArgs, deadline: Duration, log: Option<HookLog>) {
    let message = format!("deadline of {deadline:?} reached; answering nothing");
    diag!("ctxmon hooks {}: {message}", hook.name());
    // Before the work announced its log (stdin or the configuration still being read), the
    // project is the one the hook would use without a `cwd` in its input.
    let log = log.unwrap_or_else(|| {
        let layout = bootstrap::resolve_project_dir(global, None).layout();
        HookLog::new(&layout, Config::default().hooks.log_max_bytes)
    });
    deadline::log_bounded(log, hook.name(), message);
    std::process::exit(0);
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
    let name = raw.hook_command.map_or("hooks", Hook::name);
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
    hook: Hook,
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
}

/// Whether stdout is the null device, where an answer reaches nobody. A stdout closed when
/// the process started (`>&-`) looks like that too: Rust's runtime opens `/dev/null` on a
/// closed standard descriptor, so writing to it succeeds. Either way an alert written there was
/// not given. Asked through `/dev/fd/1` (Linux and macOS); where that cannot be read, the
/// write's own result stands.
fn stdout_is_the_null_device() -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let (Ok(out), Ok(null)) = (
            std::fs::metadata("/dev/fd/1"),
            std::fs::metadata("/dev/null"),
        ) else {
            return false;
        };
        out.file_type().is_char_device() && out.rdev() == null.rdev()
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// A hook's answer for stdout (possibly empty), and what to do once it has been written.
pub(crate) struct Answered {
    pub text: String,
    /// Told whether the answer was written: acknowledges the compaction alert it carries
    /// (and records it), or gives up the claim on it for the next prompt.
    pub after_written: Option<Box<dyn FnOnce(bool)>>,
}

impl Answered {
    fn text(text: String) -> Answered {
        Answered {
            text,
            after_written: None,
        }
    }
}

fn handle(hook: Hook, global: &GlobalArgs, progress: &Progress) -> Answered {
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
    hook: Hook,
    global: &GlobalArgs,
    stdin: Result<Vec<u8>, InputError>,
    progress: &Progress,
) -> String {
    answer_with(hook, global, stdin, progress, None).text
}

/// The answer to what was read on stdin (see `answer`), reusing the configuration loaded
/// before stdin when the input names its project. What to answer is the application's
/// (`hooks::answer`); here the input, the project, its configuration and the adapters are
/// found, and the answer is put in the wire format.
fn answer_with(
    hook: Hook,
    global: &GlobalArgs,
    stdin: Result<Vec<u8>, InputError>,
    progress: &Progress,
    early: Option<bootstrap::EarlyConfig>,
) -> Answered {
    let parsed = stdin.and_then(|b| HookInput::parse(&b));
    let (input, input_problem) = match parsed {
        Ok(input) => (input, None),
        Err(e) => (HookInput::default(), Some(e.to_string())),
    };
    let resolved = bootstrap::resolve_project_dir(global, input.cwd.as_deref());
    let project_dir = resolved.path.clone();
    // A project that does not exist, or `/` or the home folder nobody named: nothing is stored.
    let missing_project = resolved.storage_problem();
    let loaded = match early {
        Some(early) => early.for_project(global, &project_dir),
        None => bootstrap::load_config(global, &project_dir, &[]),
    };
    let (config, config_error) = match loaded {
        Ok(config) => (config, None),
        // A broken configuration must not break the user's prompts: the defaults stand in
        // for it (`hooks::answer` says so, and each use case decides what it can still do).
        Err(e) => (Config::default(), Some(format!("{e:#}"))),
    };
    let deadline = deadline_of(hook, &config.hooks);
    progress.deadline(deadline);
    let layout = resolved.layout();
    let log = HookLog::new(&layout, config.hooks.log_max_bytes);
    progress.log(log.clone());
    let served = crate::agent::for_hook(&input, &project_dir);
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
    let adapters = Adapters::new(&env);
    let call = HookCall {
        hook,
        command: hook.name(),
        input: match &input_problem {
            Some(problem) => Err(problem.as_str()),
            None => Ok(fields(&env.input)),
        },
        config: &env.config,
        config_error: config_error.as_deref(),
        project_dir: env.layout.project_dir(),
        stores_state: missing_project.is_none(),
        agent: env.served.agent,
        transcript_path: env.served.transcript.as_deref(),
        transcript_problem: env.served.lookup_problem.as_deref(),
    };
    let answer = hooks::answer(&call, &adapters.ports(&env.clock), &adapters.logs, &env);
    if let Some(text) = answer.additional_context {
        // Context only: ctxmon never decides a permission (no `permissionDecision`, which even
        // as "allow" would skip the user's permission prompt), blocks or changes a tool call.
        let event = env
            .served
            .agent
            .description()
            .event_of(hook)
            .or(env.input.hook_event_name.as_deref())
            .unwrap_or(hook.name());
        let text = hook_output::additional_context(event, &text).unwrap_or_default();
        let handed = !text.is_empty();
        let alert = answer.alert.filter(|_| handed);
        let delivery = alert
            .as_ref()
            .and_then(|given| given.delivery.clone())
            .or(answer.delivery)
            .filter(|_| handed);
        let after_written = (alert.is_some() || delivery.is_some()).then(|| {
            Box::new(move |written: bool| after_answer(&adapters, &env, alert, delivery, written))
                as Box<dyn FnOnce(bool)>
        });
        return Answered {
            text,
            after_written,
        };
    }
    Answered::text(
        answer
            .system_message
            .map(|m| hook_output::system_message(&m))
            .unwrap_or_default(),
    )
}

/// Once the answer is out (or could not be written): what it told the agent counts as told
/// only then. An alert is acknowledged and a hand-back recorded as delivered after a written
/// answer; an unwritten one gives the alert's claim up and leaves both to the next prompt.
fn after_answer(
    adapters: &Adapters,
    env: &HookEnv,
    alert: Option<AlertGiven>,
    delivery: Option<Delivery>,
    written: bool,
) {
    if !written {
        if let Some(given) = &alert {
            release_given(given, &adapters.checkpoints);
            env.warn(&format!(
                "the answer could not be written to stdout; the alert about {} is left for the next prompt",
                given.checkpoint.checkpoint_id
            ));
        } else if let Some(delivery) = &delivery {
            env.warn(&format!(
                "the answer could not be written to stdout; the work of {} is handed back at the next prompt",
                delivery.checkpoint_id
            ));
        }
        return;
    }
    if let Some(given) = &alert {
        let ack = acknowledge_given(given, &adapters.checkpoints, &adapters.events, &env.clock);
        for warning in &ack.warnings {
            env.warn(&warning.to_string());
        }
    }
    if let Some(delivery) = &delivery {
        for warning in record_delivery(delivery, &adapters.states, &adapters.events, &env.clock) {
            env.warn(&warning.to_string());
        }
    }
}

/// What the use cases read of the input.
fn fields(input: &HookInput) -> HookFields<'_> {
    HookFields {
        hook_event_name: input.hook_event_name.as_deref(),
        session_id: input.session_id.as_deref(),
        cwd: input.cwd.as_deref(),
        source: input.source.as_deref(),
        trigger: input.trigger.as_deref(),
        custom_instructions: input.custom_instructions.as_deref(),
        tool_name: input.tool_name.as_deref(),
        file_path: input
            .tool_input
            .as_ref()
            .and_then(|t| t.get("file_path").or_else(|| t.get("notebook_path")))
            .and_then(|v| v.as_str()),
        compact_summary: input.compact_summary.as_deref(),
        reason: input.reason.as_deref(),
    }
}

impl HookHost for HookEnv {
    fn warn(&self, warning: &Warning) {
        HookEnv::warn(self, &warning.to_string());
    }

    fn info(&self, message: &str) {
        HookEnv::info(self, message);
    }

    /// Claude Code's auto-compaction settings (environment and settings files) or Codex's
    /// `config.toml`, for the agent served.
    fn agent_settings(&self, settings: &mut FillSettings) -> Vec<String> {
        let mut ignored = Vec::new();
        crate::agent::apply_auto_compact(
            settings,
            self.served.agent,
            self.layout.project_dir(),
            |w| ignored.push(w.to_string()),
        );
        crate::agent::apply_history(
            settings,
            self.served.agent,
            self.served.transcript.as_deref(),
            &self.layout,
            self.hook == Hook::SessionStart,
        );
        ignored
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
        // The agent read from the transcript's first line is not read again for each use.
        let reader = match (&env.served.transcript, env.served.told_by_transcript) {
            (Some(path), true) => JsonlTranscriptReader::default().knowing(path, env.served.agent),
            _ => JsonlTranscriptReader::default(),
        };
        Adapters {
            reader,
            // The session lock's wait is bounded well inside the deadline: past it the hook
            // runs unlocked rather than not at all.
            states: FsSessionStateStore::new(env.layout.clone()).with_lock_wait(env.deadline / 3),
            // Never shorter than the adapter's own second; a third of the deadline beyond it.
            events: FsEventLog::new(env.layout.clone())
                .with_lock_wait((env.deadline / 3).max(Duration::from_secs(1))),
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
            files: &FsProjectFiles,
        }
    }
}
