//! Command dispatch and error reporting: the one place a failure becomes an exit code, its
//! message on stderr and, under `--json`, `{"error": …, "exit_code": …}` on stdout (a refused
//! command line too), so a program reading stdout never gets nothing.

mod assemble;
mod checkpoint;
mod completions;
mod config;
mod deadline;
mod doctor;
mod hooks;
mod install;
mod output;
mod report;
mod resume_log;
mod status;
mod status_watch;
mod statusline;
mod transcript_target;

#[cfg(test)]
mod fuzz_targets;

use std::process::ExitCode;

use crate::cli::{Cli, Command, RawInvocation};
use crate::diag::diag;
use crate::exit::Failure;
use crate::json_out;

pub fn run(cli: Cli) -> ExitCode {
    let global = cli.global;
    let result = match cli.command {
        // Hooks answer Claude Code and always exit 0; they never reach the error path below.
        Command::Hooks(hook) => return hooks::run(hook.hook(), &global),
        Command::Status(args) if args.watch => status_watch::run(&args, &global),
        Command::Status(args) => status::run(&args, &global),
        Command::Report(args) => report::run(&args, &global),
        Command::Statusline(args) => statusline::run(&args, &global),
        Command::Checkpoint(cmd) => checkpoint::run(cmd, &global),
        Command::ResumeLog(cmd) => resume_log::run(cmd, &global),
        Command::Config(cmd) => config::run(cmd, &global),
        Command::Assemble(args) => assemble::run(&args, &global),
        Command::Install(args) => install::install(&args, &global),
        Command::Uninstall(args) => install::uninstall(&args, &global),
        Command::Doctor => doctor::run(&global),
        Command::Completions(args) => completions::run(&args, &global),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if let Some(error) = failure.error() {
                diag!("ctxmon: {error:#}");
            }
            if global.json {
                json_out::print_error(&failure);
            }
            failure.exit_code()
        }
    }
}

/// A command line clap refused. `ctxmon hooks …` reports it and exits 0: Claude Code takes exit
/// 2 from UserPromptSubmit as "block the prompt", and a hook never blocks (contract C13, C14).
/// `ctxmon statusline …` reports it and prints the default line: a status line that printed
/// nothing would look broken in Claude Code. Help
/// and version requests are printed as asked, under `out`'s rule for stdout (clap would ignore
/// a failed write and exit 0 even on a full disk), except on a `hooks …` line, which exits 0
/// whatever stdout does (contract C14: a script or agent running `ctxmon hooks --help` gets the
/// same promise as a hook); any other command exits 2 as clap decides.
pub fn usage_error(error: clap::Error) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let raw = RawInvocation::scan(&args);
    if error.use_stderr() {
        if raw.hook {
            return hooks::usage_error(&error, &raw);
        }
        if raw.statusline {
            return statusline::usage_error(&error, &raw);
        }
        if raw.json {
            // clap's own report (with its usage line) still goes to stderr.
            let _ = error.print();
            json_out::print_error(&Failure::usage(anyhow::anyhow!("{}", clap_message(&error))));
            return ExitCode::from(2);
        }
        error.exit();
    }
    let printed = error
        .print()
        .and_then(|()| std::io::Write::flush(&mut std::io::stdout()));
    match printed {
        Ok(()) => ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(0)),
        Err(e) => {
            let failure = crate::out::failure(e);
            if let Some(error) = failure.error() {
                diag!("ctxmon: {error:#}");
            }
            if raw.hook {
                ExitCode::SUCCESS
            } else {
                failure.exit_code()
            }
        }
    }
}

/// clap's message without its `error: ` prefix, usage line and hint: `unexpected argument
/// '--bogus' found`.
fn clap_message(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}
