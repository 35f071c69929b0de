//! Install and uninstall on settings text: what changes, what stays byte for byte, and the
//! plugin's `hooks/hooks.json` checked against the same table install writes.

use serde_json::Value;

use super::merge::{
    Action, Options, Outcome, PlanError, Restore, install, statusline_in, statusline_record,
    uninstall,
};
use super::table::CTXMON_HOOKS;

const NEW: &str = "/new/ctxmon";

fn opts(statusline: bool, replace: bool) -> Options<'static> {
    Options {
        program: NEW,
        statusline,
        replace_statusline: replace,
    }
}

fn installed(text: Option<&str>) -> Outcome {
    install(text, &opts(false, false)).unwrap()
}

fn actions(outcome: &Outcome) -> Vec<(&'static str, Action)> {
    outcome
        .changes
        .iter()
        .map(|c| (c.target, c.action))
        .collect()
}

/// Install, install again (must be a no-op) and uninstall; returns the installed text and the
/// text after uninstall.
fn cycle(before: &str, o: &Options<'_>) -> (String, String) {
    let first = install(Some(before), o).unwrap();
    let second = install(Some(&first.text), o).unwrap();
    assert_eq!(second.text, first.text, "a second install changed the text");
    assert!(
        second.changes.iter().all(|c| c.action == Action::Kept),
        "{:?}",
        second.changes
    );
    let after = uninstall(&first.text, restore_from(&first)).unwrap();
    (first.text, after.text)
}

/// What the command layer passes to uninstall after `outcome`'s install.
fn restore_from(outcome: &Outcome) -> Restore<'_> {
    match &outcome.replaced_statusline {
        Some(raw) => Restore::From {
            raw,
            source: "the record",
        },
        None => Restore::Nothing,
    }
}

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_missing_file_gets_all_six_hooks_and_uninstall_leaves_an_empty_object() {
    let out = installed(None);
    assert!(actions(&out).iter().all(|(_, a)| *a == Action::Added));
    let v = value(&out.text);
    for spec in &CTXMON_HOOKS {
        let group = &v["hooks"][spec.event()][0];
        assert_eq!(group.get("matcher").and_then(Value::as_str), spec.matcher);
        let hook = &group["hooks"][0];
        assert_eq!(
            hook["command"],
            format!("{NEW} hooks {}", spec.hook.name()).as_str()
        );
        assert_eq!(hook["timeout"], spec.timeout_secs);
        assert_eq!(hook["type"], "command");
    }
    assert!(out.text.starts_with(
        "{\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n"
    ), "{}", out.text);
    assert_eq!(uninstall(&out.text, Restore::Nothing).unwrap().text, "{}\n");
}

#[test]
fn the_users_own_hooks_and_keys_stay_byte_for_byte() {
    let before = r#"{
    "permissions": {"allow": ["Bash(cargo test:*)"]},
    "hooks": {
        "UserPromptSubmit": [
            {
                "hooks": [{"type": "command", "command": "~/bin/log-prompt"}]
            }
        ],
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}]
    },
    "model": "opus"
}
"#;
    let (text, after) = cycle(before, &opts(false, false));
    assert_eq!(after, before);
    // Ours went after the user's entry in the same event, at the file's four-space indent.
    assert!(
        text.contains(
            "\"~/bin/log-prompt\"}]\n            },\n            {\n                \"hooks\": ["
        ),
        "{text}"
    );
    let v = value(&text);
    assert_eq!(v["hooks"]["UserPromptSubmit"].as_array().unwrap().len(), 2);
    assert_eq!(v["model"], "opus");
    assert!(text.find("\"permissions\"") < text.find("\"hooks\""));
}

#[test]
fn an_old_binary_path_is_updated_in_place_without_a_duplicate() {
    let before = r#"{
  "hooks": {
    "UserPromptSubmit": [
      { "hooks": [ { "type": "command", "command": "/old/bin/ctxmon hooks prompt-submit", "timeout": 30 } ] }
    ],
    "PreCompact": [
      { "hooks": [ { "type": "command", "command": "/old/bin/ctxmon hooks pre-compact", "timeout": 10 } ] },
      { "hooks": [ { "type": "command", "command": "ctxmon hooks pre-compact", "timeout": 10 } ] }
    ]
  }
}
"#;
    let out = installed(Some(before));
    let v = value(&out.text);
    let ups = v["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(ups.len(), 1);
    assert_eq!(
        ups[0]["hooks"][0]["command"],
        "/new/ctxmon hooks prompt-submit"
    );
    assert_eq!(ups[0]["hooks"][0]["timeout"], 5);
    assert_eq!(v["hooks"]["PreCompact"].as_array().unwrap().len(), 1);
    let changes = &out.changes;
    assert_eq!(changes[0].action, Action::Updated);
    assert!(
        changes[0]
            .detail
            .contains("/old/bin/ctxmon hooks prompt-submit"),
        "{changes:?}"
    );
    assert!(changes[0].detail.contains("timeout was 30"), "{changes:?}");
    assert!(
        changes[2].detail.contains("removed 1 entry (duplicate)"),
        "{changes:?}"
    );
    // The in-place edit kept the user's one-line layout.
    assert!(out.text.contains("{ \"type\": \"command\", \"command\": \"/new/ctxmon hooks prompt-submit\", \"timeout\": 5 }"), "{}", out.text);
    let again = installed(Some(&out.text));
    assert_eq!(again.text, out.text);
    assert_eq!(uninstall(&out.text, Restore::Nothing).unwrap().text, "{}\n");
}

#[test]
fn a_session_start_matcher_is_replaced_by_no_matcher() {
    let before = r#"{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "/x/ctxmon hooks session-start"}]}, {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}}"#;
    let out = installed(Some(before));
    let v = value(&out.text);
    let groups = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{}", out.text);
    assert_eq!(groups[0]["matcher"], "startup");
    assert!(groups[1].get("matcher").is_none());
    assert_eq!(
        groups[1]["hooks"][0]["command"],
        "/new/ctxmon hooks session-start"
    );
    let change = &out.changes[1];
    assert_eq!(change.action, Action::Updated);
    assert!(change.detail.contains("no matcher"), "{change:?}");
}

#[test]
fn a_ctxmon_entry_sharing_a_group_with_the_users_hook_leaves_the_users_hook() {
    let before = r#"{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "/x/ctxmon hooks pre-tool-use"}, {"type": "command", "command": "lint"}]}]}}"#;
    let out = installed(Some(before));
    let v = value(&out.text);
    let groups = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(groups[0]["matcher"], "Edit");
    assert_eq!(groups[0]["hooks"].as_array().unwrap().len(), 1);
    assert_eq!(groups[0]["hooks"][0]["command"], "lint");
    assert_eq!(groups[1]["matcher"], "Write|Edit|MultiEdit");
    let removed = uninstall(&out.text, Restore::Nothing).unwrap();
    assert_eq!(
        removed.text,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]}]}}"#
    );
}

#[test]
fn statusline_is_added_updated_and_removed_as_ctxmon_s_own() {
    let (text, after) = cycle("{}", &opts(true, false));
    assert_eq!(
        value(&text)["statusLine"]["command"],
        "/new/ctxmon statusline"
    );
    assert_eq!(value(&text)["statusLine"]["padding"], 0);
    assert_eq!(after, "{}");
    let old =
        r#"{"statusLine": {"type": "command", "command": "/old/ctxmon statusline", "padding": 2}}"#;
    let out = install(Some(old), &opts(true, false)).unwrap();
    let sl = out.changes.last().unwrap();
    assert_eq!((sl.target, sl.action), ("statusLine", Action::Updated));
    // Only the path is ctxmon's business; the user's padding stays.
    assert_eq!(value(&out.text)["statusLine"]["padding"], 2);
    // Without --statusline, install leaves a status line alone.
    assert_eq!(
        installed(Some(old))
            .text
            .matches("/old/ctxmon statusline")
            .count(),
        1
    );
}

#[test]
fn someone_elses_statusline_is_replaced_only_when_asked_and_uninstall_brings_it_back() {
    let before = "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"npx ccusage statusline\"\n  }\n}\n";
    let err = install(Some(before), &opts(true, false)).unwrap_err();
    assert!(
        matches!(&err, PlanError::StatusLineTaken(s) if s.contains("ccusage")),
        "{err:?}"
    );
    let out = install(Some(before), &opts(true, true)).unwrap();
    let sl = out.changes.last().unwrap();
    assert_eq!(sl.action, Action::Replaced);
    assert!(sl.detail.contains("ccusage"));
    let raw = out.replaced_statusline.as_deref().unwrap();
    assert_eq!(
        raw,
        "{\n    \"type\": \"command\",\n    \"command\": \"npx ccusage statusline\"\n  }"
    );
    // The record keeps the replaced text verbatim, so it comes back byte for byte.
    let record = statusline_record(raw, "/p/.claude/settings.json");
    assert_eq!(statusline_in(&record).as_deref(), Some(raw));
    let restored = uninstall(&out.text, restore_from(&out)).unwrap();
    assert_eq!(restored.text, before);
    let sl = restored.changes.last().unwrap();
    assert_eq!(sl.action, Action::Restored);
    assert!(sl.detail.ends_with("(from the record)"), "{sl:?}");
    // Nothing to restore: the status line is simply removed.
    let removed = uninstall(&out.text, Restore::Nothing).unwrap();
    assert!(value(&removed.text).get("statusLine").is_none());
    // A record that cannot be read stops uninstall instead of losing the status line.
    assert!(matches!(
        uninstall(&out.text, Restore::Unusable("not JSON")),
        Err(PlanError::SavedStatusLineUnusable(_))
    ));
    // ctxmon's own status line in a backup or record is never "restored".
    assert_eq!(statusline_in(&out.text), None);
    assert_eq!(statusline_in("not json"), None);
}

#[test]
fn uninstall_without_ctxmon_changes_nothing() {
    let before = "{\"hooks\": {}, \"statusLine\": {\"type\": \"command\", \"command\": \"mine\"}}";
    let out = uninstall(before, Restore::Nothing).unwrap();
    assert_eq!(out.text, before);
    assert!(out.changes.iter().all(|c| c.action == Action::Absent));
    assert_eq!(uninstall("  \n", Restore::Nothing).unwrap().text, "  \n");
}

#[test]
fn documents_ctxmon_cannot_edit_safely_are_refused() {
    for (text, expect) in [
        ("[]", "top level"),
        ("{\"hooks\": []}", "`hooks`"),
        ("{\"hooks\": {\"PreCompact\": {}}}", "hooks.PreCompact"),
        // Not one of ctxmon's events, but Claude Code could not use the file either.
        (
            "{\"hooks\": {\"Stop\": {\"a\": 1}}}",
            "`hooks.Stop` is not a list",
        ),
    ] {
        match install(Some(text), &opts(false, false)) {
            Err(PlanError::Shape(m)) => assert!(m.contains(expect), "{m}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    for text in ["{\n  // note\n}", "{\"a\": 1,}", "{\"a\": 1"] {
        assert!(
            matches!(
                install(Some(text), &opts(false, false)),
                Err(PlanError::Syntax(_))
            ),
            "{text}"
        );
        assert!(
            matches!(uninstall(text, Restore::Nothing), Err(PlanError::Syntax(_))),
            "{text}"
        );
    }
}

/// The plugin's hooks.json registers the same events, matchers and timeouts as install, and
/// tells its wrapper to give up one second before Claude Code would.
#[test]
fn the_plugin_registers_what_install_writes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../hooks/hooks.json");
    let plugin = value(&std::fs::read_to_string(path).unwrap());
    let events = plugin["hooks"].as_object().unwrap();
    assert_eq!(events.len(), CTXMON_HOOKS.len(), "{events:?}");
    for spec in &CTXMON_HOOKS {
        let groups = events[spec.event()].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{}", spec.event());
        assert_eq!(
            groups[0].get("matcher").and_then(Value::as_str),
            spec.matcher
        );
        let hook = &groups[0]["hooks"][0];
        assert_eq!(hook["type"], "command");
        assert_eq!(hook["timeout"], spec.timeout_secs, "{}", spec.event());
        let wanted = format!(
            "\"${{CLAUDE_PLUGIN_ROOT}}/hooks/ctxmon-hook\" {} {}",
            spec.hook.name(),
            spec.timeout_secs - 1
        );
        assert_eq!(hook["command"], wanted.as_str());
    }
}
