//! Per-session compaction sequences and automatic pruning (contract C5): numbers
//! allocated under the lock that never repeat, a save whose reads do not grow with the folder,
//! and a prune that spares what it must and reads only what it deletes.

use std::collections::BTreeSet;
use std::fs;

use super::index::MAX_MIGRATED;
use super::read::counter;
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
    let again = save(&repo, "first");
    assert_eq!(counter::take(), 0, "a save decides from names and marks");
    // A session with no mark and no index (new, or both deleted) looks through the newest
    // few checkpoints for its own, a bounded number whatever the folder holds.
    let a = save(&repo, "a");
    assert_eq!(counter::take(), MAX_SESSION_READS);
    assert_eq!(
        (a.checkpoint_id, a.compaction_sequence),
        (id(5_003), 1),
        "a new session starts at 1"
    );
    assert_eq!(
        (again.checkpoint_id, again.compaction_sequence),
        (id(5_002), 2)
    );
}

/// A folder an older ctxmon wrote (no marks, no indexes): the first save indexes its newest
/// checkpoints once, with a bounded number of reads, and a session that was running when
/// ctxmon was upgraded carries on counting; later saves read nothing.
#[test]
fn a_folder_from_before_the_indexes_costs_a_bounded_look_once() {
    let (_tmp, repo) = repo();
    plant_garbage(&repo, 5_000);
    // The session was compacted 7 times before ctxmon was upgraded; its newest is recent.
    plant_legacy(&repo, 5_001, "running", 7);
    counter::take();
    let next = save(&repo, "running");
    assert_eq!(next.compaction_sequence, 8, "it carries on counting");
    assert_eq!(
        counter::take(),
        MAX_MIGRATED,
        "indexing reads a bounded few, once"
    );
    assert_eq!(save(&repo, "fresh").compaction_sequence, 1);
    // A session with neither mark nor index looks through a bounded few for its own.
    assert_eq!(counter::take(), MAX_SESSION_READS);
    assert_eq!(save(&repo, "running").compaction_sequence, 9);
    assert_eq!(save(&repo, "fresh").compaction_sequence, 2);
    assert_eq!(
        counter::take(),
        0,
        "once indexed, a known session's save reads no checkpoint"
    );
    // The running session's pending checkpoint is found through its index.
    assert_eq!(
        repo.latest_unacknowledged(Some("running"))
            .unwrap()
            .map(|c| c.compaction_sequence),
        Some(9)
    );
}

/// Before any save indexed it, an older folder is still read: a session's lookup looks
/// through the newest few checkpoints, as the layout before indexes did.
#[test]
fn an_unindexed_folder_is_still_read() {
    let (_tmp, repo) = repo();
    fs::create_dir_all(repo.dir()).unwrap();
    plant_legacy(&repo, 1, "old", 3);
    plant_legacy(&repo, 2, "other", 1);
    let found = repo.latest_unacknowledged(Some("old")).unwrap().unwrap();
    assert_eq!(found.compaction_sequence, 3);
    assert_eq!(repo.of_session("old").unwrap().len(), 1);
    assert_eq!(repo.newest().unwrap().unwrap().checkpoint_id, id(2));
}

/// A session's lookups read its index and its own checkpoints, however many checkpoints of
/// other sessions (thousands, none acknowledged, all newer) share the folder.
#[test]
fn a_sessions_lookups_do_not_grow_with_other_sessions_checkpoints() {
    let (_tmp, repo) = repo();
    save(&repo, "own");
    save(&repo, "own");
    for n in 3..=3_002 {
        let data = sample(id(n), &format!("other-{n}"));
        fs::write(repo.checkpoint_path(id(n)), serialize(&data).unwrap()).unwrap();
    }
    fs::write(repo.next_id_path(), "3003\n").unwrap();
    counter::take();
    let pending = repo.latest_unacknowledged(Some("own")).unwrap().unwrap();
    assert_eq!(pending.checkpoint_id, id(2));
    let own = repo.of_session("own").unwrap();
    assert_eq!(own.len(), 2);
    assert_eq!(
        counter::take(),
        3,
        "one read for the pending one, two for the history"
    );
    // An index naming another session's checkpoint (stale or planted) misleads nobody.
    fs::write(repo.dir().join(".index-own"), "cx-003 1\ncx-001 1\n").unwrap();
    let own: Vec<u32> = repo
        .of_session("own")
        .unwrap()
        .iter()
        .map(|c| c.data.checkpoint_id.sequence())
        .collect();
    assert_eq!(own, [1]);
}

/// Losing or damaging a session's mark does not restart its count while its checkpoints
/// exist: the index remembers their sequences.
#[test]
fn a_lost_or_damaged_mark_does_not_restart_the_sequence() {
    let (_tmp, repo) = repo();
    for _ in 0..3 {
        save(&repo, "s");
    }
    fs::remove_file(repo.dir().join(".seq-s")).unwrap();
    assert_eq!(save(&repo, "s").compaction_sequence, 4);
    fs::write(repo.dir().join(".seq-s"), "garbage").unwrap();
    assert_eq!(save(&repo, "s").compaction_sequence, 5);
}

/// Neither record is taken on trust: a mark far past the session's checkpoints (the largest
/// number) used to give every later checkpoint the same last sequence, and deleting the mark
/// and the index together restarted the count at 1 beside cx-001 to cx-003.
#[test]
fn a_planted_mark_or_a_deleted_mark_and_index_keep_sequences_unique_and_increasing() {
    let (_tmp, repo) = repo();
    for _ in 0..3 {
        save(&repo, "s");
    }
    fs::write(repo.dir().join(".seq-s"), "18446744073709551615\n").unwrap();
    let planted: Vec<u32> = (0..3)
        .map(|_| save(&repo, "s").compaction_sequence)
        .collect();
    assert_eq!(planted, [4, 5, 6]);
    fs::write(repo.dir().join(".seq-s"), "4294967296\n").unwrap();
    assert_eq!(save(&repo, "s").compaction_sequence, 7);

    let (_tmp, repo) = super::tests::repo();
    for _ in 0..3 {
        save(&repo, "s");
    }
    assert!(repo.dir().join(".indexed-since").exists());
    fs::remove_file(repo.dir().join(".seq-s")).unwrap();
    fs::remove_file(repo.dir().join(".index-s")).unwrap();
    assert_eq!(save(&repo, "s").compaction_sequence, 4);
    assert_eq!(save(&repo, "s").compaction_sequence, 5);
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

/// Old checkpoints go when acknowledged, or when unacknowledged but superseded by a newer
/// checkpoint of their session; a session's newest, and what a resume log names, stay.
#[test]
fn auto_prune_removes_old_checkpoints_the_agent_no_longer_needs() {
    let (_tmp, repo) = repo();
    save(&repo, "lone");
    for _ in 0..10 {
        save(&repo, "s");
    }
    // cx-001 is "lone"'s only one. Of "s" (cx-002 to cx-011), 2 to 7 acknowledged except 4;
    // 6 is named by a resume log; 8 to 11 are the newest.
    for n in [2, 3, 5, 6, 7, 9] {
        repo.acknowledge(id(n)).unwrap();
    }
    let spare = BTreeSet::from([id(6)]);
    counter::take();
    let outcome = repo.prune_automatic(policy(4, &spare)).unwrap();
    assert_eq!(outcome.pruned, [id(2), id(3), id(4), id(5), id(7)]);
    // And the newest, whose name and content prove every pruned id taken.
    assert_eq!(
        counter::take(),
        7,
        "only the candidates and the newest are read"
    );
    assert_eq!(ids(&repo.list().unwrap()), [1, 6, 8, 9, 10, 11]);
    for n in [2, 3, 5, 7] {
        assert!(!repo.marker_path(id(n)).exists(), "cx-{n:03} marker");
    }
    assert!(repo.marker_path(id(9)).exists());
    // The index forgets what went.
    let own: Vec<u32> = repo
        .of_session("s")
        .unwrap()
        .iter()
        .map(|c| c.data.checkpoint_id.sequence())
        .collect();
    assert_eq!(own, [6, 8, 9, 10, 11]);
    assert_eq!(
        fs::read_to_string(repo.dir().join(".index-s"))
            .unwrap()
            .lines()
            .count(),
        5
    );
    // Nothing more to do; ids and sequences continue.
    assert_eq!(repo.prune_automatic(policy(4, &spare)).unwrap().pruned, []);
    let next = save(&repo, "s");
    assert_eq!((next.checkpoint_id, next.compaction_sequence), (id(12), 11));
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
    let first = repo.prune_automatic(bounded).unwrap();
    assert_eq!(first.pruned, [id(2), id(3)]);
    assert_eq!(first.unreadable.len(), 1);
    assert!(
        first.unreadable[0].contains("cx-001"),
        "{:?}",
        first.unreadable
    );
    let second = repo.prune_automatic(bounded).unwrap();
    assert_eq!(second.pruned, [id(4), id(5)]);
    assert!(repo.checkpoint_path(id(1)).exists());
    // An absent folder is not created.
    let (tmp, empty) = super::tests::repo();
    assert_eq!(
        empty.prune_automatic(bounded).unwrap(),
        PruneOutcome::default()
    );
    assert!(!tmp.path().join(".ctxmon").exists());
}

/// A prompt finds the checkpoint to alert, then claims its alert: a prune in between (after
/// another prompt alerted and acknowledged it) takes its marker with it, and the claim must
/// not read that as "never alerted".
#[test]
fn the_alert_of_a_checkpoint_pruned_after_it_was_found_is_not_claimed() {
    let (_tmp, repo) = repo();
    let first = save(&repo, "s").checkpoint_id;
    save(&repo, "s");
    let (now, until) = (
        ctxmon_domain::Timestamp(1_000),
        ctxmon_domain::Timestamp(70_000),
    );
    repo.acknowledge(first).unwrap();
    let spare = BTreeSet::new();
    assert_eq!(
        repo.prune_automatic(policy(1, &spare)).unwrap().pruned,
        [first]
    );
    assert!(!repo.claim_alert(first, now, until).unwrap());
    // A checkpoint that is there and not acknowledged is claimed once.
    let second = id(2);
    assert!(repo.claim_alert(second, now, until).unwrap());
    assert!(!repo.claim_alert(second, now, until).unwrap());
}

/// A prune of old checkpoints leaves `.next-id` alone (syncing it cost two fsyncs of every
/// compaction): the newest checkpoint, which stays, proves the ids below it taken, so the next
/// save goes past them even with `.next-id` stale or lost. A prune that takes the newest too
/// records the high-water mark first, as it must.
#[test]
fn a_prune_below_a_checkpoint_that_stays_needs_no_high_water_mark() {
    let (_tmp, repo) = repo();
    for _ in 0..5 {
        save(&repo, "s");
    }
    let next_id = repo.next_id_path();
    fs::write(&next_id, "1\n").unwrap();
    let spare = BTreeSet::new();
    assert_eq!(
        repo.prune_automatic(policy(2, &spare)).unwrap().pruned,
        [id(1), id(2), id(3)]
    );
    assert_eq!(fs::read_to_string(&next_id).unwrap(), "1\n");
    fs::remove_file(&next_id).unwrap();
    let sixth = save(&repo, "s");
    assert_eq!((sixth.checkpoint_id, sixth.compaction_sequence), (id(6), 6));
    // A checkpoint that cannot be read proves nothing: with cx-006 damaged and cx-004 and
    // cx-005 acknowledged, their prune records the mark before anything goes.
    fs::write(repo.checkpoint_path(id(6)), b"{ damaged").unwrap();
    fs::write(&next_id, "1\n").unwrap();
    repo.acknowledge(id(4)).unwrap();
    repo.acknowledge(id(5)).unwrap();
    assert_eq!(
        repo.prune_automatic(policy(1, &spare)).unwrap().pruned,
        [id(4), id(5)]
    );
    assert_eq!(fs::read_to_string(&next_id).unwrap(), "7\n");
    fs::remove_file(repo.checkpoint_path(id(6))).unwrap();
    let seventh = save(&repo, "s");
    assert_eq!(seventh.checkpoint_id, id(7));
}
