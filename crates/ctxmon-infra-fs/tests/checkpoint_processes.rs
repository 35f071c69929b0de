//! Real processes against one checkpoint folder (contract C15): 50 concurrent writers get 50
//! distinct, gapless ids (and, of one session, 50 distinct, gapless compaction sequences);
//! writers SIGKILLed mid-write never leave a torn checkpoint visible; a killed lock holder
//! does not wedge the lock.
#![cfg(unix)]
// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctxmon_application::ports::{Allocation, CheckpointRepository, PortErrorKind};
use ctxmon_domain::CheckpointData;
use ctxmon_infra_fs::{FsCheckpointRepository, ProjectLayout};
use ctxmon_test_support::proof::{self, Rng};

fn writer(project: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(proof::cargo_example("ctxmon-infra-fs", "checkpoint_writer"));
    cmd.arg(project).args(extra);
    cmd
}

/// The process tests load both cores; run one at a time so each sees the timing it aims at.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

fn repo(project: &Path) -> FsCheckpointRepository {
    FsCheckpointRepository::new(ProjectLayout::new(project))
}

#[test]
fn fifty_concurrent_writers_get_fifty_gapless_ids() {
    let _serial = one_at_a_time();
    let project = tempfile::tempdir().unwrap();
    let gate = project.path().join("go");
    let gate_arg = gate.to_string_lossy().into_owned();
    let children = proof::spawn_all((0..50).map(|i| {
        writer(
            project.path(),
            &[
                "--payload",
                "20000",
                "--session",
                &format!("s{i}"),
                "--wait-for",
                &gate_arg,
            ],
        )
    }));
    // Every writer is started and spinning on the gate: opening it makes them race for real.
    let started = Instant::now();
    std::fs::write(&gate, b"").unwrap();
    let outputs = proof::wait_all(children);
    let elapsed = started.elapsed();
    let mut reported = Vec::new();
    for out in &outputs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        reported.extend(proof::ids_in_output(&out.stdout, "saved "));
    }
    reported.sort_unstable();
    proof::assert_gapless(&reported, 1);
    assert_eq!(reported.len(), 50);
    let audit = proof::audit(project.path());
    assert_eq!(audit.files, 50);
    assert_eq!(audit.ids, reported);
    let sessions: std::collections::BTreeSet<_> = repo(project.path())
        .list()
        .unwrap()
        .checkpoints
        .into_iter()
        .filter_map(|c| c.data.session_info.session_id)
        .collect();
    assert_eq!(
        sessions.len(),
        50,
        "every writer's own checkpoint is on disk"
    );
    eprintln!(
        "proof: 50 concurrent writer processes -> {} files, ids cx-001..cx-{:03}, {} bytes, {elapsed:?}",
        audit.files,
        audit.ids.last().unwrap(),
        audit.bytes
    );
}

/// The per-session compaction sequence is allocated under the same lock as the id: 50 writer
/// processes of one session racing get 50 distinct, gapless sequences (contract C5).
#[test]
fn fifty_concurrent_writers_of_one_session_get_fifty_gapless_sequences() {
    let _serial = one_at_a_time();
    let project = tempfile::tempdir().unwrap();
    let gate = project.path().join("go");
    let gate_arg = gate.to_string_lossy().into_owned();
    let children = proof::spawn_all((0..50).map(|_| {
        writer(
            project.path(),
            &["--session", "one", "--wait-for", &gate_arg],
        )
    }));
    std::fs::write(&gate, b"").unwrap();
    for out in proof::wait_all(children) {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut sequences: Vec<u32> = repo(project.path())
        .list()
        .unwrap()
        .checkpoints
        .iter()
        .map(|c| c.data.compaction_sequence)
        .collect();
    sequences.sort_unstable();
    assert_eq!(sequences, (1..=50).collect::<Vec<u32>>());
    eprintln!("proof: 50 concurrent writer processes of one session -> sequences 1..=50");
}

/// Big checkpoints (just under the 4 MiB cap) keep the temp file on disk for milliseconds
/// (write + fsync), a window a kill can aim at.
const KILL_PAYLOAD: &str = "3800000";

/// Where the SIGKILLs landed, for the figures a run prints.
#[derive(Debug, Default)]
struct Tally {
    processes: usize,
    kills: usize,
    /// Killed while holding the lock (`building` printed, no `saved`).
    inside_lock: usize,
    /// Of those, killed while its temp file existed: between create and rename.
    mid_write: usize,
    /// `.tmp-*` leftovers of killed writers in the folder after the last audit. They stay:
    /// ctxmon deletes only its own process's temp files, and no reader looks at them.
    temps_seen: usize,
    /// Visible checkpoint files parsed completely by the audits.
    files_checked: usize,
}

/// Audits the folder after a round, checks ids stayed gapless given what was pruned, and
/// prunes to one checkpoint so the disk stays small (ids must continue after that).
fn audit_round(project: &Path, tally: &mut Tally, pruned: &mut u32) {
    let audit = proof::audit(project);
    tally.files_checked += audit.files;
    assert!(
        audit.temps >= tally.temps_seen,
        "a writer deleted a temp file it did not create: {} before, {} now",
        tally.temps_seen,
        audit.temps
    );
    tally.temps_seen = audit.temps;
    proof::assert_gapless(&audit.ids, *pruned + 1);
    *pruned += repo(project).prune(1).unwrap().pruned.len() as u32;
}

/// After all the kills the lock must be free at once (the kernel drops a dead holder's flock)
/// and the next id must follow the last one.
fn assert_lock_free_and_ids_continue(project: &Path, pruned: u32) -> String {
    let started = Instant::now();
    let next = repo(project)
        .with_lock_wait(Duration::from_secs(2))
        .save_new(None, &mut small_checkpoint)
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let audit = proof::audit(project);
    proof::assert_gapless(&audit.ids, pruned + 1);
    assert_eq!(
        audit.ids.last().copied(),
        Some(next.checkpoint_id.sequence())
    );
    next.checkpoint_id.to_string()
}

#[test]
fn sigkill_aimed_at_the_write_never_leaves_a_torn_checkpoint() {
    let _serial = one_at_a_time();
    let project = tempfile::tempdir().unwrap();
    let dir = ProjectLayout::new(project.path()).checkpoints_dir();
    let mut rng = Rng::from_env_or_clock();
    let save_ms = calibrate(project.path(), KILL_PAYLOAD);
    let (mut tally, mut pruned) = (Tally::default(), 0);
    audit_round(project.path(), &mut tally, &mut pruned);
    // The temp file lives in the last few percent of a save, just before the rename. Aim there
    // and steer: a kill that came too early (no file, no temp) aims later next time, one that
    // came too late (file complete) aims earlier, so the kills hover around the rename.
    // Steps are proportional, so the aim keeps up when the machine's load changes.
    let mut aim = save_ms * 9 / 10;
    for _ in 0..24 {
        let temps_before = temps(&dir);
        let mut child = writer(project.path(), &["--payload", KILL_PAYLOAD])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        tally.processes += 1;
        let line = proof::wait_for_line(&mut child, "building ");
        let file = dir.join(format!(
            "{}-checkpoint.json",
            line.trim_start_matches("building ")
        ));
        std::thread::sleep(Duration::from_millis(aim + rng.below(aim / 20 + 1)));
        if proof::sigkill(&mut child) {
            tally.kills += 1;
            if file.exists() {
                aim = aim * 19 / 20;
            } else {
                tally.inside_lock += 1;
                if temps(&dir) > temps_before {
                    // Killed between create and rename: the temp file outlives its writer.
                    tally.mid_write += 1;
                } else {
                    aim = aim * 11 / 10 + 1;
                }
            }
        } else {
            aim = aim * 19 / 20;
        }
        let status = child.wait().unwrap();
        assert!(status.success() || status.signal() == Some(9), "{status:?}");
        audit_round(project.path(), &mut tally, &mut pruned);
    }
    let next = assert_lock_free_and_ids_continue(project.path(), pruned);
    eprintln!(
        "proof (aimed): {tally:?}, one save under the lock took {save_ms} ms, next id {next}"
    );
    assert!(
        tally.inside_lock > 0,
        "no kill landed inside the lock: {tally:?}"
    );
}

#[test]
fn sigkill_among_concurrent_writers_keeps_ids_gapless() {
    let _serial = one_at_a_time();
    let project = tempfile::tempdir().unwrap();
    let mut rng = Rng::from_env_or_clock();
    // Smaller checkpoints: this test is about the lock and the ids under kills, and more
    // saves per round means more kills land between, inside and after them.
    let payload = "1000000";
    let save_ms = calibrate(project.path(), payload);
    let (mut tally, mut pruned) = (Tally::default(), 0);
    audit_round(project.path(), &mut tally, &mut pruned);
    for round in 0..8 {
        let mut children = proof::spawn_all((0..3).map(|w| {
            let session = format!("r{round}w{w}");
            writer(
                project.path(),
                &["--payload", payload, "--count", "3", "--session", &session],
            )
        }));
        tally.processes += children.len();
        for child in &mut children {
            // Three writers queue for the lock, so the later ones live for several saves.
            std::thread::sleep(rng.delay_ms(save_ms * 2));
            if proof::sigkill(child) {
                tally.kills += 1;
            }
        }
        for out in proof::wait_all(children) {
            // A writer that finished before its kill exits 0; any other end must be the
            // SIGKILL, never an error of its own.
            assert!(
                out.status.success() || out.status.signal() == Some(9),
                "{:?}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            let building = proof::ids_in_output(&out.stdout, "building ").len();
            if out.status.signal() == Some(9)
                && building > proof::ids_in_output(&out.stdout, "saved ").len()
            {
                tally.inside_lock += 1;
            }
        }
        audit_round(project.path(), &mut tally, &mut pruned);
    }
    let next = assert_lock_free_and_ids_continue(project.path(), pruned);
    eprintln!(
        "proof (concurrent): {} writers, {} SIGKILLs ({} while holding the lock), {} temp \
         leftovers seen, {} visible files parsed completely, one save took {save_ms} ms, next \
         id {next}",
        tally.processes, tally.kills, tally.inside_lock, tally.temps_seen, tally.files_checked
    );
    assert!(tally.kills > 0, "no kill landed: {tally:?}");
}

/// How long, on this machine and under its current load, one save takes from taking the lock
/// to the writer's exit. Leaves one checkpoint behind.
fn calibrate(project: &Path, payload: &str) -> u64 {
    let mut calibration = writer(project, &["--payload", payload])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    proof::wait_for_line(&mut calibration, "building");
    let took = Instant::now();
    assert!(calibration.wait().unwrap().success());
    took.elapsed().as_millis().max(1) as u64
}

/// How many `.tmp-*` files `dir` holds (earlier kills' stay, so a new one shows as one more).
fn temps(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .count()
    })
}

#[test]
fn a_killed_lock_holder_does_not_wedge_the_lock() {
    let _serial = one_at_a_time();
    let project = tempfile::tempdir().unwrap();
    let repo = repo(project.path());
    let mut holder = writer(project.path(), &["--hold-ms", "60000"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    assert_eq!(
        proof::wait_for_line(&mut holder, "building"),
        "building cx-001"
    );
    let busy = repo
        .clone()
        .with_lock_wait(Duration::from_millis(100))
        .save_new(None, &mut small_checkpoint)
        .unwrap_err();
    assert_eq!(
        busy.kind,
        PortErrorKind::Busy,
        "the writer really holds the lock"
    );
    assert!(proof::sigkill(&mut holder));
    assert_eq!(holder.wait().unwrap().signal(), Some(9));
    let started = Instant::now();
    let saved = repo
        .with_lock_wait(Duration::from_secs(2))
        .save_new(None, &mut small_checkpoint)
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    // The holder died before writing, so its id was never used up.
    assert_eq!(saved.checkpoint_id.to_string(), "cx-001");
    assert_eq!(proof::audit(project.path()).ids, [1]);
}

fn small_checkpoint(given: Allocation) -> CheckpointData {
    let now = ctxmon_domain::Timestamp(1_790_000_000_000);
    CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: given.id,
        timestamp: now.to_rfc3339(),
        created_at_ms: now,
        compaction_sequence: 1,
        trigger: ctxmon_domain::CompactionTrigger::Manual,
        custom_instructions: None,
        context_state: ctxmon_domain::FillEstimate::unavailable(
            ctxmon_domain::ContextWindow::DEFAULT,
            ctxmon_domain::TokenCount(33_000),
            "test",
        ),
        resumption_state: None,
        session_info: Default::default(),
    }
}
