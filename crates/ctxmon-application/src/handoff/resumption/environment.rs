//! The facts of the environment a command that worked shows: the container it ran in, the
//! database, host and port it reached, the virtualenv it used. Exact identifiers, which a
//! model's summary tends to lose and the next command needs.

use super::commands::cd_prefix;

/// The identifiers a command that worked names: its container, database, host and port,
/// virtualenv. Each value is an identifier as written, never a shell token: a redirection
/// (`2>&1`), a variable, a glob or a placeholder is not a database name.
pub(crate) fn environment_facts(command: &str) -> Vec<String> {
    raw_facts(command)
        .into_iter()
        .filter(|fact| {
            let value = fact.split_once(": ").map_or("", |(_, v)| v);
            let value = value.split(" (").next().unwrap_or(value);
            is_identifier(value)
        })
        .collect()
}

/// A value that names one thing: letters, digits and `_ . - : @ / ~ +`, not a flag, at most
/// 120 characters. Shell syntax (`>`, `&`, `|`, `$`, `*`, `<`, quotes, `` ` ``) never is.
fn is_identifier(value: &str) -> bool {
    let n = value.chars().count();
    (1..=120).contains(&n)
        && !value.starts_with('-')
        && value.chars().any(char::is_alphanumeric)
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "_.-:@/~+\\".contains(c))
}

/// The folder a `cd DIR && …` line works in, as written (a quoted path whole, spaces and
/// all): the root a summary tends to lose, and the next command needs.
fn folder_fact(command: &str) -> Option<String> {
    let (dir, _) = cd_prefix(command)?;
    (!dir.contains(['$', '`', '*'])).then(|| dir.to_string())
}

fn raw_facts(command: &str) -> Vec<String> {
    word_facts(command)
}

/// How many commands that worked must have run in a folder before it is named: a folder
/// visited once or twice is where one step happened, not where the work is.
const FOLDER_RUNS: usize = 3;

/// The folder the session's commands work in: the one most commands that worked went to with
/// `cd DIR && …` (the newer on a tie), when at least [`FOLDER_RUNS`] did.
pub(crate) fn working_folder<'a>(commands: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(String, usize, usize)> = Vec::new();
    for (i, command) in commands.enumerate() {
        let Some(fact) = folder_fact(command) else {
            continue;
        };
        match counts.iter_mut().find(|(f, _, _)| *f == fact) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 = i;
            }
            None => counts.push((fact, 1, i)),
        }
    }
    counts
        .into_iter()
        // A folder may have spaces in its name; nothing else may.
        .filter(|(dir, n, _)| *n >= FOLDER_RUNS && is_identifier(&dir.replace(' ', "_")))
        .max_by_key(|(_, n, last)| (*n, *last))
        .map(|(dir, _, _)| format!("working folder: {dir}"))
}

fn word_facts(command: &str) -> Vec<String> {
    let words: Vec<&str> = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'', ';', ')', '(']))
        .collect();
    let mut facts = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied();
        let after_flags = |from: usize, with_value: &[&str]| -> Option<&str> {
            let mut k = from;
            while let Some(x) = words.get(k) {
                if x.starts_with('-') {
                    k += if with_value.contains(x) { 2 } else { 1 };
                } else {
                    return Some(*x);
                }
            }
            None
        };
        match *w {
            "docker" | "podman" => {
                if let Some(sub) = next
                    && matches!(
                        sub,
                        "exec" | "logs" | "restart" | "stop" | "start" | "inspect" | "attach"
                    )
                    && let Some(name) = after_flags(
                        i + 2,
                        &[
                            "-e",
                            "-u",
                            "-w",
                            "--env",
                            "--user",
                            "--workdir",
                            "--tail",
                            "-n",
                        ],
                    )
                {
                    facts.push(format!("container: {name} ({w} {sub})"));
                }
            }
            "--name" | "--container-name" => {
                if let Some(name) = next {
                    facts.push(format!("container: {name}"));
                }
            }
            "psql" | "mysql" | "mariadb" | "redis-cli" | "mongosh" | "pg_dump" | "sqlite3" => {
                facts.extend(database_facts(w, &words[i + 1..]));
            }
            "ssh" | "scp" | "rsync" => {
                if let Some(host) = after_flags(i + 1, &["-p", "-i", "-l", "-o", "-P", "-e"])
                    && host.contains('@')
                {
                    facts.push(format!("host: {host}"));
                }
            }
            "conda" | "workon" | "pyenv" => {
                let name = if *w == "workon" {
                    next
                } else {
                    next.filter(|n| *n == "activate" || *n == "shell")
                        .and(words.get(i + 2).copied())
                };
                if let Some(env) = name {
                    facts.push(format!("virtualenv: {env}"));
                }
            }
            _ => {}
        }
        if let Some(venv) = w.strip_suffix("/bin/activate") {
            facts.push(format!(
                "virtualenv: {}",
                if venv.is_empty() { "." } else { venv }
            ));
        } else if let Some(at) = w.find("/bin/python") {
            facts.push(format!("virtualenv: {}", &w[..at]));
        }
        for scheme in [
            "http://",
            "https://",
            "postgres://",
            "postgresql://",
            "mysql://",
            "redis://",
            "mongodb://",
        ] {
            if let Some(rest) = w.split(scheme).nth(1) {
                let authority = rest.split('/').next().unwrap_or("");
                let host = authority.rsplit('@').next().unwrap_or(authority);
                if host.contains(':') || host.starts_with("localhost") || host.starts_with("127.") {
                    facts.push(format!("host: {host}"));
                }
            }
        }
    }
    facts
}

/// `-h host -p port -d db` (and the forms with `=`) of a database client, and a last bare
/// argument as the database.
fn database_facts(client: &str, args: &[&str]) -> Vec<String> {
    let mut host = None;
    let mut port = None;
    let mut db = None;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        let value = args.get(k + 1).copied();
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (*a, None),
        };
        let given = inline.or(value);
        match flag {
            "-h" | "--host" => host = given,
            "-p" if client != "mysql" && client != "mariadb" => port = given,
            "-P" | "--port" => port = given,
            "-d" | "--dbname" | "-D" | "--database" => db = given,
            _ if !a.starts_with('-')
                && k + 1 == args.len()
                && db.is_none()
                && !a.contains("://") =>
            {
                db = Some(*a);
            }
            _ => {}
        }
        k += if inline.is_none()
            && matches!(
                flag,
                "-h" | "--host"
                    | "-p"
                    | "-P"
                    | "--port"
                    | "-d"
                    | "--dbname"
                    | "-D"
                    | "--database"
                    | "-U"
                    | "-u"
                    | "--user"
            ) {
            2
        } else {
            1
        };
    }
    let mut facts = Vec::new();
    if let Some(db) = db.filter(|d| !d.is_empty() && !d.starts_with('<')) {
        facts.push(format!("database: {db} ({client})"));
    }
    match (host, port) {
        (Some(h), Some(p)) => facts.push(format!("host: {h}:{p}")),
        (Some(h), None) => facts.push(format!("host: {h}")),
        (None, Some(p)) => facts.push(format!("port: {p}")),
        (None, None) => {}
    }
    facts
}
