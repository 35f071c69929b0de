//! Reading the command line: clap, except for the words Claude Code runs on every prompt and
//! every status-line refresh, which are read by hand.
//!
//! `ctxmon hooks <hook>` and `ctxmon statusline`, with nothing else on the line, are what
//! `ctxmon install` registers; building clap's whole command tree to read them cost more than
//! anything else a hook does before its work. Those exact words give what clap would give (a
//! test holds the two equal for each of them); any other line, a flag or an extra word included,
//! goes to clap as before.

use std::ffi::OsString;

use clap::Parser;

use super::{Cli, Command, GlobalArgs, Hook, HookCommand, StatuslineArgs};

/// Parses the command line. A usage error comes back instead of ending the process: what to do
/// with it depends on whether Claude Code ran a hook (see [`super::RawInvocation`]).
pub fn parse() -> Result<Cli, clap::Error> {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match registered(&args) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse(),
    }
}

/// The command of a line that is exactly `hooks <hook>` or `statusline` (without the program
/// name); `None` for any other.
fn registered(args: &[OsString]) -> Option<Cli> {
    let words: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let command = match words.as_slice() {
        ["hooks", name] => Command::Hooks(HookCommand(Hook::from_name(name)?)),
        ["statusline"] => Command::Statusline(StatuslineArgs::default()),
        _ => return None,
    };
    Some(Cli {
        global: GlobalArgs::default(),
        command,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(Into::into).collect()
    }

    /// Each registered line reads as clap reads it (compared by their debug forms, which show
    /// every field).
    #[test]
    fn the_registered_lines_read_as_clap_reads_them() {
        let mut lines: Vec<Vec<&str>> = Hook::ALL.iter().map(|h| vec!["hooks", h.name()]).collect();
        lines.push(vec!["statusline"]);
        for words in lines {
            let by_hand = registered(&os(&words)).expect("a registered line");
            let by_clap = Cli::try_parse_from(std::iter::once("ctxmon").chain(words.clone()))
                .expect("clap reads it");
            assert_eq!(format!("{by_hand:?}"), format!("{by_clap:?}"), "{words:?}");
        }
    }

    /// Anything else is clap's: flags, other commands, extra or unknown words.
    #[test]
    fn any_other_line_goes_to_clap() {
        for words in [
            &[][..],
            &["hooks"],
            &["hooks", "prompt-submit", "extra"],
            &["hooks", "no-such-hook"],
            &["hooks", "--help"],
            &["--json", "statusline"],
            &["statusline", "--format", "{percent}"],
            &["statusline", "--json"],
            &["--project-dir", "/p", "hooks", "prompt-submit"],
            &["status"],
            &["--version"],
        ] {
            assert!(registered(&os(words)).is_none(), "{words:?}");
        }
    }
}
