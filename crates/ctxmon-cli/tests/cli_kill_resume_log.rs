//! SIGKILL at random points of resume-log writes (contract C9, C15): `ctxmon resume-log generate
//! --from FILE` with a large document, and the hooks whose triggers write logs (`pre-compact`,
//! `session-end`) next to their checkpoints, state and events. Afterwards every file in `.ctxmon/`
//! is a complete version (checkpoints, markers, `.next-id`, state, events, each resume log's JSON),
//! checkpoint ids stay gapless, and each log's markdown is the rendering of the JSON beside it; a
//! pair caught between its two renames is repaired by the next reader. A killed writer's temp file
//! stays (ctxmon deletes only its own process's temp files, since another's may be in use): it is
//! invisible to every reader, and the next writers leave it as it is.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use ctxmon_test_support::proof;
use serde_json::json;

use crate::common::disk;
use crate::common::kill;
use crate::common::{Sandbox, transcript_with};

const ROUNDS: usize = 12;

/// A ~1.4 MB agent document (under the 2 MiB `--from` cap) marked with its version.
fn write_document(sb: &Sandbox, version: usize) -> PathBuf {
    let items = |tag: &str, n: usize| -> Vec<String> {
        (0..n)
            .map(|i| format!("{tag} {i} of version {version}. {}", "x".repeat(1000)))
            .collect()
    };
    let decisions: Vec<_> = (0..300)
        .map(|i| json!({"decision": format!("d{i} v{version}"), "rationale": "r".repeat(500)}))
        .collect();
    let doc = json!({
        "mission_summary": format!("version {version}"),
        "accomplishments": items("done", 400),
        "key_findings": items("found", 400),
        "next_steps": items("next", 400),
        "decisions": decisions,
    });
    sb.write(&format!("doc-{version}.json"), doc.to_string())
}

fn spawn(sb: &Sandbox, args: &[&str], stdin: &str) -> Child {
    let mut child = sb
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // Small inputs fit the pipe: this never blocks, even on a child killed early.
    let _ = input.write_all(stdin.as_bytes());
    child
}

fn generate(sb: &Sandbox, session: &str, doc: &Path) -> Child {
    spawn(
        sb,
        &[
            "resume-log",
            "generate",
            "--session",
            session,
            "--from",
            doc.to_str().unwrap(),
        ],
        "",
    )
}

/// Runs a child to its end and returns how long it took.
fn timed(child: Child) -> Duration {
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    started.elapsed()
}

#[test]
fn killed_resume_log_writers_leave_complete_files_and_matching_pairs() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    let docs: Vec<PathBuf> = (0..=ROUNDS).map(|v| write_document(&sb, v)).collect();
    let hook = |event: &str, session: &str, extra: serde_json::Value| {
        sb.hook_input(event, session, &t, extra)
    };
    let pre_compact = |session: &str| {
        spawn(
            &sb,
            &["hooks", "pre-compact"],
            &hook("PreCompact", session, json!({"trigger": "auto"})),
        )
    };
    let session_end = |session: &str| {
        spawn(
            &sb,
            &["hooks", "session-end"],
            &hook("SessionEnd", session, json!({"reason": "logout"})),
        )
    };
    // Each kind of writer once, undisturbed: the files to protect, and how long each takes.
    let lifetimes = [
        timed(generate(&sb, "gen-0", &docs[0])),
        timed(generate(&sb, "gen-1", &docs[0])),
        timed(pre_compact("pc-0")),
        timed(session_end("warm-up")),
    ];

    let mut rng = proof::Rng::from_env_or_clock();
    let (mut spawned, mut kills) = (0, kill::Kills::default());
    for (round, doc) in docs.iter().enumerate().skip(1) {
        let started = Instant::now();
        let mut children = vec![
            generate(&sb, "gen-0", doc),
            generate(&sb, "gen-1", doc),
            pre_compact(&format!("pc-{round}")),
            session_end(&format!("pc-{}", round - 1)),
        ];
        spawned += children.len();
        let plans: Vec<kill::Plan> = lifetimes
            .iter()
            .map(|life| kill::Plan::random(&mut rng, *life))
            .collect();
        kills += kill::execute(&mut children, &plans, started);
        for child in children {
            let _ = child.wait_with_output();
        }
    }

    // Every file is whole; pairs caught between their two renames are repaired on reading.
    let (disk, caught) = disk::audit_repairing(&sb);
    for session in ["gen-0", "gen-1"] {
        let log = &disk.logs[session];
        let version: usize = log
            .mission_summary
            .strip_prefix("version ")
            .unwrap()
            .parse()
            .unwrap();
        assert!(version <= ROUNDS, "{session}: {}", log.mission_summary);
    }
    let checkpoints = proof::audit(sb.dir());
    proof::assert_gapless(&checkpoints.ids, 1);
    let list = sb.run(&["--json", "resume-log", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(!list.stderr.contains("skipped"), "{}", list.stderr);

    // What the kills left: temp files no reader lists (the lists above name no problem).
    let left_by_kills = common::temp_leftovers(&sb.path(".ctxmon"));
    // The next writers find no stale lock, delete none of those and leave none of their own.
    let after = sb.run(
        &[
            "resume-log",
            "generate",
            "--session",
            "gen-0",
            "--from",
            docs[ROUNDS].to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(after.code, 0, "{}", after.stderr);
    let end = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "after", &t, json!({"trigger": "auto"})),
    );
    assert!(end.stdout.contains("systemMessage"), "{}", end.stderr);
    assert_eq!(
        common::temp_leftovers(&sb.path(".ctxmon")),
        left_by_kills,
        "the next writers touched no temp file but their own"
    );
    let list = sb.run(&["--json", "resume-log", "list"], "");
    assert!(!list.stderr.contains("skipped"), "{}", list.stderr);
    let final_disk = disk::audit_after_kills(sb.dir());
    assert!(final_disk.unpaired_logs.is_empty());
    assert_eq!(
        final_disk.logs["gen-0"].mission_summary,
        format!("version {ROUNDS}")
    );

    eprintln!(
        "resume-log kill proof: {spawned} writers spawned, {} killed ({} of them while writing a file), {} files checked ({} resume logs, {} checkpoints, {} state files, {} event lines), {caught} pairs caught between renames and repaired, {} temp files left by the kills",
        kills.landed,
        kills.in_write,
        disk.files,
        disk.logs.len(),
        checkpoints.files,
        disk.states.len(),
        disk.events.len(),
        disk.temps.len()
    );
    assert!(kills.landed >= 1, "some kills landed");
}
