//! The per-call rows: what a call of `hooks prompt-submit`, `statusline` and
//! `hooks pre-compact` costs beside the *floor*, a tiny program that does only what any of them
//! must (start a process, read stdin, read the transcript's last 64 KiB: `xtask/floor/floor.rs`,
//! built here with `rustc`). The floor and the calls run interleaved in one loop (100 rounds in
//! a full run) on the same transcripts, so their ratio holds whatever the machine's load does to
//! both; the ratio is the figure, the milliseconds are context.
//!
//! `cargo xtask bench --only "per call"` runs just these rows. They run as one group: a row
//! selected by any `--only` brings its floor along, or it would have no ratio.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::cases::{self, BenchCase, Check, Target};
use super::cases_more;
use super::history;
use super::rows::Row;
use super::transcript_gen::Generated;

/// The floor's source, relative to the workspace.
pub const FLOOR_SOURCE: &str = "xtask/floor/floor.rs";
/// What a name must contain to be one of these rows (and what `--only` takes).
pub const GROUP: &str = "per call";
/// Rounds of the loop in a full run (a larger `--runs` decides instead).
pub const FULL_RUNS: usize = 100;
/// Rounds in a `--quick` run: the loop is cheap (about a second), and five rounds, the quick
/// run's count, left the ratios to noise.
pub const QUICK_RUNS: usize = 20;
/// A prompt or a status line costs at most this many floors, at any transcript size: little
/// beyond what starting a process and reading the transcript's end must cost.
pub const MAX_CALL_RATIO: f64 = 1.3;
/// PreCompact (fill, tail derivation, checkpoint, resume log) at most this many.
pub const MAX_PRE_COMPACT_RATIO: f64 = 15.0;
/// PreCompact's time and peak RSS: contract C16's bars (its own time, every hook's memory).
const PRE_COMPACT_TARGET: Target = Target {
    median_ms: Some(50.0),
    rss_kib: Some(16 * 1024),
};
/// The floor reads at most this much of the transcript (what the checks expect it to say).
const FLOOR_TAIL_BYTES: u64 = 64 * 1024;

/// One row of the group and the floor row it is compared with.
#[derive(Debug)]
pub struct PerCallCase {
    pub case: BenchCase,
    /// `(floor row's name, the most floors the row may cost)`; `None` for a floor row.
    pub against: Option<(String, f64)>,
}

/// How many rounds the loop runs.
pub fn runs(quick: bool, runs: usize) -> usize {
    runs.max(if quick { QUICK_RUNS } else { FULL_RUNS })
}

/// The rows, in two loops measured one after the other (with a `baseline` build, each of its
/// calls right after the same call of this build). The first: for the small and the large
/// transcript, the floor, prompt-submit and the status line (null usage, so it reads the
/// transcript). The second: PreCompact on the large transcript, compared with the first
/// loop's floor on it, each run followed by a floor run that is shown but compared with
/// nothing. PreCompact runs apart because it disturbs whatever runs right after it (its
/// fsyncs, renames and 8 MiB read leave the kernel work to finish): a floor run right after it
/// reads about 20% high, and in one loop with the calls that was a floor, which flattered
/// every ratio of the next round. The floor runs after it give each PreCompact a light run
/// before it, as prompts and tool calls are in a session, rather than another PreCompact.
pub fn plan(
    floor: &Path,
    small: (&str, &Generated),
    big: (&str, &Generated),
    baseline: Option<&Path>,
) -> Vec<Vec<PerCallCase>> {
    let mut calls = Vec::new();
    for (label, transcript) in [small, big] {
        let floor_name = floor_name(label);
        calls.push(PerCallCase {
            case: floor_case(&floor_name, floor, transcript),
            against: None,
        });
        let against = Some((floor_name.clone(), MAX_CALL_RATIO));
        calls.extend(
            the_calls(label, transcript)
                .into_iter()
                .map(|case| PerCallCase {
                    case,
                    against: against.clone(),
                }),
        );
    }
    // The same three calls in a project that other sessions have used: their checkpoints and
    // state must cost nothing here.
    let (label, transcript) = big;
    let setup = history::runs(&small.1.path);
    calls.extend(
        the_calls(&format!("{label}, {}", history::LABEL), transcript)
            .into_iter()
            .map(|mut case| {
                case.setup = setup.clone();
                PerCallCase {
                    case,
                    against: Some((floor_name(label), MAX_CALL_RATIO)),
                }
            }),
    );
    let mut pre_compact = cases_more::pre_compact(
        &format!("{GROUP}: `hooks pre-compact`, {label} (8 MiB tail derived)"),
        transcript,
    );
    pre_compact.target = PRE_COMPACT_TARGET;
    let after = |what: &str| PerCallCase {
        case: floor_case(
            &format!("{}, right after {what}", floor_name(label)),
            floor,
            transcript,
        ),
        against: None,
    };
    let compared = PerCallCase {
        case: pre_compact,
        against: Some((floor_name(label), MAX_PRE_COMPACT_RATIO)),
    };
    let heavy = match baseline {
        None => vec![compared, after("pre-compact")],
        Some(baseline) => {
            calls = with_baseline(calls, baseline);
            let mut both = with_baseline(vec![compared], baseline).into_iter();
            let (new, old) = (both.next(), both.next());
            let mut heavy: Vec<PerCallCase> = new.into_iter().collect();
            heavy.push(after("pre-compact"));
            heavy.extend(old);
            heavy.push(after(&format!("the {BASELINE}'s pre-compact")));
            heavy
        }
    };
    vec![calls, heavy]
}

/// The calls every prompt, tool call and status-line refresh makes: each at most
/// [`MAX_CALL_RATIO`] floors.
fn the_calls(label: &str, transcript: &Generated) -> Vec<BenchCase> {
    vec![
        cases::prompt_submit(
            &format!("{GROUP}: `hooks prompt-submit`, {label}"),
            transcript,
        ),
        cases::post_tool_use(
            &format!("{GROUP}: `hooks post-tool-use`, {label}"),
            transcript,
            POST_TOOL_USE_OUTPUT,
        ),
        cases_more::statusline_from_transcript(
            &format!("{GROUP}: `statusline` (null usage), {label}"),
            transcript,
        ),
    ]
}

/// The output of the tool call post-tool-use is told about: a test run's few kilobytes.
const POST_TOOL_USE_OUTPUT: usize = 4 * 1024;

fn floor_name(label: &str) -> String {
    format!("{GROUP}: floor (spawn, stdin, last 64 KiB), {label}")
}

/// What names the rows of a `--baseline` build.
pub const BASELINE: &str = "baseline build";

/// `planned` with, after each row that is not a floor, the same row run by the `baseline`
/// executable, compared with the same floor and held to the same targets.
fn with_baseline(planned: Vec<PerCallCase>, baseline: &Path) -> Vec<PerCallCase> {
    let mut rows = Vec::with_capacity(planned.len() * 2);
    for row in planned {
        let before = row.against.is_some().then(|| {
            let mut case = row.case.clone();
            case.name = format!("{}, {BASELINE}", case.name);
            case.program = Some(baseline.to_path_buf());
            PerCallCase {
                case,
                against: row.against.clone(),
            }
        });
        rows.push(row);
        rows.extend(before);
    }
    rows
}

/// The floor on the same stdin as prompt-submit's; its answer names the bytes it read.
fn floor_case(name: &str, floor: &Path, transcript: &Generated) -> BenchCase {
    let mut case = cases::prompt_submit(name, transcript);
    case.program = Some(floor.to_path_buf());
    case.args = Vec::new();
    case.target = Target::NONE;
    case.check = Check::StdoutContains(format!(
        "{{\"tail_bytes\":{}}}",
        transcript.bytes.min(FLOOR_TAIL_BYTES)
    ));
    case
}

/// Where [`build_floor`] puts the floor.
pub fn floor_path(out_dir: &Path) -> PathBuf {
    out_dir.join("ctxmon-bench-floor")
}

/// Builds the floor with the workspace's `rustc`, optimised as the release profile is and
/// without debug info, and puts a copy of it in `out_dir` ([`floor_path`]); returns that.
pub fn build_floor(root: &Path, out_dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let exe = floor_path(out_dir);
    let linked = out_dir.join("linked").join("ctxmon-bench-floor");
    std::fs::create_dir_all(out_dir.join("linked"))
        .with_context(|| format!("creating {}", out_dir.display()))?;
    let status = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .current_dir(root)
        .args([
            "--edition",
            "2024",
            "-C",
            "opt-level=3",
            "-C",
            "codegen-units=1",
        ])
        .args(["-C", "strip=debuginfo", "-o"])
        .arg(&linked)
        .arg(root.join(FLOOR_SOURCE))
        .stdin(Stdio::null())
        .status()
        .context("running rustc for the floor")?;
    if !status.success() {
        bail!("rustc {FLOOR_SOURCE} failed ({status})");
    }
    // Measured as ctxmon is: a copy, as an install writes it (`installed_copy`).
    let copy = super::installed_copy(&linked, out_dir)?;
    debug_assert_eq!(copy, exe);
    Ok(exe)
}

/// A measured row of the group, with its ratio to its floor.
#[derive(Debug, Clone, PartialEq)]
pub struct PerCallRow {
    pub row: Row,
    /// `(median / the floor's median, the most allowed)`; `None` for a floor row.
    pub ratio: Option<(f64, f64)>,
    /// A floor other rows are compared with.
    pub is_reference: bool,
}

impl PerCallRow {
    /// What missed: the row's own targets and the ratio.
    pub fn misses(&self) -> Vec<String> {
        let mut misses = self.row.misses();
        if let Some((ratio, max)) = self.ratio
            && ratio > max
        {
            misses.push(format!("{ratio:.2}× the floor > {max}×"));
        }
        misses
    }
}

/// The rows with their ratios, from the measured rows of `plan`.
pub fn with_ratios(planned: &[PerCallCase], rows: Vec<Row>) -> Vec<PerCallRow> {
    let median = |name: &str| rows.iter().find(|r| r.name == name).map(|r| r.median_ms);
    let ratios: Vec<Option<(f64, f64)>> = planned
        .iter()
        .map(|p| {
            let (floor, max) = p.against.as_ref()?;
            Some((median(&p.case.name)? / median(floor)?, *max))
        })
        .collect();
    let references: Vec<&str> = planned
        .iter()
        .filter_map(|p| p.against.as_ref().map(|(floor, _)| floor.as_str()))
        .collect();
    rows.into_iter()
        .zip(ratios)
        .map(|(row, ratio)| PerCallRow {
            is_reference: references.contains(&row.name.as_str()),
            row,
            ratio,
        })
        .collect()
}

/// Measured with `--baseline` when the per-call path was made leaner: the build before it
/// beside this one, in the same loops. Kept as measured, after the table of the current run.
const BY_HAND: &str = include_str!("per_call_by_hand.md");

/// The document's section for the group (empty when it did not run).
pub fn render(s: &mut String, rows: &[PerCallRow], runs: usize) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Per call, against the floor\n\n\
         The floor (`{FLOOR_SOURCE}`, built by the bench with `rustc -O`) starts a process, \
         reads its stdin, reads the last 64 KiB of the transcript the input names and writes \
         one line: what every call must cost at least. It ran interleaved with the rows it is \
         compared with, {runs} rounds, on the same stdin and transcripts and with the same \
         environment of {env} variables, the size an agent's hooks get (`runner.rs`); the ratio \
         of medians is the figure that holds on a busy machine. (With the three variables \
         earlier runs gave them, a dynamically linked ctxmon measured 1.22× here while a \
         harness with an agent's environment measured 1.45–1.54×: each variable costs the \
         loader and ctxmon's start more than the floor's. The static build measured now pays \
         no loader at all.) The calls in a \
         \"{history}\" ran in a project where {others} other sessions had compacted and half \
         of them had been handed their work back, as ctxmon's own hooks leave it. PreCompact ran next, in a loop of its own \
         because it disturbs whatever runs right after it, and is compared with the first \
         loop's floor on its transcript; the floor run right after each PreCompact shows by \
         how much.",
        env = super::runner::AGENT_ENVIRONMENT_VARS,
        history = history::LABEL,
        others = history::OTHER_SESSIONS,
    );
    if rows.iter().any(|r| r.row.name.ends_with(BASELINE)) {
        let _ = writeln!(
            s,
            "\nRows ending in \"{BASELINE}\" are the same calls run by the executable given with \
             `--baseline` (an earlier build), in the same loop, against the same floor."
        );
    }
    let _ = writeln!(
        s,
        "\n| benchmark | median | p95 | peak RSS | × floor | target | verdict |\n\
         |---|---:|---:|---:|---:|---|---|"
    );
    for r in rows {
        let (ratio, target) = match r.ratio {
            Some((ratio, max)) => (format!("{ratio:.2}×"), format!("≤ {max}× floor")),
            // The floors compared with are the unit; a floor run only to be shown is not.
            None if r.is_reference => ("1×".to_owned(), String::new()),
            None => ("—".to_owned(), String::new()),
        };
        let own = super::rows::target_text(r.row.target);
        let target = match (target.is_empty(), own.as_str()) {
            (true, _) => own,
            (false, "—") => target,
            (false, _) => format!("{target}, {own}"),
        };
        let misses = r.misses();
        let verdict = if r.ratio.is_none() && r.row.target == Target::NONE {
            "—".to_owned()
        } else if misses.is_empty() {
            "met".to_owned()
        } else {
            format!("**MISSED** ({})", misses.join("; "))
        };
        let _ = writeln!(
            s,
            "| {} | {:.2} ms | {:.2} ms | {} | {ratio} | {target} | {verdict} |",
            r.row.name,
            r.row.median_ms,
            r.row.p95_ms,
            r.row.rss_text(),
        );
    }
    s.push_str(BY_HAND);
}

#[cfg(test)]
#[path = "per_call_tests.rs"]
mod tests;
