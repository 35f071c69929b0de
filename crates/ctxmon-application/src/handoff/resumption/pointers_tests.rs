//! Files for the next step, commands that worked, environment facts.

use super::*;
use crate::fakes::records::{request, result, result_record, shell, write};
use crate::ports::ToolResult;

fn failed(id: &str, text: &str) -> TranscriptRecord {
    result_record(ToolResult {
        exit_code: Some(127),
        ..result(id, true, text)
    })
}

#[test]
fn files_named_for_the_next_step_come_from_the_session_and_the_text() {
    let refused = result_record(ToolResult {
        rejected: Some(None),
        ..result(
            "w",
            true,
            "The user doesn't want to proceed with this tool use.",
        )
    });
    let done = || result_record(result("w", false, ""));
    let records = [
        request("Set up the parser"),
        write("Edit", "/w/app/src/old.rs"),
        request("Make the parser strict"),
        write("Edit", "/w/app/README.md"),
        done(),
        write("Edit", "/w/app/src/parser.rs"),
        done(),
        write("Write", "/w/app/src/refused.rs"),
        refused,
        request("Now update the README"),
    ];
    let p = pointers(&records, &["Now update the README and docs/usage.md"]);
    assert_eq!(p.files_next, ["/w/app/README.md", "docs/usage.md"]);
    // Edits of the last turns, newest first; not those of earlier work, nor a named one again,
    // nor a write the user refused.
    assert_eq!(p.files_recent, ["/w/app/src/parser.rs"]);
    // Versions and abbreviations are not files.
    let p = pointers(&[], &["bump to v2.0, e.g. like 1.5"]);
    assert!(p.files_next.is_empty(), "{:?}", p.files_next);
}

#[test]
fn commands_that_worked_skip_looking_around_and_inline_scripts() {
    let ok = |id: &str| result_record(result(id, false, ""));
    let p = pointers(
        &[
            shell("1", "ls -la"),
            ok("1"),
            shell("2", "cargo test -p billing"),
            ok("2"),
            shell("3", "python -c \"\nimport x\nprint(x)\""),
            ok("3"),
            shell("4", "docker exec -it pg_main psql -U app -d shop_dev"),
            ok("4"),
        ],
        &[],
    );
    assert_eq!(
        p.commands_ok,
        [
            "docker exec -it pg_main psql -U app -d shop_dev",
            "cargo test -p billing"
        ]
    );
    assert!(
        p.environment
            .contains(&"container: pg_main (docker exec)".to_string())
    );
    assert!(
        p.environment
            .contains(&"database: shop_dev (psql)".to_string())
    );
}

#[test]
fn a_runtime_that_is_not_there_and_the_one_that_worked() {
    let p = pointers(
        &[
            shell("1", "python manage.py migrate"),
            failed("1", "bash: python: command not found"),
            shell("2", "python3 manage.py migrate"),
            result_record(result("2", false, "")),
        ],
        &[],
    );
    assert_eq!(
        p.lessons,
        [
            "use `python3 manage.py migrate`, not `python manage.py migrate` (bash: python: command not found)"
        ]
    );
    assert!(p.environment.is_empty(), "{:?}", p.environment);
    // A `cd` before the command is not the program that was missing.
    let p = pointers(
        &[
            shell("1", "cd test && rg foo"),
            failed("1", "zsh: command not found: rg"),
        ],
        &[],
    );
    assert_eq!(p.environment, ["rg is not usable here (command not found)"]);
}

#[test]
fn a_command_run_in_another_folder_than_the_shell_is_in_now_says_where() {
    let ok = |id: &str| result_record(result(id, false, ""));
    let p = pointers(
        &[
            shell("1", "ruff check src/app.py").in_folder("/w/app"),
            ok("1"),
            shell("2", "cd test && ls").in_folder("/w/app"),
            ok("2"),
            shell("3", "uv run pytest -q").in_folder("/w/app/test"),
            ok("3"),
            request("go on").in_folder("/w/app/test"),
        ],
        &[],
    );
    assert_eq!(
        p.commands_ok,
        ["uv run pytest -q", "cd /w/app && ruff check src/app.py"]
    );
}
