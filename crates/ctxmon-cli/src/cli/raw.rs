//! The words of a command line that clap refused, read without clap: whether it was a hook's
//! (a hook must exit 0 whatever its arguments) and which project it named.

use std::path::PathBuf;

use super::{Cli, Hook};

/// What the words of a command line clap refused still say: whether it runs `ctxmon hooks …`
/// (which must exit 0 whatever its arguments, contract C14) and which project it names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawInvocation {
    /// The first word that is neither a flag nor a global flag's value is `hooks`.
    pub hook: bool,
    /// The hook's name as a known hook, if the word after `hooks` is one.
    pub hook_command: Option<Hook>,
    /// The first such word is `statusline`: Claude Code's status line, which also never fails.
    pub statusline: bool,
    /// The last non-empty `--project-dir` value.
    pub project_dir: Option<PathBuf>,
    /// `--json` was given (before any `--`): a refused command line answers in JSON too.
    pub json: bool,
}

impl RawInvocation {
    /// Reads `args` (without the program name) as clap would, as far as that is possible
    /// without clap: the global flags that take a value (`--project-dir`, `--config`) are
    /// read from the command tree, so the value of `--config hooks` is not taken for a word.
    pub fn scan(args: &[std::ffi::OsString]) -> RawInvocation {
        use clap::CommandFactory;
        let command = Cli::command();
        let value_flags: Vec<String> = command
            .get_arguments()
            .filter(|a| a.is_global_set() && a.get_action().takes_values())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let mut raw = RawInvocation::default();
        let mut words: Vec<String> = Vec::new();
        let mut project_dir = |value: Option<&std::ffi::OsStr>| {
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                raw.project_dir = Some(PathBuf::from(v));
            }
        };
        let mut json = false;
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let text = arg.to_string_lossy();
            if text == "--" {
                words.extend(iter.map(|a| a.to_string_lossy().into_owned()));
                break;
            }
            if let Some((flag, value)) = text.split_once('=')
                && value_flags.iter().any(|f| f == flag)
            {
                if flag == "--project-dir" {
                    project_dir(Some(std::ffi::OsStr::new(value)));
                }
                continue;
            }
            if value_flags.iter().any(|f| *f == text) {
                let value = iter.next();
                if text == "--project-dir" {
                    project_dir(value.map(std::ffi::OsString::as_os_str));
                }
                continue;
            }
            if text == "--json" {
                json = true;
            } else if !text.starts_with('-') {
                words.push(text.into_owned());
            }
        }
        raw.json = json;
        raw.hook = words.first().is_some_and(|w| w == "hooks");
        raw.statusline = words.first().is_some_and(|w| w == "statusline");
        raw.hook_command = words
            .get(1)
            .filter(|_| raw.hook)
            .and_then(|w| Hook::ALL.into_iter().find(|h| h.name() == w));
        raw
    }
}
