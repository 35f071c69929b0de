//! Symbolic links planted inside `.ctxmon/` (contract C12), as a cloned repository can
//! commit them, against the real binary: nothing outside the project is appended to, created or
//! deleted, the hook names the link on stderr, exits 0 and still answers. Also `.ctxmon/.gitignore`
//! (point 11) and a `.ctxmon` that is itself a link.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use serde_json::json;

use crate::common::{Run, Sandbox, additional_context, transcript_with};

const REFUSED: &str = "is a symbolic link; ctxmon does not follow links inside .ctxmon";

/// Every entry below `dir` (relative path, and the bytes of files or the target of links),
/// sorted: what must come out of a run unchanged.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap().map(Result::unwrap) {
            let path = entry.path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            let kind = entry.file_type().unwrap();
            let what = if kind.is_symlink() {
                format!("-> {}", fs::read_link(&path).unwrap().display())
            } else if kind.is_dir() {
                stack.push(path);
                "/".to_string()
            } else {
                String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned()
            };
            found.push((rel, what));
        }
    }
    found.sort();
    found
}

/// A sandbox with a WARNING-level transcript, and a folder outside its project.
struct Scene {
    sb: Sandbox,
    outside: tempfile::TempDir,
    transcript: std::path::PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let sb = Sandbox::new();
        let transcript = sb.write("t.jsonl", transcript_with(&[150_000]));
        Scene {
            sb,
            outside: tempfile::tempdir().unwrap(),
            transcript,
        }
    }

    fn outside(&self, rel: &str) -> std::path::PathBuf {
        self.outside.path().join(rel)
    }

    /// `.ctxmon/<rel>` as a link to `target` (parents created as real folders).
    fn plant(&self, rel: &str, target: &Path) {
        let link = self.sb.path(".ctxmon").join(rel);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(target, link).unwrap();
    }

    fn pre_compact(&self) -> Run {
        let input = self.sb.hook_input(
            "PreCompact",
            "s1",
            &self.transcript,
            json!({"trigger": "auto"}),
        );
        self.sb.run(&["hooks", "pre-compact"], input)
    }

    fn prompt_submit(&self) -> Run {
        let input = self.sb.prompt_input("s1", &self.transcript);
        self.sb.run(&["hooks", "prompt-submit"], input)
    }

    fn session_end(&self) -> Run {
        let input = self.sb.hook_input(
            "SessionEnd",
            "s1",
            &self.transcript,
            json!({"reason": "logout"}),
        );
        self.sb.run(&["hooks", "session-end"], input)
    }
}

/// The prompt hook answered as usual: its monitor tag (the fill needs no stored state).
fn assert_prompt_answered(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let context = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(context.starts_with("<context-monitor fill="), "{context}");
}

fn assert_checkpoint_announced(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("Checkpoint cx-001 saved"),
        "{} / {}",
        run.stdout,
        run.stderr
    );
}

#[test]
fn a_linked_event_log_and_hook_log_get_nothing_appended() {
    let scene = Scene::new();
    fs::write(scene.outside("events"), "mine\n").unwrap();
    fs::write(scene.outside("hooks"), "mine\n").unwrap();
    scene.plant("events.jsonl", &scene.outside("events"));
    scene.plant("logs/hooks.log", &scene.outside("hooks"));
    let before = snapshot(scene.outside.path());

    let run = scene.pre_compact();
    let prompt = scene.prompt_submit();
    assert_eq!(snapshot(scene.outside.path()), before);
    // The checkpoint does not depend on the event log: saved and announced.
    assert_checkpoint_announced(&run);
    assert_prompt_answered(&prompt);
    // The refusal is a warning, which the hook log would have taken too.
    assert!(
        run.stderr.contains(&format!("events.jsonl {REFUSED}")),
        "{}",
        run.stderr
    );
}

#[test]
fn dangling_lock_links_create_nothing_anywhere() {
    for lock in [
        ".events.lock",
        "state/s1.lock",
        "checkpoints/.lock",
        "resume-logs/.lock",
    ] {
        let scene = Scene::new();
        scene.plant(lock, &scene.outside("made-by-ctxmon.lock"));
        let run = scene.pre_compact();
        let prompt = scene.prompt_submit();
        let end = scene.session_end();
        assert_eq!(
            snapshot(scene.outside.path()),
            Vec::<(String, String)>::new(),
            "{lock}: nothing created outside"
        );
        assert_eq!(run.code, 0, "{lock}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("{lock} {REFUSED}")),
            "{lock}: {}",
            run.stderr
        );
        if lock == "checkpoints/.lock" {
            // No checkpoint without its lock, so none is announced (as on a read-only disk).
            assert!(run.stdout.trim().is_empty(), "{}", run.stdout);
            assert!(
                run.stderr.contains("checkpoint not saved"),
                "{}",
                run.stderr
            );
        } else {
            assert_checkpoint_announced(&run);
        }
        assert_prompt_answered(&prompt);
        assert_eq!(end.code, 0);
    }
}

#[test]
fn linked_checkpoint_and_resume_log_folders_are_neither_written_nor_cleaned() {
    let scene = Scene::new();
    for folder in ["checkpoints", "resume-logs"] {
        fs::create_dir(scene.outside(folder)).unwrap();
        fs::write(scene.outside(folder).join(".tmp-x"), "not ctxmon's").unwrap();
        scene.plant(folder, &scene.outside(folder));
    }
    let before = snapshot(scene.outside.path());

    let run = scene.pre_compact();
    let end = scene.session_end();
    let prompt = scene.prompt_submit();
    assert_eq!(snapshot(scene.outside.path()), before);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("checkpoints {REFUSED}")),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.trim().is_empty(),
        "no checkpoint, no announcement"
    );
    assert_eq!(end.code, 0);
    assert!(
        end.stderr.contains(&format!("resume-logs {REFUSED}")),
        "{}",
        end.stderr
    );
    assert_prompt_answered(&prompt);
    // The commands that write or delete there refuse too (exit 1, naming the link).
    for args in [
        &["checkpoint", "prune", "--keep", "0"][..],
        &["resume-log", "generate", "--session", "s1"][..],
    ] {
        let run = scene.sb.run(args, "");
        assert_eq!(snapshot(scene.outside.path()), before, "{args:?}");
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(REFUSED), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn a_new_ctxmon_gets_a_gitignore_and_an_existing_one_never_does() {
    let scene = Scene::new();
    assert_prompt_answered(&scene.prompt_submit());
    let gitignore = scene.sb.path(".ctxmon/.gitignore");
    assert_eq!(fs::read_to_string(&gitignore).unwrap(), "*\n");
    assert_eq!(
        fs::metadata(&gitignore).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Edited on purpose to share the project configuration: kept as it is.
    fs::write(&gitignore, "*\n!.gitignore\n!config.toml\n").unwrap();
    assert_checkpoint_announced(&scene.pre_compact());
    assert_eq!(
        fs::read_to_string(&gitignore).unwrap(),
        "*\n!.gitignore\n!config.toml\n"
    );

    // A `.ctxmon` that exists without one (an older ctxmon's, or the user removed it).
    let older = Scene::new();
    fs::create_dir(older.sb.path(".ctxmon")).unwrap();
    assert_checkpoint_announced(&older.pre_compact());
    assert!(!older.sb.path(".ctxmon/.gitignore").exists());
}

/// With git at hand: nothing ctxmon writes shows up as a change to commit.
#[test]
fn git_sees_nothing_to_commit_in_ctxmon() {
    let scene = Scene::new();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(scene.sb.dir())
            .env("HOME", scene.sb.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
    };
    if !git(&["init", "-q"]).is_ok_and(|o| o.status.success()) {
        ctxmon_test_support::skip!("git unavailable; skipping");
        return;
    }
    assert_checkpoint_announced(&scene.pre_compact());
    assert_prompt_answered(&scene.prompt_submit());
    let status = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
    let listed = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(!listed.contains(".ctxmon"), "{listed}");
    assert!(
        listed.contains("t.jsonl"),
        "git does list other files: {listed}"
    );
}

/// Decision (README "Files ctxmon writes", ARCHITECTURE): a `.ctxmon` the user linked to a folder
/// of theirs outside the project is followed; a link to a folder holding the project is not.
#[test]
fn a_linked_ctxmon_is_followed_only_to_a_folder_of_the_users_outside_the_project() {
    let scene = Scene::new();
    let store = scene.outside("fast-disk/shop-ctxmon");
    fs::create_dir_all(&store).unwrap();
    symlink(&store, scene.sb.path(".ctxmon")).unwrap();
    assert_checkpoint_announced(&scene.pre_compact());
    assert!(store.join("checkpoints/cx-001-checkpoint.json").is_file());
    assert!(store.join("state/s1.json").is_file());

    // `.ctxmon -> ..` (the home folder, say) or `.ctxmon -> .`: a folder holding the project
    // is not storage. The project sits two folders down in a folder of the test's own.
    for target in ["..", "."] {
        let other = Scene::new();
        let home = other.outside("home");
        let project = home.join("shop");
        fs::create_dir_all(&project).unwrap();
        symlink(target, project.join(".ctxmon")).unwrap();
        let before = snapshot(&home);
        let run = |name: &str, input: serde_json::Value| {
            let mut input = input;
            input["cwd"] = json!(project);
            other.sb.run(&["hooks", name], input.to_string())
        };
        let t = &other.transcript;
        let pre = run(
            "pre-compact",
            json!({"session_id": "s1", "transcript_path": t, "hook_event_name": "PreCompact"}),
        );
        let prompt = run(
            "prompt-submit",
            json!({"session_id": "s1", "transcript_path": t, "hook_event_name": "UserPromptSubmit", "prompt": "go"}),
        );
        assert_eq!(snapshot(&home), before, "{target}: nothing created");
        assert_eq!(pre.code, 0);
        assert!(
            pre.stderr
                .contains("which holds the project itself; ctxmon follows a linked .ctxmon only"),
            "{target}: {}",
            pre.stderr
        );
        assert!(pre.stdout.trim().is_empty(), "{}", pre.stdout);
        assert_prompt_answered(&prompt);
    }
}

/// `.ctxmon -> src` put the state, checkpoints, events and resume logs among the project's own
/// sources (untracked, with no `.gitignore`), and `.ctxmon -> $HOME` for a project outside the
/// home folder wrote into the home folder itself. Neither is a place to keep state: the hooks
/// refuse it (naming it), answer what needs no stored state, and write nothing there.
#[test]
fn a_linked_ctxmon_into_the_project_or_to_the_home_folder_is_refused() {
    let scene = Scene::new();
    fs::create_dir(scene.sb.path("src")).unwrap();
    fs::write(scene.sb.path("src/main.rs"), "fn main() {}\n").unwrap();
    symlink("src", scene.sb.path(".ctxmon")).unwrap();
    let home_probe = scene.sb.home.path().join("keep");
    fs::write(&home_probe, "mine\n").unwrap();
    let cases = [
        (scene.sb.path("src"), "inside the project"),
        (scene.sb.home.path().to_path_buf(), "your home folder"),
    ];
    for (target, why) in cases {
        let _ = fs::remove_file(scene.sb.path(".ctxmon"));
        symlink(&target, scene.sb.path(".ctxmon")).unwrap();
        let before = snapshot(&target);
        let pre = scene.pre_compact();
        let prompt = scene.prompt_submit();
        let end = scene.session_end();
        assert_eq!(snapshot(&target), before, "{why}: nothing written there");
        assert_eq!((pre.code, end.code), (0, 0), "{why}: {}", pre.stderr);
        assert!(pre.stdout.trim().is_empty(), "{why}: {}", pre.stdout);
        assert!(
            pre.stderr.contains(".ctxmon is a symbolic link") && pre.stderr.contains(why),
            "{why}: {}",
            pre.stderr
        );
        assert_prompt_answered(&prompt);
        // A command that writes there refuses too, naming the link.
        let run = scene
            .sb
            .run(&["resume-log", "generate", "--session", "s1"], "");
        assert_eq!(snapshot(&target), before, "{why}: resume-log generate");
        assert_eq!(run.code, 1, "{why}: {}", run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
    }
}
