//! The handoff end to end (contract C5, C6): PreCompact then SessionStart(compact) with the real
//! binary on a transcript that has what a resuming agent needs — a goal behind a slash
//! command, many later requests, task tools, a commit, a test run that failed after a banner,
//! a subagent still running, a refused edit with a reason — in a project that is a git work
//! tree with uncommitted changes. The injected context must carry each of them.

use std::process::Command;

use ctxmon_domain::estimate_tokens;
use serde_json::{Value, json};

use crate::common::{Sandbox, additional_context};

fn user(content: Value) -> String {
    json!({"type": "user", "isSidechain": false, "gitBranch": "feature/vat",
           "timestamp": "2026-11-20T10:00:00.000Z",
           "message": {"role": "user", "content": content}})
    .to_string()
}

fn call(id: &str, name: &str, input: Value) -> String {
    json!({"type": "assistant", "isSidechain": false, "gitBranch": "feature/vat",
           "timestamp": "2026-11-20T10:00:00.000Z",
           "message": {"role": "assistant", "id": format!("m-{id}"), "model": "claude-sonnet-4-5",
                       "content": [{"type": "tool_use", "id": id, "name": name, "input": input}],
                       "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": 169_990, "output_tokens": 5}}})
    .to_string()
}

fn result(id: &str, is_error: bool, text: &str) -> String {
    user(json!([{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": text}]))
}

fn transcript() -> String {
    let mut test_output = String::from("============ test session starts ============\n");
    for i in 0..40 {
        test_output.push_str(&format!("tests/test_{i}.py . [{i}%]\n"));
    }
    test_output
        .push_str("FAILED tests/test_tax.py::test_rounding - AssertionError: 1999 != 2000\n");
    test_output.push_str("========= 1 failed, 39 passed in 2.1s =========");
    let mut lines = vec![
        user(json!("<command-name>/init</command-name>")),
        user(json!(
            "Add VAT to the invoice totals and keep the ledger export byte-identical"
        )),
    ];
    for i in 0..6 {
        lines.push(user(json!(format!("Intermediate request number {i}"))));
    }
    lines.extend([
        call("c1", "TaskCreate", json!({"subject": "Write tax.rs", "description": "d", "activeForm": "Writing"})),
        result("c1", false, "Task #1 created successfully: Write tax.rs"),
        call("c2", "TaskCreate", json!({"subject": "Run the ledger export check", "description": "d", "activeForm": "Checking"})),
        result("c2", false, "Task #2 created successfully: Run the ledger export check"),
        call("u1", "TaskUpdate", json!({"taskId": "1", "status": "in_progress"})),
        result("u1", false, "Updated task #1 status"),
        call("g1", "Bash", json!({"command": "git commit -am 'Split billing'"})),
        result("g1", false, "[feature/vat 1a2b3c4] Split billing\n 2 files changed"),
        call("e1", "Edit", json!({"file_path": "/w/shop/setup.py", "old_string": "a", "new_string": "b"})),
        result("e1", true, "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  keep setup.py as it is"),
        call("a1", "Task", json!({"description": "Review the ledger format", "prompt": "p", "subagent_type": "general-purpose"})),
        call("b1", "Bash", json!({"command": "uv run pytest -q"})),
        result("b1", true, &format!("Exit code 1\n{test_output}")),
        user(json!("Now make the tax tests pass")),
    ]);
    lines.join("\n") + "\n"
}

fn git(sb: &Sandbox, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(sb.dir())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", sb.home.path())
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_context_carries_goal_tasks_work_tree_failure_subagents_and_constraints() {
    let sb = Sandbox::new();
    let repo = git(&sb, &["init", "-q", "-b", "feature/vat"])
        && git(
            &sb,
            &[
                "-c",
                "user.email=a@b",
                "-c",
                "user.name=a",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "init",
            ],
        );
    sb.write("a.txt", "x");
    sb.write("b.txt", "y");
    let t = sb.write("t.jsonl", transcript());
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s-1", &t, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    // Resumed, with no summary of its own, the agent gets the whole state.
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s-1", &t, json!({"source": "resume"})),
    );
    let text = additional_context(&start.stdout, "SessionStart");
    roxmltree::Document::parse(&text).unwrap();
    assert!(estimate_tokens(&text).get() <= 760, "{text}");
    // Beside a compaction's summary, only what a summary lacks: the exact failure, the
    // decline in the user's words, the work tree; not the request, the goal or the todos.
    let compact = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s-1", &t, json!({"source": "compact"})),
    );
    let beside = additional_context(&compact.stdout, "SessionStart");
    roxmltree::Document::parse(&beside).unwrap();
    for kept in [
        "branch feature/vat",
        "FAILED tests/test_tax.py::test_rounding - AssertionError: 1999 != 2000",
        "- declined Edit /w/shop/setup.py: \"keep setup.py as it is\"",
    ] {
        assert!(beside.contains(kept), "missing {kept:?} in\n{beside}");
    }
    for left in ["<current-request>", "<first-request>", "(todo list)"] {
        assert!(
            !beside.contains(left),
            "{left:?} beside a summary:\n{beside}"
        );
    }
    assert!(beside.len() < text.len(), "{beside}");
    for expected in [
        "<current-request>Now make the tax tests pass</current-request>",
        "<first-request>Add VAT to the invoice totals and keep the ledger export byte-identical</first-request>",
        "- Write tax.rs (todo list)",
        "- Run the ledger export check",
        "branch feature/vat",
        "- 1a2b3c4 Split billing",
        "$ uv run pytest -q",
        "FAILED tests/test_tax.py::test_rounding - AssertionError: 1999 != 2000",
        "1 failed, 39 passed",
        "- subagent still running: Review the ledger format",
        "- declined Edit /w/shop/setup.py: \"keep setup.py as it is\"",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // The banner is not what failed; the refusal is not a failure; nothing says abandoned.
    assert!(!text.contains("test session starts"), "{text}");
    assert!(!text.contains("abandon"), "{text}");
    if repo {
        // a.txt, b.txt and .ctxmon/ are untracked: counted by the bounded `git status`.
        assert!(text.contains(" uncommitted changes"), "{text}");
    }
    // The checkpoint keeps what the context shows.
    let cp: Value = serde_json::from_slice(
        &std::fs::read(sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")).unwrap(),
    )
    .unwrap();
    let state = &cp["resumption_state"];
    assert_eq!(state["commits"][0], "1a2b3c4 Split billing");
    assert_eq!(state["tasks"][0]["status"], "in_progress");
    assert_eq!(state["subagents_running"][0], "Review the ledger format");
    assert_eq!(state["failure"]["command"], "uv run pytest -q");
}

/// What a hand-back must survive: records of unknown types, results without a call and a
/// call without a result, a line cut short, a 100 KB answer, mixed scripts, a request that is
/// only an image, and files that are a folder or gone. The answer is still well formed,
/// bounded, exit 0, and names nothing that is not there.
#[test]
fn a_hostile_transcript_still_gives_a_bounded_truthful_hand_back() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path("src/folder.rs")).unwrap();
    sb.write("src/kept.rs", "x");
    let kept = sb.path("src/kept.rs").display().to_string();
    let folder = sb.path("src/folder.rs").display().to_string();
    let gone = sb.path("src/gone.rs").display().to_string();
    let huge = format!(
        "{} Now let me finish the résumé page: 履歴書 ✓",
        "word ".repeat(20_000)
    );
    let mut lines = vec![
        json!({"type": "mystery-record", "payload": {"x": 1}}).to_string(),
        user(json!(
            "Build the résumé page in 日本語 and English; no uses npm, usa pnpm"
        )),
        result(
            "orphan-1",
            true,
            "error: a result whose call is not in the tail",
        ),
        call("w1", "Write", json!({"file_path": kept, "content": "x"})),
        result("w1", false, "File created successfully at: src/kept.rs"),
        call(
            "w2",
            "Edit",
            json!({"file_path": folder, "old_string": "a", "new_string": "b"}),
        ),
        result("w2", false, "ok"),
        call(
            "w3",
            "Edit",
            json!({"file_path": gone, "old_string": "a", "new_string": "b"}),
        ),
        result("w3", false, "ok"),
        user(
            json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]),
        ),
    ];
    lines.push(
        json!({"type": "assistant", "isSidechain": false,
               "message": {"role": "assistant", "id": "m-huge", "model": "claude-sonnet-4-5",
                           "content": [{"type": "text", "text": huge}],
                           "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                                     "cache_read_input_tokens": 169_990, "output_tokens": 5}}})
        .to_string(),
    );
    lines.push(call(
        "never-answered",
        "Bash",
        json!({"command": "pnpm build"}),
    ));
    let mut text = lines.join("\n") + "\n";
    text.push_str("{\"type\":\"user\",\"message\":{\"content\":\"cut sho");
    let t = sb.write("t.jsonl", text);
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s-2", &t, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    // The edited file is deleted after the checkpoint: it must not be named. Resumed, the
    // whole state is handed back: the hardest render.
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s-2", &t, json!({"source": "resume"})),
    );
    assert_eq!(start.code, 0, "{}", start.stderr);
    let text = additional_context(&start.stdout, "SessionStart");
    roxmltree::Document::parse(&text).unwrap();
    assert!(estimate_tokens(&text).get() <= 760, "{text}");
    assert!(
        text.contains("<current-request>[an image]</current-request>"),
        "{text}"
    );
    assert!(text.contains("no uses npm, usa pnpm"), "{text}");
    assert!(
        text.contains("Now let me finish the résumé page: 履歴書 ✓"),
        "{text}"
    );
    assert!(text.contains(&kept), "{text}");
    assert!(
        !text.contains(&folder),
        "a folder is not a file to read: {text}"
    );
    assert!(
        !text.contains(&gone),
        "a file that is gone is never named: {text}"
    );
    assert!(!text.contains("orphan"), "{text}");
}
