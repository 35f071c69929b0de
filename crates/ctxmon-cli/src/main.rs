//! The `ctxmon` binary: parse arguments, run the command, map the result to an exit code.
//!
//! The only composition root: it builds the adapters and calls the application. `cli` and
//! `help` are the arguments and their manual (hook lines are read without clap), `exit` the
//! exit codes (a `--json` failure as an object), `diag` stderr that cannot fail, `out` stdout
//! whose closing (`| head`) ends a command with exit 0, `json_out` the one layout for JSON.
//! `bootstrap` and `project_root` settle the project (a command walks up from a subfolder to
//! the nearest `.ctxmon`, `.claude` or `.git`, never to `/` or the home folder), the
//! environment and the configuration, loaded before stdin. `agent` says which agent a hook
//! serves and applies its auto-compaction settings; `paths` finds programs as a shell does;
//! `origin` says how this binary was installed, so advice fits it. `wire/` is the hook input
//! and answers (stdin bounded, answers capped); `commands/` one file per command (`hooks.rs`
//! runs a hook under its deadline, a watchdog thread ending the process at it; `deadline.rs`
//! is shared with `statusline`; `output.rs` the column tables; `transcript_target` which
//! transcript `status` and `report` read; `fuzz_targets` the fuzz targets in-process);
//! `install/` the agents' settings files as ctxmon edits them, byte-preserving; `report/`,
//! `render` and `terminal` the fill series as text, JSON or SVG, the fill bar, the width.

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
