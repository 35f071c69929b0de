//! Per-session compaction sequences and automatic pruning (issue 12, points 5 and 6): numbers
//! allocated under the lock that never repeat, a save whose reads do not grow with the folder,
//! and a prune that spares what it must and reads only what it deletes.

use std::collections::BTreeSet;
use std::fs;

use super::read::counter;
use super::sequence::MAX_LEGACY_READS;
use super::tests::{id, ids, names, repo, sample, save};
use super::*;

/// `n` files under checkpoint names that no reader could parse (as if a thousand sessions had
/// been checkpointed by something else), every other one acknowledged.
fn plant_garbage(repo: &FsCheckpointRepository, n: u32) {
    fs::create_dir_all(repo.dir()).unwrap();
    for k in 1..=n {
        let id = id(k);
        fs::write(repo.checkpoint_path(id), b"{ not a checkpoint").unwrap();
        if k % 2 == 0 {
            fs::write(repo.marker_path(id), b"").unwrap();
        }
    }
    fs::write(repo.next_id_path(), format!("{}\n", n + 1)).unwrap();
}

/// A checkpoint file as an older ctxmon wrote it: no mark for its session, its sequence only
/// inside the file.
fn plant_legacy(repo: &FsCheckpointRepository, n: u32, session: &str, sequence: u32) {
    let mut data = sample(id(n), session);
    data.compaction_sequence = sequence;
    let bytes = serialize(&data).unwrap();
    fs::write(repo.checkpoint_path(id(n)), bytes).unwrap();
    fs::write(repo.next_id_path(), format!("{}\n", n + 1)).unwrap();
}

#[test]
fn threads_of_one_session_get_distinct_gapless_sequences() {
    let (_tmp, repo) = repo();
    let mut all: Vec<u32> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let repo = repo.clone();
                s.spawn(move || {
                    (0..5)
                        .map(|_| save(&repo, "same").compaction_sequence)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    all.sort_unstable();
    assert_eq!(all, (1..=40).collect::<Vec<_>>());
}

#[test]
fn a_save_reads_no_checkpoint_however_many_there_are() {
    let (_tmp, repo) = repo();
    // Marks in use from the start (the first save records where they began)...
    save(&repo, "first");
    let first = ids(&repo.list().unwrap());
    assert_eq!(first, [1]);
    // ...then 5,000 unreadable files under checkpoint names, ids 2 to 5,001.
    fs::remove_file(repo.checkpoint_path(id(1))).unwrap();
    plant_garbage(&repo, 5_001);
    fs::remove_file(repo.checkpoint_path(id(1))).unwrap();
    counter::take();
    let a = save(&repo, "a");
    let again = save(&repo, "first");
    assert_eq!(counter::take(), 0, "a save decides from names and marks");
    assert_eq!(
        (a.checkpoint_id, a.compaction_sequence),
        (id(5_002), 1),
        "a new session starts at 1"
    );
    assert_eq!(
        (again.checkpoint_id, again.compaction_sequence),
        (id(5_003), 2)
    );
}

#[test]
fn a_folder_from_before_the_marks_costs_a_bounded_look_once() {
    let (_tmp, repo) = repo();
    plant_garbage(&repo, 5_000);
    // The session was compacted 7 times before ctxmon was upgraded; its newest is recent.
    plant_legacy(&repo, 5_001, "running", 7);
    counter::take();
    let next = save(&repo, "running");
    assert_eq!(next.compaction_sequence, 8, "it carries on counting");
    assert_eq!(
        counter::take(),
        1,
        "its newest checkpoint was the first looked at"
    );
    // A session with nothing recent looks at no more than the bound, and starts at 1.
    let fresh = save(&repo, "fresh");
    assert_eq!(fresh.compaction_sequence, 1);
    assert_eq!(counter::take(), MAX_LEGACY_READS);
    // Once marked, neither reads anything again; new sessions do not look back either.
    assert_eq!(save(&repo, "running").compaction_sequence, 9);
    assert_eq!(save(&repo, "fresh").compaction_sequence, 2);
    assert_eq!(save(&repo, "newer").compaction_sequence, 1);
    assert_eq!(
        counter::take(),
        MAX_LEGACY_READS,
        "only ids before the marks count"
    );
}

#[test]
fn without_a_session_the_sequence_is_one_and_no_mark_is_kept() {
    let (_tmp, repo) = repo();
    for _ in 0..2 {
        let cp = repo
            .save_new(None, &mut |given| sample(given.id, "ignored"))
            .unwrap();
        assert_eq!(cp.compaction_sequence, 1);
    }
    assert!(
        !names(&repo.dir()).iter().any(|n| n.starts_with(".seq-")),
        "{:?}",
        names(&repo.dir())
    );
}

#[test]
fn hostile_session_ids_become_keys_inside_the_folder() {
    let (tmp, repo) = repo();
    let hostile = "../../escaped";
    save(&repo, hostile);
    assert_eq!(save(&repo, hostile).compaction_sequence, 2);
    let key = ctxmon_domain::SessionKey::from_raw(hostile);
    assert!(repo.dir().join(format!(".seq-{key}")).is_file());
    assert!(!tmp.path().join("escaped").exists());
    // Marks are bookkeeping: no listing reports them.
    assert!(repo.list().unwrap().problems.is_empty());
}

#[test]
fn a_mark_that_cannot_be_written_does_not_cost_the_checkpoint() {
    let (_tmp, repo) = repo();
    fs::create_dir_all(repo.dir().join(".seq-s")).unwrap();
    let saved = save(&repo, "s");
    assert_eq!(ids(&repo.list().unwrap()), [saved.checkpoint_id.sequence()]);
}

#[test]
fn a_checkpoint_that_cannot_be_written_gives_its_sequence_back() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    let huge = repo.save_new(Some("s"), &mut |given| {
        let mut data = sample(given.id, "s");
        data.custom_instructions = Some("x".repeat(MAX_CHECKPOINT_BYTES as usize));
        data
    });
    assert!(huge.is_err());
    assert_eq!(save(&repo, "s").compaction_sequence, 2);
    // And for a session's first checkpoint, no mark is left behind.
    let nan = repo.save_new(Some("t"), &mut |given| {
        let mut data = sample(given.id, "t");
        data.context_state.fill_percentage = f64::NAN;
        data
    });
    assert!(nan.is_err());
    assert!(!repo.dir().join(".seq-t").exists());
    assert_eq!(save(&repo, "t").compaction_sequence, 1);
}

fn policy(keep: usize, spare: &BTreeSet<CheckpointId>) -> AutoPrune<'_> {
    AutoPrune {
        keep,
        spare,
        max_removals: 100,
    }
}

#[test]
fn auto_prune_removes_only_old_acknowledged_unspared_checkpoints() {
    let (_tmp, repo) = repo();
    for _ in 0..10 {
        save(&repo, "s");
    }
    // 1 to 6 acknowledged, except 3; 5 is named by a resume log; 7 to 10 are the newest.
    for n in [1, 2, 4, 5, 6, 8] {
        repo.acknowledge(id(n)).unwrap();
    }
    let spare = BTreeSet::from([id(5)]);
    counter::take();
    let outcome = repo.prune_acknowledged(policy(4, &spare)).unwrap();
    assert_eq!(outcome.pruned, [id(1), id(2), id(4), id(6)]);
    assert_eq!(counter::take(), 4, "only the checkpoints deleted are read");
    assert_eq!(ids(&repo.list().unwrap()), [3, 5, 7, 8, 9, 10]);
    for n in [1, 2, 4, 6] {
        assert!(!repo.marker_path(id(n)).exists(), "cx-{n:03} marker");
    }
    assert!(repo.marker_path(id(8)).exists());
    // Nothing more to do; ids and sequences continue.
    assert_eq!(
        repo.prune_acknowledged(policy(4, &spare)).unwrap().pruned,
        []
    );
    let next = save(&repo, "s");
    assert_eq!((next.checkpoint_id, next.compaction_sequence), (id(11), 11));
}

#[test]
fn auto_prune_is_bounded_per_call_and_keeps_unreadable_files() {
    let (_tmp, repo) = repo();
    for _ in 0..6 {
        save(&repo, "s");
    }
    for n in 1..=6 {
        repo.acknowledge(id(n)).unwrap();
    }
    // Corrupted after it was acknowledged: reported, never deleted.
    fs::write(repo.checkpoint_path(id(1)), b"garbage").unwrap();
    let none = BTreeSet::new();
    let bounded = AutoPrune {
        keep: 1,
        spare: &none,
        max_removals: 2,
    };
    let first = repo.prune_acknowledged(bounded).unwrap();
    assert_eq!(first.pruned, [id(2)]);
    assert_eq!(first.unreadable.len(), 1);
    assert!(
        first.unreadable[0].contains("cx-001"),
        "{:?}",
        first.unreadable
    );
    let second = repo.prune_acknowledged(bounded).unwrap();
    assert_eq!(second.pruned, [id(3)]);
    assert!(repo.checkpoint_path(id(1)).exists());
    // An absent folder is not created.
    let (tmp, empty) = super::tests::repo();
    assert_eq!(
        empty.prune_acknowledged(bounded).unwrap(),
        PruneOutcome::default()
    );
    assert!(!tmp.path().join(".ctxmon").exists());
}
