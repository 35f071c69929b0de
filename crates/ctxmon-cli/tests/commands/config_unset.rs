//! `ctxmon config unset` and the model rules in `config show` (contract C11), end to end:
//! the key leaves the file that sets it and the layer below applies again; a key no file sets
//! changes nothing and exits 0; an unknown key, or a removal that would leave the files invalid
//! together, exits 2 and writes nothing. `config set` and `unset` leave the rest of a file as
//! the user wrote it.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::Value;

use crate::common::Sandbox;

fn set(sb: &Sandbox, key: &str, value: &str, scope: &str) {
    let run = sb.run(&["config", "set", key, value, "--scope", scope], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn read(sb: &Sandbox, rel: &str) -> String {
    std::fs::read_to_string(sb.path(rel)).unwrap_or_default()
}

#[test]
fn unset_walks_down_the_layers_and_stops_quietly_at_the_default() {
    let sb = Sandbox::new();
    set(&sb, "context_monitor.inject", "on-change", "project");
    set(&sb, "resume_logs.keep", "20", "project");
    set(&sb, "context_monitor.inject", "warning-and-above", "local");
    let project = sb.path(".ctxmon/config.toml").display().to_string();
    let local = sb.path(".ctxmon/config.local.toml").display().to_string();

    let first = sb.run(&["config", "unset", "context_monitor.inject"], "");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.stdout.trim(),
        format!("unset context_monitor.inject in {local}; it is now \"on-change\", from {project}")
    );
    assert!(!read(&sb, ".ctxmon/config.local.toml").contains("inject"));

    let second = sb.run(&["--json", "config", "unset", "context_monitor.inject"], "");
    assert_eq!(second.code, 0, "{}", second.stderr);
    let out: Value = serde_json::from_str(&second.stdout).unwrap();
    assert_eq!(out["removed"], true);
    assert_eq!(out["path"], project.as_str());
    assert_eq!(out["value"], "tiered");
    assert_eq!(out["source"]["layer"], "default");
    // The other keys of the file stay.
    assert_eq!(
        read(&sb, ".ctxmon/config.toml"),
        "[resume_logs]\nkeep = 20\n"
    );

    let before = (
        read(&sb, ".ctxmon/config.toml"),
        read(&sb, ".ctxmon/config.local.toml"),
    );
    let third = sb.run(&["config", "unset", "context_monitor.inject"], "");
    assert_eq!(third.code, 0, "{}", third.stderr);
    assert!(
        third
            .stdout
            .contains("context_monitor.inject is not set in "),
        "{}",
        third.stdout
    );
    assert!(
        third
            .stdout
            .contains("nothing changed (it is \"tiered\", from the built-in default)"),
        "{}",
        third.stdout
    );
    let after = (
        read(&sb, ".ctxmon/config.toml"),
        read(&sb, ".ctxmon/config.local.toml"),
    );
    assert_eq!(before, after);
    let json = sb.run(&["--json", "config", "unset", "context_monitor.inject"], "");
    let out: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        (out["removed"].clone(), out["path"].clone()),
        (Value::Bool(false), Value::Null)
    );
    assert_eq!(out["looked_in"].as_array().unwrap().len(), 3);
}

#[test]
fn a_scope_names_the_one_file_to_edit() {
    let sb = Sandbox::new();
    set(&sb, "checkpoints.keep", "7", "local");
    let run = sb.run(
        &["config", "unset", "checkpoints.keep", "--scope", "project"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("is not set in "), "{}", run.stdout);
    assert!(run.stdout.contains("(it is 7, from "), "{}", run.stdout);
    assert_eq!(
        read(&sb, ".ctxmon/config.local.toml"),
        "[checkpoints]\nkeep = 7\n"
    );
    let run = sb.run(
        &["config", "unset", "checkpoints.keep", "--scope", "local"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(read(&sb, ".ctxmon/config.local.toml"), "");
}

#[test]
fn unknown_keys_and_removals_that_break_the_configuration_are_refused() {
    let sb = Sandbox::new();
    set(&sb, "context_monitor.low_threshold", "0.4", "project");
    set(&sb, "context_monitor.warning_threshold", "0.5", "project");
    let before = read(&sb, ".ctxmon/config.toml");

    let typo = sb.run(&["config", "unset", "context_monitor.injekt"], "");
    assert_eq!(typo.code, 2, "{}", typo.stderr);
    assert!(
        typo.stderr.contains("did you mean context_monitor.inject?"),
        "{}",
        typo.stderr
    );
    assert!(typo.stdout.is_empty());

    // Without its own low_threshold, the default 0.55 would not be below warning 0.5.
    let broken = sb.run(&["config", "unset", "context_monitor.low_threshold"], "");
    assert_eq!(broken.code, 2, "{}", broken.stderr);
    assert!(
        broken.stderr.contains("thresholds must increase"),
        "{}",
        broken.stderr
    );
    assert!(
        broken.stderr.contains("nothing was written"),
        "{}",
        broken.stderr
    );
    assert_eq!(read(&sb, ".ctxmon/config.toml"), before);
}

#[test]
fn a_model_rule_is_unset_on_its_own_and_show_always_lists_the_rules() {
    let sb = Sandbox::new();
    let none = sb.run(&["config", "show"], "");
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(
        none.stdout.contains(
            "[context_monitor.models]\n# no model rules; add one with `ctxmon config set context_monitor.models.<model id prefix> <window>`\n# the window: context_window when set"
        ),
        "{}",
        none.stdout
    );

    set(
        &sb,
        "context_monitor.models.claude-opus",
        "500000",
        "project",
    );
    set(&sb, "context_monitor.models.gpt-4.1", "1000000", "project");
    let shown = sb.run(&["config", "show"], "").stdout;
    let project = sb.path(".ctxmon/config.toml").display().to_string();
    assert!(
        shown.contains(&format!(
            "[context_monitor.models]\nclaude-opus = 500000  # {project}\n\"gpt-4.1\" = 1000000  # {project}\n# the window:"
        )),
        "{shown}"
    );

    let run = sb.run(&["config", "unset", "context_monitor.models.gpt-4.1"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.ends_with("it is now not set\n"),
        "{}",
        run.stdout
    );
    assert_eq!(
        read(&sb, ".ctxmon/config.toml"),
        "[context_monitor.models]\nclaude-opus = 500000\n"
    );
    let run = sb.run(
        &["config", "unset", "context_monitor.models.claude-opus"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The emptied table goes with its last rule.
    assert_eq!(read(&sb, ".ctxmon/config.toml"), "");
}

#[test]
fn a_value_from_a_variable_is_named_and_left_to_the_shell() {
    let mut sb = Sandbox::new();
    sb.set_env("CTXMON_CONTEXT_MONITOR__INJECT", "on-change");
    let run = sb.run(&["config", "unset", "context_monitor.inject"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "(it is \"on-change\", from environment variable CTXMON_CONTEXT_MONITOR__INJECT)"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn set_and_unset_leave_the_rest_of_a_commented_file_byte_for_byte() {
    let sb = Sandbox::new();
    let file = "\
# Team settings: keep in sync with docs/ctxmon.md.

[resume_logs]
keep = 20 # a month of work
triggers = [\"manual\", \"tier:critical\"]

# Thresholds tuned for long sessions.
[context_monitor]
inject = \"on-change\"
models = { \"claude-opus-4\" = 1000000, \"gpt-4.1\" = 1047576 }

[hooks]
deadline_ms = 900
";
    sb.write(".ctxmon/config.toml", file);

    let run = sb.run(
        &[
            "config",
            "set",
            "resume_logs.keep",
            "30",
            "--scope",
            "project",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after_set = file.replace("keep = 20 #", "keep = 30 #");
    assert_eq!(read(&sb, ".ctxmon/config.toml"), after_set);

    set(&sb, "context_monitor.models.o3", "200000", "project");
    let with_o3 = after_set.replace("1047576 }", "1047576, o3 = 200000 }");
    assert_eq!(read(&sb, ".ctxmon/config.toml"), with_o3);

    let run = sb.run(&["config", "unset", "context_monitor.inject"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        read(&sb, ".ctxmon/config.toml"),
        with_o3.replace("inject = \"on-change\"\n", "")
    );

    let run = sb.run(&["config", "unset", "hooks.deadline_ms"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The emptied `[hooks]` goes, with the blank line that set it apart; nothing else moves.
    assert_eq!(
        read(&sb, ".ctxmon/config.toml"),
        with_o3
            .replace("inject = \"on-change\"\n", "")
            .replace("\n[hooks]\ndeadline_ms = 900\n", "")
    );
}
