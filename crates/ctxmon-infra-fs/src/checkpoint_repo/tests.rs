//! Unit tests of the checkpoint repository against real temp folders: ids, listing, acknowledgement,
//! pruning. Hostile and broken folders are in `tests_bad_input`.

use std::fs;
use std::path::Path;

use ctxmon_domain::{
    ContextWindow, FillEstimate, FillSource, Measured, ResumptionState, SessionInfo, Thresholds,
    Timestamp, TokenCount,
};

use super::*;

pub(super) fn repo() -> (tempfile::TempDir, FsCheckpointRepository) {
    let dir = tempfile::tempdir().unwrap();
    let repo = FsCheckpointRepository::new(ProjectLayout::new(dir.path()));
    (dir, repo)
}

pub(super) fn sample(id: CheckpointId, session: &str) -> CheckpointData {
    CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: id,
        timestamp: Timestamp(1_790_000_000_000).to_rfc3339(),
        created_at_ms: Timestamp(1_790_000_000_000),
        compaction_sequence: 1,
        trigger: ctxmon_domain::CompactionTrigger::Auto,
        custom_instructions: None,
        context_state: FillEstimate::measured(Measured {
            tokens: TokenCount(170_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: Some("claude-sonnet-4-5".into()),
        }),
        resumption_state: Some(ResumptionState {
            summary: Some("halfway through the parser".into()),
            ..Default::default()
        }),
        session_info: SessionInfo {
            session_id: Some(session.into()),
            ..Default::default()
        },
    }
}

pub(super) fn save(repo: &FsCheckpointRepository, session: &str) -> CheckpointData {
    repo.save_new(Some(session), &mut |given| sample(given.id, session))
        .unwrap()
}

pub(super) fn id(n: u32) -> CheckpointId {
    CheckpointId::new(n).unwrap()
}

pub(super) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub(super) fn ids(listing: &CheckpointListing) -> Vec<u32> {
    listing
        .checkpoints
        .iter()
        .map(|c| c.data.checkpoint_id.sequence())
        .collect()
}

#[test]
fn saves_get_sequential_ids_and_round_trip() {
    let (_tmp, repo) = repo();
    let first = save(&repo, "s1");
    assert_eq!(first.checkpoint_id.to_string(), "cx-001");
    // The id is the repository's to give, whatever build puts in the data.
    let second = repo
        .save_new(Some("s1"), &mut |_| sample(id(77), "s1"))
        .unwrap();
    assert_eq!(second.checkpoint_id, id(2));
    assert_eq!(save(&repo, "s2").checkpoint_id, id(3));
    let got = repo.get(id(2)).unwrap().unwrap();
    assert_eq!((got.data, got.acknowledged), (second, false));
    assert_eq!(repo.get(id(4)).unwrap(), None);
    // Each session's sequence is its own; the build's sequence is replaced like its id.
    assert_eq!(
        [1, 2, 3].map(|n| repo.get(id(n)).unwrap().unwrap().data.compaction_sequence),
        [1, 2, 1]
    );
    assert_eq!(
        names(&repo.dir()),
        [
            ".index-s1",
            ".index-s2",
            ".indexed-since",
            ".lock",
            ".next-id",
            ".seq-s1",
            ".seq-s2",
            "cx-001-checkpoint.json",
            "cx-002-checkpoint.json",
            "cx-003-checkpoint.json"
        ]
    );
    let listing = repo.list().unwrap();
    assert_eq!(ids(&listing), [1, 2, 3]);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
}

#[cfg(unix)]
#[test]
fn files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, repo) = repo();
    save(&repo, "s1");
    repo.acknowledge(id(1)).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&repo.dir()), 0o700);
    for name in names(&repo.dir()) {
        assert_eq!(mode(&repo.dir().join(&name)), 0o600, "{name}");
    }
}

#[test]
fn ids_never_come_back_after_prune_or_deletion() {
    let (_tmp, repo) = repo();
    for _ in 0..5 {
        save(&repo, "s");
    }
    repo.acknowledge(id(1)).unwrap();
    repo.acknowledge(id(4)).unwrap();
    assert_eq!(repo.prune(2).unwrap().pruned, [id(1), id(2), id(3)]);
    assert_eq!(ids(&repo.list().unwrap()), [4, 5]);
    assert!(!repo.marker_path(id(1)).exists());
    assert!(repo.marker_path(id(4)).exists());
    // Nor does a sequence: the session's sixth compaction is its sixth, not its third.
    let sixth = save(&repo, "s");
    assert_eq!((sixth.checkpoint_id, sixth.compaction_sequence), (id(6), 6));
    // Someone deletes the newest file by hand: its id and sequence still stay taken.
    fs::remove_file(repo.checkpoint_path(id(6))).unwrap();
    let seventh = save(&repo, "s");
    assert_eq!(
        (seventh.checkpoint_id, seventh.compaction_sequence),
        (id(7), 7)
    );
    assert_eq!(repo.prune(0).unwrap().pruned, [id(4), id(5), id(7)]);
    assert!(repo.list().unwrap().checkpoints.is_empty());
    assert_eq!(
        names(&repo.dir()),
        [".index-s", ".indexed-since", ".lock", ".next-id", ".seq-s"]
    );
    let eighth = save(&repo, "s");
    assert_eq!(
        (eighth.checkpoint_id, eighth.compaction_sequence),
        (id(8), 8)
    );
    assert_eq!(repo.prune(5).unwrap().pruned, []);
}

#[test]
fn prune_neither_counts_nor_deletes_unreadable_checkpoints() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    save(&repo, "s");
    fs::write(
        repo.checkpoint_path(id(3)),
        r#"{"schema_version": 2, "checkpoint_id": "cx-003"}"#,
    )
    .unwrap();
    fs::write(repo.checkpoint_path(id(4)), "{ torn").unwrap();
    fs::write(repo.marker_path(id(4)), "").unwrap();
    let outcome = repo.prune(1).unwrap();
    assert_eq!(outcome.pruned, [id(1)]);
    assert_eq!(outcome.unreadable.len(), 2, "{:?}", outcome.unreadable);
    assert!(outcome.unreadable[0].contains("schema version 2"));
    assert!(outcome.unreadable[1].contains("corrupt checkpoint JSON"));
    assert_eq!(repo.prune(0).unwrap().pruned, [id(2)]);
    for path in [
        repo.checkpoint_path(id(3)),
        repo.checkpoint_path(id(4)),
        repo.marker_path(id(4)),
    ] {
        assert!(path.exists(), "{}", path.display());
    }
    assert_eq!(save(&repo, "s").checkpoint_id, id(5));
}

#[test]
fn reading_and_pruning_an_absent_folder_creates_nothing() {
    let (tmp, repo) = repo();
    assert_eq!(repo.list().unwrap(), CheckpointListing::default());
    assert_eq!(repo.latest_unacknowledged(Some("s")).unwrap(), None);
    assert_eq!(repo.get(id(1)).unwrap(), None);
    assert_eq!(
        repo.acknowledge(id(1)).unwrap_err().kind,
        PortErrorKind::NotFound
    );
    assert_eq!(repo.prune(0).unwrap().pruned, []);
    assert!(names(tmp.path()).is_empty());
}

#[test]
fn the_file_names_win_over_a_stale_or_corrupt_high_water_mark() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    save(&repo, "s");
    fs::write(repo.next_id_path(), b"garbage").unwrap();
    assert_eq!(save(&repo, "s").checkpoint_id, id(3));
    fs::write(repo.next_id_path(), b"1\n").unwrap();
    assert_eq!(save(&repo, "s").checkpoint_id, id(4));
    // A marker claims no id (anyone can touch one), and one left under the next id must not
    // make the new checkpoint born acknowledged.
    fs::remove_file(repo.next_id_path()).unwrap();
    fs::write(repo.dir().join("cx-005.acknowledged"), b"").unwrap();
    fs::write(repo.dir().join("cx-009.acknowledged"), b"").unwrap();
    let fresh = save(&repo, "s");
    assert_eq!(fresh.checkpoint_id, id(5));
    assert!(!repo.get(id(5)).unwrap().unwrap().acknowledged);
    // prune clears orphan markers.
    assert_eq!(repo.prune(10).unwrap().pruned, []);
    assert!(!repo.dir().join("cx-009.acknowledged").exists());
}

#[test]
fn corrupt_foreign_and_future_files_are_reported_and_skipped() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    let dir = repo.dir();
    let valid = fs::read_to_string(repo.checkpoint_path(id(1))).unwrap();
    fs::write(
        dir.join("cx-002-checkpoint.json"),
        b"{\"schema_version\": 1, \"chec",
    )
    .unwrap();
    fs::write(dir.join("notes.txt"), b"my notes").unwrap();
    fs::write(dir.join("cx-abc-checkpoint.json"), b"{}").unwrap();
    fs::write(
        dir.join("cx-0003-checkpoint.json"),
        valid.replace("cx-001", "cx-003"),
    )
    .unwrap();
    let future_same_shape = valid
        .replace("cx-001", "cx-004")
        .replace("\"schema_version\": 1", "\"schema_version\": 2");
    fs::write(dir.join("cx-004-checkpoint.json"), future_same_shape).unwrap();
    fs::write(
        dir.join("cx-005-checkpoint.json"),
        br#"{"schema_version": 7, "checkpoint": {"renamed": true}}"#,
    )
    .unwrap();
    fs::write(dir.join("cx-006-checkpoint.json"), &valid).unwrap();
    fs::write(
        dir.join("cx-007-checkpoint.json"),
        vec![b' '; MAX_CHECKPOINT_BYTES as usize + 1],
    )
    .unwrap();
    fs::create_dir(dir.join("cx-008-checkpoint.json")).unwrap();
    fs::write(dir.join("cx-009-checkpoint.json"), b"\xff\xfe\x00binary").unwrap();

    let listing = repo.list().unwrap();
    assert_eq!(ids(&listing), [1]);
    let expect = [
        ("cx-002-checkpoint.json", "corrupt checkpoint JSON"),
        ("cx-004-checkpoint.json", "schema version 2 is newer"),
        ("cx-005-checkpoint.json", "schema version 7 is newer"),
        (
            "cx-006-checkpoint.json",
            "holds checkpoint cx-001 under the name of cx-006",
        ),
        ("cx-007-checkpoint.json", "larger than 4 MiB"),
        ("cx-008-checkpoint.json", "not a regular file"),
        ("cx-009-checkpoint.json", "corrupt checkpoint JSON"),
        ("cx-0003-checkpoint.json", "not a checkpoint file"),
        ("cx-abc-checkpoint.json", "not a checkpoint file"),
        ("notes.txt", "not a checkpoint file"),
    ];
    assert_eq!(
        listing.problems.len(),
        expect.len(),
        "{:#?}",
        listing.problems
    );
    for ((name, why), problem) in expect.iter().zip(&listing.problems) {
        assert!(
            problem.contains(name) && problem.contains(why) && problem.ends_with("skipped"),
            "{problem}"
        );
    }
    assert_eq!(
        repo.get(id(2)).unwrap_err().kind,
        PortErrorKind::InvalidData
    );
    assert_eq!(
        repo.get(id(4)).unwrap_err().kind,
        PortErrorKind::InvalidData
    );
    // Unreadable checkpoints are passed over, never returned and never fatal.
    assert_eq!(
        repo.latest_unacknowledged(None)
            .unwrap()
            .map(|c| c.checkpoint_id),
        Some(id(1))
    );
    // A name whose file is not a checkpoint claims no id (an empty file must not use up the
    // ids), but is not written over either: the first free id past `.next-id` is taken.
    assert_eq!(save(&repo, "s").checkpoint_id, id(3));
    // Nothing was touched.
    assert_eq!(fs::read(dir.join("notes.txt")).unwrap(), b"my notes");
}

/// A killed writer's temp file is invisible to every reader. It stays: ctxmon deletes only the
/// temp files its own process made (a save once deleted a planted `.tmp-*` file it never
/// created, through a linked folder).
#[test]
fn a_temp_file_ctxmon_did_not_create_is_invisible_and_never_deleted() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    let temp = repo.dir().join(".tmp-Xk3v9Q");
    fs::write(&temp, b"{\"schema_version\": 1, \"checkpoint_id\": \"cx-0").unwrap();
    let listing = repo.list().unwrap();
    assert_eq!(ids(&listing), [1]);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    assert_eq!(
        repo.latest_unacknowledged(None)
            .unwrap()
            .map(|c| c.checkpoint_id),
        Some(id(1))
    );
    assert_eq!(save(&repo, "s").checkpoint_id, id(2));
    assert_eq!(repo.prune(0).unwrap().pruned, [id(1), id(2)]);
    assert!(temp.exists(), "neither save nor prune deletes it");
}

/// Found by the audit: `ack` on a corrupt file wrote the marker and said "acknowledged" while
/// `show` refused the same file.
#[test]
fn acknowledge_refuses_a_checkpoint_it_cannot_read() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    fs::write(repo.dir().join("cx-002-checkpoint.json"), "{ torn").unwrap();
    fs::write(
        repo.dir().join("cx-003-checkpoint.json"),
        r#"{"schema_version": 2, "checkpoint_id": "cx-003"}"#,
    )
    .unwrap();
    for (n, why) in [(2, "corrupt checkpoint JSON"), (3, "schema version 2")] {
        let e = repo.acknowledge(id(n)).unwrap_err();
        assert_eq!(e.kind, PortErrorKind::InvalidData, "{e}");
        assert!(e.message.contains(why), "{e}");
        assert!(!repo.marker_path(id(n)).exists());
    }
}

#[test]
fn acknowledge_is_idempotent_and_needs_a_checkpoint() {
    let (_tmp, repo) = repo();
    save(&repo, "s");
    assert!(repo.acknowledge(id(1)).unwrap());
    assert!(!repo.acknowledge(id(1)).unwrap());
    assert!(repo.get(id(1)).unwrap().unwrap().acknowledged);
    let missing = repo.acknowledge(id(2)).unwrap_err();
    assert_eq!(missing.kind, PortErrorKind::NotFound);
    assert!(
        missing.message.contains("no checkpoint cx-002"),
        "{missing}"
    );
    assert!(!repo.marker_path(id(2)).exists());
    let listing = repo.list().unwrap();
    assert!(listing.checkpoints[0].acknowledged);
}

#[test]
fn latest_unacknowledged_walks_down_per_session() {
    let (_tmp, repo) = repo();
    assert_eq!(repo.latest_unacknowledged(None).unwrap(), None);
    save(&repo, "a"); // cx-001
    save(&repo, "b"); // cx-002
    save(&repo, "a"); // cx-003
    let latest = |s: Option<&str>| {
        repo.latest_unacknowledged(s)
            .unwrap()
            .map(|c| c.checkpoint_id.sequence())
    };
    assert_eq!(latest(None), Some(3));
    assert_eq!(latest(Some("a")), Some(3));
    assert_eq!(latest(Some("b")), Some(2));
    assert_eq!(latest(Some("c")), None);
    repo.acknowledge(id(3)).unwrap();
    assert_eq!(latest(None), Some(2));
    assert_eq!(latest(Some("a")), Some(1));
    fs::write(repo.checkpoint_path(id(2)), b"corrupt").unwrap();
    assert_eq!(latest(None), Some(1));
    repo.acknowledge(id(1)).unwrap();
    assert_eq!(latest(Some("a")), None);
}

/// A session's pending checkpoint behind many newer unacknowledged ones of another session:
/// found through the session's index. Looking through the folder newest first, with the bound
/// a per-prompt query needs, gave up before reaching it, and the alert was never given.
#[test]
fn latest_unacknowledged_finds_a_session_behind_many_others() {
    let (_tmp, repo) = repo();
    save(&repo, "old");
    for _ in 0..MAX_LATEST_READS {
        save(&repo, "busy");
    }
    super::read::counter::take();
    assert_eq!(
        repo.latest_unacknowledged(Some("old"))
            .unwrap()
            .map(|c| c.checkpoint_id),
        Some(id(1))
    );
    assert_eq!(super::read::counter::take(), 1);
}

#[test]
fn unwritable_checkpoints_are_refused_without_using_up_the_id() {
    let (_tmp, repo) = repo();
    let huge = repo.save_new(Some("s"), &mut |given| {
        let mut data = sample(given.id, "s");
        data.custom_instructions = Some("x".repeat(MAX_CHECKPOINT_BYTES as usize));
        data
    });
    let err = huge.unwrap_err();
    assert_eq!(err.kind, PortErrorKind::InvalidData);
    assert!(err.message.contains("over the 4 MiB limit"), "{err}");
    let nan = repo.save_new(Some("s"), &mut |given| {
        let mut data = sample(given.id, "s");
        data.context_state.fill_percentage = f64::NAN;
        data
    });
    assert!(nan.unwrap_err().message.contains("fill_percentage is NaN"));
    assert_eq!(save(&repo, "s").checkpoint_id, id(1));
}

/// Ids come from files anyone can write, so each is checked: an empty file or a marker under
/// a high name claims nothing, and `.next-id` far past every checkpoint is not believed. One
/// planted file used to stop every later checkpoint ("ids are exhausted").
#[test]
fn one_planted_file_cannot_use_up_the_ids() {
    let plants: [(&str, &[u8]); 4] = [
        ("cx-999999999.acknowledged", b""),
        ("cx-999999999-checkpoint.json", b""),
        (".next-id", b"4294967295\n"),
        (".next-id", b"999999999\n"),
    ];
    for (name, content) in plants {
        let (_tmp, repo) = repo();
        save(&repo, "s");
        fs::write(repo.dir().join(name), content).unwrap();
        assert_eq!(save(&repo, "s").checkpoint_id, id(2), "{name}");
        assert_eq!(save(&repo, "s").checkpoint_id, id(3), "{name}");
    }
}

/// A valid checkpoint under the last id, with no `.next-id` to outrank it (a fresh project,
/// or the file deleted), used to stop every later save ("ids are exhausted"): the ids below it
/// are given instead, after the highest checkpoint below a gap, and the hook log names it.
#[test]
fn a_checkpoint_at_the_last_id_leaves_the_ids_below_it() {
    let plant = |repo: &FsCheckpointRepository| {
        let last = id(999_999_999);
        fs::create_dir_all(repo.dir()).unwrap();
        fs::write(
            repo.checkpoint_path(last),
            serialize(&sample(last, "s")).unwrap(),
        )
        .unwrap();
    };
    // A fresh project.
    let (_tmp, fresh) = repo();
    plant(&fresh);
    assert_eq!(save(&fresh, "s").checkpoint_id, id(1));
    assert_eq!(save(&fresh, "s").checkpoint_id, id(2));
    let log = fs::read_to_string(fresh.layout.hooks_log()).unwrap();
    assert!(log.contains("cx-999999999-checkpoint.json"), "{log}");
    assert!(log.contains("cx-001 was given"), "{log}");
    // Checkpoints already there and `.next-id` deleted: the series goes on after them.
    let (_tmp, repo) = repo();
    for _ in 0..3 {
        save(&repo, "s");
    }
    fs::remove_file(repo.dir().join(".next-id")).unwrap();
    plant(&repo);
    assert_eq!(save(&repo, "s").checkpoint_id, id(4));
    assert_eq!(save(&repo, "s").checkpoint_id, id(5));
    assert_eq!(ids(&repo.list().unwrap()), [1, 2, 3, 4, 5, 999_999_999]);
}

#[test]
fn threads_in_one_process_get_distinct_ids_without_gaps() {
    let (_tmp, repo) = repo();
    let mut all: Vec<u32> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let repo = repo.clone();
                s.spawn(move || {
                    (0..5)
                        .map(|_| save(&repo, &format!("t{t}")).checkpoint_id.sequence())
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
    assert_eq!(ids(&repo.list().unwrap()), all);
}
