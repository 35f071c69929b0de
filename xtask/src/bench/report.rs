//! `docs/benchmarks.md`, rendered from the results (`rows`) and what the run knows besides.

use std::fmt::Write as _;

use super::machine::Machine;
use super::rows::{RatioLine, Row, target_text};

/// Everything the document shows.
#[derive(Debug, Clone)]
pub struct Report {
    pub machine: Machine,
    pub runs: usize,
    pub warmups: usize,
    pub quick: bool,
    pub rows: Vec<Row>,
    pub ratios: Vec<RatioLine>,
    /// The per-call rows beside their floor (`per_call`), and the rounds they ran.
    pub per_call: Vec<super::per_call::PerCallRow>,
    pub per_call_runs: usize,
    /// `(file name, bytes)` of every generated transcript.
    pub data: Vec<(String, u64)>,
    pub skipped: Vec<String>,
    pub load_after: String,
    /// The handoff fidelity table, or why it is missing.
    pub fidelity: Result<String, String>,
    /// The auto-compaction point against real compactions, or why it is missing.
    pub points: Result<String, String>,
    /// `--only` filters of a partial run (empty for a whole one).
    pub only: Vec<String>,
    /// Binary size and cold start.
    pub startup: super::startup::Startup,
}

/// The higher 1-minute load average of the two readings when it exceeds the CPU count.
fn busy(m: &Machine, load_after: &str) -> Option<f64> {
    let cpus: f64 = m.cpus.trim().parse().ok()?;
    let first = |text: &str| -> Option<f64> { text.split(',').next()?.trim().parse().ok() };
    let load = [first(&m.load_before), first(load_after)]
        .into_iter()
        .flatten()
        .fold(f64::NAN, f64::max);
    (load > cpus).then_some(load)
}

/// `docs/benchmarks.md`.
pub fn render(r: &Report) -> String {
    let m = &r.machine;
    let mut s = String::new();
    s.push_str("# Benchmarks\n\n");
    s.push_str("Written by `cargo xtask bench`; do not edit by hand, run it again.\n\n");
    if r.quick {
        s.push_str(
            "> **Quick run** (`--quick`): fewer runs, no 1 GiB transcripts. Smoke test only.\n\n",
        );
    }
    if !r.only.is_empty() {
        let _ = writeln!(
            s,
            "> **Partial run** (`--only {}`): only the rows whose name contains that.\n",
            r.only.join("`, `--only ")
        );
    }
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| date | {} |", m.date);
    let _ = writeln!(s, "| commit | {} |", m.commit);
    let _ = writeln!(
        s,
        "| machine | {} logical CPUs ({}), {} RAM |",
        m.cpus, m.cpu_model, m.memory
    );
    let _ = writeln!(s, "| kernel | Linux {} |", m.kernel);
    let _ = writeln!(s, "| rustc | {} |", m.rustc);
    let _ = writeln!(
        s,
        "| runs | {} measured rounds after {} warm-up round(s); every case runs once per round |",
        r.runs, r.warmups
    );
    let _ = writeln!(
        s,
        "| load average (1, 5, 15 min) | before {}; after {} |",
        m.load_before, r.load_after
    );
    if let Some(load) = busy(m, &r.load_after) {
        let _ = writeln!(
            s,
            "\n> **Busy machine**: the 1-minute load average reached {load:.1} on {} CPUs, so \
             other processes took CPU time from these runs and CPU-bound rows (pre-compact, \
             assembly) read high. Run again on a quiet machine before comparing.",
            m.cpus
        );
    }
    s.push_str("\n## Reproduce\n\n```sh\n");
    s.push_str("cargo xtask bench            # full run (~2.2 GB of transcripts in target/bench-data/), writes this file\n");
    s.push_str("cargo xtask bench --quick    # smoke test: 5 runs, no 1 GiB files, writes target/bench-data/benchmarks-quick.md\n");
    s.push_str("cargo xtask bench --runs 50  # more runs per case\n");
    s.push_str("cargo xtask bench --only post-tool-use --only prompt-submit  # some rows, written to target/bench-data/benchmarks-only.md\n");
    s.push_str(
        "cargo xtask bench --only \"per call\"  # the calls beside the floor (100 rounds)\n",
    );
    s.push_str("cargo xtask bench --only \"per call\" --baseline OLD/ctxmon  # and an earlier build's, in the same loop\n```\n\n");
    s.push_str(
        "The peer rows (`ccusage@20.0.24 statusline` on the same stdin and 100 MiB transcript) \
         appear when the peer is installed beside the build, never committed: \
         `npm install --prefix target/bench-peer ccusage@20.0.24`.\n\n",
    );
    s.push_str("## Results\n\n| benchmark | median | p95 | peak RSS | target | verdict |\n|---|---:|---:|---:|---|---|\n");
    for row in &r.rows {
        let _ = writeln!(
            s,
            "| {} | {:.2} ms | {:.2} ms | {} | {} | {} |",
            row.name,
            row.median_ms,
            row.p95_ms,
            row.rss_text(),
            target_text(row.target),
            row.verdict()
        );
    }
    let notes: Vec<&Row> = r.rows.iter().filter(|row| row.note.is_some()).collect();
    if !notes.is_empty() {
        s.push_str("\n## Beside the timings\n\n");
    }
    for row in notes {
        let _ = writeln!(s, "- {}: {}", row.name, row.note.as_deref().unwrap_or(""));
    }
    if !r.ratios.is_empty() {
        s.push_str("\n## Ratios (cost must not grow with the transcript)\n\n");
    }
    for ratio in &r.ratios {
        let verdict = match ratio.max {
            None => String::new(),
            Some(max) if ratio.missed() => format!(" (target ≤ {max}: **MISSED**)"),
            Some(max) => format!(" (target ≤ {max}: met)"),
        };
        let _ = writeln!(s, "- {}: **{:.2}**{verdict}", ratio.label, ratio.value);
    }
    super::per_call::render(&mut s, &r.per_call, r.per_call_runs);
    if !r.skipped.is_empty() {
        s.push_str("\n## Not measured yet\n\n");
        for skipped in &r.skipped {
            let _ = writeln!(s, "- {skipped}");
        }
    }
    super::startup::render(&mut s, &r.startup);
    s.push_str("\n## Handoff fidelity\n\n");
    s.push_str(
        "What the `<resumption-context>` hands back, measured by \
         `crates/ctxmon-cli/tests/handoff_fidelity.rs` (on every shared Claude Code transcript \
         and Codex rollout, whole and cut mid-task, where the whole state is handed back because \
         no summary comes with it: SessionEnd(clear) then SessionStart(clear) for Claude Code, \
         PreCompact then SessionStart(resume) for Codex; beside a compaction summary only the \
         complement is given, judged by blind readers in docs/handback-panel.md; the expected \
         items come from the test's own parser of the transcript).\n\n",
    );
    match &r.fidelity {
        Ok(table) => {
            let _ = writeln!(s, "{table}");
        }
        Err(why) => {
            let _ = writeln!(s, "Not measured: {why}.");
        }
    }
    s.push_str("\n## Auto-compaction point\n\n");
    s.push_str(
        "Where ctxmon puts Claude Code's automatic compaction, against every automatic \
         compaction in the shared real transcripts, measured by \
         `crates/ctxmon-cli/tests/compaction_points.rs`: `ctxmon status` at the turn before \
         each one, beside the user's other sessions of that project as they stood then. The \
         point must lie at or below `preTokens` (which includes the turn that crossed it) and \
         within 4% of it; the source is the user's own earlier compactions of the same \
         version, model and window (`history`) or Claude Code's version and model \
         (`version`).\n\n",
    );
    match &r.points {
        Ok(table) => {
            let _ = writeln!(s, "{table}");
        }
        Err(why) => {
            let _ = writeln!(s, "Not measured: {why}.");
        }
    }
    s.push_str("\n## Transcripts\n\n");
    for (name, bytes) in &r.data {
        let _ = writeln!(s, "- `{name}`: {bytes} bytes");
    }
    s.push_str(METHOD);
    s
}

const METHOD: &str = r#"
## Method

- **Data.** Transcripts are generated at run time into `target/bench-data/` (never committed)
  and reused while the generator version and size match. The body repeats a block of 64
  distinct, realistic Claude Code turns of about 45 KiB each (ids and timestamps repeat from
  one block to the next, which a backward reader never looks at): a user prompt; assistant
  lines with `message.usage` where several lines of one response share `message.id` (streaming
  duplicates); Read, Edit, Write, TodoWrite and Bash tool uses with multi-kilobyte tool
  results; inline sidechain lines; progress, system and file-history-snapshot lines. The newest
  qualifying main-chain line has a known usage (157,321 context tokens); after it come a
  sidechain usage, a synthetic API-error line with zero usage, a progress line and a snapshot,
  all of which a reader must skip. The *worst case* appends 2 MiB of usage-free lines (tool
  results quoting `"input_tokens"` inside strings, progress lines, snapshots) after the final
  usage line, so the backward reader scans 2 MiB before it finds its answer.
- **Verification.** Every run's answer is checked, warm-ups included: the hook's stdout must be
  one `hookSpecificOutput` JSON object whose `<context-monitor>` says `tokens="157321"`;
  `status` must report 157,321 `input_tokens` from source `transcript`. `hooks post-tool-use`
  must answer its case's first run (a warm-up: no record yet, the tier rises) with a
  `PostToolUse` tag saying `tokens="157321"`, and every later run with nothing: its rows time
  the unchanged path a tool loop pays after almost every call. A wrong answer stops the
  benchmark with a non-zero exit: a time measured for a wrong answer is worthless.
- **Timing.** Wall time from spawning the release binary to reaping it, with stdin written and
  stdout read in between (what Claude Code waits for). The binary measured is the shipped
  build (`xtask/src/release_build.rs`: static on Linux, as `cargo xtask dist` makes it), a copy
  of `target/release/ctxmon` in `target/bench-data/`, as an install writes it: a file the linker
  has just written starts about 5% slower here, which no installed binary does. The cases run in interleaved rounds
  (every case once per round), so a machine that gets busier or quieter during the run shifts
  all rows alike rather than skewing the ratios. Median and nearest-rank p95 over the measured
  rounds; warm-up rounds are discarded.
- **Memory.** Peak RSS is `ru_maxrss` from `wait4(2)` (KiB on Linux), the largest over the
  measured runs. Linux folds the spawning process's RSS high-water mark into the child's
  `ru_maxrss` at `exec`, so the children are spawned by a small runner process
  (`xtask __bench-runner`) that resets its own high-water mark (`/proc/self/clear_refs`) before
  each spawn; its RSS at that moment is the *floor* below which no reading can go, and a reading
  at the floor is shown as "≤ floor". Spawned straight from `cargo xtask bench` (which has just
  generated the transcripts), every row read 19.4 MiB, about five times what `/usr/bin/time`
  shows for ctxmon itself.
- **Isolation.** Each case runs in a fresh project directory (working directory and
  `CLAUDE_PROJECT_DIR`), a git repository of its own (`git init`, no commit), with a fresh
  `HOME` and an environment cleared except `PATH`, so no user configuration applies and the
  git that PreCompact asks is the project's, not the checkout holding `target/`. The hook writes its session state there, as it would in a real
  project; the first warm-up also records the tier change.
- **Page cache.** Transcripts are warm in the page cache (the page cache is not dropped; that
  needs root and is not reliable in a VM). This is the realistic case: Claude Code has just
  written the transcript when the hook runs.
- **Process floor.** `ctxmon --version` is process start, argument parsing and exit with no
  work; subtract it from a row to see what the row's work costs.
- **`status`** is held to the hooks' bar (contract C16).
- **External rows** (when present) come from the `BENCH {json}` lines of in-process benchmarks
  such as `cargo run --release -p ctxmon-application --example assembly_bench`: they time a
  function call, not a process, with their own iteration counts, so their peak RSS is n/a.
- **Targets are reported, not gated.** A missed target shows as **MISSED** here and is printed
  loudly, but `cargo xtask bench` still exits 0; only a wrong answer (or a failed command) fails
  it. Timings on a shared machine are noisy: compare runs on a quiet machine (see the load
  average above).
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_above_the_cpu_count_is_called_out() {
        let machine = |cpus: &str, load: &str| Machine {
            date: String::new(),
            commit: String::new(),
            cpus: cpus.into(),
            cpu_model: String::new(),
            memory: String::new(),
            kernel: String::new(),
            rustc: String::new(),
            load_before: load.into(),
        };
        assert_eq!(busy(&machine("2", "1.5, 2.0, 3.0"), "1.9, 1, 1"), None);
        assert_eq!(busy(&machine("2", "1.5, 2.0, 3.0"), "9.7, 1, 1"), Some(9.7));
        assert_eq!(busy(&machine("2", "12.1, 2.0, 3.0"), "unknown"), Some(12.1));
        assert_eq!(busy(&machine("unknown", "12.1, 2, 3"), "12, 1, 1"), None);
    }
}
