//! The `ctxmon` binary: parse arguments, run the command, map the result to an exit code.

mod bootstrap;
mod cli;
mod commands;
mod exit;
mod help;
mod install;
mod render;
mod report;
mod wire;

fn main() -> std::process::ExitCode {
    commands::run(cli::parse())
}
