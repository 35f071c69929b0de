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
            // .lock, .next-id, .seq-s, .sequences-since and the checkpoint.
            prop_assert_eq!(names(&repo.dir()).len(), 5);
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
