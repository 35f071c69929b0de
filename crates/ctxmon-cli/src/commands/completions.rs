//! `ctxmon completions SHELL`: a completion script generated from the command tree itself by
//! `clap_complete`, so completions can never drift from the real commands and flags.

use anyhow::anyhow;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, GlobalArgs};
use crate::exit::{CmdResult, Failure};

pub fn run(args: &CompletionsArgs, global: &GlobalArgs) -> CmdResult {
    // A completion script is shell code; there is no JSON form of it to give.
    if global.json {
        return Err(Failure::usage(anyhow!(
            "completions prints a shell script and has no JSON output; run it without --json"
        )));
    }
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "ctxmon", &mut script);
    // Generated into memory and written in one go: `clap_complete` would panic on a closed pipe.
    crate::out::bytes(&script)
}
