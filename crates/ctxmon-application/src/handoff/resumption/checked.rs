//! What a command that worked is worth after the fact. A command's exit status says only that
//! it ran: an in-place replace over many files exits 0 and can wipe them, a script can be
//! deleted a turn later, a user can answer "you broke it". So a command is handed back only
//! when what happened after it does not contradict it, and only its latest of each kind.
//! Pure string rules over the tail's records.

use super::commands::{base, cd_prefix, check_family, is_check, shell_parts};

/// What a command is for: a hand-back keeps the latest of each, so three builds never push
/// the one database command out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CommandKind {
    Build,
    Test,
    Deploy,
    Database,
    Run,
}

/// The kind of a command worth repeating.
pub(crate) fn command_kind(command: &str) -> CommandKind {
    let lower = command.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '"'))
        .filter(|w| !w.is_empty())
        .map(base)
        .collect();
    const DATABASE: &[&str] = &[
        "psql",
        "mysql",
        "mariadb",
        "sqlite3",
        "mongosh",
        "mongo",
        "redis-cli",
        "pg_dump",
        "pg_restore",
        "sqlcmd",
        "duckdb",
    ];
    if words.iter().any(|w| DATABASE.contains(w)) {
        return CommandKind::Database;
    }
    let deploys = words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).copied().unwrap_or("");
        w.contains("deploy")
            || (*w == "kubectl" && matches!(next, "apply" | "rollout" | "set"))
            || (*w == "terraform" && next == "apply")
            || (*w == "helm" && matches!(next, "install" | "upgrade"))
            || (matches!(*w, "docker" | "podman") && next == "push")
            || matches!(*w, "vercel" | "netlify" | "firebase" | "wrangler")
    });
    if deploys {
        return CommandKind::Deploy;
    }
    const LINTERS: &[&str] = &[
        "ruff",
        "eslint",
        "mypy",
        "flake8",
        "pylint",
        "black",
        "prettier",
        "tsc",
        "golangci-lint",
        "shellcheck",
        "rubocop",
        "biome",
    ];
    if words.iter().any(|w| LINTERS.contains(w)) {
        return CommandKind::Build;
    }
    match check_family(command) {
        Some(f) if f.contains("test") || TEST_RUNNERS.contains(&f.as_str()) => CommandKind::Test,
        Some(_) => CommandKind::Build,
        None if is_check(command) => CommandKind::Build,
        None => CommandKind::Run,
    }
}

const TEST_RUNNERS: &[&str] = &[
    "pytest", "jest", "vitest", "ctest", "tox", "nox", "rspec", "phpunit", "mocha",
];

/// A command that rewrites or deletes files in place, whatever its exit status: running it
/// again is never the safe next step, and "it worked" says nothing about what it left.
pub(crate) fn rewrites_in_place(command: &str) -> bool {
    let lower = command.to_lowercase();
    // PowerShell's read-replace-write over files (`(Get-Content f) -replace … | Set-Content f`)
    // and its removal and copy-over verbs.
    let powershell = (lower.contains("-replace") && lower.contains("set-content"))
        || lower.contains("remove-item")
        || lower.contains("clear-content")
        || (lower.contains("out-file") && lower.contains("get-content"));
    let sql = [
        "drop table",
        "drop database",
        "drop schema",
        "truncate ",
        "delete from",
    ]
    .iter()
    .any(|w| lower.contains(w));
    powershell
        || sql
        || shell_parts(&lower).iter().any(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            let Some(at) = words.iter().position(|w| !is_wrapper(w)) else {
                return false;
            };
            let program = base(words[at]);
            let args = &words[at + 1..];
            let has = |flag: &str| args.iter().any(|a| *a == flag || a.starts_with(flag));
            match program {
                "rm" | "rmdir" | "del" | "erase" | "rd" | "shred" | "unlink" | "truncate" => true,
                "sed" | "perl" => has("-i") || args.iter().any(|a| a.starts_with("-pi")),
                "git" => {
                    let sub = args.iter().find(|a| !a.starts_with('-')).copied();
                    match sub {
                        Some("reset") => has("--hard"),
                        Some("checkout") => args.contains(&"--") || args.contains(&"."),
                        Some("restore" | "clean" | "rm") => true,
                        Some("stash") => !args.contains(&"list") && !args.contains(&"show"),
                        _ => false,
                    }
                }
                "find" => has("-delete") || args.windows(2).any(|w| w == ["-exec", "rm"]),
                _ => false,
            }
        })
}

/// A later step that puts back what earlier commands wrote: after it, a command that "worked"
/// before may be the reason it was needed.
pub(crate) fn restores_files(command: &str) -> bool {
    let lower = command.to_lowercase();
    let restore_git = shell_parts(&lower).iter().any(|part| {
        let mut words = part.split_whitespace().skip_while(|w| is_wrapper(w));
        words.next().map(base) == Some("git")
            && words.find(|w| !w.starts_with('-')).is_some_and(|sub| {
                matches!(sub, "restore" | "stash")
                    || (sub == "checkout" && part.contains(" -- "))
                    || (sub == "reset" && part.contains("--hard"))
            })
    });
    let from_backup =
        (lower.contains("backup") || lower.contains(".bak") || lower.contains(".orig"))
            && ["cp ", "copy-item", "copy ", "mv ", "move-item", "restore"]
                .iter()
                .any(|w| lower.contains(w));
    restore_git || from_backup
}

/// The script file a command runs (`python x.py`, `node scripts/a.js`, `bash run.sh`,
/// `./deploy.sh`, `pwsh -File x.ps1`), as written: it is shown again only while that file is
/// still there.
pub(crate) fn script_file(command: &str) -> Option<String> {
    const INTERPRETERS: &[&str] = &[
        "python",
        "python3",
        "py",
        "node",
        "bash",
        "sh",
        "zsh",
        "ruby",
        "perl",
        "php",
        "pwsh",
        "powershell",
        "deno",
        "bun",
        "tsx",
        "ts-node",
        "rscript",
        "uv",
        "poetry",
    ];
    const SCRIPT_EXTENSIONS: &[&str] = &[
        ".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".bash", ".ps1", ".rb", ".pl", ".php", ".r",
    ];
    for part in shell_parts(command) {
        let words: Vec<&str> = part
            .split_whitespace()
            .map(|w| w.trim_matches(['"', '\'']))
            .collect();
        let Some(at) = words.iter().position(|w| !is_wrapper(w)) else {
            continue;
        };
        let first = words[at];
        let is_script = |w: &str| {
            let lower = w.to_lowercase();
            SCRIPT_EXTENSIONS.iter().any(|e| lower.ends_with(e)) && !w.starts_with('-')
        };
        // `./run.sh` runs a script by its own name.
        if is_script(first) && (first.starts_with("./") || first.starts_with('/')) {
            return Some(first.to_string());
        }
        if INTERPRETERS.contains(&base(first).to_lowercase().as_str()) {
            let script = words[at + 1..]
                .iter()
                .take_while(|w| !matches!(**w, "-c" | "-e" | "-m" | "-Command" | "-command"))
                .find(|w| is_script(w));
            if let Some(s) = script {
                return Some((*s).to_string());
            }
        }
    }
    None
}

/// The script a shown command line runs and the folder it runs from (`cd DIR && python x.py`
/// as a hand-back shows a command run elsewhere): the hand-back names the line only while that
/// script is still a file.
pub fn script_of_line(line: &str) -> Option<(Option<String>, String)> {
    let script = script_file(line)?;
    let dir = cd_prefix(line).map(|(dir, _)| dir.to_string());
    Some((dir, script))
}

/// Words a user writes when a step broke something ("you wiped the files", "it's empty now",
/// "revert that", "se borró", "全没了").
pub(crate) fn reports_breakage(request: &str) -> bool {
    const BROKE: &[&str] = &[
        "broke",
        "broken",
        "wiped",
        "erased",
        "deleted everything",
        "all gone",
        "are gone",
        "is gone",
        "are empty",
        "is empty",
        "now empty",
        "blank now",
        "lost my",
        "lost all",
        "corrupt",
        "revert",
        "undo",
        "roll back",
        "rollback",
        "restore",
        "messed up",
        "destroyed",
        "overwrote",
        "overwritten",
        "didn't work",
        "did not work",
        "doesn't work",
        "does not work",
        "not working",
        "stopped working",
        "rompiste",
        "borraste",
        "se borró",
        "se borraron",
        "está vacío",
        "están vacíos",
        "no funciona",
        "deshaz",
        "revierte",
        "can't hear",
        "cannot hear",
        "can't see",
        "nothing happens",
        "nothing happened",
        "no sound",
        "still not",
        "still doesn't",
        "still no ",
        "funktioniert nicht",
        "funktioniert immer noch nicht",
        "geht nicht",
        "kaputt",
        "nichts hören",
        "höre nichts",
        "nichts zu hören",
        "gelöscht",
        "ist leer",
        "sind leer",
        "rückgängig",
        "ne marche pas",
        "marche plus",
        "cassé",
        "supprimé",
        "坏了",
        "删了",
        "没了",
        "清空",
        "不工作",
        "不能用",
        "恢复",
        "撤销",
    ];
    let lower = request.to_lowercase();
    BROKE.iter().any(|w| lower.contains(w))
}

/// Why a failed command could not run as written (not found, not a TTY, a bad path or
/// option, a quoting error): the failures a variant of the same command then fixes, which is
/// worth saying as "use X, not Y". A test that fails is not one: its fix is in the code.
pub(crate) fn invocation_error(output: &str) -> Option<String> {
    const MARKS: &[&str] = &[
        "command not found",
        "is not recognized as",
        "not a tty",
        "no such file or directory",
        "cannot find the path",
        "cannot find path",
        "could not find a part of the path",
        "the system cannot find",
        "syntax error",
        "unexpected token",
        "parsererror",
        "unknown option",
        "unrecognized option",
        "unrecognized arguments",
        "invalid option",
        "unknown flag",
        "unknown command",
        "no such container",
        "is not running",
        "permission denied",
        "access is denied",
        "does not exist",
        "unable to find",
        "missing argument",
        "positional parameter cannot be found",
        "no such option",
    ];
    output.lines().find_map(|line| {
        let lower = line.to_lowercase();
        MARKS
            .iter()
            .any(|m| lower.contains(m))
            .then(|| line.trim().chars().take(120).collect())
    })
}

/// Whether `worked` is a variant of `failed`: the same program (or one of its family: `py`
/// for `python3`) with most of its words the same, so it did what the failed one meant to.
pub(crate) fn is_variant(failed: &str, worked: &str) -> bool {
    if failed.trim() == worked.trim() {
        return false;
    }
    let words = |c: &str| -> Vec<String> {
        c.split(|ch: char| ch.is_whitespace() || matches!(ch, '"' | '\'' | '`'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (f, w) = (words(failed), words(worked));
    let (Some(pf), Some(pw)) = (f.first(), w.first()) else {
        return false;
    };
    let family = |p: &str| -> String {
        let b = base(p).trim_end_matches(".exe").to_string();
        match b.as_str() {
            "python" | "python3" | "py" | "python3.exe" => "python".into(),
            "docker-compose" => "docker".into(),
            "pwsh" | "powershell" => "powershell".into(),
            _ => b,
        }
    };
    if family(pf) != family(pw) {
        return false;
    }
    let shared = f.iter().skip(1).filter(|x| w.contains(x)).count();
    let longest = f.len().max(w.len()).saturating_sub(1).max(1);
    // Half the arguments in common: the same work, written another way.
    shared * 2 >= longest
}

fn is_wrapper(word: &str) -> bool {
    matches!(
        word,
        "sudo" | "time" | "nohup" | "exec" | "env" | "command" | "timeout"
    ) || (word.contains('=') && !word.starts_with('-'))
        || word.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
#[path = "checked_tests.rs"]
mod tests;
