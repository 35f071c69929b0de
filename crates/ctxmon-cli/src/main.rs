//! The `ctxmon` binary: parse arguments, run the command, map the result to an exit code.

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
// Nor does it `eprintln!`, which panics when stderr cannot be written: diagnostics go through
// `diag`, which ignores a failed write (a hook must answer and exit 0 even with `2>/dev/full`).
// Nor does it `println!`, which panics when stdout cannot be written (`| head -1`,
// `>/dev/full`): commands print through `out`, which turns that into an exit code.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::print_stdout
)]

mod agent;
mod bootstrap;
mod cli;
mod commands;
mod diag;
mod exit;
mod help;
mod install;
mod json_out;
mod origin;
mod out;
mod paths;
mod project_root;
mod render;
mod report;
mod terminal;
mod wire;

fn main() -> std::process::ExitCode {
    match cli::parse() {
        Ok(cli) => commands::run(cli),
        Err(error) => commands::usage_error(error),
    }
}
