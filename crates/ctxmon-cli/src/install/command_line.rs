//! Hook command lines: how ctxmon writes its own (`/abs/ctxmon hooks prompt-submit`) and how it
//! recognises one it wrote earlier, perhaps for a binary that has since moved.
//!
//! Claude Code runs a hook's `command` through a shell, so a binary path with spaces or quotes
//! must be quoted; recognition undoes that quoting for the first word only.

/// Characters that never need quoting in a POSIX shell word.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c)
}

/// `path` as one shell word: as is when safe, else single-quoted.
pub fn shell_word(path: &str) -> String {
    if !path.is_empty() && path.chars().all(is_plain) {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// Splits off the first shell word (quotes and backslashes removed) and returns it with the
/// rest of the line.
fn first_word(line: &str) -> Option<(String, &str)> {
    let line = line.trim_start();
    let mut word = String::new();
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    (_, '\'') => break,
                    (_, c) => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    (_, '"') => break,
                    (_, '\\') => word.push(chars.next()?.1),
                    (_, c) => word.push(c),
                }
            },
            '\\' => word.push(chars.next()?.1),
            c if c.is_whitespace() => return Some((word, &line[i..])),
            c => word.push(c),
        }
    }
    Some((word, ""))
}

/// The program (quoting undone) and arguments of `command` when its program is a binary named
/// `ctxmon` — or named like the binary running now, so that a renamed copy (`ctxmon-dev`)
/// recognises what it installed — wherever it lives; `doctor` needs the program to check that
/// it still exists.
pub fn ctxmon_command(command: &str) -> Option<(String, Vec<&str>)> {
    let (program, rest) = first_word(command)?;
    let name = program.rsplit('/').next().unwrap_or_default();
    let is_ctxmon = matches!(name, "ctxmon" | "ctxmon.exe") || Some(name) == running_name();
    is_ctxmon.then(|| (program, rest.split_whitespace().collect()))
}

/// The file name of the running binary, read once.
fn running_name() -> Option<&'static str> {
    static NAME: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        std::env::current_exe()
            .ok()?
            .file_name()?
            .to_str()
            .map(str::to_owned)
    })
    .as_deref()
}

/// The arguments of `command` when its program is a binary named `ctxmon`, wherever it lives.
pub fn ctxmon_args(command: &str) -> Option<Vec<&str>> {
    ctxmon_command(command).map(|(_, args)| args)
}

/// True when `command` runs `ctxmon hooks <hook>` (any binary path).
pub fn is_ctxmon_hook(command: &str, hook: &str) -> bool {
    ctxmon_args(command).is_some_and(|args| args == ["hooks", hook])
}

/// True when `command` runs `ctxmon statusline` (any binary path), with or without flags such
/// as `--format`: the user's shape of ctxmon's line is still ctxmon's line.
pub fn is_ctxmon_statusline(command: &str) -> bool {
    ctxmon_args(command).is_some_and(|args| args.first() == Some(&"statusline"))
}

/// What follows the program in a ctxmon command line, verbatim (quoting kept): ` statusline
/// --format '{percent}'`. Install re-points a status line at another binary with this, so the
/// user's flags stay as they wrote them.
pub fn after_program(command: &str) -> Option<&str> {
    ctxmon_command(command)?;
    first_word(command).map(|(_, rest)| rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_stay_plain_and_others_are_quoted() {
        assert_eq!(
            shell_word("/home/u/.cargo/bin/ctxmon"),
            "/home/u/.cargo/bin/ctxmon"
        );
        assert_eq!(
            shell_word("/Users/a b/it's/ctxmon"),
            r"'/Users/a b/it'\''s/ctxmon'"
        );
    }

    #[test]
    fn recognises_ctxmon_wherever_it_lives() {
        for command in [
            "/old/bin/ctxmon hooks prompt-submit",
            "ctxmon  hooks prompt-submit",
            "'/Users/a b/ctxmon' hooks prompt-submit",
            r"'/Users/a b/it'\''s/ctxmon' hooks prompt-submit",
            "\"/x y/ctxmon\" hooks prompt-submit",
            r"/x\ y/ctxmon hooks prompt-submit",
            "/opt/ctxmon.exe hooks prompt-submit",
        ] {
            assert!(is_ctxmon_hook(command, "prompt-submit"), "{command}");
        }
        for command in [
            "/bin/notctxmon hooks prompt-submit",
            "ctxmon hooks session-start",
            "ctxmon --json hooks prompt-submit",
            "ctxmon hooks prompt-submit --extra",
            "FOO=1 ctxmon hooks prompt-submit",
            "'unterminated/ctxmon hooks prompt-submit",
            "",
        ] {
            assert!(!is_ctxmon_hook(command, "prompt-submit"), "{command}");
        }
        assert!(is_ctxmon_statusline("/a/ctxmon statusline"));
        assert!(is_ctxmon_statusline(
            "ctxmon statusline --format '{percent}'"
        ));
        assert!(!is_ctxmon_statusline("npx ccusage statusline"));
        assert!(!is_ctxmon_statusline("ctxmon status"));
        assert_eq!(
            after_program("'/a b/ctxmon' statusline --format '{percent} {bar}'"),
            Some(" statusline --format '{percent} {bar}'")
        );
        assert_eq!(after_program("npx ccusage statusline"), None);
    }

    #[test]
    fn what_ctxmon_writes_it_recognises() {
        let path = r#"/tmp/we "ird" $dir/ctxmon"#;
        let command = format!("{} hooks pre-compact", shell_word(path));
        assert!(is_ctxmon_hook(&command, "pre-compact"));
    }
}
