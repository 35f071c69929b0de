//! Text a new user read wrong: `hooks --help` examples that paste as they are, `config`
//! errors that show numbers as numbers and blame no file for a value not written, and
//! `assemble` naming an integer an integer.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use crate::common::Sandbox;

/// Every example of `hooks --help` on an 80-column terminal is whole on its lines, and pasted
/// into a shell it runs.
#[test]
fn hooks_help_examples_paste_as_they_are() {
    let sb = Sandbox::new();
    let help = match sb.run_on_terminal(&["hooks", "--help"], 80, true) {
        Some(run) => run.stdout.replace("\r\n", "\n"),
        None => sb.run(&["hooks", "--help"], "").stdout,
    };
    let examples: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Examples:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert!(!examples.is_empty(), "{help}");
    for line in &examples {
        assert!(line.chars().count() <= 80, "wider than 80 columns: {line}");
        if line.trim_start().starts_with("echo") {
            assert!(line.ends_with("' \\"), "the JSON is cut: {line}");
        }
    }
    // The first example, pasted: the `echo … \` line and its `| ctxmon hooks …` line.
    let pasted = format!("{}\n{}", examples[0], examples[1]);
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_ctxmon"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&pasted)
        .current_dir(sb.dir())
        // As a user's shell would run it: none of this test run's own `CTXMON_*` settings.
        .env_clear()
        .env("PATH", format!("{bin}:/usr/bin:/bin"))
        .env("HOME", sb.home.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{pasted}\n{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).trim().is_empty(),
        "{pasted}\n{out:?}"
    );
}

#[test]
fn config_errors_show_numbers_as_numbers_and_blame_no_unwritten_file() {
    let sb = Sandbox::new();
    let run = sb.run(
        &["config", "set", "hooks.prompt_submit_deadline_ms", "0"],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("hooks.prompt_submit_deadline_ms = 0 "),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("\"0\""), "{}", run.stderr);
    let run = sb.run(
        &["config", "set", "context_monitor.warning_threshold", "0.9"],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("config.toml,") && !run.stderr.contains("config.toml:"),
        "a file that was not written is not where the value came from: {}",
        run.stderr
    );
    assert!(run.stderr.contains("config set"), "{}", run.stderr);
}

#[test]
fn assemble_names_an_integer_an_integer() {
    let sb = Sandbox::new();
    let run = sb.run(&["assemble"], r#"{"goal": 5}"#);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("integer `5`"), "{}", run.stderr);
    assert!(!run.stderr.contains("floating point"), "{}", run.stderr);
}
