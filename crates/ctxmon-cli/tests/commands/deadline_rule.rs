//! One rule for every deadline key: `hooks.deadline_ms` and a hook's own key accept the same
//! range, `config set` says when a deadline outlasts the timeout `ctxmon install` registers,
//! and `doctor` checks each hook's deadline against the timeout its settings file registers.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use super::doctor::{doctor, healthy, problems};

#[test]
fn the_fallback_and_a_hooks_own_key_follow_one_rule() {
    let sb = healthy();
    for key in ["hooks.prompt_submit_deadline_ms", "hooks.deadline_ms"] {
        let set = sb.run(&["config", "set", key, "4000"], "");
        assert_eq!(set.code, 0, "{key}: {}", set.stderr);
        assert!(
            set.stderr.contains("5 s timeout") && set.stderr.contains("ctxmon doctor"),
            "{key}: {}",
            set.stderr
        );
        let too_long = sb.run(&["config", "set", key, "700000"], "");
        assert_eq!(too_long.code, 2, "{key}: {}", too_long.stderr);
        assert!(too_long.stderr.contains("600000"), "{}", too_long.stderr);
        assert_eq!(sb.run(&["config", "unset", key], "").code, 0);
    }
}

#[test]
fn doctor_checks_deadlines_against_the_registered_timeouts() {
    let sb = healthy();
    sb.write(
        ".ctxmon/config.toml",
        "[hooks]\nprompt_submit_deadline_ms = 4000\n",
    );
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 1, "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    let (name, status, text) = &found[0];
    assert_eq!((name.as_str(), status.as_str()), ("deadlines", "warn"));
    assert!(text.contains("UserPromptSubmit"), "{text}");
    assert!(text.contains("5 s timeout"), "{text}");
    assert!(text.contains(".claude/settings.json"), "{text}");

    // The user raised that timeout in the settings file: the deadline ends before it.
    let path = sb.path(".claude/settings.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = 10.into();
    std::fs::write(&path, v.to_string()).unwrap();
    let (code, checks) = doctor(&sb);
    assert_eq!(code, 0, "{:#?}", problems(&checks));

    // hooks.deadline_ms is held to the same timeouts, for every hook it applies to.
    sb.write(".ctxmon/config.toml", "[hooks]\ndeadline_ms = 10000\n");
    let (code, checks) = doctor(&sb);
    let found = problems(&checks);
    assert_eq!(code, 1, "{found:#?}");
    assert!(found[0].2.contains("hooks.deadline_ms"), "{found:#?}");
    assert!(found[0].2.contains("SessionEnd"), "{found:#?}");
}
