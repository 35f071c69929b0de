//! Test harness: runs the real `ctxmon` binary in a temp project with a cleared environment
//! (only PATH, a temp HOME and what the test sets), like Claude Code would.

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub mod disk;
pub mod kill;
pub mod mounts;
pub mod pty;
pub mod resume_log;
pub mod settings;

#[cfg(unix)]
pub use ctxmon_test_support::unprivileged;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

pub struct Sandbox {
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub env: Vec<(String, String)>,
    /// The PATH a command gets unless the test sets one: the test process's, without any
    /// folder that holds a `ctxmon` (see [`without_ctxmon`]).
    pub outer_path: String,
}

/// The test process's PATH without the folders that hold a `ctxmon`.
pub fn outer_path() -> String {
    without_ctxmon(&std::env::var("PATH").unwrap_or_default())
}

/// `path` without its entries that hold a `ctxmon`. Cargo puts `$CARGO_HOME/bin` on the PATH
/// of every test process, and `cargo install` puts a `ctxmon` there: left in, whatever the
/// user installed would decide what install writes and what doctor says, and a test passing
/// on a clean machine would fail after the README's own install step.
pub fn without_ctxmon(path: &str) -> String {
    std::env::split_paths(path)
        .filter(|dir| !dir.join("ctxmon").exists())
        .map(|dir| dir.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

impl Sandbox {
    /// A fresh project and HOME. `TZ` is UTC, so that times shown to people (in the local
    /// zone) read the same on every machine; a test that sets `TZ` itself overrides it.
    pub fn new() -> Sandbox {
        Sandbox::with_outer_path(&std::env::var("PATH").unwrap_or_default())
    }

    /// A fresh project and HOME as [`Sandbox::new`], as if the test process's PATH were
    /// `path`.
    pub fn with_outer_path(path: &str) -> Sandbox {
        Sandbox {
            project: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            env: vec![("TZ".into(), "UTC".into())],
            outer_path: without_ctxmon(path),
        }
    }

    /// Puts `dir` first on the sandbox's PATH.
    pub fn prepend_path(&mut self, dir: &Path) {
        let path = format!("{}:{}", dir.display(), self.outer_path);
        self.set_env("PATH", &path);
    }

    pub fn dir(&self) -> &Path {
        self.project.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.project.path().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    pub fn set_env(&mut self, k: &str, v: &str) {
        self.env.push((k.into(), v.into()));
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctxmon"));
        cmd.args(args);
        self.hermetic(&mut cmd);
        cmd
    }

    /// The project as working directory and a cleared environment: PATH, the sandbox's HOME,
    /// `TZ` and what the test set.
    fn hermetic(&self, cmd: &mut Command) {
        cmd.current_dir(self.project.path()).env_clear();
        cmd.env("PATH", &self.outer_path)
            .env("HOME", self.home.path());
        // A command's walk up to its project (and git's search) stops below the temp folder: a
        // `.ctxmon` or `.git` another process left in /tmp must not become every sandbox's
        // project.
        if let Some(temp) = self.project.path().parent() {
            cmd.env("GIT_CEILING_DIRECTORIES", temp);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }

    pub fn run(&self, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        self.run_command(self.command(args), stdin)
    }

    /// Runs like [`Sandbox::run`], but with `dir` as the working directory.
    pub fn run_in(&self, dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        let mut cmd = self.command(args);
        cmd.current_dir(dir);
        self.run_command(cmd, stdin)
    }

    /// Runs like [`Sandbox::run`] with stdout (`on_stdout`) or stderr on a terminal `columns`
    /// wide; the terminal's text comes back as stdout or stderr. `None`, with a notice, where
    /// no pseudo-terminal can be had.
    pub fn run_on_terminal(&self, args: &[&str], columns: u16, on_stdout: bool) -> Option<Run> {
        let terminal = pty::open(columns)?;
        let started = Instant::now();
        let child = {
            let mut cmd = self.command(args);
            cmd.stdin(Stdio::null());
            if on_stdout {
                cmd.stdout(terminal.stdio()).stderr(Stdio::piped());
            } else {
                cmd.stdout(Stdio::piped()).stderr(terminal.stdio());
            }
            // `cmd` and its copy of the slave handle go at the end of this block.
            cmd.spawn().unwrap()
        };
        let reader = std::thread::spawn(move || terminal.read_all());
        let out = child.wait_with_output().unwrap();
        let shown = reader.join().unwrap();
        let piped =
            String::from_utf8_lossy(if on_stdout { &out.stderr } else { &out.stdout }).into_owned();
        let (stdout, stderr) = if on_stdout {
            (shown, piped)
        } else {
            (piped, shown)
        };
        Some(Run {
            code: out.status.code().unwrap_or(-1),
            stdout,
            stderr,
            elapsed: started.elapsed(),
        })
    }

    /// Runs `program` (a copy of the binary, say) like [`Sandbox::run`].
    pub fn run_program(&self, program: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        let mut cmd = Command::new(program);
        cmd.args(args);
        self.hermetic(&mut cmd);
        self.run_command(cmd, stdin)
    }

    /// Runs like [`Sandbox::run`], but so that file modes bind the binary (`probe` is a file of
    /// mode 000): as this process when they bind it already, else as nobody through `setpriv`,
    /// with the project and HOME given to nobody and the binary copied where nobody can run it
    /// if need be. Tests and CI run as root, which reads every file whatever its mode. `None`,
    /// with a notice, when the privileges cannot be dropped (no `setpriv`): skip the case.
    #[cfg(unix)]
    pub fn run_where_modes_bind(
        &self,
        probe: &Path,
        args: &[&str],
        stdin: impl AsRef<[u8]>,
    ) -> Option<Run> {
        match unprivileged::launch(probe) {
            Err(notice) => {
                eprintln!("{notice}");
                None
            }
            Ok(unprivileged::Launch::Direct) => Some(self.run(args, stdin)),
            Ok(unprivileged::Launch::Unprivileged(prefix)) => {
                unprivileged::give_to_nobody(self.project.path());
                unprivileged::give_to_nobody(self.home.path());
                let binary = unprivileged::runnable_copy(
                    Path::new(env!("CARGO_BIN_EXE_ctxmon")),
                    self.home.path(),
                );
                let mut cmd = Command::new(&prefix[0]);
                cmd.args(&prefix[1..]).arg(binary).args(args);
                self.hermetic(&mut cmd);
                Some(self.run_command(cmd, stdin))
            }
        }
    }

    fn run_command(&self, mut cmd: Command, stdin: impl AsRef<[u8]>) -> Run {
        let started = Instant::now();
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A binary a test has just copied can be "busy" for a moment: another test thread's
        // fork may still hold the copy's write descriptor until that child execs.
        let mut attempts = 0;
        let mut child = loop {
            match cmd.spawn() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 100 => {
                    attempts += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => break other.unwrap(),
            }
        };
        let mut input = child.stdin.take().unwrap();
        let bytes = stdin.as_ref().to_vec();
        // Write from a thread: a child that stops reading early must not deadlock the test.
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }

    /// Runs like [`Sandbox::run`], but `stdin: None` is a stdin that stays open (never written,
    /// never closed) for as long as the process runs, and a process still running after
    /// `limit` is killed: it comes back with code -1 and an elapsed time of at least `limit`,
    /// so a hang fails the test's assertions instead of hanging the suite.
    pub fn run_limited(&self, args: &[&str], stdin: Option<&[u8]>, limit: Duration) -> Run {
        let bytes = stdin.map(<[u8]>::to_vec);
        let (run, _held_open) = self.run_fed(
            args,
            move |mut input| match bytes {
                Some(bytes) => {
                    let _ = input.write_all(&bytes);
                    None
                }
                None => Some(input),
            },
            limit,
        );
        run
    }

    /// Runs `args` while `feed` writes its stdin on another thread (a process still running
    /// after `limit` is killed, as in [`Sandbox::run_limited`]), and returns the run with what
    /// `feed` returned. Whatever `feed` returns lives until the process has ended, so returning
    /// the pipe holds stdin open; dropping it closes stdin.
    pub fn run_fed<T: Send + 'static>(
        &self,
        args: &[&str],
        feed: impl FnOnce(std::process::ChildStdin) -> T + Send + 'static,
        limit: Duration,
    ) -> (Run, T) {
        let started = Instant::now();
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || feed(input));
        let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let stdout = drain(Box::new(child.stdout.take().unwrap()));
        let stderr = drain(Box::new(child.stderr.take().unwrap()));
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if started.elapsed() >= limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let elapsed = started.elapsed();
        let fed = feeder.join().unwrap();
        let run = Run {
            code: status.and_then(|s| s.code()).unwrap_or(-1),
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
            elapsed,
        };
        (run, fed)
    }

    /// Where Claude Code keeps this project's transcripts under the sandbox's HOME
    /// (`~/.claude/projects/<path with every other character turned into ->`).
    pub fn transcripts_folder(&self) -> PathBuf {
        let canonical = std::fs::canonicalize(self.dir()).unwrap();
        let slug: String = canonical
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.home.path().join(".claude/projects").join(slug)
    }

    /// Makes a FIFO at `rel` (parents created); `None`, with a notice, where `mkfifo` is not
    /// available, so the caller can skip.
    pub fn mkfifo(&self, rel: &str) -> Option<PathBuf> {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let made = Command::new("mkfifo").arg(&p).status();
        if made.is_ok_and(|s| s.success()) {
            Some(p)
        } else {
            ctxmon_test_support::skip!("mkfifo unavailable; skipping the FIFO case {rel}");
            None
        }
    }

    /// Any hook's input as Claude Code sends it: `event` is `hook_event_name`, `extra` adds
    /// the event's own fields (`trigger`, `source`, `tool_input`, …).
    pub fn hook_input(
        &self,
        event: &str,
        session: &str,
        transcript: &Path,
        extra: serde_json::Value,
    ) -> String {
        let mut v = serde_json::json!({
            "session_id": session,
            "transcript_path": transcript,
            "cwd": self.project.path(),
            "hook_event_name": event,
        });
        if let (Some(obj), Some(more)) = (v.as_object_mut(), extra.as_object()) {
            obj.extend(more.clone());
        }
        v.to_string()
    }

    /// Runs every `(args, stdin)` job with at most `in_flight` processes at once (real overlap
    /// without swamping a small machine); the answers come back in job order.
    pub fn run_bounded(&self, jobs: &[(Vec<String>, String)], in_flight: usize) -> Vec<Run> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<std::sync::Mutex<Option<Run>>> =
            jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..in_flight.max(1) {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((args, stdin)) = jobs.get(i) else {
                            return;
                        };
                        let args: Vec<&str> = args.iter().map(String::as_str).collect();
                        let run = self.run(&args, stdin);
                        *results[i].lock().unwrap() = Some(run);
                    }
                });
            }
        });
        results
            .into_iter()
            .map(|r| r.into_inner().unwrap().unwrap())
            .collect()
    }

    /// A UserPromptSubmit input as Claude Code sends it.
    pub fn prompt_input(&self, session: &str, transcript: &Path) -> String {
        serde_json::json!({
            "session_id": session,
            "transcript_path": transcript,
            "cwd": self.project.path(),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "continue",
        })
        .to_string()
    }
}

/// One assistant line with the given context size (spread over the three usage fields).
pub fn assistant_line(id: &str, tokens: u64) -> String {
    assistant_line_at(id, tokens, "2026-11-20T10:00:00.000Z")
}

/// [`assistant_line`] written at `timestamp`: a response newer than a checkpoint ends the
/// post-compaction baseline, so tests that compact and go on need current times.
pub fn assistant_line_at(id: &str, tokens: u64, timestamp: &str) -> String {
    serde_json::json!({
        "type": "assistant", "isSidechain": false, "uuid": format!("u-{id}"),
        "timestamp": timestamp,
        "message": {"model": "claude-sonnet-4-5-20250929", "id": format!("msg_{id}"), "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": tokens - 1003, "output_tokens": 50}}
    })
    .to_string()
}

/// The current time as Claude Code writes it into transcripts.
pub fn now_rfc3339() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    ctxmon_domain::Timestamp(i64::try_from(ms).unwrap()).to_rfc3339()
}

/// Every `.tmp-*` file (what an atomic write leaves when its writer dies) under `dir`, sorted.
pub fn temp_leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut found = temps_below(dir);
    found.sort();
    found
}

fn temps_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(temps_below(&path));
        } else if entry.file_name().to_string_lossy().starts_with(".tmp-") {
            found.push(path);
        }
    }
    found
}

pub fn transcript_with(tokens: &[u64]) -> String {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| assistant_line(&i.to_string(), *t) + "\n")
        .collect()
}

/// The workspace's `../shared` folder, or `None` (with a notice) in a user's clone.
pub fn shared_fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!(
            "../shared is absent; skipping tests on real Claude Code transcripts"
        );
        None
    }
}

pub fn repo_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

/// Parses a hook answer and returns its additionalContext, checking the envelope.
pub fn additional_context(stdout: &str, event: &str) -> String {
    let v: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{stdout}");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Every RFC 3339 UTC timestamp (`2026-11-22T04:59:04.463Z`) replaced by `[TIME]`.
pub fn without_times(text: &str) -> String {
    let b = text.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let fits = b.len() >= i + shape.len()
            && shape.iter().zip(&b[i..]).all(|(s, c)| match s {
                b'd' => c.is_ascii_digit(),
                s => s == c,
            });
        if !fits {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let mut end = i + shape.len();
        if b.get(end) == Some(&b'.') {
            end += 1;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
        if b.get(end) == Some(&b'Z') {
            end += 1;
        }
        out.push_str("[TIME]");
        i = end;
    }
    out
}

/// The shared Codex CLI rollouts (`../shared/fixtures/codex-rollouts/`), or `None` (with a
/// notice) in a user's clone.
pub fn codex_fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/codex-rollouts");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!("../shared is absent; skipping tests on real Codex rollouts");
        None
    }
}

/// A small Codex rollout in Codex's own key order: the `session_meta` line (session `id`,
/// `cwd`, branch `main`), the request "Fix the parser", then one turn per count, each a
/// `turn_context` naming `gpt-5.3-codex` and a `token_count` measuring `tokens` of a 258,400
/// window.
pub fn codex_rollout(id: &str, cwd: &Path, counts: &[u64]) -> String {
    let cwd = serde_json::to_string(&cwd.display().to_string()).unwrap();
    let mut out = format!(
        "{{\"timestamp\":\"2026-02-23T19:34:26.098Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{id}\",\"timestamp\":\"2026-02-23T19:34:25.573Z\",\"cwd\":{cwd},\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.104.0\",\"git\":{{\"commit_hash\":\"19f8748\",\"branch\":\"main\"}}}}}}\n"
    );
    out.push_str("{\"timestamp\":\"2026-02-23T19:34:26.099Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"Fix the parser\",\"images\":[]}}\n");
    out.push_str("{\"timestamp\":\"2026-02-23T19:34:26.099Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":null,\"rate_limits\":{}}}\n");
    for (i, tokens) in counts.iter().enumerate() {
        out.push_str(&format!(
            "{{\"timestamp\":\"2026-02-23T19:35:{i:02}.000Z\",\"type\":\"turn_context\",\"payload\":{{\"turn_id\":\"t{i}\",\"cwd\":{cwd},\"model\":\"gpt-5.3-codex\"}}}}\n"
        ));
        out.push_str(&codex_count(
            *tokens,
            &format!("2026-02-23T19:35:{i:02}.500Z"),
        ));
    }
    out
}

/// One measured `token_count` line of `tokens` (`last_token_usage.total_tokens`).
pub fn codex_count(tokens: u64, timestamp: &str) -> String {
    let input = tokens.saturating_sub(100);
    format!(
        "{{\"timestamp\":\"{timestamp}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":9999999,\"cached_input_tokens\":0,\"output_tokens\":9999,\"reasoning_output_tokens\":0,\"total_tokens\":99999999}},\"last_token_usage\":{{\"input_tokens\":{input},\"cached_input_tokens\":0,\"output_tokens\":100,\"reasoning_output_tokens\":0,\"total_tokens\":{tokens}}},\"model_context_window\":258400}},\"rate_limits\":{{}}}}}}\n"
    )
}
