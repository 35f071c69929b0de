//! The `ctxmon` binary: parse arguments, run the command, map the result to an exit code.

// Production code never unwraps or expects: bad input is data (spec §15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
// Nor does it `eprintln!`, which panics when stderr cannot be written: diagnostics go through
// `diag`, which ignores a failed write (a hook must answer and exit 0 even with `2>/dev/full`).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod agent;
mod auto_compact;
mod bootstrap;
mod cli;
mod commands;
mod diag;
mod exit;
mod help;
mod install;
mod json_out;
mod project_root;
mod render;
mod report;
mod terminal;
mod wire;

fn main() -> std::process::ExitCode {
    quiet_on_closed_stdout();
    match cli::parse() {
        Ok(cli) => commands::run(cli),
        Err(error) => commands::usage_error(error),
    }
}

/// `println!` panics when stdout is a pipe whose reader has gone (`ctxmon report --json | head`):
/// Rust ignores SIGPIPE, and restoring the default action needs unsafe code. A reader that
/// stopped reading is not a failure worth a panic message (spec §15: no panic reaches a user),
/// so that one panic ends the process quietly with 0, as SIGPIPE-aware tools do. Every other
/// panic keeps the default report. Hooks never get here: they write with `writeln!` and
/// ignore the error.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        // std's message: "failed printing to stdout: Broken pipe (os error 32)".
        if message.starts_with("failed printing to stdout")
            && message.to_ascii_lowercase().contains("broken pipe")
        {
            std::process::exit(0);
        }
        default(info);
    }));
}
