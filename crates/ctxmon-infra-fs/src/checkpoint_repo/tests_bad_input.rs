//! The checkpoint repository against bad input: hostile ids, symlinks, blocked and read-only
//! folders. None may panic, escape the folder or damage what is already on disk.

use std::fs;
use std::path::Path;

use proptest::prelude::*;

use super::tests::{id, ids, names, repo, sample, save};
use super::*;

/// True when this process ignores file permissions (root), where read-only tests prove nothing.
fn permissions_are_bypassed(dir: &Path) -> bool {
    fs::write(dir.join(".probe"), b"").is_ok()
}

#[cfg(unix)]
#[test]
fn a_symlink_under_a_checkpoint_name_is_not_followed() {
    let (tmp, repo) = repo();
    save(&repo, "s");
    let outside = tmp.path().join("outside.json");
    fs::copy(repo.checkpoint_path(id(1)), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, repo.dir().join("cx-002-checkpoint.json")).unwrap();
    let listing = repo.list().unwrap();
    assert_eq!(ids(&listing), [1]);
    assert!(listing.problems[0].contains("not a regular file"));
    assert_eq!(
        repo.acknowledge(id(2)).unwrap_err().kind,
        PortErrorKind::InvalidData
    );
}

#[test]
fn hostile_id_strings_never_parse() {
    for bad in [
        "../../etc/passwd",
        "cx-1;rm",
        "cx-001/../../x",
        "cx-001\0",
        "",
    ] {
        assert_eq!(CheckpointId::parse(bad), None, "{bad:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever id a caller manages to construct, get and acknowledge look only inside the
    /// folder and create nothing for an id without a checkpoint.
    #[test]
    fn any_parsed_id_stays_in_the_folder(text in "cx-[0-9]{3,9}|.{0,20}") {
        if let Some(id) = CheckpointId::parse(&text) {
            let (tmp, repo) = repo();
            save(&repo, "s");
            let before = names(tmp.path());
            let dir = repo.dir();
            let (data, marker) = (repo.checkpoint_path(id), repo.marker_path(id));
            prop_assert_eq!(data.parent(), Some(dir.as_path()));
            prop_assert_eq!(marker.parent(), Some(dir.as_path()));
            if id.sequence() != 1 {
                prop_assert_eq!(repo.get(id).unwrap(), None);
                prop_assert_eq!(repo.acknowledge(id).unwrap_err().kind, PortErrorKind::NotFound);
            }
            prop_assert_eq!(names(tmp.path()), before);
            // .lock, .next-id, .seq-s, .index-s, .indexed-since and the checkpoint.
            prop_assert_eq!(names(&repo.dir()).len(), 6);
        }
    }
}

#[test]
fn a_blocked_folder_is_an_error_not_a_panic() {
    let (tmp, repo) = repo();
    fs::create_dir_all(tmp.path().join(".ctxmon")).unwrap();
    fs::write(repo.dir(), b"a file where the folder should be").unwrap();
    assert!(
        repo.save_new(Some("s"), &mut |given| sample(given.id, "s"))
            .is_err()
    );
    assert!(repo.list().is_err());
    assert!(repo.latest_unacknowledged(None).is_err());
    assert_eq!(
        fs::read(repo.dir()).unwrap(),
        b"a file where the folder should be"
    );
}

#[cfg(unix)]
#[test]
fn a_read_only_ctxmon_folder_is_permission_denied_and_damages_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, repo) = repo();
    let root = tmp.path().join(".ctxmon");
    fs::create_dir_all(&root).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o500)).unwrap();
    if permissions_are_bypassed(&root) {
        eprintln!("notice: running with permission bypass (root); read-only test skipped");
        return;
    }
    let err = repo
        .save_new(Some("s"), &mut |given| sample(given.id, "s"))
        .unwrap_err();
    assert_eq!(err.kind, PortErrorKind::PermissionDenied, "{err}");
    assert_eq!(repo.list().unwrap(), CheckpointListing::default());

    // A folder that already holds checkpoints, made read-only: reads work, writes fail cleanly.
    fs::set_permissions(&root, fs::Permissions::from_mode(0o700)).unwrap();
    save(&repo, "s");
    let before = fs::read(repo.checkpoint_path(id(1))).unwrap();
    fs::set_permissions(repo.dir(), fs::Permissions::from_mode(0o500)).unwrap();
    let err = repo
        .save_new(Some("s"), &mut |given| sample(given.id, "s"))
        .unwrap_err();
    assert_eq!(err.kind, PortErrorKind::PermissionDenied, "{err}");
    assert_eq!(
        repo.acknowledge(id(1)).unwrap_err().kind,
        PortErrorKind::PermissionDenied
    );
    assert_eq!(
        repo.prune(0).unwrap_err().kind,
        PortErrorKind::PermissionDenied
    );
    assert_eq!(ids(&repo.list().unwrap()), [1]);
    assert_eq!(fs::read(repo.checkpoint_path(id(1))).unwrap(), before);
    fs::set_permissions(repo.dir(), fs::Permissions::from_mode(0o700)).unwrap();
}

/// Every entry of `dir` with its bytes (folders as `/`), sorted: what must not change.
#[cfg(unix)]
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = fs::read(e.path()).unwrap_or_else(|_| b"/".to_vec());
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    all.sort();
    all
}

/// With `checkpoints/` linked to another folder, a pre-compact once wrote its checkpoint
/// there and deleted a `.tmp-*` file ctxmon never created. Every writer refuses the linked
/// folder, and the folder it leads to is left exactly as it was.
#[cfg(unix)]
#[test]
fn a_linked_checkpoint_folder_is_neither_written_nor_cleaned() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    fs::create_dir(&outside).unwrap();
    // A checkpoint ctxmon could read, so that `ack` gets as far as the marker.
    let (_other, donor) = repo();
    save(&donor, "s");
    fs::copy(
        donor.checkpoint_path(id(1)),
        outside.join("cx-001-checkpoint.json"),
    )
    .unwrap();
    fs::write(outside.join(".tmp-x"), b"not ctxmon's").unwrap();
    let before = contents(&outside);
    let project = tmp.path().join("project");
    fs::create_dir_all(project.join(".ctxmon")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".ctxmon/checkpoints")).unwrap();
    let repo = FsCheckpointRepository::new(ProjectLayout::new(&project));

    let refused = |e: PortError| {
        assert_eq!(e.kind, PortErrorKind::PermissionDenied, "{e}");
        assert!(
            e.message.contains(".ctxmon/checkpoints is a symbolic link; ctxmon does not follow links inside .ctxmon"),
            "{e}"
        );
    };
    refused(
        repo.save_new(Some("s"), &mut |given| sample(given.id, "s"))
            .unwrap_err(),
    );
    refused(repo.prune(0).unwrap_err());
    refused(repo.acknowledge(id(1)).unwrap_err());
    assert_eq!(contents(&outside), before);
}

/// A dangling `checkpoints/.lock` link once made a pre-compact create the file it points
/// to (empty, 0600) wherever that was.
#[cfg(unix)]
#[test]
fn a_dangling_lock_link_creates_nothing() {
    let (tmp, repo) = repo();
    fs::create_dir_all(repo.dir()).unwrap();
    let target = tmp.path().join("made-by-ctxmon.lock");
    std::os::unix::fs::symlink(&target, repo.dir().join(".lock")).unwrap();
    let e = repo
        .save_new(Some("s"), &mut |given| sample(given.id, "s"))
        .unwrap_err();
    assert!(e.message.contains(".lock is a symbolic link"), "{e}");
    assert!(!target.exists());
    assert!(repo.list().unwrap().checkpoints.is_empty());
}
