//! Pointers for the next step: the files it needs (named in the newest request and in the
//! assistant's statement of intent), the files edited in the newest turns and those the
//! session created, the last commands that worked, and the facts of the environment those
//! commands show (a container, a database, a host and port, a virtualenv; a tool that failed
//! as unusable and what worked instead). Exact strings, as the transcript has them: a model's
//! summary loses exactly these.

use std::collections::{HashMap, HashSet};

use super::checked::{
    CommandKind, command_kind, invocation_error, is_variant, reports_breakage, restores_files,
    rewrites_in_place, script_file,
};
use super::commands::{check_family, is_check, program_key, shell_parts};
use super::environment::{environment_facts, working_folder};
use super::text::{capped, dedup_keep_last, path_str};
use crate::ports::{RecordBody, ToolCall, ToolKind, ToolResult, TranscriptRecord};

/// The most commands that worked kept.
pub const COMMANDS_OK: usize = 3;
/// The most environment facts kept.
pub const ENVIRONMENT_FACTS: usize = 6;
/// The most lessons kept.
pub const LESSONS: usize = 3;
/// Longest command in a lesson.
const LESSON_CHARS: usize = 200;
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

/// What the newest turns pointed at, derived once from the tail's records.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pointers {
    pub files_next: Vec<String>,
    pub files_recent: Vec<String>,
    pub files_created: Vec<String>,
    pub commands_ok: Vec<String>,
    pub environment: Vec<String>,
    pub lessons: Vec<String>,
}

/// The pointers of `records`; `texts` are the newest request and the statement of intent,
/// whose named files come first.
pub(crate) fn pointers(records: &[TranscriptRecord], texts: &[&str]) -> Pointers {
    let main: Vec<&TranscriptRecord> = records.iter().filter(|r| !r.sidechain).collect();
    let seen = walk(&main);
    let standing = still_standing(&seen);
    // A lesson about a program not found is moot once that program ran (the PATH was fixed),
    // and says nothing when the program is a basic utility (`tail`, `grep`): then the shell's
    // PATH was broken for a moment, not the tool missing.
    let lessons: Vec<String> = seen
        .lessons
        .iter()
        .filter(|(_, missing, at)| {
            missing
                .as_deref()
                .is_none_or(|m| !ran_after(&seen.worked, m, *at) && !LOOKING.contains(&m))
        })
        .map(|(text, _, _)| text.clone())
        .collect();
    let mut lessons = dedup_keep_last(lessons, LESSONS);
    lessons.reverse();
    let (files_next, files_recent) = files_next_and_recent(texts, seen.known, seen.recent);
    Pointers {
        files_next,
        files_recent,
        commands_ok: commands_that_worked(&main, &standing),
        environment: environment(&seen.worked, &seen.unusable, seen.replacements),
        files_created: dedup_keep_last(seen.created, FILES),
        lessons,
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
    /// Shell commands that worked, with the folder they ran in and where they stand.
    worked: Vec<Worked<'a>>,
    /// Shell commands that could not run as written, with why and where they stand.
    misfired: Vec<(&'a str, String, usize)>,
    /// Shell commands that failed, and where.
    failed: Vec<(&'a str, usize)>,
    /// Where a step put files back (`git restore`, a copy from a backup).
    restores: Vec<usize>,
    /// Where the user reported that something broke.
    breakage: Vec<usize>,
    /// Where a file was written, by path: what a misfired command and its variant are
    /// separated by when the fix was in the code, not in the command.
    writes: Vec<usize>,
    /// Programs not found, with the record that said so.
    unusable: Vec<(String, usize)>,
    /// "X is not usable here; Y worked instead".
    replacements: Vec<String>,
    /// "use `X`, not `Y` (why Y failed)", oldest first, with the program Y could not find (if
    /// that was why) and where X worked.
    lessons: Vec<(String, Option<String>, usize)>,
}

/// A shell command that worked.
#[derive(Debug, Clone, Copy)]
struct Worked<'a> {
    command: &'a str,
    cwd: Option<&'a str>,
    at: usize,
}

/// Walks the main chain once, pairing each result with its call.
fn walk<'a>(main: &[&'a TranscriptRecord]) -> Seen<'a> {
    let mut calls: HashMap<&str, (&ToolCall, Option<&str>)> = HashMap::new();
    let mut seen = Seen::default();
    let turns = turn_starts(main);
    let recent_from = turns.iter().rev().nth(1).copied().unwrap_or(0);
    for (i, record) in main.iter().enumerate() {
        match &record.body {
            RecordBody::Request(q) if q.kind.is_real() && reports_breakage(&q.text) => {
                seen.breakage.push(i);
            }
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
                if call.kind == ToolKind::FileWrite && succeeded(result) {
                    seen.writes.push(i);
                    // Only a write that happened is an edit: a refused or failed one changed
                    // nothing.
                    if i >= recent_from
                        && let Some(path) = path
                    {
                        seen.recent.push(path);
                    }
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
    /// was not found before or of a variant that could not run; a program not found; a
    /// command that could not run as written.
    fn shell_result(
        &mut self,
        i: usize,
        command: &'a str,
        cwd: Option<&'a str>,
        result: &ToolResult,
    ) {
        if succeeded(result) {
            self.worked.push(Worked {
                command,
                cwd,
                at: i,
            });
            if restores_files(command) {
                self.restores.push(i);
            }
            if self.learn_from(i, command) {
                return;
            }
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
        } else {
            self.failed.push((command, i));
            if let Some(missing) = unusable_program(command, &result.text) {
                self.unusable.push((missing, i));
            }
            if let Some(why) = invocation_error(&result.text) {
                self.misfired.push((command, why, i));
            }
        }
    }

    /// A command that worked after a variant of it could not run, with no file written in
    /// between (else the fix was the edit, not the command): "use X, not Y". True when it
    /// taught one.
    fn learn_from(&mut self, i: usize, command: &str) -> bool {
        let Some(at) = self.misfired.iter().rposition(|(failed, _, f)| {
            !self.writes.iter().any(|w| w > f && *w < i) && is_variant(failed, command)
        }) else {
            return false;
        };
        let (failed, why, _) = self.misfired.remove(at);
        // The lesson says it better than "python3 is not usable here".
        self.unusable.retain(|(m, _)| !failed.contains(m.as_str()));
        let (Some(good), Some(bad)) = (capped(command, LESSON_CHARS), capped(failed, LESSON_CHARS))
        else {
            return false;
        };
        if good.contains('\n') || bad.contains('\n') {
            return false;
        }
        let missing = unusable_program(failed, &why);
        self.lessons
            .push((format!("use `{good}`, not `{bad}` ({why})"), missing, i));
        true
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

/// The commands that worked and that nothing after them contradicts: not one that rewrites or
/// deletes files in place (whatever its exit status), none before a step that put files back
/// or before the user said something broke, no script that a later command removed.
fn still_standing<'a>(seen: &Seen<'a>) -> Vec<Worked<'a>> {
    let later_removal = |w: &Worked<'_>| {
        script_file(w.command).is_some_and(|script| {
            let name = file_name(&script).unwrap_or(&script).to_string();
            seen.worked
                .iter()
                .any(|x| x.at > w.at && rewrites_in_place(x.command) && x.command.contains(&name))
        })
    };
    seen.worked
        .iter()
        .filter(|w| !rewrites_in_place(w.command))
        // A later run of the same thing failed: it does not work now.
        .filter(|w| {
            !seen
                .failed
                .iter()
                .any(|(f, at)| *at > w.at && same_work(f, w.command))
        })
        .filter(|w| !seen.restores.iter().any(|r| *r > w.at))
        .filter(|w| !seen.breakage.iter().any(|b| *b > w.at))
        .filter(|w| !later_removal(w))
        .copied()
        .collect()
}

/// The commands worth running again, newest first: the latest of each kind (build, test,
/// deploy, database, run), at most [`COMMANDS_OK`]. An inline script (`python -c "…"` over
/// several lines) is not a line to run again. A command run in another folder than the shell
/// is in now says where: relative paths in it would fail from here.
fn commands_that_worked(main: &[&TranscriptRecord], worked: &[Worked<'_>]) -> Vec<String> {
    let now_in = main.iter().rev().find_map(|r| r.cwd.as_deref());
    let recent_from = turn_starts(main).iter().rev().nth(1).copied().unwrap_or(0);
    let mut kinds_seen = HashSet::new();
    let mut commands_ok: Vec<String> = Vec::new();
    for w in worked.iter().rev() {
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
                    || worked.iter().filter(|x| same_work(x.command, c)).count() > 1));
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

/// Environment facts, newest first: what the commands that worked say about the machine (of
/// each kind, container, database, host, port, virtualenv, only the latest value: a later
/// command that reached another database replaced the earlier one), each program not found
/// that nothing replaced, and each replacement.
fn environment(
    worked: &[Worked<'_>],
    unusable: &[(String, usize)],
    replacements: Vec<String>,
) -> Vec<String> {
    let mut facts: Vec<String> = Vec::new();
    let mut kinds = HashSet::new();
    for w in worked.iter().rev() {
        let mut of_command = environment_facts(w.command);
        of_command.reverse();
        for fact in of_command {
            let kind = fact.split(':').next().unwrap_or_default().to_string();
            if kinds.insert(kind) {
                facts.push(fact);
            }
        }
    }
    facts.reverse();
    facts.extend(working_folder(worked.iter().map(|w| w.command)));
    let fixed: HashSet<String> = replacements
        .iter()
        .filter_map(|r| r.split(' ').next().map(str::to_string))
        .collect();
    // A program that ran later (a PATH fixed, a tool installed) is usable after all.
    for (missing, at) in unusable {
        let basic = LOOKING.contains(&missing.as_str());
        if !fixed.contains(missing) && !ran_after(worked, missing, *at) && !basic {
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

/// Two commands that run the same thing: the same program and subcommand (`npx hardhat`), or
/// the same kind of test or build.
fn same_work(a: &str, b: &str) -> bool {
    // The program and its first two words that are not flags: `npx hardhat compile` and
    // `npx hardhat test` are different work.
    let key = |c: &str| {
        let part = shell_parts(without_output_trimming(c))
            .into_iter()
            .map(|p| p.trim().to_string())
            .rfind(|p| !p.is_empty() && !p.starts_with("cd "))?;
        program_key(&part)?;
        let words: Vec<&str> = part
            .split_whitespace()
            .filter(|w| !w.starts_with('-'))
            .take(3)
            .collect();
        Some(words.join(" "))
    };
    let family = |c: &str| check_family(c);
    (key(a).is_some() && key(a) == key(b)) || (family(a).is_some() && family(a) == family(b))
}

/// Whether a command that worked after `at` ran `program`.
fn ran_after(worked: &[Worked<'_>], program: &str, at: usize) -> bool {
    worked
        .iter()
        .any(|w| w.at > at && programs(w.command).iter().any(|p| base_name(p) == program))
}

fn base_name(program: &str) -> &str {
    program.rsplit(['/', '\\']).next().unwrap_or(program).trim()
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
    "pkg",
    "config",
];

/// A build, test or run: what it runs, past a `cd`, is not a look around (`grep`, `ps`,
/// `gh api`), an inline script (`python -c "…"`, one-off by nature) or a package manager
/// setting things up.
fn is_worth_repeating(command: &str) -> bool {
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
const ASKING: &[&str] = &[
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
fn status_is_masked(command: &str) -> bool {
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
fn pipeline_stages(command: &str) -> Vec<&str> {
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
fn without_output_trimming(command: &str) -> &str {
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
