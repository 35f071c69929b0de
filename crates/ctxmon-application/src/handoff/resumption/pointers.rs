//! Pointers for the next step: the files it needs (named in the newest request and in the
//! assistant's statement of intent), the files edited in the newest turns and those the
//! session created, the last commands that worked, and the facts of the environment those
//! commands show (a container, a database, a host and port, a virtualenv; a tool that failed
//! as unusable and what worked instead). Exact strings, as the transcript has them: a model's
//! summary loses exactly these.

use std::collections::{HashMap, HashSet};

use super::commands::{is_check, shell_parts};
use super::environment::environment_facts;
use super::text::{capped, dedup_keep_last, path_str};
use crate::ports::{RecordBody, ToolCall, ToolKind, ToolResult, TranscriptRecord};

/// The most commands that worked kept.
pub const COMMANDS_OK: usize = 3;
/// The most environment facts kept.
pub const ENVIRONMENT_FACTS: usize = 6;
/// The most files of each pointer list kept.
const FILES: usize = 20;
/// A command longer than this is a script, not a line to run again.
const COMMAND_CHARS: usize = 300;

/// Commands that look around rather than build, test or run: worth nothing as a pointer.
const LOOKING: &[&str] = &[
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

/// What the newest turns pointed at, derived once from the tail's records.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pointers {
    pub files_next: Vec<String>,
    pub files_recent: Vec<String>,
    pub files_created: Vec<String>,
    pub commands_ok: Vec<String>,
    pub environment: Vec<String>,
}

/// The pointers of `records`; `texts` are the newest request and the statement of intent,
/// whose named files come first.
pub(crate) fn pointers(records: &[TranscriptRecord], texts: &[&str]) -> Pointers {
    let main: Vec<&TranscriptRecord> = records.iter().filter(|r| !r.sidechain).collect();
    let seen = walk(&main);
    let (files_next, files_recent) = files_next_and_recent(texts, seen.known, seen.recent);
    Pointers {
        files_next,
        files_recent,
        commands_ok: commands_that_worked(&main, &seen.worked),
        environment: environment(&seen.worked, &seen.unusable, seen.replacements),
        files_created: dedup_keep_last(seen.created, FILES),
    }
}

/// What the calls and their results of the main chain show, oldest first.
#[derive(Debug, Default)]
struct Seen<'a> {
    /// Every path a call named.
    known: Vec<String>,
    /// Files a call created.
    created: Vec<String>,
    /// Files written in the last two turns, by writes that happened.
    recent: Vec<String>,
    /// Shell commands that worked, with the folder they ran in.
    worked: Vec<(&'a str, Option<&'a str>)>,
    /// Programs not found, with the record that said so.
    unusable: Vec<(String, usize)>,
    /// "X is not usable here; Y worked instead".
    replacements: Vec<String>,
}

/// Walks the main chain once, pairing each result with its call.
fn walk<'a>(main: &[&'a TranscriptRecord]) -> Seen<'a> {
    let mut calls: HashMap<&str, (&ToolCall, Option<&str>)> = HashMap::new();
    let mut seen = Seen::default();
    let turns = turn_starts(main);
    let recent_from = turns.iter().rev().nth(1).copied().unwrap_or(0);
    for (i, record) in main.iter().enumerate() {
        match &record.body {
            RecordBody::ToolCall(call) => {
                if let Some(id) = call.id.as_deref() {
                    calls.insert(id, (call, record.cwd.as_deref()));
                }
                if let Some(path) = call.file_path.as_deref().and_then(path_str) {
                    if call.creates {
                        seen.created.push(path.clone());
                    }
                    seen.known.push(path);
                }
            }
            RecordBody::ToolResult(result) => {
                let Some(&(call, cwd)) = result.tool_use_id.as_deref().and_then(|id| calls.get(id))
                else {
                    continue;
                };
                let path = call.file_path.as_deref().and_then(path_str);
                if result.created_file
                    && let Some(path) = path.clone()
                {
                    seen.created.push(path);
                }
                // Only a write that happened is an edit: a refused or failed one changed nothing.
                if call.kind == ToolKind::FileWrite
                    && i >= recent_from
                    && succeeded(result)
                    && let Some(path) = path
                {
                    seen.recent.push(path);
                }
                if let Some(command) = call
                    .command
                    .as_deref()
                    .filter(|_| call.kind == ToolKind::Shell)
                {
                    seen.shell_result(i, command, cwd, result);
                }
            }
            _ => {}
        }
    }
    seen
}

impl<'a> Seen<'a> {
    /// A shell command's result: a command that worked, possibly in place of a program that
    /// was not found before, or a program not found.
    fn shell_result(
        &mut self,
        i: usize,
        command: &'a str,
        cwd: Option<&'a str>,
        result: &ToolResult,
    ) {
        if succeeded(result) {
            self.worked.push((command, cwd));
            let program = program_of(command);
            if let Some((missing, _)) = self
                .unusable
                .iter()
                .find(|(m, _)| Some(m.as_str()) != program.as_deref() && same_args(m, command))
            {
                self.replacements.push(format!(
                    "{missing} is not usable here; {} worked instead",
                    program.as_deref().unwrap_or(command)
                ));
            }
        } else if let Some(missing) = unusable_program(command, &result.text) {
            self.unusable.push((missing, i));
        }
    }
}

/// The files `texts` name (among those the calls named), then the files written recently that
/// they do not name, newest first; each list without repeats and at most [`FILES`] long.
fn files_next_and_recent(
    texts: &[&str],
    known: Vec<String>,
    mut recent: Vec<String>,
) -> (Vec<String>, Vec<String>) {
    let known = dedup_keep_last(known, usize::MAX);
    let mut next: Vec<String> = Vec::new();
    for text in texts {
        next.extend(named_files(text, &known));
    }
    let mut seen = HashSet::new();
    next.retain(|p| seen.insert(p.clone()));
    next.truncate(FILES);
    recent.reverse();
    let mut seen = HashSet::new();
    recent.retain(|p| seen.insert(p.clone()) && !next.contains(p));
    recent.truncate(FILES);
    (next, recent)
}

/// The commands worth running again, newest first. An inline script (`python -c "…"` over
/// several lines) is not a line to run again. A command run in another folder than the shell
/// is in now says where: relative paths in it would fail from here.
fn commands_that_worked(
    main: &[&TranscriptRecord],
    worked: &[(&str, Option<&str>)],
) -> Vec<String> {
    let now_in = main.iter().rev().find_map(|r| r.cwd.as_deref());
    let useful: Vec<String> = worked
        .iter()
        .filter(|(c, _)| !c.trim().contains('\n') && is_worth_repeating(c))
        .filter_map(|(c, cwd)| {
            let c = capped(c, COMMAND_CHARS)?;
            Some(match cwd {
                Some(dir) if now_in.is_some_and(|now| now != *dir) => {
                    format!("cd {} && {c}", shell_quoted(dir))
                }
                _ => c,
            })
        })
        .collect();
    let mut commands_ok = dedup_keep_last(useful, COMMANDS_OK);
    commands_ok.reverse();
    commands_ok
}

/// Environment facts, newest first: what the commands that worked say about the machine,
/// each program not found that nothing replaced, and each replacement.
fn environment(
    worked: &[(&str, Option<&str>)],
    unusable: &[(String, usize)],
    replacements: Vec<String>,
) -> Vec<String> {
    let mut facts: Vec<String> = Vec::new();
    for (command, _) in worked {
        facts.extend(environment_facts(command));
    }
    let fixed: HashSet<String> = replacements
        .iter()
        .filter_map(|r| r.split(' ').next().map(str::to_string))
        .collect();
    for (missing, _) in unusable {
        if !fixed.contains(missing) {
            facts.push(format!("{missing} is not usable here (command not found)"));
        }
    }
    facts.extend(replacements);
    let mut environment = dedup_keep_last(facts, ENVIRONMENT_FACTS);
    environment.reverse();
    environment
}

/// `dir` as a shell word: quoted when it holds anything but plain path characters.
fn shell_quoted(dir: &str) -> String {
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
fn turn_starts(main: &[&TranscriptRecord]) -> Vec<usize> {
    main.iter()
        .enumerate()
        .filter(|(_, r)| matches!(&r.body, RecordBody::Request(q) if q.kind.is_real()))
        .map(|(i, _)| i)
        .collect()
}

fn succeeded(result: &ToolResult) -> bool {
    !result.is_error && result.rejected.is_none() && result.exit_code.is_none_or(|c| c == 0)
}

/// The words of a command that run programs: each `&&`, `;` or `|` part's first word, past
/// variable assignments and wrappers such as `sudo` or `timeout 60`.
fn programs(command: &str) -> Vec<String> {
    shell_parts(command)
        .iter()
        .filter_map(|part| {
            let mut words = part.split_whitespace().peekable();
            while let Some(w) = words.peek() {
                let wrapper = matches!(*w, "sudo" | "time" | "nohup" | "exec" | "env" | "command");
                let assignment = w.contains('=') && !w.starts_with('-') && !w.starts_with('=');
                let number = w
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == 's' || c == 'm');
                if wrapper || assignment || (*w == "timeout") || number {
                    words.next();
                } else {
                    break;
                }
            }
            words.next().map(str::to_string)
        })
        .collect()
}

fn program_of(command: &str) -> Option<String> {
    programs(command).into_iter().next()
}

/// Verbs of package managers: installing is setup, not a build, test or run to repeat (and an
/// install that "worked" may not have done what was wanted).
const SETUP_VERBS: &[&str] = &[
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
];

/// A build, test or run: any of its parts runs something other than looking around, and it
/// is not a package manager setting things up.
fn is_worth_repeating(command: &str) -> bool {
    let setup = command
        .split_whitespace()
        .take(4)
        .any(|w| SETUP_VERBS.contains(&w));
    if setup && !is_check(command) {
        return false;
    }
    is_check(command)
        || programs(command).iter().any(|p| {
            let base = p.rsplit('/').next().unwrap_or(p);
            let base = base.trim();
            !LOOKING.contains(&base) && !base.is_empty()
        })
}

/// The program a failed command could not find, as the shell named it ("python: command not
/// found", "zsh: command not found: py", "'py' is not recognized as …"); only a program the
/// command runs counts.
fn unusable_program(command: &str, output: &str) -> Option<String> {
    let runs = programs(command);
    output.lines().find_map(|line| {
        let l = line.trim();
        let named = if let Some(at) = l.find("command not found: ") {
            l.get(at + "command not found: ".len()..)
        } else if let Some(head) = l.strip_suffix(": command not found") {
            head.rsplit(": ").next()
        } else if let Some(at) = l.find("' is not recognized as") {
            l.get(..at).and_then(|h| h.rsplit('\'').next())
        } else {
            None
        }?;
        let named = named.trim().trim_matches(['\'', '"']);
        runs.iter()
            .any(|p| p.trim() == named)
            .then(|| named.to_string())
    })
}

/// Whether `command` ran what `missing` was meant to run, with a program of the same family
/// (python → python3, py → python, docker-compose → docker compose).
fn same_args(missing: &str, command: &str) -> bool {
    let Some(program) = program_of(command) else {
        return false;
    };
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).replace('-', " ");
    let (m, p) = (base(missing), base(&program));
    p.starts_with(&m) || m.starts_with(&p)
}

/// The files `text` names: a word that is a path the session used (whole, its end, or its
/// file name), else a word shaped like a path (`src/x.rs`, `README.md`).
fn named_files(text: &str, known: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| c.is_whitespace() || "`'\"()[]{}<>,;".contains(c)) {
        let word = raw
            .trim_start_matches('@')
            .trim_end_matches(['.', ':', '!', '?', '*']);
        if word.chars().count() < 3 || word.contains("://") {
            continue;
        }
        let matched: Vec<&String> = known
            .iter()
            .filter(|k| {
                k.as_str() == word
                    || (word.contains('/')
                        && k.ends_with(&format!("/{}", word.trim_start_matches("./"))))
                    || file_name(k) == Some(word)
                    || (is_distinctive_stem(word) && file_stem(k) == Some(word))
            })
            .collect();
        if let Some(newest) = matched.last() {
            out.push((*newest).clone());
        } else if looks_like_path(word)
            && let Some(p) = path_str(word)
        {
            out.push(p);
        }
    }
    out
}

fn file_name(path: &str) -> Option<&str> {
    path.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())
}

fn file_stem(path: &str) -> Option<&str> {
    let name = file_name(path)?;
    Some(name.rsplit_once('.').map_or(name, |(stem, _)| stem)).filter(|s| !s.is_empty())
}

/// A bare word that names one file (README, CHANGELOG, Dockerfile), not a common word.
fn is_distinctive_stem(word: &str) -> bool {
    word.chars().count() >= 4
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && (word.chars().all(|c| !c.is_ascii_lowercase()) || word.contains(['_', '-']))
}

/// `dir/name`, `./x`, or `name.ext` with a short alphabetic extension and a name that is not a
/// number ("v2.0", "e.g." are not files).
fn looks_like_path(word: &str) -> bool {
    if word.starts_with('-') || word.contains('=') {
        return false;
    }
    let Some((stem, ext)) = word.rsplit_once('.') else {
        return false;
    };
    let ext_ok = (1..=6).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    let stem_name = file_name(stem).unwrap_or(stem);
    let stem_ok = stem_name.chars().count() >= 2
        && stem_name.chars().any(char::is_alphabetic)
        && !stem_name.contains('.')
        || stem.contains('/');
    ext_ok && stem_ok && word.chars().all(|c| !c.is_control())
}

#[cfg(test)]
#[path = "pointers_tests.rs"]
mod tests;
