//! `cargo xtask embed`: the embedder's program (`examples/embed`) against the binary. It
//! depends on `ctxmon-application` alone, so it proves that the library measures a real
//! transcript as `ctxmon status` does:
//! - its normal dependency tree holds at most [`MAX_CRATES`] crates (`cargo tree`, offline,
//!   from its own committed Cargo.lock);
//! - on every transcript at hand (the repository's fixtures, and the shared corpus of each
//!   agent when it is present) it prints the `agent`, `tokens`, `window` and `model` that
//!   `ctxmon --json status --transcript` reports, and fails where `status` fails.
//!
//! Both run in a sandbox: a temporary home and project, no `CTXMON_*`, Claude Code or Codex
//! variables, so the figures are the default configuration's on both sides.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The example's manifest, relative to the workspace root.
pub const MANIFEST: &str = "examples/embed/Cargo.toml";

/// The most crates the example's normal dependency tree may hold, itself included.
pub const MAX_CRATES: usize = 25;

/// Where the example is built: its own target folder, so building it never waits for the
/// workspace's lock (a test builds it while `cargo test` holds that one).
pub const TARGET_DIR: &str = "target/embed";

/// The shared corpus's folders, one per agent; a folder that is absent is skipped.
pub const CORPUS: &[&str] = &["claude-code-transcripts", "codex-rollouts", "gemini-chats"];

/// The fields compared, as the example names them and as `status --json` does.
pub const FIELDS: &[(&str, &str)] = &[
    ("agent", "agent"),
    ("tokens", "input_tokens"),
    ("window", "context_window_size"),
    ("model", "model"),
];

/// Builds the example and the binary, then compares them on every transcript at hand.
pub fn run(root: &Path) -> Result<()> {
    let crates = crate_count(root)?;
    println!("embed: {crates} crates in the example's dependency tree (at most {MAX_CRATES})");
    if crates > MAX_CRATES {
        bail!("examples/embed depends on {crates} crates, more than {MAX_CRATES}");
    }
    let embed = build_example(root)?;
    let ctxmon = build_binary(root)?;
    let files = transcripts(root);
    let sandbox = tempfile::tempdir().context("creating the sandbox")?;
    let mut failures = Vec::new();
    for file in &files {
        match compare(&ctxmon, &embed, file, sandbox.path()) {
            Ok(line) => println!("  same  {}  {line}", shown(root, file)),
            Err(why) => {
                println!("  DIFF  {}  {why}", shown(root, file));
                failures.push(format!("{}: {why}", shown(root, file)));
            }
        }
    }
    if !failures.is_empty() {
        bail!(
            "the embed example and `ctxmon status` disagree on {} of {} transcripts:\n{}",
            failures.len(),
            files.len(),
            failures.join("\n")
        );
    }
    println!(
        "embed: the example gives `ctxmon status`'s figures on all {} transcripts",
        files.len()
    );
    Ok(())
}

/// The number of distinct crates in the example's normal dependency tree.
pub fn crate_count(root: &Path) -> Result<usize> {
    let out = Command::new(crate::cargo())
        .args([
            "tree",
            "--offline",
            "--locked",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .arg("--manifest-path")
        .arg(root.join(MANIFEST))
        .output()
        .context("running cargo tree for examples/embed")?;
    if !out.status.success() {
        bail!(
            "cargo tree failed for examples/embed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(distinct_crates(&String::from_utf8_lossy(&out.stdout)))
}

/// The distinct crates of `cargo tree --prefix none` output (a repeated one ends in `(*)`).
pub fn distinct_crates(tree: &str) -> usize {
    let mut names: Vec<&str> = tree
        .lines()
        .map(|l| l.trim().trim_end_matches("(*)").trim())
        .filter(|l| !l.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

/// Builds the example, offline from its own lockfile; returns its binary.
pub fn build_example(root: &Path) -> Result<PathBuf> {
    let target = root.join(TARGET_DIR);
    let status = Command::new(crate::cargo())
        .args(["build", "--offline", "--locked", "--manifest-path"])
        .arg(root.join(MANIFEST))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .context("building examples/embed")?;
    if !status.success() {
        bail!("building examples/embed failed ({status})");
    }
    Ok(target.join("debug").join(exe("ctxmon-embed")))
}

fn build_binary(root: &Path) -> Result<PathBuf> {
    let status = Command::new(crate::cargo())
        .args(["build", "--locked", "-p", "ctxmon-cli"])
        .current_dir(root)
        .status()
        .context("building ctxmon")?;
    if !status.success() {
        bail!("building ctxmon failed ({status})");
    }
    let target = crate::target_dir(root);
    Ok(target.join("debug").join(exe("ctxmon")))
}

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The repository's transcripts and every `.jsonl` file of the shared corpus that is here.
pub fn transcripts(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    jsonl_files(&root.join("fixtures/transcripts"), &mut files);
    for agent in CORPUS {
        let dir = root.join("../shared/fixtures").join(agent);
        if dir.is_dir() {
            jsonl_files(&dir, &mut files);
        } else {
            println!(
                "notice: {} is absent; its transcripts are not compared",
                dir.display()
            );
        }
    }
    files.sort();
    files
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            jsonl_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
}

fn shown(root: &Path, file: &Path) -> String {
    let parent = root.parent().unwrap_or(root);
    file.strip_prefix(root)
        .or_else(|_| file.strip_prefix(parent))
        .unwrap_or(file)
        .display()
        .to_string()
}

/// Runs both on `file` in `sandbox`; the example's line when they agree, else how they differ.
pub fn compare(ctxmon: &Path, embed: &Path, file: &Path, sandbox: &Path) -> Result<String, String> {
    let status = sandboxed(ctxmon, sandbox)
        .args(["--json", "--project-dir"])
        .arg(sandbox)
        .args(["status", "--transcript"])
        .arg(file)
        .output()
        .map_err(|e| format!("running ctxmon: {e}"))?;
    let example = sandboxed(embed, sandbox)
        .arg(file)
        .output()
        .map_err(|e| format!("running the example: {e}"))?;
    agree(&status, &example)
}

/// Whether `ctxmon status`'s output and the example's agree (see the module docs).
pub fn agree(status: &Output, example: &Output) -> Result<String, String> {
    let line = String::from_utf8_lossy(&example.stdout).trim().to_string();
    match (status.status.success(), example.status.success()) {
        (false, false) => return Ok("both refuse it".to_string()),
        (true, false) => {
            return Err(format!(
                "status measured it, the example failed: {}",
                String::from_utf8_lossy(&example.stderr).trim()
            ));
        }
        (false, true) => return Err(format!("status failed, the example printed {line}")),
        (true, true) => {}
    }
    let theirs: Value = serde_json::from_slice(&status.stdout)
        .map_err(|e| format!("status printed no JSON object: {e}"))?;
    let ours: Value =
        serde_json::from_str(&line).map_err(|e| format!("the example printed {line:?}: {e}"))?;
    for (mine, status_key) in FIELDS {
        let (a, b) = (ours.get(mine), theirs.get(status_key));
        if a.is_none() || a != b {
            return Err(format!(
                "{mine}: the example says {}, status says {}",
                a.map_or("nothing".to_string(), Value::to_string),
                b.map_or("nothing".to_string(), Value::to_string)
            ));
        }
    }
    Ok(line)
}

/// `program` with nothing of this machine's configuration: a home, a project and config
/// folder of the sandbox's, and only `PATH` kept.
fn sandboxed(program: &Path, sandbox: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sandbox)
        .env("XDG_CONFIG_HOME", sandbox.join(".config"))
        .current_dir(sandbox);
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    #[cfg(unix)]
    fn output(code: i32, stdout: &str) -> Output {
        Output {
            status: ExitStatus::from_raw(code << 8),
            stdout: stdout.as_bytes().to_vec(),
            stderr: b"why".to_vec(),
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_four_fields_must_be_equal_and_a_refusal_shared() {
        let status = output(
            0,
            r#"{"agent":"codex","input_tokens":5,"context_window_size":258400,"model":null,"percent":0}"#,
        );
        let same = output(
            0,
            r#"{"agent":"codex","tokens":5,"window":258400,"model":null}"#,
        );
        assert!(agree(&status, &same).is_ok());
        let other = output(
            0,
            r#"{"agent":"codex","tokens":6,"window":258400,"model":null}"#,
        );
        assert!(agree(&status, &other).unwrap_err().starts_with("tokens"));
        let missing = output(0, r#"{"agent":"codex","tokens":5,"window":258400}"#);
        assert!(agree(&status, &missing).unwrap_err().starts_with("model"));
        assert!(agree(&output(1, ""), &output(1, "")).is_ok());
        assert!(agree(&output(1, ""), &same).is_err());
        assert!(agree(&status, &output(1, "")).is_err());
    }

    #[test]
    fn crates_are_counted_once() {
        let tree = "a v1 (/p)\nserde v1.0\nserde v1.0 (*)\n\nsyn v2\n";
        assert_eq!(distinct_crates(tree), 3);
    }
}
