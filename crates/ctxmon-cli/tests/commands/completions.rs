//! `ctxmon completions` and the man-page help, through the real binary.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use crate::common::Sandbox;

#[test]
fn completion_scripts_cover_the_command_tree() {
    let sb = Sandbox::new();
    for (shell, marker) in [
        ("bash", "_ctxmon()"),
        ("zsh", "#compdef ctxmon"),
        ("fish", "complete -c ctxmon"),
    ] {
        let run = sb.run(&["completions", shell], "");
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(marker), "{shell}: {marker} missing");
        // Flags without dashes: fish spells them `-l svg`.
        for word in ["report", "doctor", "prompt-submit", "svg", "transcript"] {
            assert!(run.stdout.contains(word), "{shell}: {word} missing");
        }
    }
    let bad = sb.run(&["completions", "tcsh"], "");
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("bash"),
        "lists the shells: {}",
        bad.stderr
    );
}

#[test]
fn long_help_reads_like_a_man_page_and_short_help_stays_short() {
    let sb = Sandbox::new();
    for cmd in [
        "status",
        "report",
        "hooks",
        "statusline",
        "checkpoint",
        "resume-log",
        "config",
        "assemble",
        "install",
        "uninstall",
        "doctor",
        "completions",
    ] {
        let long = sb.run(&[cmd, "--help"], "");
        assert_eq!(long.code, 0, "{cmd}");
        assert!(long.stdout.contains("Examples:"), "{cmd}: {}", long.stdout);
        assert!(long.stdout.contains("Exit codes"), "{cmd}: {}", long.stdout);
        let short = sb.run(&[cmd, "-h"], "");
        assert!(
            !short.stdout.contains("Exit codes"),
            "{cmd}: -h stays short"
        );
    }
}

/// The leaf commands people run by hand have their own manual page too: what the command does
/// (more than the one-line summary), examples and exit codes.
#[test]
fn every_leaf_command_has_a_man_page() {
    let sb = Sandbox::new();
    for (group, leaves) in [
        ("checkpoint", &["list", "show", "ack", "prune"][..]),
        (
            "resume-log",
            &["generate", "list", "show", "latest", "cleanup", "stats"][..],
        ),
        (
            "config",
            &["show", "get", "set", "unset", "path", "schema"][..],
        ),
    ] {
        for leaf in leaves {
            let long = sb.run(&[group, leaf, "--help"], "");
            assert_eq!(long.code, 0, "{group} {leaf}");
            let short = sb.run(&[group, leaf, "-h"], "");
            let text = &long.stdout;
            assert!(
                text.lines().count() >= short.stdout.lines().count() + 10,
                "{group} {leaf}: the long help adds little:\n{text}"
            );
            assert!(text.contains("Examples:"), "{group} {leaf}: {text}");
            assert!(
                text.contains(&format!("ctxmon {group} {leaf}")),
                "{group} {leaf}: no example of itself: {text}"
            );
            assert!(text.contains("Exit codes: 0 "), "{group} {leaf}: {text}");
            assert!(
                !short.stdout.contains("Exit codes"),
                "{group} {leaf}: -h stays short"
            );
        }
    }
}

/// `resume-log generate --help` describes the `--from` document: every key the parser
/// accepts, with its type, so an agent can write one from the help alone.
#[test]
fn generate_help_describes_every_key_of_the_from_document() {
    let sb = Sandbox::new();
    let help = sb.run(&["resume-log", "generate", "--help"], "").stdout;
    let draft = serde_json::to_value(ctxmon_domain::ResumeLogDraft::default()).unwrap();
    let mut keys: Vec<String> = draft.as_object().unwrap().keys().cloned().collect();
    keys.extend(draft["metadata"].as_object().unwrap().keys().cloned());
    keys.extend(["decision".to_string(), "rationale".to_string()]);
    for key in &keys {
        assert!(
            help.contains(&format!("\"{key}\":")),
            "{key} missing:\n{help}"
        );
    }
    for shape in [
        "\"mission_summary\":  string",
        "\"next_steps\":       [string]",
        "\"critical_context\": {name: any JSON}",
        "\"decisions\":        [{\"decision\": string",
        "\"notes\": {name: string}",
        "every key optional",
        "JSON path",
    ] {
        assert!(help.contains(shape), "{shape} missing:\n{help}");
    }
}
