//! `FsGitInfo` on synthetic `.git` folders (loose ref, packed-refs, detached, unborn, worktree
//! link, garbage) and on this repository itself, compared with `git rev-parse`.

use std::path::{Path, PathBuf};

use ctxmon_application::ports::{GitHead, GitInfo};
use ctxmon_infra_fs::FsGitInfo;
use ctxmon_infra_fs::git_info::STATUS_TIMEOUT;

const SHA_A: &str = "0123456789abcdef0123456789abcdef01234567";
const SHA_B: &str = "89abcdef0123456789abcdef0123456789abcdef";

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

/// A work tree with a `.git` folder whose HEAD is `head`, and a subfolder to start from.
fn repo(head: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    write(&dir.path().join(".git/HEAD"), head);
    let sub = dir.path().join("src/deep");
    std::fs::create_dir_all(&sub).expect("mkdir");
    (dir, sub)
}

fn head(branch: Option<&str>, sha: Option<&str>) -> Option<GitHead> {
    Some(GitHead {
        branch: branch.map(String::from),
        head: sha.map(String::from),
    })
}

#[test]
fn loose_ref_from_a_subfolder() {
    let (dir, sub) = repo("ref: refs/heads/main\n");
    write(
        &dir.path().join(".git/refs/heads/main"),
        &format!("{SHA_A}\n"),
    );
    assert_eq!(FsGitInfo.head(&sub), head(Some("main"), Some(SHA_A)));
    assert_eq!(FsGitInfo.head(dir.path()), head(Some("main"), Some(SHA_A)));
}

#[test]
fn packed_refs_are_searched_when_there_is_no_loose_ref() {
    let (dir, sub) = repo("ref: refs/heads/feature/x");
    write(
        &dir.path().join(".git/packed-refs"),
        &format!(
            "# pack-refs with: peeled fully-peeled sorted \n{SHA_B} refs/heads/feature/xy\n{SHA_A} refs/heads/feature/x\n{SHA_B} refs/tags/v1\n^{SHA_B}\n"
        ),
    );
    assert_eq!(FsGitInfo.head(&sub), head(Some("feature/x"), Some(SHA_A)));
    // A loose ref wins over a stale packed one.
    write(&dir.path().join(".git/refs/heads/feature/x"), SHA_B);
    assert_eq!(FsGitInfo.head(&sub), head(Some("feature/x"), Some(SHA_B)));
}

#[test]
fn detached_and_unborn_heads() {
    let (_dir, sub) = repo(&format!("{}\n", SHA_A.to_uppercase()));
    assert_eq!(FsGitInfo.head(&sub), head(None, Some(SHA_A)));
    let (_dir, sub) = repo("ref: refs/heads/main\n");
    assert_eq!(FsGitInfo.head(&sub), head(Some("main"), None));
    let sha256 = "a".repeat(64);
    let (_dir, sub) = repo(&sha256);
    assert_eq!(FsGitInfo.head(&sub), head(None, Some(&sha256)));
}

#[test]
fn symbolic_refs_are_followed_a_few_hops() {
    let (dir, sub) = repo("ref: refs/heads/alias\n");
    write(
        &dir.path().join(".git/refs/heads/alias"),
        "ref: refs/heads/main\n",
    );
    write(&dir.path().join(".git/refs/heads/main"), SHA_A);
    assert_eq!(FsGitInfo.head(&sub), head(Some("alias"), Some(SHA_A)));
    // A cycle ends without an answer, not in a loop.
    write(
        &dir.path().join(".git/refs/heads/main"),
        "ref: refs/heads/alias\n",
    );
    assert_eq!(FsGitInfo.head(&sub), head(Some("alias"), None));
}

#[test]
fn worktree_gitdir_file_and_commondir() {
    let root = tempfile::tempdir().expect("temp dir");
    let main_git = root.path().join("main/.git");
    write(&main_git.join("HEAD"), "ref: refs/heads/main\n");
    write(&main_git.join("refs/heads/main"), SHA_A);
    write(
        &main_git.join("packed-refs"),
        &format!("{SHA_B} refs/heads/wt\n"),
    );
    let wt_git = main_git.join("worktrees/wt");
    write(&wt_git.join("HEAD"), "ref: refs/heads/wt\n");
    write(&wt_git.join("commondir"), "../..\n");
    // Relative link, as `git worktree add --relative-paths` writes it; absolute ones are
    // what older git writes.
    let wt = root.path().join("wt");
    write(&wt.join(".git"), "gitdir: ../main/.git/worktrees/wt\n");
    assert_eq!(FsGitInfo.head(&wt), head(Some("wt"), Some(SHA_B)));
    write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
    assert_eq!(
        FsGitInfo.head(&wt.join("nested")),
        head(Some("wt"), Some(SHA_B))
    );
    // A submodule-style link without commondir uses its own folder for refs.
    let sub_git = root.path().join("main/.git/modules/lib");
    write(&sub_git.join("HEAD"), SHA_A);
    let lib = root.path().join("main/lib");
    write(&lib.join(".git"), "gitdir: ../.git/modules/lib");
    assert_eq!(FsGitInfo.head(&lib), head(None, Some(SHA_A)));
}

#[test]
fn garbage_gives_empty_fields_never_a_panic() {
    for garbage in [
        "hello",
        "",
        "ref:",
        "ref: ../../../../etc/passwd",
        "ref: refs/heads/../../../x",
        "ref: refs//heads",
        "ref: /abs/refs",
        "\u{0}\u{1}binary",
        "0123",
    ] {
        let (_dir, sub) = repo(garbage);
        assert_eq!(
            FsGitInfo.head(&sub),
            Some(GitHead::default()),
            "{garbage:?}"
        );
    }
    let (dir, sub) = repo("ref: refs/heads/main");
    write(&dir.path().join(".git/refs/heads/main"), "not a sha");
    assert_eq!(FsGitInfo.head(&sub), head(Some("main"), None));
    // HEAD too long to be HEAD, or a folder.
    let (_dir, sub) = repo(&"a".repeat(10_000));
    assert_eq!(FsGitInfo.head(&sub), Some(GitHead::default()));
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join(".git/HEAD")).expect("mkdir");
    assert_eq!(FsGitInfo.head(dir.path()), Some(GitHead::default()));
}

#[test]
fn no_git_folder_or_a_broken_link_is_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Guard: the test is meaningless if the temp folder itself sits inside a repository.
    if std::iter::successors(Some(dir.path()), |p| p.parent()).any(|p| p.join(".git").exists()) {
        ctxmon_test_support::skip!("the temp folder is inside a git repository; skipping");
        return;
    }
    assert_eq!(FsGitInfo.head(dir.path()), None);
    assert_eq!(FsGitInfo.head(&dir.path().join("missing/sub")), None);
    write(&dir.path().join(".git"), "not a gitdir link\n");
    assert_eq!(FsGitInfo.head(dir.path()), None);
    write(&dir.path().join(".git"), "gitdir: ./nowhere\n");
    assert_eq!(FsGitInfo.head(dir.path()), Some(GitHead::default()));
}

#[test]
fn fifo_head_is_not_opened() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join(".git/HEAD"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        ctxmon_test_support::skip!("mkfifo unavailable; skipping");
        return;
    }
    assert_eq!(FsGitInfo.head(dir.path()), Some(GitHead::default()));
    // git itself would block opening that HEAD until its timeout; no git is started at all.
    let started = std::time::Instant::now();
    assert_eq!(FsGitInfo.dirty_files(dir.path()), None);
    assert!(
        started.elapsed() < STATUS_TIMEOUT,
        "git was started and waited for: {:?}",
        started.elapsed()
    );
}

/// Runs git in this crate's folder; `None` when git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn this_repository_matches_git_rev_parse() {
    let Some(expected_head) = git(&["rev-parse", "HEAD"]) else {
        ctxmon_test_support::skip!("git or this repository's history is unavailable; skipping");
        return;
    };
    let expected_branch = git(&["symbolic-ref", "--quiet", "--short", "HEAD"]);
    let found = FsGitInfo.head(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert_eq!(
        found,
        Some(GitHead {
            branch: expected_branch,
            head: Some(expected_head)
        })
    );
}
