//! Claude Code's auto-compaction point, checked against where real compactions fired: for
//! every automatic compaction (`compact_boundary`, trigger `auto`, a `preTokens`) in the real
//! transcripts of `../shared/fixtures/claude-code-transcripts/` and
//! `../shared/fixtures/claude-code-compactions/`, the point `ctxmon status` would have used at
//! the turn before it must lie at or below `preTokens` (which includes the turn that crossed
//! the point) and within 4% of it.
//!
//! Each case is replayed as the user's machine held it then: the session cut right before its
//! boundary, in a project folder beside the user's other sessions of the same project (the
//! same `cwd`) as they stood at that moment (their lines older than the boundary), so the
//! point comes from the version and model, or from the user's own earlier compactions, as it
//! would have.
//!
//! Prints a markdown table for docs/benchmarks.md
//! (`cargo test -p ctxmon-cli --test compaction_points -- --nocapture`). Without `../shared`
//! it skips with a notice.
//!
//! The same compactions measure the turns-left estimate (`turns_left`): at responses before
//! each compaction, the turns `ctxmon status` expected against the responses that really came
//! before it. Its table in docs/benchmarks.md is this test's output, checked (and rewritten
//! with `CTXMON_WRITE_BENCHMARKS=1`).

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;
#[path = "compaction_points/turns_left.rs"]
mod turns_left;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use common::Sandbox;
use serde_json::Value;

/// One session file: its lines, with each line's timestamp and the project it ran in.
struct Session {
    name: String,
    lines: Vec<String>,
    times: Vec<Option<String>>,
    cwd: Option<String>,
}

/// One automatic compaction: the session, the boundary's line, its figures.
struct Compaction {
    session: usize,
    line: usize,
    at: String,
    version: String,
    pre: u64,
}

fn sessions(dirs: &[PathBuf]) -> Vec<Session> {
    let mut out = Vec::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            // Made-up sessions say nothing about where real compactions fire.
            .filter(|p| {
                !p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("synthetic")
            })
            .collect();
        files.sort();
        for path in files {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            let values: Vec<Option<Value>> =
                lines.iter().map(|l| serde_json::from_str(l).ok()).collect();
            let times = values
                .iter()
                .map(|v| v.as_ref()?.get("timestamp")?.as_str().map(str::to_string))
                .collect();
            let cwd = values
                .iter()
                .find_map(|v| v.as_ref()?.get("cwd")?.as_str().map(str::to_string));
            out.push(Session {
                name: path.file_name().unwrap().to_string_lossy().into_owned(),
                lines,
                times,
                cwd,
            });
        }
    }
    out
}

fn compactions(sessions: &[Session]) -> Vec<Compaction> {
    let mut out = Vec::new();
    for (s, session) in sessions.iter().enumerate() {
        for (i, line) in session.lines.iter().enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let meta = &v["compactMetadata"];
            if v["subtype"] != "compact_boundary"
                || v["isSidechain"] == true
                || meta["trigger"] != "auto"
            {
                continue;
            }
            let Some(pre) = meta["preTokens"].as_u64() else {
                continue;
            };
            out.push(Compaction {
                session: s,
                line: i,
                at: v["timestamp"].as_str().unwrap_or_default().to_string(),
                version: v["version"].as_str().unwrap_or("?").to_string(),
                pre,
            });
        }
    }
    out
}

/// The lines of `session` written before `at` (a line without a timestamp goes with the
/// lines around it).
fn before(session: &Session, at: &str) -> String {
    let end = session
        .times
        .iter()
        .position(|t| t.as_deref().is_some_and(|t| t >= at))
        .unwrap_or(session.lines.len());
    session.lines[..end]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What `ctxmon status --json` says at the turn before compaction `c`.
fn status_before(sessions: &[Session], c: &Compaction) -> Value {
    status_at(sessions, c, c.line)
}

/// What `ctxmon status --json` says of `c`'s session cut before line `end`, beside the user's
/// other sessions as they stood at `c`.
fn status_at(sessions: &[Session], c: &Compaction, end: usize) -> Value {
    let sb = Sandbox::new();
    let folder = sb.home.path().join(".claude/projects/-work-project");
    std::fs::create_dir_all(&folder).unwrap();
    let own = &sessions[c.session];
    let cut: String = own.lines[..end].iter().map(|l| format!("{l}\n")).collect();
    let path = folder.join(&own.name);
    std::fs::write(&path, cut).unwrap();
    for (k, other) in sessions.iter().enumerate() {
        if k != c.session && other.cwd.is_some() && other.cwd == own.cwd {
            let text = before(other, &c.at);
            if !text.is_empty() {
                std::fs::write(folder.join(&other.name), text).unwrap();
            }
        }
    }
    let run = sb.run(
        &["--json", "status", "--transcript", path.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}: {}", own.name, run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn the_point_lies_at_or_below_every_real_automatic_compaction_and_within_4_percent() {
    let Some(transcripts) = common::shared_fixtures() else {
        return;
    };
    let dirs = [
        transcripts.clone(),
        transcripts
            .parent()
            .unwrap()
            .join("claude-code-compactions"),
    ];
    let sessions = sessions(&dirs);
    let found = compactions(&sessions);
    assert!(
        found.len() >= 13,
        "the shared sets hold 13: {}",
        found.len()
    );
    let mut table = String::from(
        "| session | Claude Code | model | preTokens | point used | source | below by |\n\
         |---|---|---|---:|---:|---|---:|\n",
    );
    let mut misses = Vec::new();
    let mut by_source: BTreeMap<String, usize> = BTreeMap::new();
    for c in &found {
        let v = status_before(&sessions, c);
        let point = v["auto_compact_point"].as_u64().unwrap();
        let source = v["auto_compact_point_source"].as_str().unwrap().to_string();
        let below = c.pre.saturating_sub(point);
        // Within 4%: what the point leaves below preTokens is at most 4% of it.
        let ok = point <= c.pre && below * 100 <= c.pre * 4;
        let name = &sessions[c.session].name;
        let short: String = name.chars().take(48).collect();
        #[allow(clippy::cast_precision_loss)]
        let percent = below as f64 * 100.0 / c.pre as f64;
        let _ = writeln!(
            table,
            "| `{short}` | {} | {} | {} | {point} | {source} | {percent:.2}% |",
            c.version,
            v["model"].as_str().unwrap_or("?"),
            c.pre,
        );
        *by_source.entry(source).or_default() += 1;
        if !ok {
            misses.push(format!(
                "{name} at {}: point {point}, preTokens {}",
                c.at, c.pre
            ));
        }
    }
    let sources: Vec<String> = by_source.iter().map(|(s, n)| format!("{s} {n}")).collect();
    println!(
        "### Auto-compaction point: {} automatic compactions\n\n{table}\nSources: {}.\n",
        found.len(),
        sources.join(", ")
    );
    assert!(misses.is_empty(), "{misses:#?}");
}

/// The folder a session's status is measured in holds only what the user had then: a
/// compaction of another session written later is not yet there.
#[test]
fn another_sessions_later_lines_are_left_out() {
    let session = Session {
        name: "a.jsonl".into(),
        lines: vec!["one".into(), "two".into(), "three".into()],
        times: vec![
            Some("2025-12-03T10:00".into()),
            None,
            Some("2025-12-03T12:00".into()),
        ],
        cwd: None,
    };
    assert_eq!(before(&session, "2025-12-03T11:00"), "one\ntwo\n");
    assert_eq!(before(&session, "2025-12-03T09:00"), "");
}
