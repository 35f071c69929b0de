//! Which shell commands that worked are worth running again: a build, test, deploy, database
//! or project script, not a look around, a setup step or a command whose exit status hides
//! its main program's; the latest of each kind, with the folder it ran in when that differs.

use std::cell::OnceCell;
use std::collections::HashSet;

use super::checked::{CommandKind, command_kind, script_file};
use super::commands::{base_name, check_family, is_check, program_key, programs, shell_parts};
use super::text::capped;
use crate::ports::{RecordBody, TranscriptRecord};

/// The most commands that worked kept.
pub const COMMANDS_OK: usize = 3;

/// A command longer than this is a script, not a line to run again.
pub(super) const COMMAND_CHARS: usize = 300;

/// Commands that look around rather than build, test or run: worth nothing as a pointer.
pub(super) const LOOKING: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "grep",
    "rg",
    "find",
    "fd",
    "cd",
    "pwd",
    "echo",
    "printf",
    "which",
    "wc",
    "sed",
    "awk",
    "sort",
    "uniq",
    "diff",
    "tree",
    "file",
    "stat",
    "du",
    "df",
    "ps",
    "env",
    "printenv",
    "true",
    "false",
    "sleep",
    "mkdir",
    "rm",
    "rmdir",
    "cp",
    "mv",
    "chmod",
    "chown",
    "touch",
    "ln",
    "git",
    "gh",
    "open",
    "less",
    "more",
    "clear",
    "type",
    "date",
    "whoami",
    "jq",
    "xargs",
    "tee",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "test",
    "[",
    "export",
    "source",
    ".",
    "set",
    "unset",
    "history",
    "man",
    "help",
    "kill",
    "pkill",
    "killall",
    "taskkill",
    "Stop-Process",
    "firefox",
    "xdg-open",
    "start",
    "lsof",
    "netstat",
    "ss",
    "id",
    "uname",
    "hostname",
    "nproc",
    "free",
    "top",
    "Get-ChildItem",
    "Get-Content",
    "Select-String",
    "dir",
    "type",
    "Set-Location",
];

/// A shell command that worked.
#[derive(Debug, Clone, Copy)]
pub(super) struct Worked<'a> {
    pub command: &'a str,
    pub cwd: Option<&'a str>,
    pub at: usize,
}

/// The commands worth running again, newest first: the latest of each kind (build, test,
/// deploy, database, run), at most [`COMMANDS_OK`]. An inline script (`python -c "…"` over
/// several lines) is not a line to run again. A command run in another folder than the shell
/// is in now says where: relative paths in it would fail from here.
pub(super) fn commands_that_worked(
    main: &[&TranscriptRecord],
    worked: &[Worked<'_>],
) -> Vec<String> {
    let now_in = main.iter().rev().find_map(|r| r.cwd.as_deref());
    let recent_from = turn_starts(main).iter().rev().nth(1).copied().unwrap_or(0);
    let mut kinds_seen = HashSet::new();
    let mut commands_ok: Vec<String> = Vec::new();
    // Worked out when first needed: most commands are not runs, which need them.
    let keys: OnceCell<Vec<WorkKey>> = OnceCell::new();
    let keys = || keys.get_or_init(|| worked.iter().map(|w| WorkKey::of(w.command)).collect());
    for (i, w) in worked.iter().enumerate().rev() {
        let c = w.command;
        if c.trim().contains('\n') || !is_worth_repeating(c) {
            continue;
        }
        let Some(capped_c) = capped(without_output_trimming(c), COMMAND_CHARS) else {
            continue;
        };
        let line = match w.cwd {
            Some(dir) if now_in.is_some_and(|now| now != dir) => {
                format!("cd {} && {capped_c}", shell_quoted(dir))
            }
            _ => capped_c,
        };
        let kind = command_kind(c);
        // Any other run counts once it is a habit of the session (run twice) or runs a script
        // of the project: a one-off (an installer, a probe, a browser) is no pointer.
        // And it belongs to the work at hand: a run from an earlier task (another script, a
        // probe of another service) points the agent back at finished work.
        let established = kind != CommandKind::Run
            || (w.at >= recent_from
                && (script_file(c).is_some()
                    || keys().iter().filter(|x| x.same(&keys()[i])).count() > 1));
        if !established || commands_ok.contains(&line) || !kinds_seen.insert(kind) {
            continue;
        }
        commands_ok.push(line);
        if commands_ok.len() == COMMANDS_OK {
            break;
        }
    }
    commands_ok
}

/// `dir` as a shell word: quoted when it holds anything but plain path characters.
pub(super) fn shell_quoted(dir: &str) -> String {
    let plain = dir
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-~+@".contains(c));
    if plain {
        dir.to_string()
    } else {
        format!("'{}'", dir.replace('\'', "'\\''"))
    }
}

/// The indexes where each real request of the main chain starts a turn.
pub(super) fn turn_starts(main: &[&TranscriptRecord]) -> Vec<usize> {
    main.iter()
        .enumerate()
        .filter(|(_, r)| matches!(&r.body, RecordBody::Request(q) if q.kind.is_real()))
        .map(|(i, _)| i)
        .collect()
}

/// What tells whether two commands run the same thing ([`WorkKey::same`]), worked out once
/// for a command compared with many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WorkKey {
    /// The program and its first two words that are not flags: `npx hardhat compile` and
    /// `npx hardhat test` are different work.
    program: Option<String>,
    /// The kind of test or build.
    family: Option<String>,
}

impl WorkKey {
    pub(super) fn of(command: &str) -> WorkKey {
        let program = shell_parts(without_output_trimming(command))
            .into_iter()
            .map(|p| p.trim().to_string())
            .rfind(|p| !p.is_empty() && !p.starts_with("cd "))
            .filter(|part| program_key(part).is_some())
            .map(|part| {
                part.split_whitespace()
                    .filter(|w| !w.starts_with('-'))
                    .take(3)
                    .collect::<Vec<&str>>()
                    .join(" ")
            });
        WorkKey {
            program,
            family: check_family(command),
        }
    }

    /// Two commands that run the same thing: the same program and subcommand (`npx hardhat`),
    /// or the same kind of test or build.
    pub(super) fn same(&self, other: &WorkKey) -> bool {
        (self.program.is_some() && self.program == other.program)
            || (self.family.is_some() && self.family == other.family)
    }
}

/// Verbs of package managers: installing is setup, not a build, test or run to repeat (and an
/// install that "worked" may not have done what was wanted).
pub(super) const SETUP_VERBS: &[&str] = &[
    "install",
    "uninstall",
    "add",
    "remove",
    "sync",
    "upgrade",
    "update",
    "i",
    "ci",
    "link",
    "pkg",
    "config",
];

/// A build, test or run: what it runs, past a `cd`, is not a look around (`grep`, `ps`,
/// `gh api`), an inline script (`python -c "…"`, one-off by nature) or a package manager
/// setting things up.
pub(super) fn is_worth_repeating(command: &str) -> bool {
    // A package manager setting things up, or an installer script, wherever it stands.
    let setup = shell_parts(command).iter().any(|part| {
        let mut words = part.split_whitespace();
        let program = words.next().map(base_name).unwrap_or_default();
        // `npm install`, `uv tool install`, `pip3 install`: a verb among the first words.
        let mut verbs = words.filter(|w| !w.starts_with('-')).take(2);
        verbs.any(|v| SETUP_VERBS.contains(&v)) && !matches!(program, "cd" | "echo")
            || (part.contains(".sh") && (part.contains("install") || part.contains("-init")))
    });
    if setup && !is_check(command) {
        return false;
    }
    // Its exit status says nothing: `a || echo done` always succeeds, `a | tail` reports the
    // tail's status, `a &` only that it started.
    if status_is_masked(command) {
        return false;
    }
    if is_check(command) {
        return true;
    }
    let runs = programs(command);
    let Some(main) = runs
        .iter()
        .map(|p| p.rsplit('/').next().unwrap_or(p).trim())
        .find(|p| {
            !matches!(
                *p,
                "cd" | "export" | "set" | "source" | "." | "Set-Location"
            )
        })
    else {
        return false;
    };
    // A question about the tool itself (`npm list`, `cargo --version`, `git status`) is a look
    // around, not work to repeat.
    let asks = command
        .split_whitespace()
        .skip_while(|w| *w != main && base_name(w) != main)
        .skip(1)
        .find(|w| !w.starts_with('-') || ASKING.contains(w))
        .is_some_and(|w| ASKING.contains(&w));
    if asks {
        return false;
    }
    let inline = command.contains(" -c \"")
        || command.contains(" -c '")
        || command.contains(" -e \"")
        || command.contains(" -Command ");
    let looks = main == "gh" && command.contains("gh api");
    !LOOKING.contains(&main) && !main.is_empty() && !inline && !looks
}

/// First arguments that ask a tool about itself or its state instead of doing work.
pub(super) const ASKING: &[&str] = &[
    "list",
    "ls",
    "view",
    "info",
    "show",
    "status",
    "outdated",
    "why",
    "version",
    "--version",
    "-V",
    "--help",
    "help",
    "config",
    "doctor",
    "whoami",
];

/// Whether a command's exit status hides its main program's: a fallback after `||`, a
/// trailing `; true`, a last pipeline stage that only trims or stores the output (`| tail`,
/// `| tee log`, `| jq .`), a background `&` at the end.
pub(super) fn status_is_masked(command: &str) -> bool {
    let c = command.trim();
    if c.contains("||") || c.ends_with("; true") || (c.ends_with('&') && !c.ends_with("&&")) {
        return true;
    }
    let stages = pipeline_stages(c);
    stages.len() > 1
        && stages.last().is_some_and(|last| {
            let program = last.split_whitespace().next().unwrap_or("");
            matches!(
                base_name(program),
                "tail"
                    | "head"
                    | "grep"
                    | "egrep"
                    | "tee"
                    | "less"
                    | "more"
                    | "cat"
                    | "sort"
                    | "uniq"
                    | "wc"
                    | "jq"
                    | "cut"
                    | "awk"
                    | "sed"
                    | "column"
                    | "Select-Object"
                    | "Select-String"
                    | "Out-String"
                    | "findstr"
            )
        })
}

/// The stages of a pipeline, split at each `|` outside quotes (a `\\|` in a grep pattern is
/// not a pipe).
pub(super) fn pipeline_stages(command: &str) -> Vec<&str> {
    let mut stages = Vec::new();
    let (mut quote, mut escaped, mut start) = (None, false, 0);
    for (i, c) in command.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '\'' | '"' if quote.is_none() => quote = Some(c),
            q if quote == Some(q) => quote = None,
            '|' if quote.is_none() => {
                stages.push(command[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    stages.push(command[start..].trim());
    stages
}

/// `command` without what only trims its output: a trailing `2>&1`, `| tail -50`,
/// `| head`, `| grep …` (the work is the same; the line is shorter).
pub(super) fn without_output_trimming(command: &str) -> &str {
    let mut c = command.trim_end();
    loop {
        let before = c;
        if let Some(at) = c.rfind('|') {
            let last = c[at + 1..].trim_start();
            let program = last.split_whitespace().next().unwrap_or("");
            let double = c[..at].ends_with('|');
            if !double && matches!(program, "tail" | "head" | "grep" | "less" | "more" | "cat") {
                c = c[..at].trim_end();
            }
        }
        if let Some(rest) = c.strip_suffix("2>&1") {
            c = rest.trim_end();
        }
        if c == before {
            return c;
        }
    }
}
