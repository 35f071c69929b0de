//! What a shell command is, as far as a handoff cares: the parts of a shell line, the program
//! it runs (to tell whether a later success ran the same thing), whether it tests or builds
//! and which kind of check it is. Pure string rules, shared by the failure's resolution and
//! the commands that worked.

/// The kind of test or build a command runs, as `tool verb` ("cargo test", "npm run build",
/// "pytest"): a passing run of the same kind resolves a failed one, whatever its arguments.
pub(crate) fn check_family(command: &str) -> Option<String> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    // A runner that is a check on its own (`pytest`), wherever it stands (`uv run pytest`).
    if let Some(alone) = words.iter().find(|w| is_check(w)) {
        return Some(base(alone).to_string());
    }
    words.iter().enumerate().find_map(|(i, w)| {
        let tool = base(w);
        if !TOOL_WORDS.contains(&tool) {
            return None;
        }
        let verb = words
            .iter()
            .skip(i + 1)
            .take(3)
            .find(|v| CHECK_VERBS.iter().any(|verb| v.starts_with(verb)))?;
        Some(format!("{tool} {verb}"))
    })
}

/// Programs whose first argument says what they do (`cargo build`, `python app.py`,
/// `docker exec`): the program alone would call different work the same.
const WITH_SUBCOMMAND: &[&str] = &[
    "cargo",
    "go",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "bun",
    "deno",
    "dotnet",
    "swift",
    "mix",
    "uv",
    "poetry",
    "pip",
    "pip3",
    "git",
    "gh",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "aws",
    "gcloud",
    "az",
    "systemctl",
    "brew",
    "apt",
    "apt-get",
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
    "java",
    "pwsh",
    "powershell",
    "make",
    "bundle",
    "rails",
    "rake",
    "composer",
    "mvn",
    "gradle",
    "./gradlew",
];

/// What a shell command runs, to say whether a later success ran the same thing: its last
/// part that is not `cd`, `echo` and the like, as the program and (for the programs above)
/// its first argument. A success of `tool x` after a failure of `cd /tmp && tool` resolves it.
pub(crate) fn program_key(command: &str) -> Option<String> {
    const AROUND: &[&str] = &[
        "cd", "echo", "export", "set", "source", ".", "sleep", "true", "head", "tail", "grep",
        "tee", "cat", "sort", "wc", "timeout", "sudo", "env", "time",
    ];
    let parts = shell_parts(command);
    let part = parts.iter().map(|p| p.trim()).rfind(|p| {
        p.split_whitespace()
            .next()
            .is_some_and(|w| !AROUND.contains(&base(w)) && !w.contains('='))
    })?;
    let mut words = part.split_whitespace();
    let program = base(words.next()?);
    if !WITH_SUBCOMMAND.contains(&program) {
        return Some(program.to_string());
    }
    let arg = words.find(|w| !w.starts_with('-'));
    Some(match arg {
        Some(a) => format!("{program} {a}"),
        None => program.to_string(),
    })
}

/// The parts of a shell line that each run a program: split at `&&`, `||`, `;`, `|`, `&` and
/// line breaks, redirections such as `2>&1` kept whole.
pub(crate) fn shell_parts(command: &str) -> Vec<String> {
    command
        .replace(">&", ">")
        .replace("&>", ">")
        .split(['&', ';', '|', '\n'])
        .map(str::to_string)
        .collect()
}

pub(crate) fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Tools that take a verb (`cargo test`); the others are checks on their own (`pytest`).
const TOOL_WORDS: &[&str] = &[
    "cargo", "go", "npm", "yarn", "pnpm", "bun", "dotnet", "swift", "mix", "deno", "uv", "poetry",
    "xtask",
];

/// Verbs of [`TOOL_WORDS`] that test or build.
const CHECK_VERBS: &[&str] = &[
    "test",
    "build",
    "check",
    "clippy",
    "nextest",
    "vet",
    "lint",
    "typecheck",
    "ci",
];

/// A command that tests or builds: its outcome is worth a line of its own.
pub(crate) fn is_check(command: &str) -> bool {
    const ALONE: &[&str] = &[
        "pytest",
        "jest",
        "vitest",
        "tsc",
        "make",
        "mvn",
        "gradle",
        "./gradlew",
        "ctest",
        "tox",
        "nox",
        "rspec",
        "phpunit",
        "mocha",
    ];
    const TOOLS: &[&str] = TOOL_WORDS;
    const VERBS: &[&str] = CHECK_VERBS;
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        let base = w.rsplit('/').next().unwrap_or(w);
        ALONE.contains(&base)
            || (TOOLS.contains(&base)
                && words
                    .iter()
                    .skip(i + 1)
                    .take(3)
                    .any(|v| VERBS.iter().any(|verb| v.starts_with(verb))))
    })
}

/// The folder of a line that starts `cd DIR && …` (a quoted folder whole, spaces and all),
/// and the rest of the line after the `&&`.
pub(crate) fn cd_prefix(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix("cd ")?.trim_start();
    let (dir, after) = match rest.chars().next()? {
        q @ ('"' | '\'') => {
            let end = rest[1..].find(q)? + 1;
            (&rest[1..end], &rest[end + 1..])
        }
        _ => rest.split_at(rest.find(char::is_whitespace)?),
    };
    let after = after.trim_start().strip_prefix("&&")?;
    (!dir.is_empty()).then_some((dir, after.trim_start()))
}

/// The words of a command that run programs: each `&&`, `;` or `|` part's first word, past
/// variable assignments and wrappers such as `sudo` or `timeout 60`.
pub(super) fn programs(command: &str) -> Vec<String> {
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

pub(super) fn base_name(program: &str) -> &str {
    program.rsplit(['/', '\\']).next().unwrap_or(program).trim()
}

pub(super) fn program_of(command: &str) -> Option<String> {
    programs(command).into_iter().next()
}
