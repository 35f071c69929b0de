//! `ctxmon completions SHELL`: a completion script generated from the command tree itself by
//! `clap_complete`, so completions can never drift from the real commands and flags.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::CmdResult;

pub fn run(args: &CompletionsArgs) -> CmdResult {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "ctxmon", &mut script);
    // Generated into memory and written in one go: `clap_complete` would panic on a closed pipe.
    crate::out::bytes(&script)
}
