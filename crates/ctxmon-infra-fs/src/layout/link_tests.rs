//! `ProjectLayout::ensure_dir` against what a cloned repository or a user can put in place of
//! `.ctxmon` and its folders (contract C12): `.gitignore` on creation only, linked subfolders
//! refused, a linked `.ctxmon` followed only to a folder the user owns outside the project.

use std::fs;
use std::io;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use super::*;

fn project() -> (tempfile::TempDir, ProjectLayout) {
    let tmp = tempfile::tempdir().unwrap();
    let layout = ProjectLayout::new(tmp.path().join("project"));
    fs::create_dir(layout.project_dir()).unwrap();
    (tmp, layout)
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn creating_ctxmon_writes_a_gitignore_for_everything_in_it() {
    let (_tmp, layout) = project();
    layout.ensure_dir(&layout.state_dir()).unwrap();
    let gitignore = layout.root().join(".gitignore");
    assert_eq!(fs::read_to_string(&gitignore).unwrap(), "*\n");
    assert_eq!(mode(&gitignore), 0o600);
    assert_eq!(mode(layout.root()), 0o700);
    assert_eq!(mode(&layout.state_dir()), 0o700);
    // Later calls leave it alone, even once the user has edited it.
    fs::write(&gitignore, "*\n!config.toml\n").unwrap();
    layout.ensure_dir(&layout.checkpoints_dir()).unwrap();
    assert_eq!(fs::read_to_string(&gitignore).unwrap(), "*\n!config.toml\n");
}

#[test]
fn an_existing_ctxmon_is_never_given_a_gitignore() {
    let (_tmp, layout) = project();
    fs::create_dir(layout.root()).unwrap();
    layout.ensure_dir(&layout.logs_dir()).unwrap();
    assert!(!layout.root().join(".gitignore").exists());
}

#[test]
fn a_linked_or_odd_subfolder_is_refused_and_names_itself() {
    let (tmp, layout) = project();
    let outside = tmp.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::create_dir(layout.root()).unwrap();
    for dir in [
        layout.state_dir(),
        layout.checkpoints_dir(),
        layout.resume_logs_dir(),
        layout.logs_dir(),
    ] {
        symlink(&outside, &dir).unwrap();
        let e = layout.ensure_dir(&dir).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(
            e.to_string(),
            format!(
                "{} is a symbolic link; ctxmon does not follow links inside .ctxmon",
                dir.display()
            )
        );
        fs::remove_file(&dir).unwrap();
    }
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    fs::write(layout.state_dir(), b"x").unwrap();
    let e = layout.ensure_dir(&layout.state_dir()).unwrap_err();
    assert!(
        e.to_string().ends_with("is a regular file, not a folder"),
        "{e}"
    );
    let e = layout.ensure_dir(Path::new("/elsewhere")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
}

/// Decision (README, ARCHITECTURE): a `.ctxmon` the user made a link to a folder of theirs
/// outside the project is followed; everything below it is still checked.
#[test]
fn a_linked_ctxmon_to_a_folder_the_user_owns_is_followed() {
    let (tmp, layout) = project();
    let store = tmp.path().join("other-disk/ctxmon-state");
    fs::create_dir_all(&store).unwrap();
    symlink(&store, layout.root()).unwrap();
    layout.ensure_dir(&layout.checkpoints_dir()).unwrap();
    assert!(store.join("checkpoints").is_dir());
    assert!(
        !store.join(".gitignore").exists(),
        "ctxmon did not create this folder"
    );
    symlink(tmp.path(), store.join("state")).unwrap();
    assert!(layout.ensure_dir(&layout.state_dir()).is_err());
}

#[test]
fn a_linked_ctxmon_elsewhere_is_refused_and_nothing_is_created() {
    let (tmp, layout) = project();
    let cases: [(&Path, &str); 4] = [
        (&tmp.path().join("nowhere"), "that leads nowhere"),
        (&tmp.path().join("file"), "to a regular file"),
        (tmp.path(), "which holds the project itself"),
        (layout.project_dir(), "which holds the project itself"),
    ];
    fs::write(tmp.path().join("file"), b"x").unwrap();
    let before = fs::read_dir(tmp.path()).unwrap().count();
    for (target, why) in cases {
        symlink(target, layout.root()).unwrap();
        let e = layout.ensure_dir(&layout.state_dir()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
        assert!(e.to_string().contains(why), "{why}: {e}");
        assert!(e.to_string().contains(".ctxmon is a symbolic link"), "{e}");
        fs::remove_file(layout.root()).unwrap();
    }
    assert!(!tmp.path().join("nowhere").exists());
    assert!(!tmp.path().join("state").exists());
    assert!(!layout.project_dir().join("state").exists());
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), before);
}

/// Only where the process can give a folder away (tests and CI run as root): a link to a
/// folder someone else owns is refused.
#[test]
fn a_linked_ctxmon_to_someone_elses_folder_is_refused() {
    let (tmp, layout) = project();
    let theirs = tmp.path().join("theirs");
    fs::create_dir(&theirs).unwrap();
    if std::os::unix::fs::chown(&theirs, Some(65_534), Some(65_534)).is_err() {
        eprintln!("notice: cannot chown here (not root); skipping the other-owner case");
        return;
    }
    symlink(&theirs, layout.root()).unwrap();
    let e = layout.ensure_dir(&layout.logs_dir()).unwrap_err();
    assert!(e.to_string().contains("owned by user 65534"), "{e}");
    assert_eq!(fs::read_dir(&theirs).unwrap().count(), 0);
}

#[test]
fn a_layout_refusing_to_create_uses_an_existing_ctxmon_only() {
    let (_tmp, layout) = project();
    let layout = layout.refusing_to_create("/home/you is your home folder");
    let e = layout.ensure_dir(&layout.state_dir()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert_eq!(e.to_string(), "/home/you is your home folder");
    assert!(!layout.root().exists());
    fs::create_dir(layout.root()).unwrap();
    layout.ensure_dir(&layout.state_dir()).unwrap();
    assert!(layout.state_dir().is_dir());
}

/// `.ctxmon -> src` (or any folder inside the project) would scatter the state among the
/// project's own files; `.ctxmon -> $HOME` writes into the home folder itself, and `/` is
/// no one's storage either. All three are refused before anything is created.
#[test]
fn a_linked_ctxmon_into_the_project_or_to_home_or_root_is_refused() {
    let (tmp, layout) = project();
    let home = tmp.path().join("home");
    fs::create_dir(&home).unwrap();
    let layout = layout.with_home(Some(home.clone()));
    let src = layout.project_dir().join("src/deep");
    fs::create_dir_all(&src).unwrap();
    let cases: [(&Path, &str); 4] = [
        (Path::new("src"), "inside the project"),
        (&src, "inside the project"),
        (&home, "your home folder"),
        (Path::new("/"), "which holds the project itself"),
    ];
    for (target, why) in cases {
        symlink(target, layout.root()).unwrap();
        let e = layout.ensure_dir(&layout.state_dir()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
        assert!(e.to_string().contains(why), "{why}: {e}");
        assert!(e.to_string().contains(".ctxmon is a symbolic link"), "{e}");
        fs::remove_file(layout.root()).unwrap();
    }
    assert_eq!(
        fs::read_dir(layout.project_dir().join("src"))
            .unwrap()
            .count(),
        1
    );
    assert_eq!(fs::read_dir(&src).unwrap().count(), 0);
    assert_eq!(fs::read_dir(&home).unwrap().count(), 0);
    // A folder beside the home folder's others is still fine.
    let store = home.join("ctxmon-state");
    fs::create_dir(&store).unwrap();
    symlink(&store, layout.root()).unwrap();
    layout.ensure_dir(&layout.state_dir()).unwrap();
    assert!(store.join("state").is_dir());
}
