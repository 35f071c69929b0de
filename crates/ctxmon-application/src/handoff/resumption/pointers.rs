//! Pointers for the next step: the files it needs (named in the newest request and in the
//! assistant's statement of intent), the files edited in the newest turns and those the
//! session created, the last commands that worked, and the facts of the environment those
//! commands show (a container, a database, a host and port, a virtualenv; a tool that failed
//! as unusable and what worked instead). Exact strings, as the transcript has them: a model's
//! summary loses exactly these.

use std::collections::{HashMap, HashSet};

use super::checked::{
    invocation_error, is_variant, reports_breakage, restores_files, rewrites_in_place, script_file,
};
use super::commands::{base_name, program_of, programs};
use super::environment::{environment_facts, working_folder};
use super::http_answer::error_answer;
use super::lesson::lesson;
use super::text::{cut, dedup_keep_last, path_str, push_newest};
use super::worked::{LOOKING, WorkKey, Worked, commands_that_worked, turn_starts};
use crate::ports::{RecordBody, ToolCall, ToolKind, ToolResult, TranscriptRecord};
use ctxmon_domain::LineRange;

/// The most environment facts kept.
pub const ENVIRONMENT_FACTS: usize = 6;
/// The most lessons kept.
pub const LESSONS: usize = 3;
/// Longest command in a lesson.
const LESSON_CHARS: usize = 200;
/// Longest HTTP answer quoted as why a request failed.
const WHY_CHARS: usize = 120;
/// The most files of each pointer list kept.
const FILES: usize = 20;
/// The most files only read kept: the newest few are where the work is.
const FILES_READ: usize = 5;
/// Of the commands that worked and that failed, about the newest this many are kept while the
/// records are walked ([`push_newest`]): each is compared with the others, so a tail of
/// thousands of commands would cost time growing with the square of their number, while what
/// is shown is the latest of each kind.
const MAX_SEEN: usize = 128;
/// The same for what few commands give: programs not found, invocations that misfired, lessons.
const MAX_SEEN_RARE: usize = 16;

/// What the newest turns pointed at, derived once from the tail's records.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pointers {
    pub files_next: Vec<String>,
    pub files_recent: Vec<String>,
    pub files_read: Vec<String>,
    pub line_ranges: Vec<LineRange>,
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
    // Files only read come after those edited: the newest few, not every file looked at.
    let mut files_read = seen.read;
    files_read.reverse();
    let mut once = HashSet::new();
    files_read
        .retain(|p| once.insert(p.clone()) && !files_next.contains(p) && !files_recent.contains(p));
    files_read.truncate(FILES_READ);
    let listed =
        |p: &String| files_next.contains(p) || files_recent.contains(p) || files_read.contains(p);
    let line_ranges: Vec<LineRange> = seen
        .ranges
        .into_iter()
        .filter(|r| listed(&r.path))
        .collect();
    Pointers {
        files_next,
        files_recent,
        files_read,
        line_ranges,
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
    /// Files read in the last two turns.
    read: Vec<String>,
    /// The lines each file's newest read or edit showed, in the last two turns.
    ranges: Vec<LineRange>,
    /// Shell commands that worked, with the folder they ran in and where they stand.
    worked: Vec<Worked<'a>>,
    /// Shell commands that could not run as written, with why and where they stand.
    misfired: Vec<Misfired<'a>>,
    /// Where the newest shell command stands.
    last_shell: Option<usize>,
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

/// A shell command that could not run as written.
#[derive(Debug)]
struct Misfired<'a> {
    command: &'a str,
    /// What said so: the error line, or the HTTP answer.
    why: String,
    at: usize,
    /// A request the server refused: only the very next shell command can be its fix (a
    /// request sent again after a restart worked because of the restart, not its wording).
    next_only: bool,
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
                if i >= recent_from
                    && succeeded(result)
                    && let Some(path) = path.clone()
                {
                    if call.kind != ToolKind::FileWrite && result.lines.is_some() {
                        seen.read.push(path.clone());
                    }
                    if let Some((first, last)) = result.lines {
                        seen.ranges.push(LineRange { path, first, last });
                    }
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
    // Each file's newest range only, where its newest read or edit stands.
    let mut once = HashSet::new();
    seen.ranges.reverse();
    seen.ranges.retain(|r| once.insert(r.path.clone()));
    seen.ranges.reverse();
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
        let previous = self.last_shell.replace(i);
        let refused = error_answer(command, &result.text);
        if succeeded(result) && refused.is_none() {
            push_newest(
                &mut self.worked,
                Worked {
                    command,
                    cwd,
                    at: i,
                },
                MAX_SEEN,
            );
            if restores_files(command) {
                self.restores.push(i);
            }
            if self.learn_from(i, command, previous) {
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
            push_newest(&mut self.failed, (command, i), MAX_SEEN);
            if let Some(missing) = unusable_program(command, &result.text) {
                push_newest(&mut self.unusable, (missing, i), MAX_SEEN_RARE);
            }
            let why = invocation_error(&result.text)
                .map(|why| (why, false))
                .or_else(|| refused.map(|answer| (cut(answer, WHY_CHARS), true)));
            if let Some((why, next_only)) = why {
                let misfired = Misfired {
                    command,
                    why,
                    at: i,
                    next_only,
                };
                push_newest(&mut self.misfired, misfired, MAX_SEEN_RARE);
            }
        }
    }

    /// A command that worked after a variant of it could not run, with no file written in
    /// between (else the fix was the edit, not the command): "use X, not Y". True when it
    /// taught one.
    fn learn_from(&mut self, i: usize, command: &str, previous: Option<usize>) -> bool {
        // `writes` is in record order: the first after `f` says whether one came before `i`.
        let Some(at) = self.misfired.iter().rposition(|m| {
            let next_write = self.writes.partition_point(|w| *w <= m.at);
            self.writes.get(next_write).is_none_or(|w| *w >= i)
                && (!m.next_only || previous == Some(m.at))
                && is_variant(m.command, command)
        }) else {
            return false;
        };
        let Misfired {
            command: failed,
            why,
            ..
        } = self.misfired.remove(at);
        // The lesson says it better than "python3 is not usable here".
        self.unusable.retain(|(m, _)| !failed.contains(m.as_str()));
        let Some(text) = lesson(command, failed, &why, LESSON_CHARS) else {
            return false;
        };
        let missing = unusable_program(failed, &why);
        push_newest(&mut self.lessons, (text, missing, i), MAX_SEEN_RARE);
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
    // Each list once, not once per command: the comparisons are of keys worked out here.
    let removals: Vec<&Worked<'_>> = seen
        .worked
        .iter()
        .filter(|x| rewrites_in_place(x.command))
        .collect();
    let later_removal = |w: &Worked<'_>| {
        script_file(w.command).is_some_and(|script| {
            let name = file_name(&script).unwrap_or(&script).to_string();
            removals
                .iter()
                .any(|x| x.at > w.at && x.command.contains(&name))
        })
    };
    let failed: Vec<(WorkKey, usize)> = seen
        .failed
        .iter()
        .filter(|(_, at)| seen.worked.first().is_some_and(|w| w.at < *at))
        .map(|(f, at)| (WorkKey::of(f), *at))
        .collect();
    // Both lists are in record order: their last entry is the newest.
    let last_restore = seen.restores.last().copied();
    let last_breakage = seen.breakage.last().copied();
    seen.worked
        .iter()
        .filter(|w| !rewrites_in_place(w.command))
        // A later run of the same thing failed: it does not work now.
        .filter(|w| {
            let later: Vec<&WorkKey> = failed
                .iter()
                .filter(|(_, at)| *at > w.at)
                .map(|(f, _)| f)
                .collect();
            later.is_empty() || {
                let key = WorkKey::of(w.command);
                !later.iter().any(|f| f.same(&key))
            }
        })
        .filter(|w| last_restore.is_none_or(|r| r <= w.at))
        .filter(|w| last_breakage.is_none_or(|b| b <= w.at))
        .filter(|w| !later_removal(w))
        .copied()
        .collect()
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

fn succeeded(result: &ToolResult) -> bool {
    !result.is_error && result.rejected.is_none() && result.exit_code.is_none_or(|c| c == 0)
}

/// Whether a command that worked after `at` ran `program`.
fn ran_after(worked: &[Worked<'_>], program: &str, at: usize) -> bool {
    worked
        .iter()
        .any(|w| w.at > at && programs(w.command).iter().any(|p| base_name(p) == program))
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
