//! The file store against temp folders: round-trips, ordering, retention, and every kind of
//! bad file beside good ones.

use std::fs;

use ctxmon_application::ports::{PortErrorKind, ResumeLogStore};
use ctxmon_domain::{ContextMetrics, ResumeLog, SessionKey, Timestamp};

use super::*;

fn store() -> (tempfile::TempDir, FsResumeLogStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = FsResumeLogStore::new(ProjectLayout::new(dir.path()));
    (dir, store)
}

fn log(session: &str, at_ms: i64) -> ResumeLog {
    let mut log = ResumeLog::new(
        session,
        ContextMetrics::new(200_000, 160_000, "session_end", "m", Timestamp(at_ms)),
    );
    log.mission_summary = format!("mission of {session}");
    log
}

fn save(store: &FsResumeLogStore, session: &str, at_ms: i64) -> ResumeLog {
    let l = log(session, at_ms);
    store.save(&l, &l.to_markdown()).unwrap();
    l
}

#[test]
fn saves_private_files_and_loads_them_back() {
    let (_tmp, store) = store();
    let l = save(&store, "s1", 1_000);
    let loaded = store.load(&SessionKey::from_raw("s1")).unwrap().unwrap();
    assert_eq!(loaded.log, l);
    assert_eq!(loaded.markdown.as_deref(), Some(l.to_markdown().as_str()));
    assert!(loaded.entry.location.ends_with("resume-logs/session-s1.md"));
    assert_eq!(loaded.entry.trigger, "session_end");
    assert_eq!(store.load(&SessionKey::from_raw("nope")).unwrap(), None);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&store.json_path(&SessionKey::from_raw("s1"))), 0o600);
        assert_eq!(
            mode(&store.markdown_path(&SessionKey::from_raw("s1"))),
            0o600
        );
        assert_eq!(mode(&store.dir()), 0o700);
    }
}

#[test]
fn lists_newest_first_and_keeps_the_newest_on_cleanup() {
    let (_tmp, store) = store();
    save(&store, "old", 1_000);
    save(&store, "new", 3_000);
    save(&store, "mid", 2_000);
    let keys = |s: &FsResumeLogStore| -> Vec<String> {
        s.list()
            .unwrap()
            .entries
            .iter()
            .map(|e| e.key.to_string())
            .collect()
    };
    assert_eq!(keys(&store), ["new", "mid", "old"]);
    assert_eq!(store.latest().unwrap().unwrap().log.session_id, "new");
    let stats = store.stats().unwrap();
    assert_eq!(stats.count, 3);
    assert_eq!(stats.oldest, Some(Timestamp(1_000)));
    assert_eq!(stats.newest, Some(Timestamp(3_000)));
    let on_disk: u64 = fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("session-"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert_eq!(stats.bytes, on_disk);
    assert_eq!(store.cleanup(1).unwrap().len(), 2);
    assert_eq!(keys(&store), ["new"]);
    assert!(!store.markdown_path(&SessionKey::from_raw("old")).exists());
}

#[test]
fn a_later_log_of_the_session_replaces_the_earlier() {
    let (_tmp, store) = store();
    save(&store, "s", 1_000);
    save(&store, "s", 2_000);
    let listing = store.list().unwrap();
    assert_eq!(listing.entries.len(), 1);
    assert_eq!(listing.entries[0].generated_at, Some(Timestamp(2_000)));
}

#[test]
fn hostile_session_ids_stay_in_the_folder() {
    let (tmp, store) = store();
    save(&store, "../../etc/passwd", 1_000);
    let names: Vec<String> = fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("session-"))
        .collect();
    assert_eq!(names.len(), 2);
    assert!(
        names.iter().all(|n| n.starts_with("session-h-")),
        "{names:?}"
    );
    assert!(!tmp.path().join("etc").exists());
    let key = SessionKey::from_raw("../../etc/passwd");
    assert_eq!(
        store.load(&key).unwrap().unwrap().log.session_id,
        "../../etc/passwd"
    );
}

#[test]
fn bad_files_are_reported_and_skipped_never_fatal() {
    let (_tmp, store) = store();
    save(&store, "good", 1_000);
    save(&store, "corrupt", 2_000);
    let key = SessionKey::from_raw("corrupt");
    fs::write(
        store.json_path(&key),
        b"{\"schema_version\": 1, \"session_id\": ",
    )
    .unwrap();
    let md_before = fs::read(store.markdown_path(&key)).unwrap();
    // A markdown file alone, a log filed under another session's name, a future schema.
    fs::write(store.dir().join("session-orphan.md"), "# hi").unwrap();
    let other = log("someone-else", 5);
    fs::write(
        store.dir().join("session-thief.json"),
        serde_json::to_vec(&other).unwrap(),
    )
    .unwrap();
    let mut future = serde_json::to_value(log("future", 5)).unwrap();
    future["schema_version"] = 99.into();
    fs::write(store.dir().join("session-future.json"), future.to_string()).unwrap();
    fs::write(store.dir().join("notes.txt"), "mine").unwrap();

    let listing = store.list().unwrap();
    let keys: Vec<&str> = listing.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["good"]);
    let problems = listing.problems.join("\n");
    assert_eq!(listing.problems.len(), 4, "{problems}");
    assert!(
        problems.contains("session-corrupt.json: corrupt resume-log JSON"),
        "{problems}"
    );
    assert!(problems.contains("session-orphan.md: no session-orphan.json beside it"));
    assert!(problems.contains("session-thief.json: holds the log of another session"));
    assert!(problems.contains("schema version 99 is newer"));

    assert_eq!(
        store.load(&key).unwrap_err().kind,
        PortErrorKind::InvalidData
    );
    assert_eq!(store.latest().unwrap().unwrap().log.session_id, "good");
    // Cleanup deletes only what it can identify.
    store.cleanup(0).unwrap();
    assert_eq!(fs::read(store.markdown_path(&key)).unwrap(), md_before);
    assert!(store.dir().join("notes.txt").exists());
    assert!(store.dir().join("session-thief.json").exists());
}

#[cfg(unix)]
#[test]
fn symlinks_and_oversized_files_are_not_read() {
    let (tmp, store) = store();
    save(&store, "good", 1_000);
    let outside = tmp.path().join("secret.json");
    fs::write(&outside, serde_json::to_vec(&log("link", 1)).unwrap()).unwrap();
    std::os::unix::fs::symlink(&outside, store.dir().join("session-link.json")).unwrap();
    let big = fs::File::create(store.dir().join("session-big.json")).unwrap();
    big.set_len(MAX_LOG_BYTES + 1).unwrap();
    let listing = store.list().unwrap();
    assert_eq!(listing.entries.len(), 1);
    let problems = listing.problems.join("\n");
    assert!(
        problems.contains("session-link.json: not a regular file"),
        "{problems}"
    );
    assert!(
        problems.contains("session-big.json: larger than 16 MiB"),
        "{problems}"
    );
}

#[test]
fn a_folder_that_cannot_be_written_fails_and_keeps_the_old_log() {
    let (_tmp, store) = store();
    save(&store, "s", 1_000);
    let before = fs::read(store.json_path(&SessionKey::from_raw("s"))).unwrap();
    // A file where the folder should be fails for every user, root included.
    let blocked = tempfile::tempdir().unwrap();
    fs::create_dir_all(blocked.path().join(".ctxmon")).unwrap();
    fs::write(blocked.path().join(".ctxmon/resume-logs"), "not a folder").unwrap();
    let blocked_store = FsResumeLogStore::new(ProjectLayout::new(blocked.path()));
    let l = log("s", 2_000);
    assert!(blocked_store.save(&l, "md").is_err());
    assert!(blocked_store.list().is_err());
    assert_eq!(
        fs::read(store.json_path(&SessionKey::from_raw("s"))).unwrap(),
        before
    );
}

/// What a save killed between its two renames leaves: the new JSON beside the old markdown.
fn interrupt_between_renames(store: &FsResumeLogStore, newer: &ResumeLog) {
    let key = SessionKey::from_raw(&newer.session_id);
    let md = store.markdown_path(&key);
    let old_mtime = fs::metadata(&md).unwrap().modified().unwrap();
    fs::write(
        store.json_path(&key),
        serde_json::to_vec_pretty(newer).unwrap(),
    )
    .unwrap();
    // The old markdown was written before the new JSON (coarse clocks could tie them).
    let json = fs::File::options()
        .write(true)
        .open(store.json_path(&key))
        .unwrap();
    json.set_modified(old_mtime + std::time::Duration::from_millis(10))
        .unwrap();
}

#[test]
fn readers_render_the_markdown_again_when_a_save_stopped_between_its_renames() {
    let (_tmp, store) = store();
    save(&store, "s", 1_000);
    let key = SessionKey::from_raw("s");
    let mut newer = log("s", 2_000);
    newer.mission_summary = "the newer mission".into();
    interrupt_between_renames(&store, &newer);

    // `list` (what SessionStart reads) notices the stale markdown by its age and repairs it.
    assert_eq!(store.list().unwrap().entries.len(), 1);
    assert_eq!(
        fs::read_to_string(store.markdown_path(&key)).unwrap(),
        newer.to_markdown()
    );

    // `load` compares contents, whatever the times say.
    fs::write(store.markdown_path(&key), "# stale").unwrap();
    let loaded = store.load(&key).unwrap().unwrap();
    assert_eq!(
        loaded.markdown.as_deref(),
        Some(newer.to_markdown().as_str())
    );
    assert_eq!(
        fs::read_to_string(store.markdown_path(&key)).unwrap(),
        newer.to_markdown()
    );
}

#[test]
fn a_deletion_stopped_half_way_leaves_a_whole_log_never_a_lone_markdown() {
    let (_tmp, store) = store();
    save(&store, "s", 1_000);
    let key = SessionKey::from_raw("s");
    // `delete` removes the markdown first: interrupted there, the JSON stands alone.
    fs::remove_file(store.markdown_path(&key)).unwrap();
    let listing = store.list().unwrap();
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    assert_eq!(listing.entries.len(), 1);
    assert!(store.markdown_path(&key).exists(), "rendered again");
    assert!(store.delete(&key).unwrap());
    assert!(!store.json_path(&key).exists() && !store.markdown_path(&key).exists());
}

/// A save leaves no temp file of its own and deletes none it did not create (a save once
/// deleted a planted `.tmp-*` file); such a file is invisible to readers.
#[test]
fn a_save_deletes_only_its_own_temp_files() {
    let (_tmp, store) = store();
    save(&store, "s", 1_000);
    let planted = store.dir().join(".tmp-killed");
    fs::write(&planted, vec![b'x'; 4096]).unwrap();
    save(&store, "t", 2_000);
    assert_eq!(fs::read(&planted).unwrap().len(), 4096);
    let temps: Vec<String> = fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert_eq!(temps, [".tmp-killed"]);
    let listing = store.list().unwrap();
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    assert_eq!(listing.entries.len(), 2);
}

/// With `resume-logs/` linked to another folder, a pre-compact once wrote its log there
/// and deleted a `.tmp-*` file ctxmon never created; a dangling `resume-logs/.lock` link made
/// it create the file the link names.
#[cfg(unix)]
#[test]
fn a_linked_folder_or_lock_is_refused_and_nothing_outside_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join(".tmp-x"), b"not ctxmon's").unwrap();
    let project = tmp.path().join("project");
    fs::create_dir_all(project.join(".ctxmon")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".ctxmon/resume-logs")).unwrap();
    let linked = FsResumeLogStore::new(ProjectLayout::new(&project));
    let l = log("s", 1_000);
    let e = linked.save(&l, &l.to_markdown()).unwrap_err();
    assert_eq!(e.kind, PortErrorKind::PermissionDenied, "{e}");
    assert!(
        e.message
            .contains("resume-logs is a symbolic link; ctxmon does not follow links"),
        "{e}"
    );
    let names: Vec<String> = fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [".tmp-x"]);
    assert_eq!(fs::read(outside.join(".tmp-x")).unwrap(), b"not ctxmon's");

    let (tmp, store) = store();
    fs::create_dir_all(store.dir()).unwrap();
    let target = tmp.path().join("made-by-ctxmon.lock");
    std::os::unix::fs::symlink(&target, store.dir().join(".lock")).unwrap();
    assert!(store.save(&l, &l.to_markdown()).is_err());
    assert!(!target.exists());
    assert!(!store.json_path(&SessionKey::from_raw("s")).exists());
}
