//! Install and uninstall on settings text: what changes, what stays byte for byte, and the
//! plugin's `hooks/hooks.json` checked against the same table install writes.

use serde_json::Value;

use super::merge::{
    Action, Options, Outcome, PlanError, Restore, install, statusline_in, statusline_record,
    uninstall,
};
use super::table::claude_hooks;
use crate::cli::Agent;

const NEW: &str = "/new/ctxmon";

fn opts(statusline: bool, replace: bool) -> Options<'static> {
    Options {
        agent: Agent::ClaudeCode,
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
    let after = uninstall(&first.text, restore_from(&first), o.agent).unwrap();
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
fn a_missing_file_gets_every_hook_and_uninstall_leaves_an_empty_object() {
    let out = installed(None);
    assert!(actions(&out).iter().all(|(_, a)| *a == Action::Added));
    let v = value(&out.text);
    for spec in &claude_hooks() {
        let group = &v["hooks"][spec.event][0];
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
    assert_eq!(
        uninstall(&out.text, Restore::Nothing, Agent::ClaudeCode)
            .unwrap()
            .text,
        "{}\n"
    );
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
    assert_eq!(
        uninstall(&out.text, Restore::Nothing, Agent::ClaudeCode)
            .unwrap()
            .text,
        "{}\n"
    );
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
    let removed = uninstall(&out.text, Restore::Nothing, Agent::ClaudeCode).unwrap();
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
    let restored = uninstall(&out.text, restore_from(&out), Agent::ClaudeCode).unwrap();
    assert_eq!(restored.text, before);
    let sl = restored.changes.last().unwrap();
    assert_eq!(sl.action, Action::Restored);
    assert!(sl.detail.ends_with("(from the record)"), "{sl:?}");
    // Nothing to restore: the status line is simply removed.
    let removed = uninstall(&out.text, Restore::Nothing, Agent::ClaudeCode).unwrap();
    assert!(value(&removed.text).get("statusLine").is_none());
    // A record that cannot be read stops uninstall instead of losing the status line.
    assert!(matches!(
        uninstall(&out.text, Restore::Unusable("not JSON"), Agent::ClaudeCode),
        Err(PlanError::SavedStatusLineUnusable(_))
    ));
    // ctxmon's own status line in a backup or record is never "restored".
    assert_eq!(statusline_in(&out.text), None);
    assert_eq!(statusline_in("not json"), None);
}

#[test]
fn uninstall_without_ctxmon_changes_nothing() {
    let before = "{\"hooks\": {}, \"statusLine\": {\"type\": \"command\", \"command\": \"mine\"}}";
    let out = uninstall(before, Restore::Nothing, Agent::ClaudeCode).unwrap();
    assert_eq!(out.text, before);
    assert!(out.changes.iter().all(|c| c.action == Action::Absent));
    assert_eq!(
        uninstall("  \n", Restore::Nothing, Agent::ClaudeCode)
            .unwrap()
            .text,
        "  \n"
    );
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
            matches!(
                uninstall(text, Restore::Nothing, Agent::ClaudeCode),
                Err(PlanError::Syntax(_))
            ),
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
    assert_eq!(events.len(), claude_hooks().len(), "{events:?}");
    for spec in &claude_hooks() {
        let groups = events[spec.event].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{}", spec.event);
        assert_eq!(
            groups[0].get("matcher").and_then(Value::as_str),
            spec.matcher
        );
        let hook = &groups[0]["hooks"][0];
        assert_eq!(hook["type"], "command");
        assert_eq!(hook["timeout"], spec.timeout_secs, "{}", spec.event);
        let wanted = format!(
            "\"${{CLAUDE_PLUGIN_ROOT}}/hooks/ctxmon-hook\" {} {}",
            spec.hook.name(),
            spec.timeout_secs - 1
        );
        assert_eq!(hook["command"], wanted.as_str());
    }
}

fn codex_opts() -> Options<'static> {
    Options {
        agent: Agent::Codex,
        ..opts(false, false)
    }
}

#[test]
fn codex_gets_its_own_table_in_the_same_shape() {
    let out = install(None, &codex_opts()).unwrap();
    let v = value(&out.text);
    let hooks = v["hooks"].as_object().unwrap();
    let wanted: Vec<&str> = super::table::codex_hooks()
        .iter()
        .map(|r| r.event)
        .collect();
    assert_eq!(hooks.len(), wanted.len(), "one event per registration");
    // Written in table order (serde_json's map sorts its keys, so the text is asked).
    let at: Vec<usize> = wanted
        .iter()
        .map(|e| out.text.find(&format!("\"{e}\"")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", out.text);
    for reg in super::table::codex_hooks() {
        let group = &v["hooks"][reg.event][0];
        assert!(group.get("matcher").is_none(), "{group}");
        assert_eq!(
            group["hooks"][0],
            serde_json::json!({
                "type": "command",
                "command": format!("{NEW} hooks {}", reg.name),
                "timeout": reg.timeout_secs,
            })
        );
    }
    assert!(!out.text.contains("SessionEnd") && !out.text.contains("PreToolUse"));
    // Nothing but `hooks` at the top: newer Codex builds refuse any other top-level key.
    assert_eq!(v.as_object().unwrap().len(), 1);
    // What install wrote from nothing, uninstall takes back to an object with nothing in it,
    // which the command removes.
    let removed = uninstall(&out.text, Restore::Nothing, Agent::Codex).unwrap();
    assert_eq!(removed.text, "{}\n");
    assert!(super::merge::is_empty_object(&removed.text));
}

#[test]
fn codex_leaves_the_users_hooks_json_byte_for_byte() {
    // A Codex hooks.json as people write it: their own matcher groups, a PreToolUse for
    // apply_patch, a status message, odd spacing.
    let before = r#"{
  "hooks": {
    "PreToolUse": [
      { "matcher": "apply_patch|Edit|Write",
        "hooks": [ { "type": "command", "command": "python3 ~/.codex/hooks/guard.py", "timeout": 10, "statusMessage": "Checking patch" } ] }
    ],
    "SessionStart": [
      { "matcher": "startup|resume", "hooks": [ { "type": "command", "command": "cat NOTES.md" } ] }
    ],
    "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ]
  }
}
"#;
    let (text, after) = cycle(before, &codex_opts());
    assert_eq!(after, before);
    let v = value(&text);
    // Ours is a group of its own after the user's, which keeps its matcher and position (Codex
    // keys a hook's trust by its group and handler index).
    let starts = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[0]["matcher"], "startup|resume");
    assert!(starts[1].get("matcher").is_none());
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 1);
    assert!(!super::merge::is_empty_object(&after));
}

#[test]
fn codex_uninstall_leaves_claude_codes_entries_alone_and_the_reverse() {
    // One file should not hold both, but if it does, each agent's uninstall takes only its own
    // hooks: Claude Code's table has SessionEnd and PreToolUse, Codex's does not.
    let claude = installed(None).text;
    let codex_removed = uninstall(&claude, Restore::Nothing, Agent::Codex).unwrap();
    let v = value(&codex_removed.text);
    assert!(v["hooks"].get("SessionEnd").is_some());
    assert!(v["hooks"].get("PreToolUse").is_some());
    assert!(v["hooks"].get("UserPromptSubmit").is_none());
}

#[test]
fn codex_shape_errors_name_codex() {
    let err = install(Some(r#"{"hooks": {"Stop": {}}}"#), &codex_opts()).unwrap_err();
    match err {
        PlanError::Shape(m) => assert!(m.contains("Codex expects a list"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn only_an_object_with_nothing_in_it_is_empty() {
    for empty in ["{}", "{}\n", "\u{feff}{ }\r\n", "{\n}\n"] {
        assert!(super::merge::is_empty_object(empty), "{empty:?}");
    }
    for not in ["", "[]", "{\"hooks\": {}}", "null", "{", "{} {}"] {
        assert!(!super::merge::is_empty_object(not), "{not:?}");
    }
}

/// Why install refuses a Codex hooks.json with a byte-order mark: Codex reads the file with
/// `serde_json::from_str`, which does not skip the mark, so it would ignore every hook in it.
#[test]
fn serde_json_refuses_a_byte_order_mark() {
    assert!(serde_json::from_str::<Value>("\u{feff}{}").is_err());
}

/// A status line the user shaped (`--format`) is still ctxmon's: install re-points its binary
/// and keeps the flags as written; uninstall removes it.
#[test]
fn a_shaped_status_line_keeps_its_flags() {
    let before = r#"{"statusLine": {"type": "command", "command": "/old/ctxmon statusline --format '{percent} {bar}'"}}"#;
    let out = install(Some(before), &opts(true, false)).unwrap();
    let v = value(&out.text);
    assert_eq!(
        v["statusLine"]["command"],
        format!("{NEW} statusline --format '{{percent}} {{bar}}'").as_str()
    );
    let line = out
        .changes
        .iter()
        .find(|c| c.target == "statusLine")
        .unwrap();
    assert_eq!(line.action, Action::Updated, "{line:?}");
    let again = install(Some(&out.text), &opts(true, false)).unwrap();
    assert_eq!(again.text, out.text);
    let removed = uninstall(&out.text, Restore::Nothing, Agent::ClaudeCode).unwrap();
    assert_eq!(value(&removed.text).get("statusLine"), None);
}
