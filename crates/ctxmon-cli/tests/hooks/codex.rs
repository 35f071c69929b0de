//! Codex CLI end to end: `status` and `report` on rollouts, the hooks on Codex's
//! inputs (a `transcript_path` of `null` measured from `$CODEX_HOME`), Codex's auto-compact
//! point, and bad rollouts failing open. The shared fixtures' figures are SOURCES.md's; the
//! other cases build small rollouts in Codex's shape, so they run in any clone.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;
use crate::common::{Sandbox, codex_rollout};

const COMPACTED: &str = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl";
const SHORT: &str = "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
const SESSION: &str = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff";

fn status(sb: &Sandbox, transcript: &Path) -> Value {
    let run = sb.run(
        &[
            "--json",
            "status",
            "--transcript",
            transcript.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// tokens, window, model, source, tokens until auto-compact.
fn figures(v: &Value) -> (u64, u64, String, String, Option<u64>) {
    (
        v["input_tokens"].as_u64().unwrap(),
        v["context_window_size"].as_u64().unwrap(),
        v["model"].as_str().unwrap_or_default().to_string(),
        v["source"].as_str().unwrap().to_string(),
        v["tokens_until_auto_compact"].as_u64(),
    )
}

#[test]
fn status_on_the_shared_rollouts_gives_the_sources_md_figures() {
    let Some(dir) = common::codex_fixtures() else {
        return;
    };
    let sb = Sandbox::new();
    let long = status(&sb, &dir.join(COMPACTED));
    assert_eq!(
        figures(&long),
        (
            162_366,
            258_400,
            "gpt-5.3-codex".into(),
            "transcript".into(),
            // Codex compacts at 90% of the raw 272,000 window: 244,800.
            Some(244_800 - 162_366)
        )
    );
    assert_eq!(long["agent"], "codex");
    assert_eq!(long["threshold_tier"], "low");
    let short = status(&sb, &dir.join(SHORT));
    assert_eq!(
        figures(&short),
        (
            63_727,
            258_400,
            "gpt-5.3-codex".into(),
            "transcript".into(),
            Some(244_800 - 63_727)
        )
    );
}

/// The shared compacted rollout cut at `keep` lines, in the sandbox.
fn cut(sb: &Sandbox, raw: &[String], keep: usize) -> PathBuf {
    sb.write(&format!("cuts/cut-{keep}.jsonl"), raw[..keep].concat())
}

#[test]
fn status_before_and_after_the_compaction() {
    let Some(dir) = common::codex_fixtures() else {
        return;
    };
    let sb = Sandbox::new();
    let text = std::fs::read_to_string(dir.join(COMPACTED)).unwrap();
    let raw: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let compacted = raw
        .iter()
        .position(|l| l.contains(r#""type":"compacted""#))
        .unwrap();
    // Just before: the last measured count (Codex's 940,499 estimate before it is skipped).
    let before = status(&sb, &cut(&sb, &raw, compacted));
    assert_eq!(
        figures(&before),
        (
            212_134,
            258_400,
            "gpt-5.3-codex".into(),
            "transcript".into(),
            Some(244_800 - 212_134)
        )
    );
    assert_eq!(before["threshold_tier"], "critical");
    // Right after (the compaction, its event and Codex's new estimate): the old count is
    // stale, the post-compaction baseline (30% of the 212,134 before it, less than 30% of the
    // window) stands in.
    for keep in [compacted + 1, compacted + 4] {
        let after = status(&sb, &cut(&sb, &raw, keep));
        assert_eq!(
            figures(&after),
            (
                63_640,
                258_400,
                "gpt-5.3-codex".into(),
                "compaction".into(),
                Some(244_800 - 63_640)
            ),
            "cut at {keep}"
        );
        assert_eq!(after["threshold_tier"], "nominal");
        assert!(after["note"].as_str().unwrap().contains("compacted"));
    }
    // At the first response after it: measured again.
    let first = raw
        .iter()
        .enumerate()
        .skip(compacted)
        .find(|(_, l)| l.contains("\"token_count\"") && l.contains("\"input_tokens\":48297"))
        .map(|(i, _)| i)
        .unwrap();
    let again = status(&sb, &cut(&sb, &raw, first + 1));
    assert_eq!(figures(&again).0, 48_687);
    assert_eq!(again["source"], "transcript");
}

#[test]
fn report_charts_a_rollout_with_its_compaction_and_codexs_auto_compact_point() {
    let Some(dir) = common::codex_fixtures() else {
        return;
    };
    let sb = Sandbox::new();
    let path = dir.join(COMPACTED);
    let run = sb.run(
        &["--json", "report", "--transcript", path.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let text = v.to_string();
    assert!(
        !text.contains("940499"),
        "Codex's estimate is not a response"
    );
    assert_eq!(v["window"], 258_400);
    assert_eq!(v["model"], "gpt-5.3-codex");
    // One point per response: of 573 token_count lines, repeats and info-less ones are not
    // responses.
    assert_eq!(v["responses"], 286);
    assert_eq!(v["last"]["tokens"], 162_366);
    assert_eq!(v["max"]["tokens"], 212_134);
    let compactions = v["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 1);
    assert_eq!(compactions[0]["pre_tokens"], 212_134);
    assert_eq!(compactions[0]["after_response"], 184);
    // The auto-compact line is Codex's: 244,800 of 258,400.
    let fill = v["auto_compact_fill"].as_f64().unwrap();
    assert!((fill - 244_800.0 / 258_400.0).abs() < 1e-9, "{fill}");
}

/// A sandbox whose `$CODEX_HOME` holds `rollout` as session `id`, in today's folder.
fn codex_home_with(sb: &mut Sandbox, id: &str, rollout: &str) -> PathBuf {
    let home = sb.home.path().join("codex-home");
    let day = common::now_rfc3339();
    let folder = home
        .join("sessions")
        .join(&day[0..4])
        .join(&day[5..7])
        .join(&day[8..10]);
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join(format!("rollout-2026-02-23T20-34-25-{id}.jsonl"));
    std::fs::write(&file, rollout).unwrap();
    sb.set_env("CODEX_HOME", home.to_str().unwrap());
    file
}

/// A UserPromptSubmit input as Codex sends it, with `transcript_path` null.
fn codex_prompt(sb: &Sandbox, id: &str) -> String {
    json!({
        "session_id": id,
        "transcript_path": null,
        "cwd": sb.dir(),
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt-5.3-codex",
        "turn_id": "019c8bfe-ed40-7a21-b57f-6447436c5881",
        "permission_mode": "default",
        "prompt": "continue",
    })
    .to_string()
}

fn context_of(run: &common::Run) -> String {
    assert_eq!(run.code, 0, "{}", run.stderr);
    common::additional_context(&run.stdout, "UserPromptSubmit")
}

#[test]
fn a_null_transcript_path_is_measured_from_codex_home() {
    let mut sb = Sandbox::new();
    let rollout = codex_rollout(SESSION, sb.dir(), &[40_000, 63_727]);
    codex_home_with(&mut sb, SESSION, &rollout);
    let ctx = context_of(&sb.run(&["hooks", "prompt-submit"], codex_prompt(&sb, SESSION)));
    assert!(ctx.contains(r#"tokens="63727""#), "{ctx}");
    assert!(ctx.contains(r#"window="258400""#), "{ctx}");
    assert!(ctx.contains(r#"until-auto-compact="181073""#), "{ctx}");

    // The shared fixture the same way, when present.
    if let Some(dir) = common::codex_fixtures() {
        let mut sb = Sandbox::new();
        let text = std::fs::read_to_string(dir.join(SHORT)).unwrap();
        codex_home_with(&mut sb, SESSION, &text);
        let ctx = context_of(&sb.run(&["hooks", "prompt-submit"], codex_prompt(&sb, SESSION)));
        assert!(ctx.contains(r#"tokens="63727""#), "{ctx}");
    }
}

#[test]
fn codexs_config_toml_and_ctxmon_config_move_the_auto_compact_point() {
    let mut sb = Sandbox::new();
    let rollout = codex_rollout(SESSION, sb.dir(), &[100_000]);
    let file = codex_home_with(&mut sb, SESSION, &rollout);
    let home = file.ancestors().nth(5).unwrap().to_path_buf();
    std::fs::write(
        home.join("config.toml"),
        "model = \"gpt-5.3-codex\"\nmodel_auto_compact_token_limit = 200000\n",
    )
    .unwrap();
    let v = status(&sb, &file);
    assert_eq!(v["tokens_until_auto_compact"], 100_000);
    // A limit above Codex's own default cannot postpone compaction.
    std::fs::write(
        home.join("config.toml"),
        "model_auto_compact_token_limit = 250000\n",
    )
    .unwrap();
    assert_eq!(status(&sb, &file)["tokens_until_auto_compact"], 144_800);
    // ctxmon's own key wins over Codex's file.
    sb.write(
        ".ctxmon/config.toml",
        "[codex]\nauto_compact_token_limit = 150000\n",
    );
    assert_eq!(status(&sb, &file)["tokens_until_auto_compact"], 50_000);
    // A broken Codex file is a warning, and the default rule holds.
    std::fs::remove_file(sb.path(".ctxmon/config.toml")).unwrap();
    std::fs::write(
        home.join("config.toml"),
        "model_auto_compact_token_limit = [\n",
    )
    .unwrap();
    let run = sb.run(
        &["--json", "status", "--transcript", file.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("not valid TOML"), "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["tokens_until_auto_compact"], 144_800);
}

#[test]
fn codex_hooks_answer_by_codexs_contract() {
    let mut sb = Sandbox::new();
    let rollout = codex_rollout(SESSION, sb.dir(), &[200_000]);
    codex_home_with(&mut sb, SESSION, &rollout);
    let input = |event: &str, extra: Value| {
        let mut v = json!({
            "session_id": SESSION, "transcript_path": null, "cwd": sb.dir(),
            "hook_event_name": event, "model": "gpt-5.3-codex", "turn_id": "t9",
        });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string()
    };
    // The agent's note, which the hand-back beside Codex's own summary carries.
    sb.write(
        &format!(".ctxmon/notes/{SESSION}.md"),
        "Fix the parser: escaped quotes next.",
    );
    // PreCompact saves the checkpoint and says nothing (Codex shows a systemMessage as a
    // warning); PostCompact never answers.
    let pre = sb.run(
        &["hooks", "pre-compact"],
        input("PreCompact", json!({"trigger": "auto"})),
    );
    assert_eq!((pre.code, pre.stdout.as_str()), (0, ""), "{}", pre.stderr);
    let saved =
        std::fs::read_to_string(sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")).unwrap();
    let cp: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(cp["context_state"]["input_tokens"], 200_000);
    assert_eq!(cp["context_state"]["context_window_size"], 258_400);
    let post = sb.run(
        &["hooks", "post-compact"],
        input("PostCompact", json!({"trigger": "auto"})),
    );
    assert_eq!((post.code, post.stdout.as_str()), (0, ""));
    // SessionStart with source compact hands the checkpoint back as additionalContext.
    let start = sb.run(
        &["hooks", "session-start"],
        input(
            "SessionStart",
            json!({"source": "compact", "permission_mode": "default"}),
        ),
    );
    assert_eq!(start.code, 0);
    let ctx = common::additional_context(&start.stdout, "SessionStart");
    assert!(ctx.contains("cx-001"), "{ctx}");
    assert!(
        ctx.contains("Fix the parser: escaped quotes next."),
        "{ctx}"
    );
    // The same Claude Code input (a path, no turn_id) still gets PreCompact's systemMessage.
    let claude = Sandbox::new();
    let t = claude.write("t.jsonl", common::transcript_with(&[150_000]));
    let pre = claude.run(
        &["hooks", "pre-compact"],
        claude.hook_input("PreCompact", "s1", &t, json!({"trigger": "auto"})),
    );
    assert!(pre.stdout.contains("systemMessage"), "{}", pre.stdout);
}

#[test]
fn bad_rollouts_and_a_missing_codex_home_fail_open() {
    let mut sb = Sandbox::new();
    let good = codex_rollout(SESSION, sb.dir(), &[90_000]);
    let meta = good.lines().next().unwrap().to_string() + "\n";
    // Malformed lines around a good count: the count is still found.
    let malformed = format!(
        "{good}{{\"timestamp\":\"x\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":\n\u{0}\u{1}garbage\n{{\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":{{\"last_token_usage\":\"lots\"}}}}}}\n"
    );
    let file = sb.write("r/malformed.jsonl", &malformed);
    assert_eq!(status(&sb, &file)["input_tokens"], 90_000);
    // No count yet (a session before its first answer): status says 0 and "no response yet"
    // (exit 0, contract C13), hooks answer without a figure.
    let null_info = format!(
        "{meta}{{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":null}}}}\n"
    );
    for (name, text) in [("meta-only", meta.clone()), ("null-info", null_info)] {
        let file = sb.write(&format!("r/{name}.jsonl"), &text);
        let run = sb.run(
            &["--json", "status", "--transcript", file.to_str().unwrap()],
            "",
        );
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            (
                &v["input_tokens"],
                &v["awaiting_first_response"],
                &v["agent"]
            ),
            (&0.into(), &true.into(), &"codex".into()),
            "{name}: {v}"
        );
        let hook = sb.run(
            &["hooks", "prompt-submit"],
            json!({
                "session_id": "s-bad", "transcript_path": file, "cwd": sb.dir(),
                "hook_event_name": "UserPromptSubmit", "turn_id": "t", "prompt": "x",
            })
            .to_string(),
        );
        assert_eq!(hook.code, 0, "{name}");
        assert!(
            !hook.stdout.contains("tokens=\"9"),
            "{name}: {}",
            hook.stdout
        );
    }
    // A Codex input whose session has no rollout, under a CODEX_HOME that does not exist.
    sb.set_env("CODEX_HOME", "/nonexistent/codex-home");
    let run = sb.run(&["hooks", "prompt-submit"], codex_prompt(&sb, SESSION));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap();
    assert!(log.contains("no rollout of Codex session"), "{log}");
    // One cause, one warning: a null path is how Codex always sends it, so "no transcript path
    // was given" would be a second and false one.
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(!log.contains("no transcript path"), "{log}");
    // Every hook on the same input, and a rollout cut mid-line: exit 0, no panic.
    let cut = sb.write("r/cut.jsonl", &good[..good.len() - 40]);
    for hook in [
        "session-start",
        "pre-compact",
        "post-compact",
        "pre-tool-use",
        "session-end",
    ] {
        let run = sb.run(&["hooks", hook], codex_prompt(&sb, SESSION));
        assert_eq!(run.code, 0, "{hook}: {}", run.stderr);
        let with_cut = json!({
            "session_id": "s-cut", "transcript_path": cut, "cwd": sb.dir(), "turn_id": "t",
        })
        .to_string();
        let run = sb.run(&["hooks", hook], with_cut);
        assert_eq!(run.code, 0, "{hook}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{hook}: {}", run.stderr);
    }
}

#[test]
fn status_without_a_transcript_takes_the_projects_newest_session_of_either_agent() {
    let mut sb = Sandbox::new();
    let rollout = codex_rollout(
        SESSION,
        &std::fs::canonicalize(sb.dir()).unwrap(),
        &[120_000],
    );
    codex_home_with(&mut sb, SESSION, &rollout);
    // Another project's rollout is never taken.
    let other = codex_rollout("019c-other", Path::new("/elsewhere"), &[5_000]);
    codex_home_with(&mut sb, "019c-other", &other);
    let run = sb.run(&["--json", "status"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (v["input_tokens"].as_u64(), v["agent"].as_str()),
        (Some(120_000), Some("codex"))
    );
    // A Claude Code transcript written later is newer: it is the one measured.
    std::thread::sleep(std::time::Duration::from_millis(30));
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("s.jsonl"), common::transcript_with(&[70_000])).unwrap();
    let v: Value = serde_json::from_str(&sb.run(&["--json", "status"], "").stdout).unwrap();
    assert_eq!(
        (v["input_tokens"].as_u64(), v["agent"].as_str()),
        (Some(70_000), Some("claude-code"))
    );
}

#[test]
fn resume_log_generate_finds_a_codex_session_with_or_without_its_id() {
    let mut sb = Sandbox::new();
    let rollout = codex_rollout(
        SESSION,
        &std::fs::canonicalize(sb.dir()).unwrap(),
        &[40_000, 63_727],
    );
    codex_home_with(&mut sb, SESSION, &rollout);

    // Without --session: the project's newest session is the rollout, named by its session_meta.
    let run = sb.run(&["--json", "resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["session_id"], SESSION, "{v}");
    let shown = sb.run(&["resume-log", "show", SESSION], "");
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown.stdout.contains("- Used: 63,727 tokens"),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.contains("- Sources: transcript"),
        "{}",
        shown.stdout
    );

    // With --session: the rollout is found under $CODEX_HOME by the id; no warning about it.
    let run = sb.run(&["resume-log", "generate", "--session", SESSION], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("no Claude Code transcript"),
        "{}",
        run.stderr
    );

    // An id with no transcript and no rollout writes what else there is, and says so.
    let run = sb.run(&["resume-log", "generate", "--session", "019c-nowhere"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no Claude Code transcript, Codex rollout or Gemini CLI chat found"),
        "{}",
        run.stderr
    );
}

#[test]
fn doctor_measures_the_projects_codex_session() {
    let mut sb = Sandbox::new();
    // No session of either agent yet: a skip that names both places.
    codex_home_with(&mut sb, "019c-other", "");
    let checks = |sb: &Sandbox| -> Value {
        let run = sb.run(&["--json", "doctor"], "");
        let all: Value = serde_json::from_str(&run.stdout).unwrap();
        all.as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == "transcript")
            .cloned()
            .unwrap()
    };
    let none = checks(&sb);
    assert_eq!(none["status"], "skip", "{none}");
    let message = none["message"].as_str().unwrap();
    assert!(
        message.contains("Claude Code, Codex or Gemini CLI"),
        "{message}"
    );
    assert!(message.contains("codex-home/sessions"), "{message}");

    let rollout = codex_rollout(
        SESSION,
        &std::fs::canonicalize(sb.dir()).unwrap(),
        &[40_000, 63_727],
    );
    codex_home_with(&mut sb, SESSION, &rollout);
    let found = checks(&sb);
    assert_eq!(found["status"], "ok", "{found}");
    let message = found["message"].as_str().unwrap();
    assert!(
        message.contains("measures 24% (63,727 of 258,400 tokens"),
        "{message}"
    );
}

/// A Codex PreCompact whose session's rollout (found by its id) holds a Claude Code transcript
/// or garbage answered a `systemMessage`, which Codex shows the user as a warning. The input is
/// Codex's: the answer stays Codex's (nothing), and the odd rollout is in the hook log.
#[test]
fn a_codex_pre_compact_stays_quiet_whatever_its_rollout_holds() {
    let claude = common::transcript_with(&[150_000]);
    for (what, rollout) in [
        ("a Claude Code transcript", claude.as_str()),
        ("garbage", "\u{0}\u{1}not json at all\n{\"x\":\n"),
    ] {
        let mut sb = Sandbox::new();
        codex_home_with(&mut sb, SESSION, rollout);
        let input = json!({
            "session_id": SESSION, "transcript_path": null, "cwd": sb.dir(),
            "hook_event_name": "PreCompact", "model": "gpt-5.3-codex", "turn_id": "t9",
            "trigger": "auto",
        });
        let pre = sb.run(&["hooks", "pre-compact"], input.to_string());
        assert_eq!(
            (pre.code, pre.stdout.as_str()),
            (0, ""),
            "{what}: {}",
            pre.stderr
        );
        let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default();
        assert!(
            log.contains("not a Codex rollout"),
            "{what}: the odd rollout is logged: {log}"
        );
    }
}

/// Codex keeps its steps in a plan (`update_plan`), not a todo list: no tag it gets names a
/// todo list, and the alert after a compaction names the plan.
#[test]
fn codex_is_told_about_its_plan_not_a_todo_list() {
    let mut sb = Sandbox::new();
    let rollout = codex_rollout(SESSION, sb.dir(), &[190_000]);
    codex_home_with(&mut sb, SESSION, &rollout);
    let warning = context_of(&sb.run(&["hooks", "prompt-submit"], codex_prompt(&sb, SESSION)));
    assert!(warning.contains("tier=\"WARNING\""), "{warning}");
    // At WARNING the tag asks for the agent's note, which is handed back with the plan.
    assert!(warning.contains("resumption note"), "{warning}");
    assert!(!warning.contains("todo list"), "{warning}");
    let pre = json!({
        "session_id": SESSION, "transcript_path": null, "cwd": sb.dir(),
        "hook_event_name": "PreCompact", "model": "gpt-5.3-codex", "turn_id": "t9",
        "trigger": "auto",
    });
    assert_eq!(sb.run(&["hooks", "pre-compact"], pre.to_string()).code, 0);
    let alert = context_of(&sb.run(&["hooks", "prompt-submit"], codex_prompt(&sb, SESSION)));
    assert!(alert.contains("<compaction-alert"), "{alert}");
    assert!(alert.contains("check your plan"), "{alert}");
    assert!(!alert.contains("todo list"), "{alert}");
}
