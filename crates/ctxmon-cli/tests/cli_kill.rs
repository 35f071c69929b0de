//! SIGKILL at random points of `ctxmon hooks pre-compact` (with a large resumption file, so the
//! write takes a while): every checkpoint left visible is complete, ids stay gapless and no
//! torn file is ever listed.

mod common;

#[path = "../../ctxmon-infra-fs/tests/support/proof.rs"]
mod proof;

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use common::{Sandbox, transcript_with};
use serde_json::json;

#[test]
fn killed_pre_compacts_leave_only_complete_checkpoints() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    // A ~3 MiB resumption section (allowed by raising the cap) makes each write slow enough
    // for kills to land mid-write.
    sb.write(
        ".ctxmon/config.toml",
        "[resumption]\nmax_source_bytes = 8388608\n",
    );
    let steps: Vec<String> = (0..1500)
        .map(|i| format!("    - \"step {i} {}\"", "x".repeat(1900)))
        .collect();
    sb.write(
        "ORCHESTRATION.yaml",
        format!(
            "resumption:\n  summary: big\n  next_steps:\n{}\n",
            steps.join("\n")
        ),
    );
    let mut rng = proof::Rng::from_env_or_clock();
    let (mut spawned, mut killed) = (0, 0);
    for round in 0..6 {
        let mut children = Vec::new();
        for i in 0..4 {
            let mut child = sb
                .command(&["hooks", "pre-compact"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let body = json!({"session_id":format!("s-{round}-{i}"),"transcript_path":t,"cwd":sb.dir(),"hook_event_name":"PreCompact","trigger":"auto"});
            child
                .stdin
                .take()
                .unwrap()
                .write_all(body.to_string().as_bytes())
                .unwrap();
            children.push(child);
            spawned += 1;
        }
        std::thread::sleep(rng.delay_ms(120));
        for child in children.iter_mut() {
            if rng.below(2) == 0 && proof::sigkill(child) {
                killed += 1;
            }
            std::thread::sleep(Duration::from_millis(rng.below(15)));
        }
        for child in children {
            let _ = child.wait_with_output();
        }
    }
    let audit = proof::audit(sb.dir());
    eprintln!(
        "kill proof: {spawned} hooks spawned, {killed} killed, {} checkpoints checked ({} bytes), {} temp files left",
        audit.files, audit.bytes, audit.temps
    );
    assert!(audit.files >= 1, "some writers finished");
    assert!(killed >= 1, "some kills landed");
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
