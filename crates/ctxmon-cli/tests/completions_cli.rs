//! `ctxmon completions` and the man-page help, through the real binary.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;

use common::Sandbox;

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
