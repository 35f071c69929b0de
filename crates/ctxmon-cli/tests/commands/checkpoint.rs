//! `ctxmon checkpoint list|show|ack|prune` end to end: the real binary on a temp project whose
//! checkpoints are written by the real repository.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use ctxmon_application::ports::CheckpointRepository;
use ctxmon_domain::{
    CheckpointData, CompactionTrigger, ContextWindow, FillEstimate, FillSource, Measured,
    SessionInfo, Thresholds, Timestamp, TokenCount,
};
use ctxmon_infra_fs::{FsCheckpointRepository, ProjectLayout};

use crate::common::Sandbox;

fn repo(sb: &Sandbox) -> FsCheckpointRepository {
    FsCheckpointRepository::new(ProjectLayout::new(sb.dir()))
}

/// Saves a checkpoint as PreCompact would: `tokens` of a 200k window, at a fixed time.
fn seed(sb: &Sandbox, session: &str, tokens: u64, trigger: CompactionTrigger) -> String {
    let saved = repo(sb)
        .save_new(Some(session), &mut |given| CheckpointData {
            schema_version: CheckpointData::SCHEMA_VERSION,
            checkpoint_id: given.id,
            timestamp: Timestamp(1_795_000_000_000).to_rfc3339(),
            created_at_ms: Timestamp(1_795_000_000_000),
            compaction_sequence: 1,
            trigger,
            custom_instructions: None,
            context_state: FillEstimate::measured(Measured {
                tokens: TokenCount(tokens),
                window: ContextWindow::DEFAULT,
                thresholds: &Thresholds::default(),
                auto_compact_reserve: TokenCount(33_000),
                source: FillSource::Transcript,
                model: None,
            }),
            resumption_state: None,
            session_info: SessionInfo {
                session_id: Some(session.into()),
                ..Default::default()
            },
        })
        .unwrap();
    saved.checkpoint_id.to_string()
}

fn checkpoints_dir(sb: &Sandbox) -> std::path::PathBuf {
    sb.path(".ctxmon/checkpoints")
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn list_show_ack_and_prune_round_trip() {
    let sb = Sandbox::new();
    seed(&sb, "alpha", 170_000, CompactionTrigger::Auto);
    seed(&sb, "beta", 120_000, CompactionTrigger::Manual);
    seed(
        &sb,
        "a-very-long-session-id-\u{1b}[31m-that-goes-on",
        178_000,
        CompactionTrigger::Auto,
    );

    let list = sb.run(&["checkpoint", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stderr.is_empty(), "{}", list.stderr);
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", list.stdout);
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        ["ID", "CREATED", "SESSION", "TRIGGER", "FILL", "TIER", "ACK"]
    );
    // Newest first, like `resume-log list`; the time local (TZ=UTC here) with its offset.
    let row: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(
        row,
        [
            "cx-001",
            "2026-11-18",
            "11:06:40",
            "+00:00",
            "alpha",
            "auto",
            "85%",
            "CRITICAL",
            "no"
        ]
    );
    assert!(lines[2].starts_with("cx-002") && lines[2].contains("manual"));
    // Long, hostile session ids are clipped and cannot inject terminal escapes.
    assert!(lines[1].starts_with("cx-003"), "{}", lines[1]);
    assert!(lines[1].contains("a-very-long-sess…"), "{}", lines[1]);
    assert!(!list.stdout.contains('\u{1b}'));

    // The same checkpoint whichever way its id is typed; JSON with --json.
    for typed in ["2", "cx-2", "cx-002", "CX-002"] {
        let show = sb.run(&["--json", "checkpoint", "show", typed], "");
        assert_eq!(show.code, 0, "{typed}: {}", show.stderr);
        let shown: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
        assert_eq!(shown["checkpoint_id"], "cx-002", "{typed}");
        assert_eq!(shown["session_info"]["session_id"], "beta");
        assert_eq!(shown["acknowledged"], false);
    }

    let ack = sb.run(&["checkpoint", "ack", "2"], "");
    assert_eq!((ack.code, ack.stdout.trim()), (0, "acknowledged cx-002"));
    let again = sb.run(&["checkpoint", "ack", "cx-002"], "");
    assert_eq!(
        (again.code, again.stdout.trim()),
        (0, "cx-002 was already acknowledged")
    );
    let json = sb.run(&["--json", "checkpoint", "list"], "");
    assert_eq!(json.code, 0, "{}", json.stderr);
    let items: Vec<serde_json::Value> = serde_json::from_str(&json.stdout).unwrap();
    let acked: Vec<(&str, bool)> = items
        .iter()
        .map(|i| {
            (
                i["checkpoint_id"].as_str().unwrap(),
                i["acknowledged"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        acked,
        [("cx-003", false), ("cx-002", true), ("cx-001", false)]
    );

    let prune = sb.run(&["checkpoint", "prune", "--keep", "1"], "");
    assert_eq!(
        (prune.code, prune.stdout.trim()),
        (
            0,
            "pruned 2 checkpoints: cx-001, cx-002 (kept the newest 1)"
        )
    );
    // The sessions' sequence marks stay: a prune never brings a compaction number back.
    assert_eq!(
        file_names(&checkpoints_dir(&sb)),
        [
            ".index-h-f8007e45da5175cc",
            ".indexed-since",
            ".lock",
            ".next-id",
            ".seq-alpha",
            ".seq-beta",
            ".seq-h-f8007e45da5175cc",
            "cx-003-checkpoint.json"
        ]
    );
    let nothing = sb.run(&["checkpoint", "prune", "--keep", "1"], "");
    assert_eq!(
        nothing.stdout.trim(),
        "nothing to prune (kept the newest 1)"
    );
}

#[test]
fn prune_keep_zero_empties_the_folder_and_ids_still_continue() {
    let sb = Sandbox::new();
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    let prune = sb.run(&["--json", "checkpoint", "prune", "--keep", "0"], "");
    assert_eq!(prune.code, 0, "{}", prune.stderr);
    let value: serde_json::Value = serde_json::from_str(&prune.stdout).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"pruned": ["cx-001", "cx-002"], "keep": 0, "unreadable": []})
    );
    let list = sb.run(&["checkpoint", "list"], "");
    assert_eq!(list.code, 0);
    assert!(
        list.stdout.starts_with("no checkpoints in "),
        "{}",
        list.stdout
    );
    assert_eq!(
        sb.run(&["--json", "checkpoint", "list"], "").stdout.trim(),
        "[]"
    );
    assert_eq!(seed(&sb, "s", 100_000, CompactionTrigger::Auto), "cx-003");
}

#[test]
fn invalid_ids_are_usage_errors_and_touch_nothing() {
    let sb = Sandbox::new();
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    let before = file_names(&checkpoints_dir(&sb));
    let long = "x".repeat(10_000);
    for bad in [
        "../../etc/passwd",
        "cx-1;rm",
        "cx-0",
        "0",
        "1.5",
        "cx-001/../x",
        "",
        long.as_str(),
    ] {
        for cmd in ["show", "ack"] {
            let run = sb.run(&["checkpoint", cmd, bad], "");
            assert_eq!(run.code, 2, "{cmd} {bad:?}: {}", run.stderr);
            assert!(
                run.stderr.contains("invalid checkpoint id") && run.stderr.contains("cx-004"),
                "{}",
                run.stderr
            );
            assert!(run.stderr.len() < 400, "the message is clipped");
            assert!(run.stdout.is_empty());
        }
    }
    assert_eq!(file_names(&checkpoints_dir(&sb)), before);
    assert_eq!(file_names(sb.dir()), [".ctxmon"]);
}

#[test]
fn unknown_ids_exit_1_and_create_no_marker() {
    let sb = Sandbox::new();
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    for cmd in ["show", "ack"] {
        let run = sb.run(&["checkpoint", cmd, "cx-009"], "");
        assert_eq!(run.code, 1, "{cmd}");
        assert!(
            run.stderr.contains("no checkpoint cx-009"),
            "{}",
            run.stderr
        );
    }
    assert!(!checkpoints_dir(&sb).join("cx-009.acknowledged").exists());
}

#[test]
fn unusable_files_are_named_on_stderr_and_skipped() {
    let sb = Sandbox::new();
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    sb.write(
        ".ctxmon/checkpoints/cx-002-checkpoint.json",
        "{\"schema_version\": 1, \"che",
    );
    sb.write(".ctxmon/checkpoints/notes.txt", "mine");
    sb.write(
        ".ctxmon/checkpoints/cx-003-checkpoint.json",
        r#"{"schema_version": 9, "checkpoint_id": "cx-003"}"#,
    );
    sb.write(".ctxmon/checkpoints/.tmp-AbC123", "{\"partial");
    let list = sb.run(&["checkpoint", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert_eq!(list.stdout.lines().count(), 2, "{}", list.stdout);
    assert!(list.stdout.contains("cx-001"));
    let notes: Vec<&str> = list.stderr.lines().collect();
    assert_eq!(notes.len(), 3, "{}", list.stderr);
    assert!(notes[0].contains("cx-002-checkpoint.json") && notes[0].contains("corrupt"));
    assert!(notes[1].contains("cx-003-checkpoint.json") && notes[1].contains("schema version 9"));
    assert!(notes[2].contains("notes.txt") && notes[2].ends_with("skipped"));
    assert!(
        !list.stderr.contains(".tmp-"),
        "temp files are not ours to report"
    );
    let show = sb.run(&["checkpoint", "show", "cx-002"], "");
    assert_eq!(show.code, 1);
    assert!(
        show.stderr.contains("corrupt checkpoint JSON"),
        "{}",
        show.stderr
    );
    assert_eq!(
        std::fs::read_to_string(checkpoints_dir(&sb).join("notes.txt")).unwrap(),
        "mine"
    );
}

#[cfg(unix)]
#[test]
fn a_read_only_folder_fails_cleanly_and_keeps_its_files() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    let dir = checkpoints_dir(&sb);
    let before = std::fs::read(dir.join("cx-001-checkpoint.json")).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    if std::fs::write(dir.join(".probe"), b"").is_ok() {
        ctxmon_test_support::skip!("running with permission bypass (root); read-only test skipped");
        return;
    }
    for args in [
        &["checkpoint", "ack", "cx-001"][..],
        &["checkpoint", "prune", "--keep", "0"],
    ] {
        let run = sb.run(args, "");
        assert_eq!(run.code, 1, "{args:?}");
        assert!(run.stderr.contains("ermission denied"), "{}", run.stderr);
    }
    let list = sb.run(&["checkpoint", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.contains("cx-001"));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(
        std::fs::read(dir.join("cx-001-checkpoint.json")).unwrap(),
        before
    );
}

fn events(sb: &Sandbox) -> Vec<serde_json::Value> {
    std::fs::read_to_string(sb.path(".ctxmon/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Found by the audit: `ack` on a corrupt file said "acknowledged", exited 0 and wrote the
/// marker while `show` refused the same file; and a successful `ack` recorded no event.
#[test]
fn ack_refuses_unreadable_checkpoints_and_records_the_event() {
    let sb = Sandbox::new();
    seed(&sb, "alpha", 170_000, CompactionTrigger::Auto);
    sb.write(".ctxmon/checkpoints/cx-002-checkpoint.json", "{ torn");
    sb.write(
        ".ctxmon/checkpoints/cx-003-checkpoint.json",
        r#"{"schema_version": 2, "checkpoint_id": "cx-003"}"#,
    );
    for (id, why) in [
        ("cx-002", "corrupt checkpoint JSON"),
        ("cx-003", "schema version 2"),
    ] {
        let show = sb.run(&["checkpoint", "show", id], "");
        assert_eq!(show.code, 1, "{}", show.stderr);
        for args in [
            &["checkpoint", "ack", id][..],
            &["--json", "checkpoint", "ack", id],
        ] {
            let ack = sb.run(args, "");
            assert_eq!(ack.code, 1, "{args:?}: {}", ack.stdout);
            // Nothing on stdout but, under --json, the error object (contract C13).
            if args[0] == "--json" {
                let v: serde_json::Value = serde_json::from_str(&ack.stdout).unwrap();
                assert_eq!(v["exit_code"], 1);
                assert!(v["error"].as_str().unwrap().contains(why), "{v}");
            } else {
                assert!(ack.stdout.is_empty(), "{}", ack.stdout);
            }
            assert!(
                ack.stderr.contains(&format!("cannot acknowledge {id}"))
                    && ack.stderr.contains(why),
                "{}",
                ack.stderr
            );
            assert!(
                !checkpoints_dir(&sb)
                    .join(format!("{id}.acknowledged"))
                    .exists()
            );
        }
    }
    assert!(events(&sb).is_empty(), "a refused ack records nothing");

    let ack = sb.run(&["checkpoint", "ack", "cx-001"], "");
    assert_eq!((ack.code, ack.stdout.trim()), (0, "acknowledged cx-001"));
    let again = sb.run(&["checkpoint", "ack", "cx-001"], "");
    assert_eq!(again.code, 0);
    let recorded = events(&sb);
    assert_eq!(
        recorded.len(),
        1,
        "one event per marker created: {recorded:?}"
    );
    assert_eq!(recorded[0]["event"], "CheckpointAcknowledged");
    assert_eq!(recorded[0]["checkpoint_id"], "cx-001");
    assert_eq!(recorded[0]["session_id"], "alpha");
}

/// Found by the audit: with cx-001 and cx-002 valid, cx-003 of a future schema and cx-004
/// corrupt, `prune --keep 1` counted file names, deleted cx-001 to cx-003 and kept only the
/// corrupt file.
#[test]
fn prune_counts_and_deletes_only_readable_checkpoints() {
    let sb = Sandbox::new();
    seed(&sb, "s", 100_000, CompactionTrigger::Auto);
    seed(&sb, "s", 120_000, CompactionTrigger::Auto);
    sb.write(
        ".ctxmon/checkpoints/cx-003-checkpoint.json",
        r#"{"schema_version": 2, "checkpoint_id": "cx-003"}"#,
    );
    sb.write(".ctxmon/checkpoints/cx-004-checkpoint.json", "{ torn");
    sb.write(".ctxmon/checkpoints/cx-004.acknowledged", "");

    let prune = sb.run(&["checkpoint", "prune", "--keep", "1"], "");
    assert_eq!(
        (prune.code, prune.stdout.trim()),
        (0, "pruned 1 checkpoint: cx-001 (kept the newest 1)"),
        "{}",
        prune.stderr
    );
    let notes: Vec<&str> = prune.stderr.lines().collect();
    assert_eq!(notes.len(), 2, "{}", prune.stderr);
    assert!(notes[0].contains("cx-003-checkpoint.json") && notes[0].contains("schema version 2"));
    assert!(notes[1].contains("cx-004-checkpoint.json") && notes[1].contains("corrupt"));
    assert!(notes.iter().all(|n| n.ends_with("not pruned")), "{notes:?}");
    assert_eq!(
        file_names(&checkpoints_dir(&sb)),
        [
            ".index-s",
            ".indexed-since",
            ".lock",
            ".next-id",
            ".seq-s",
            "cx-002-checkpoint.json",
            "cx-003-checkpoint.json",
            "cx-004-checkpoint.json",
            "cx-004.acknowledged"
        ]
    );

    let all = sb.run(&["--json", "checkpoint", "prune", "--keep", "0"], "");
    assert_eq!(all.code, 0, "{}", all.stderr);
    let value: serde_json::Value = serde_json::from_str(&all.stdout).unwrap();
    assert_eq!(value["pruned"], serde_json::json!(["cx-002"]));
    assert_eq!(value["unreadable"].as_array().unwrap().len(), 2, "{value}");
    // The session has no checkpoint left, so its index goes too.
    assert_eq!(
        file_names(&checkpoints_dir(&sb)),
        [
            ".indexed-since",
            ".lock",
            ".next-id",
            ".seq-s",
            "cx-003-checkpoint.json",
            "cx-004-checkpoint.json",
            "cx-004.acknowledged"
        ]
    );
}
