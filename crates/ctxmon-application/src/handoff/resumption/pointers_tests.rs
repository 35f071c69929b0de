//! Files for the next step, commands that worked, environment facts.

use super::*;
use crate::fakes::records::{call, record, request, result, result_record, shell, write};
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
            shell("1", "cd test && uv run pytest"),
            failed("1", "zsh: command not found: uv"),
        ],
        &[],
    );
    assert_eq!(p.environment, ["uv is not usable here (command not found)"]);
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

fn ok(id: &str) -> TranscriptRecord {
    result_record(result(id, false, ""))
}

#[test]
fn a_command_that_rewrote_files_in_place_is_not_a_command_that_worked() {
    // It exited 0 and emptied seven files: never shown as a command to run again.
    let p = pointers(
        &[
            request("rename the heading in the docs"),
            shell("1", "sed -i 's/Intro/Overview/' docs/*.md"),
            ok("1"),
            shell("2", "npm run build"),
            ok("2"),
        ],
        &[],
    );
    assert_eq!(p.commands_ok, ["npm run build"]);
}

#[test]
fn what_happened_after_a_command_can_take_it_back() {
    // The user said it broke things: what ran before is not vouched for.
    let p = pointers(
        &[
            request("convert the notes"),
            shell("1", "python3 tools/convert.py notes/"),
            ok("1"),
            shell("2", "python3 tools/convert.py notes/ --all"),
            ok("2"),
            request("you wiped the files, they are empty now"),
        ],
        &[],
    );
    assert!(p.commands_ok.is_empty(), "{:?}", p.commands_ok);
    // A later restore of what earlier commands wrote, the same.
    let p = pointers(
        &[
            request("format it"),
            shell("1", "./fmt.sh src"),
            ok("1"),
            shell("2", "git checkout -- src"),
            ok("2"),
        ],
        &[],
    );
    assert!(p.commands_ok.is_empty(), "{:?}", p.commands_ok);
    // A later run of the same build that failed: it does not work now.
    let p = pointers(
        &[
            request("build it"),
            shell("1", "cd /w/app && npx hardhat compile"),
            ok("1"),
            shell("2", "cd /w/app && npx hardhat compile"),
            failed("2", "Error HH600: Compilation failed"),
        ],
        &[],
    );
    assert!(p.commands_ok.is_empty(), "{:?}", p.commands_ok);
}

#[test]
fn a_script_removed_later_is_not_run_again() {
    let p = pointers(
        &[
            request("migrate the data"),
            shell("1", "python3 scripts/migrate_once.py"),
            ok("1"),
            shell("2", "python3 scripts/migrate_once.py --verify"),
            ok("2"),
            shell("3", "rm scripts/migrate_once.py"),
            ok("3"),
        ],
        &[],
    );
    assert!(p.commands_ok.is_empty(), "{:?}", p.commands_ok);
}

#[test]
fn a_status_the_pipeline_hides_is_no_proof() {
    let p = pointers(
        &[
            request("test it"),
            shell("1", "cargo test 2>&1 | tail -30"),
            ok("1"),
            shell("2", "npm run build || echo done"),
            ok("2"),
            shell("3", "cargo build --release"),
            ok("3"),
        ],
        &[],
    );
    assert_eq!(p.commands_ok, ["cargo build --release"]);
}

#[test]
fn environment_values_are_identifiers_from_the_newest_command_that_worked() {
    let p = pointers(
        &[
            request("check the tables"),
            shell("1", "docker exec pg psql -U app -d shop_old -c 'select 1'"),
            ok("1"),
            shell("2", "mysql -u root -p 2>&1"),
            ok("2"),
            shell("3", "docker exec pg psql -U app -d shop -c 'select 1'"),
            ok("3"),
            shell("4", "psql -d $DB_NAME"),
            ok("4"),
        ],
        &[],
    );
    let env = p.environment.join("\n");
    assert!(env.contains("database: shop (psql)"), "{env}");
    // The database a later command moved away from, and shell tokens, are never facts.
    assert!(!env.contains("shop_old"), "{env}");
    assert!(!env.contains("2>&1") && !env.contains("$DB_NAME"), "{env}");
}

#[test]
fn a_variant_that_worked_after_one_that_could_not_run_is_a_lesson() {
    let p = pointers(
        &[
            request("open the db"),
            shell("1", "docker exec -it pg psql -U app -d shop"),
            failed("1", "the input device is not a TTY"),
            shell("2", "docker exec pg psql -U app -d shop"),
            ok("2"),
        ],
        &[],
    );
    assert_eq!(
        p.lessons,
        [
            "use `docker exec pg psql -U app -d shop`, not `docker exec -it pg psql -U app -d shop` (the input device is not a TTY)"
        ]
    );
    // A basic utility "not found" was a broken PATH for a moment, not a lesson.
    let p = pointers(
        &[
            request("test"),
            shell("1", "cargo test 2>&1 | tail -5"),
            failed("1", "zsh: command not found: tail"),
            shell("2", "cargo test"),
            ok("2"),
        ],
        &[],
    );
    assert!(p.lessons.is_empty(), "{:?}", p.lessons);
}

#[test]
fn the_working_folder_is_where_most_commands_ran() {
    let mut records = vec![request("build")];
    for (i, dir) in [
        "/w/other",
        r#""C:\Users\me\my app""#,
        r#""C:\Users\me\my app""#,
        r#""C:\Users\me\my app""#,
    ]
    .iter()
    .enumerate()
    {
        let id = i.to_string();
        records.push(shell(&id, &format!("cd {dir} && npm run build")));
        records.push(ok(&id));
    }
    let p = pointers(&records, &[]);
    assert!(
        p.environment
            .contains(&r"working folder: C:\Users\me\my app".to_string()),
        "{:?}",
        p.environment
    );
    // Visited once or twice, a folder is where one step happened.
    let p = pointers(&records[..5], &[]);
    assert!(
        !p.environment
            .iter()
            .any(|e| e.starts_with("working folder")),
        "{:?}",
        p.environment
    );
}

#[test]
fn files_read_and_edited_in_the_newest_turns_keep_the_lines_last_shown() {
    let touch = |id: &str, name: &str, path: &str| {
        record(RecordBody::ToolCall(ToolCall {
            file_path: Some(path.to_string()),
            ..call(id, name)
        }))
    };
    let shown = |id: &str, lines: Option<(u64, u64)>, is_error: bool| {
        result_record(ToolResult {
            lines,
            ..result(id, is_error, "")
        })
    };
    let p = pointers(
        &[
            request("Look at the old module"),
            touch("r0", "Read", "/w/src/old.rs"),
            shown("r0", Some((1, 90)), false),
            request("Fix the parser"),
            touch("r1", "Read", "/w/src/big.rs"),
            shown("r1", Some((120, 180)), false),
            touch("e1", "Edit", "/w/src/parser.rs"),
            shown("e1", Some((45, 52)), false),
            request("now the lexer"),
            touch("r2", "Read", "/w/src/lexer.rs"),
            shown("r2", Some((1, 40)), false),
            touch("r3", "Read", "/w/src/missing.rs"),
            shown("r3", None, true),
            touch("r4", "Read", "/w/src/big.rs"),
            shown("r4", Some((200, 230)), false),
        ],
        &[],
    );
    assert_eq!(p.files_recent, ["/w/src/parser.rs"]);
    // Newest first; not a read that failed, not one from before the newest two turns.
    assert_eq!(p.files_read, ["/w/src/big.rs", "/w/src/lexer.rs"]);
    let ranges: Vec<(&str, u64, u64)> = p
        .line_ranges
        .iter()
        .map(|r| (r.path.as_str(), r.first, r.last))
        .collect();
    assert_eq!(
        ranges,
        [
            ("/w/src/parser.rs", 45, 52),
            ("/w/src/lexer.rs", 1, 40),
            ("/w/src/big.rs", 200, 230),
        ]
    );
}

#[test]
fn the_commands_remembered_while_walking_are_bounded_and_the_newest() {
    // Each command that worked is compared with the failures after it and the commands that
    // removed files: unbounded, thousands of commands cost time growing with their square.
    let mut records = vec![request("Run every script")];
    for i in 0..5 * MAX_SEEN {
        let (ok, bad) = (format!("ok{i}"), format!("bad{i}"));
        records.push(shell(&ok, &format!("node scripts/run_{i}.js")));
        records.push(result_record(result(&ok, false, "done")));
        records.push(shell(&bad, &format!("python3 tools/check_{i}.py")));
        records.push(failed(&bad, "error"));
    }
    let main: Vec<&TranscriptRecord> = records.iter().collect();
    let seen = walk(&main);
    assert!(seen.worked.len() <= 2 * MAX_SEEN, "{}", seen.worked.len());
    assert!(seen.failed.len() <= 2 * MAX_SEEN, "{}", seen.failed.len());
    let newest = format!("node scripts/run_{}.js", 5 * MAX_SEEN - 1);
    assert_eq!(seen.worked.last().map(|w| w.command), Some(newest.as_str()));
}

#[test]
fn each_file_keeps_the_range_of_its_newest_read() {
    let read = |id: &str, path: &str| {
        record(RecordBody::ToolCall(ToolCall {
            file_path: Some(path.into()),
            ..call(id, "Read")
        }))
    };
    let lines = |id: &str, first: u64, last: u64| {
        result_record(ToolResult {
            lines: Some((first, last)),
            ..result(id, false, "")
        })
    };
    let records = [
        request("Read them"),
        read("1", "/w/a.rs"),
        lines("1", 1, 10),
        read("2", "/w/b.rs"),
        lines("2", 5, 6),
        read("3", "/w/a.rs"),
        lines("3", 40, 80),
    ];
    let p = pointers(&records, &[]);
    let ranges: Vec<(&str, u64, u64)> = p
        .line_ranges
        .iter()
        .map(|r| (r.path.as_str(), r.first, r.last))
        .collect();
    assert_eq!(ranges, [("/w/b.rs", 5, 6), ("/w/a.rs", 40, 80)]);
}

/// A request the server refused (curl exits 0 with an error answer), sent again at once in
/// another wording that it took: the wording is the lesson, quoted where the two differ when
/// the commands are long or of several lines. Sent again only after something else ran (a
/// restart), it worked because of that: no lesson.
#[test]
fn a_refused_request_sent_again_at_once_in_another_wording_is_a_lesson() {
    let send = |body: &str| {
        format!(
            "curl -X POST http://localhost:8888/notify \\\n  -H \"Content-Type: application/json\" \\\n  -d {body}"
        )
    };
    let bad = send(r#"'{"message": "BRILLIANT! I am Carson."}'"#);
    let good = send(r#""{\"message\": \"BRILLIANT! I am Carson.\"}""#);
    let refused = r#"{"status":"error","message":"Failed to parse JSON"}"#;
    let answered = |id: &str, text: &str| result_record(result(id, false, text));
    let p = pointers(
        &[
            request("announce it"),
            shell("1", &bad),
            answered("1", refused),
            shell("2", &good),
            answered("2", r#"{"status":"success"}"#),
        ],
        &[],
    );
    assert_eq!(
        p.lessons,
        [format!(
            r#"in `curl -X POST http://localhost:8888/notify`: use `-d "{{\"message\": \"BRILLIANT! I am Carson.\"}}"`, not `-d '{{"message": "BRILLIANT! I am Carson."}}'` ({refused})"#
        )]
    );
    let p = pointers(
        &[
            request("announce it"),
            shell("1", &bad),
            answered("1", refused),
            shell("r", "systemctl --user restart voice"),
            ok("r"),
            shell("2", &good),
            answered("2", r#"{"status":"success"}"#),
        ],
        &[],
    );
    assert!(p.lessons.is_empty(), "{:?}", p.lessons);
}
