//! `ctxmon statusline --format` and `statusline.format` end to end: the
//! default template is the line ctxmon printed before templates existed, byte for byte, colour
//! codes and shortening included; other templates show the fields asked for; a template, flag
//! or configuration it cannot use never costs the line; `ctx --` says why.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::{Sandbox, repo_fixture};

/// The default format, as documented.
const DEFAULT: &str = "ctx {percent} {bar} {tokens}/{window} {tier} · {until-compact}";

fn usage(tokens: u64, window: u64) -> String {
    json!({"context_window": {"context_window_size": window,
        "current_usage": {"input_tokens": tokens, "output_tokens": 10}},
        "model": {"id": "claude-opus-4-6"}})
    .to_string()
}

fn transcript_payload() -> String {
    json!({"transcript_path": repo_fixture("transcripts/session-warning.jsonl")}).to_string()
}

/// What the binary printed before `--format` existed (captured from it at commit 11c8b82 on
/// these payloads), with and without colour, at several widths.
fn recorded() -> Vec<(bool, Option<&'static str>, String, &'static str)> {
    let warning = transcript_payload();
    let low = usage(120_000, 200_000);
    let critical = usage(160_000, 200_000);
    let million = usage(5_000, 1_000_000);
    let plain = [
        (
            None,
            &warning,
            "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact",
        ),
        (
            None,
            &low,
            "ctx 60% ▰▰▰▰▰▰▱▱▱▱ 120k/200k LOW · 47k to compact",
        ),
        (
            None,
            &critical,
            "ctx 80% ▰▰▰▰▰▰▰▰▱▱ 160k/200k CRITICAL · 7k to compact",
        ),
        (
            None,
            &million,
            "ctx 0% ▱▱▱▱▱▱▱▱▱▱ 5k/1M NOMINAL · 962k to compact",
        ),
        (Some("45"), &warning, "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING"),
        (Some("45"), &million, "ctx 0% ▱▱▱▱▱▱▱▱▱▱ 5k/1M NOMINAL"),
        (Some("30"), &critical, "ctx 80% ▰▰▰▰▰▰▰▰▱▱ CRITICAL"),
        (Some("24"), &warning, "ctx 75% WARNING"),
        (Some("24"), &low, "ctx 60% ▰▰▰▰▰▰▱▱▱▱ LOW"),
        (Some("12"), &low, "ctx 60% LOW"),
        (Some("12"), &warning, "ctx 75%"),
        (Some("1"), &critical, "ctx"),
    ];
    let colour = [
        (
            None,
            &warning,
            "ctx \x1b[33m75%\x1b[0m ▰▰▰▰▰▰▰▱▱▱ 150k/200k \x1b[33mWARNING\x1b[0m · 17k to compact",
        ),
        (
            None,
            &low,
            "ctx \x1b[36m60%\x1b[0m ▰▰▰▰▰▰▱▱▱▱ 120k/200k \x1b[36mLOW\x1b[0m · 47k to compact",
        ),
        (
            None,
            &critical,
            "ctx \x1b[31m80%\x1b[0m ▰▰▰▰▰▰▰▰▱▱ 160k/200k \x1b[31mCRITICAL\x1b[0m · 7k to compact",
        ),
        (
            None,
            &million,
            "ctx \x1b[32m0%\x1b[0m ▱▱▱▱▱▱▱▱▱▱ 5k/1M \x1b[32mNOMINAL\x1b[0m · 962k to compact",
        ),
        (
            Some("45"),
            &low,
            "ctx \x1b[36m60%\x1b[0m ▰▰▰▰▰▰▱▱▱▱ 120k/200k \x1b[36mLOW\x1b[0m",
        ),
        (
            Some("30"),
            &warning,
            "ctx \x1b[33m75%\x1b[0m ▰▰▰▰▰▰▰▱▱▱ \x1b[33mWARNING\x1b[0m",
        ),
        (
            Some("24"),
            &critical,
            "ctx \x1b[31m80%\x1b[0m \x1b[31mCRITICAL\x1b[0m",
        ),
        (
            Some("24"),
            &low,
            "ctx \x1b[36m60%\x1b[0m ▰▰▰▰▰▰▱▱▱▱ \x1b[36mLOW\x1b[0m",
        ),
        (Some("12"), &million, "ctx \x1b[32m0%\x1b[0m"),
        (Some("1"), &warning, "ctx"),
    ];
    let mut cases = Vec::new();
    for (colour, table) in [(false, &plain[..]), (true, &colour[..])] {
        for (columns, payload, line) in table {
            cases.push((colour, *columns, (*payload).clone(), *line));
        }
    }
    cases
}

fn sandbox(colour: bool, columns: Option<&str>) -> Sandbox {
    let mut sb = Sandbox::new();
    if !colour {
        sb.set_env("NO_COLOR", "1");
    }
    if let Some(columns) = columns {
        sb.set_env("COLUMNS", columns);
    }
    sb
}

fn line(sb: &Sandbox, args: &[&str], stdin: &str) -> String {
    let run = sb.run(&[&["statusline"], args].concat(), stdin);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "one line: {:?}", run.stdout);
    run.stdout.strip_suffix('\n').unwrap().to_string()
}

/// No format, the documented default given as `--format`, and the default set in the
/// configuration all print exactly what the binary printed before templates existed.
#[test]
fn the_default_template_is_the_old_line_byte_for_byte() {
    for (colour, columns, payload, expected) in recorded() {
        let sb = sandbox(colour, columns);
        let what = format!("colour {colour}, COLUMNS {columns:?}, {payload}");
        assert_eq!(line(&sb, &[], &payload), expected, "no format: {what}");
        assert_eq!(
            line(&sb, &["--format", DEFAULT], &payload),
            expected,
            "--format: {what}"
        );
        sb.write(
            ".ctxmon/config.toml",
            format!("[statusline]\nformat = {}\n", json!(DEFAULT)),
        );
        assert_eq!(line(&sb, &[], &payload), expected, "configured: {what}");
    }
    // The schema's default is the same text.
    let sb = Sandbox::new();
    let run = sb.run(&["config", "get", "statusline.format"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim_end(), DEFAULT);
}

/// Past the auto-compact point the room is not "0 to compact" but "compacting soon", in the line
/// and for programs; with auto-compaction off the line says so.
#[test]
fn past_the_auto_compact_point_it_is_compacting_soon() {
    let sb = sandbox(false, None);
    for tokens in [167_000, 190_000, 199_000] {
        let shown = line(&sb, &[], &usage(tokens, 200_000));
        assert!(shown.ends_with(" · compacting soon"), "{shown}");
    }
    assert!(line(&sb, &[], &usage(166_000, 200_000)).ends_with(" · 1k to compact"));
    let run = sb.run(&["--json", "statusline"], usage(190_000, 200_000));
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["fill"]["compacting_soon"], true);
    assert_eq!(v["fill"]["tokens_until_auto_compact"], 0);
    assert_eq!(v["reason"], Value::Null);
    let run = sb.run(&["--json", "statusline"], usage(100_000, 200_000));
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["fill"]["compacting_soon"], false);

    let mut off = sandbox(false, None);
    off.set_env("DISABLE_AUTO_COMPACT", "1");
    assert_eq!(
        line(&off, &[], &transcript_payload()),
        "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · auto-compact off"
    );
}

#[test]
fn a_format_shows_the_fields_it_names() {
    let sb = sandbox(false, None);
    sb.write(".git/HEAD", "ref: refs/heads/feature/tax\n");
    let payload = transcript_payload();
    let shown = |format: &str| line(&sb, &["--format", format], &payload);
    assert_eq!(
        shown("{percent} {bar} {until-compact}"),
        "75% ▰▰▰▰▰▰▰▱▱▱ 17k to compact"
    );
    assert_eq!(
        shown("{tier} {tokens} of {window} · {branch} · {model}"),
        "WARNING 150k of 200k · feature/tax · claude-sonnet-4-5-20250929"
    );
    assert_eq!(shown("{{{percent}}}"), "{75%}");
    // The payload's model id is the model Claude Code runs now.
    let with_model = json!({"transcript_path": repo_fixture("transcripts/session-warning.jsonl"),
        "model": {"id": "claude-opus-4-6[1m]"}})
    .to_string();
    assert_eq!(
        line(&sb, &["--format", "{model}"], &with_model),
        "claude-opus-4-6[1m]"
    );
    // A detached head shows its short commit; no repository at all drops the field and its
    // separator.
    sb.write(".git/HEAD", "0123456789abcdef0123456789abcdef01234567\n");
    assert_eq!(shown("{percent} · {branch}"), "75% · 0123456");
    std::fs::remove_dir_all(sb.path(".git")).unwrap();
    assert_eq!(shown("{percent} · {branch}"), "75%");
    // Colour stays on the percentage and the tier, wherever they are.
    let coloured = sandbox(true, None);
    assert_eq!(
        line(&coloured, &["--format", "{tier}: {percent}"], &payload),
        "\x1b[33mWARNING\x1b[0m: \x1b[33m75%\x1b[0m"
    );
    // A narrow terminal drops the model before the room to compact.
    let narrow = sandbox(false, Some("20"));
    assert_eq!(
        line(
            &narrow,
            &["--format", "{model} {percent} {until-compact}"],
            &payload
        ),
        "75% 17k to compact"
    );
}

/// A template, a flag or a line break the status line cannot use: named on stderr, the line
/// printed as without it, exit 0 — Claude Code never shows an empty or broken status line.
#[test]
fn a_bad_format_or_flag_never_costs_the_line() {
    let sb = sandbox(false, None);
    let payload = transcript_payload();
    let full = "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact";
    for (args, said) in [
        (
            vec!["--format", "{percent} {brach}"],
            "unknown field `{brach}`; the fields are percent, bar, tokens, window, tier, until-compact, turns-left, model, branch",
        ),
        (vec!["--format", "{percent"], "is never closed"),
        (vec!["--format", "75}"], "`}` without a `{`"),
        (vec!["--format", ""], "the format is empty"),
        (vec!["--format", "no fields"], "the format has no field"),
        (vec!["--format", "{percent}\n{bar}"], "one line"),
        (
            vec!["--fromat", "{percent}"],
            "unexpected argument '--fromat'",
        ),
        (vec!["--format"], "a value is required"),
    ] {
        let run = sb.run(&[&["statusline"], &args[..]].concat(), &payload);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, format!("{full}\n"), "{args:?}");
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("ctxmon statusline: "),
            "{}",
            run.stderr
        );
    }
    let run = sb.run(
        &["--json", "statusline", "--format", "{percent} {brach}"],
        &payload,
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["line"], full);
    assert!(
        v["format_error"]
            .as_str()
            .unwrap()
            .starts_with("--format: unknown field `{brach}`"),
        "{v}"
    );
    // The configured format is what the line falls back to.
    sb.write(
        ".ctxmon/config.toml",
        "[statusline]\nformat = \"{percent} {until-compact}\"\n",
    );
    let run = sb.run(&["statusline", "--format", "{oops}"], &payload);
    assert_eq!(run.stdout, "75% 17k to compact\n");
    // Help is still help.
    let help = sb.run(&["statusline", "--help"], "");
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("ccstatusline"), "{}", help.stdout);
}

/// The configured format is checked like every value: `config set` refuses a typo, a file
/// holding one is a configuration error (named with its file), as any bad value is.
#[test]
fn the_configured_format_is_checked_like_every_value() {
    let sb = sandbox(false, None);
    let payload = transcript_payload();
    let set = sb.run(
        &[
            "config",
            "set",
            "statusline.format",
            "{percent} {until-compact}",
        ],
        "",
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert_eq!(line(&sb, &[], &payload), "75% 17k to compact");
    let refused = sb.run(
        &["config", "set", "statusline.format", "{percent} {brach}"],
        "",
    );
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(
        refused.stderr.contains("statusline.format") && refused.stderr.contains("{brach}"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        line(&sb, &[], &payload),
        "75% 17k to compact",
        "nothing was written"
    );

    sb.write(
        ".ctxmon/config.local.toml",
        "[statusline]\nformat = \"{pct}\"\n",
    );
    let run = sb.run(&["statusline"], &payload);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "ctx -- (config error)\n");
    assert!(
        run.stderr.contains("statusline.format") && run.stderr.contains("config.local.toml"),
        "{}",
        run.stderr
    );
    let v: Value =
        serde_json::from_str(&sb.run(&["--json", "statusline"], &payload).stdout).unwrap();
    assert_eq!(v["reason"], "config");
    assert!(
        v["detail"].as_str().unwrap().contains("statusline.format"),
        "{v}"
    );
}

/// `ctx --` says why, for programs (`reason`, `detail`) and for people (doctor, from the record
/// of the latest troubled run, which a run with a figure clears).
#[test]
fn no_figure_says_why() {
    let sb = sandbox(false, None);
    std::fs::create_dir(sb.path(".ctxmon")).unwrap();
    let empty = sb.write("empty.jsonl", "");
    let started = sb.write(
        "started.jsonl",
        format!(
            "{}\n",
            json!({"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1"})
        ),
    );
    let cases = [
        ("not json".to_string(), "input"),
        ("{}".to_string(), "no-transcript"),
        (
            json!({"transcript_path": "/nowhere/t.jsonl"}).to_string(),
            "transcript",
        ),
        (
            json!({"transcript_path": empty}).to_string(),
            "no-response-yet",
        ),
        (
            json!({"transcript_path": started}).to_string(),
            "no-response-yet",
        ),
    ];
    for (stdin, reason) in &cases {
        let run = sb.run(&["--json", "statusline"], stdin);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let v: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            (v["line"].as_str(), v["reason"].as_str()),
            (Some("ctx --"), Some(*reason)),
            "{stdin}: {v}"
        );
        assert!(!v["detail"].as_str().unwrap().is_empty());
        assert_eq!(v["fill"], Value::Null);
        assert_eq!(
            line(&sb, &[], stdin),
            "ctx --",
            "the text line is unchanged"
        );

        let doctor = sb.run(&["--json", "doctor"], "");
        let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
        let check = checks
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == "statusline output")
            .unwrap_or_else(|| panic!("no statusline output check: {checks}"));
        // A session's start is worth knowing, not a problem.
        let expected = if *reason == "no-response-yet" {
            "skip"
        } else {
            "warn"
        };
        assert_eq!(check["status"], expected, "{check}");
        let message = check["message"].as_str().unwrap();
        assert!(
            message.contains("`ctx --`") && message.contains(v["detail"].as_str().unwrap()),
            "{message}"
        );
    }
    // A run with a figure clears the record: doctor has nothing to report.
    assert!(line(&sb, &[], &transcript_payload()).starts_with("ctx 75%"));
    let doctor = sb.run(&["--json", "doctor"], "");
    let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
    assert!(
        !checks
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["check"] == "statusline output"),
        "{checks}"
    );
    // A format it could not use is reported the same way.
    line(&sb, &["--format", "{nope}"], &transcript_payload());
    let doctor = sb.run(&["doctor"], "");
    assert!(
        doctor.stdout.contains("statusline output") && doctor.stdout.contains("{nope}"),
        "{}",
        doctor.stdout
    );
    // Outside a project with .ctxmon, nothing is kept (the status line never creates it).
    let bare = sandbox(false, None);
    line(&bare, &[], "not json");
    assert!(!bare.path(".ctxmon").exists());
}

/// The README's status-line examples are real: each `$` line, run by a shell from the
/// repository's root, prints the line shown under it.
#[test]
fn the_readme_examples_are_real() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = &readme[readme.find("\n### The status line\n").unwrap()..];
    let start = section.find("```console\n").unwrap() + "```console\n".len();
    let block = &section[start..start + section[start..].find("```").unwrap()];
    let lines: Vec<&str> = block.lines().collect();
    let home = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for pair in lines.chunks(2) {
        let command = pair[0].strip_prefix("$ ").unwrap();
        let command = command.replace("| ctxmon ", &format!("| {} ", env!("CARGO_BIN_EXE_ctxmon")));
        let out = std::process::Command::new("sh")
            .args(["-c", &command])
            .current_dir(&root)
            .env_clear()
            .env("PATH", crate::common::outer_path())
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            pair[1],
            "{command}"
        );
        ran += 1;
    }
    assert_eq!(ran, 2);
}

/// A status line registered with a format is ctxmon's: doctor checks it like the plain one, and
/// `install --statusline` re-points it without dropping the format.
#[test]
fn a_registered_format_is_still_ctxmons_status_line() {
    let sb = sandbox(false, None);
    let command = "/opt/old/ctxmon statusline --format '{percent} {until-compact}'";
    sb.write(
        ".claude/settings.json",
        json!({"statusLine": {"type": "command", "command": command}}).to_string(),
    );
    let doctor = sb.run(&["--json", "doctor"], "");
    let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
    let line = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "statusline")
        .unwrap();
    assert_eq!(line["status"], "fail", "the old binary is gone: {line}");
    assert!(
        !line["message"].as_str().unwrap().contains("expected"),
        "{line}"
    );
    let run = sb.run(&["install", "--statusline"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(sb.path(".claude/settings.json")).unwrap())
            .unwrap();
    let now = settings["statusLine"]["command"].as_str().unwrap();
    assert!(
        now.ends_with(" statusline --format '{percent} {until-compact}'")
            && !now.starts_with("/opt"),
        "{now}"
    );
    let doctor = sb.run(&["--json", "doctor"], "");
    let checks: Value = serde_json::from_str(&doctor.stdout).unwrap();
    let line = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "statusline")
        .unwrap();
    assert_eq!(line["status"], "ok", "{line}");
    assert!(
        line["message"].as_str().unwrap().contains("--format"),
        "{line}"
    );
}
