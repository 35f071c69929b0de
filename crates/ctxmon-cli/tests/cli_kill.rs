//! SIGKILL at random points of `ctxmon hooks pre-compact`, half of them aimed at the moment a
//! writer holds a temp file open (the checkpoint, `.next-id`, the state, the resume log): every
//! checkpoint left visible is complete, ids stay gapless and no torn file is ever listed.

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::Instant;

use ctxmon_test_support::proof;
use serde_json::json;

use crate::common::disk;
use crate::common::kill;
use crate::common::{Sandbox, transcript_with};

#[test]
fn killed_pre_compacts_leave_only_complete_checkpoints() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    let spawn = |session: String| {
        let mut child = sb
            .command(&["hooks", "pre-compact"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let body = json!({"session_id":session,"transcript_path":t,"cwd":sb.dir(),"hook_event_name":"PreCompact","trigger":"auto"});
        child
            .stdin
            .take()
            .unwrap()
            .write_all(body.to_string().as_bytes())
            .unwrap();
        child
    };
    // One undisturbed run: how long a pre-compact lives here.
    let calm = Instant::now();
    assert!(spawn("calm".into()).wait().unwrap().success());
    let life = calm.elapsed();
    let mut rng = proof::Rng::from_env_or_clock();
    let (mut spawned, mut kills) = (0, kill::Kills::default());
    for round in 0..8 {
        let started = Instant::now();
        let mut children: Vec<_> = (0..4).map(|i| spawn(format!("s-{round}-{i}"))).collect();
        spawned += children.len();
        let plans: Vec<kill::Plan> = (0..children.len())
            .map(|_| kill::Plan::random(&mut rng, life))
            .collect();
        kills += kill::execute(&mut children, &plans, started);
        for child in children {
            let _ = child.wait_with_output();
        }
    }
    let audit = proof::audit(sb.dir());
    // The rest of .ctxmon too: state, events, markers, `.next-id`, resume-log pairs.
    let (disk, caught) = disk::audit_repairing(&sb);
    eprintln!(
        "kill proof: {spawned} hooks spawned, {} killed ({} while writing a file), {} checkpoints checked ({} bytes), {} files checked in all, {caught} resume-log pairs repaired, {} event lines cut by a kill, {} temp files left",
        kills.landed,
        kills.in_write,
        audit.files,
        audit.bytes,
        disk.files,
        disk.cut_lines,
        audit.temps
    );
    assert!(audit.files >= 1, "some writers finished");
    assert!(kills.landed >= 1, "some kills landed");
    proof::assert_gapless(&audit.ids, 1);
    let list = sb.run(&["--json", "checkpoint", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(
        !list.stderr.contains("skipped"),
        "no torn checkpoint is visible: {}",
        list.stderr
    );
    // A new hook still works after all those kills (no stale lock).
    let after = sb.run(&["hooks", "pre-compact"], json!({"session_id":"after","transcript_path":t,"cwd":sb.dir(),"hook_event_name":"PreCompact"}).to_string());
    assert!(after.stdout.contains("systemMessage"), "{}", after.stdout);
}

/// The audit accepts what a kill can leave (a line cut short, even inside a character) only
/// where kills happened, and never an interleaved line.
#[test]
fn the_audit_tells_a_cut_line_from_an_interleaved_one() {
    let sb = Sandbox::new();
    // One real event line, written by a hook.
    let run = sb.run(
        &["hooks", "session-end"],
        json!({"session_id": "s", "hook_event_name": "SessionEnd", "reason": "exit"}).to_string(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events = sb.path(".ctxmon/events.jsonl");
    let written = std::fs::read(&events).unwrap();
    let line = written.split(|&b| b == b'\n').next().unwrap().to_vec();
    assert!(line.len() > 20, "{}", String::from_utf8_lossy(&written));
    let whole = [&line[..], b"\n"].concat();
    let plant = |bytes: &[u8]| std::fs::write(&events, bytes).unwrap();

    // Cut short (and again after the next append's newline), and cut inside "é".
    plant(
        &[
            &whole[..],
            &line[..line.len() / 2],
            b"\n",
            &whole[..],
            "{\"x\":\"\u{e9}".as_bytes()[..7].as_ref(),
        ]
        .concat(),
    );
    assert_eq!(disk::audit_after_kills(sb.dir()).cut_lines, 2);
    assert_eq!(disk::audit_after_kills(sb.dir()).events.len(), 2);
    assert!(std::panic::catch_unwind(|| disk::audit(sb.dir())).is_err());

    // Two lines run together is no cut.
    plant(&[&line[..line.len() / 2], &whole[..]].concat());
    assert!(std::panic::catch_unwind(|| disk::audit_after_kills(sb.dir())).is_err());
}
