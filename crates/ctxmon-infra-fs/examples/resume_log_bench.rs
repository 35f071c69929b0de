//! Benchmark of resume-log generate + save (contract C16: at most 1 ms median, in process): a log
//! whose sections are filled to their budgets (about 10,000 tokens of markdown) is generated
//! from an agent document and a transcript tail, rendered, and saved through the file store —
//! JSON and markdown, each an atomic replacement by rename (the store's default), under the
//! folder's lock. A second row adds the fsyncs, to show what durability across a power loss
//! would cost.
//!
//! Run with `cargo run --release -p ctxmon-infra-fs --example resume_log_bench`. The inputs
//! are built in code, so runs are comparable; the log is saved into a temporary project on the
//! same file system as the system's temp folder. The last line is a `BENCH {json}` for
//! `cargo xtask bench`.

#![allow(clippy::unwrap_used)] // a benchmark that cannot build its input should stop loudly

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ctxmon_application::config::ResumeLogsConfig;
use ctxmon_application::handoff::resume_log::{
    GenerationInputs, GitSnapshot, ResumeLogGenerator, TriggerKind,
};
use ctxmon_application::ports::{GitHead, ResumeLogStore};
use ctxmon_domain::{
    ContextWindow, Decision, FillEstimate, FillSource, Measured, ResumeLogDraft, Thresholds,
    Timestamp, TokenCount,
};
use ctxmon_infra_fs::fsutil::Durability;
use ctxmon_infra_fs::{FsResumeLogStore, ProjectLayout};
use serde_json::json;

const WARMUP: usize = 50;
const ITERATIONS: usize = 1_000;
const TARGET_MS: f64 = 1.0;

fn sentence(i: usize) -> String {
    format!("Item {i} records a finding about the billing module and why it matters here. ")
}

/// `n` items of about `chars` characters each.
fn items(n: usize, chars: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut s = String::new();
            while s.len() < chars {
                s.push_str(&sentence(i));
            }
            s
        })
        .collect()
}

/// Sections sized to (just under) their budgets: the largest log the renderer keeps whole.
fn draft() -> ResumeLogDraft {
    ResumeLogDraft {
        mission_summary: Some(items(1, 3_800).concat()),
        accomplishments: items(20, 380),
        key_findings: items(24, 400),
        decisions: (0..15)
            .map(|i| Decision {
                decision: items(1, 200)[0].clone() + &i.to_string(),
                rationale: items(1, 180)[0].clone(),
            })
            .collect(),
        next_steps: items(15, 380),
        critical_context: (0..10)
            .map(|i| (format!("key {i}"), items(1, 200)[0].clone().into()))
            .collect::<BTreeMap<_, _>>(),
        ..Default::default()
    }
}

fn tail() -> Vec<serde_json::Value> {
    let mut lines =
        vec![json!({"type": "user", "message": {"role": "user", "content": "Add tax support"}})];
    for i in 0..40 {
        lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "e", "name": "Edit", "input": {"file_path": format!("/w/shop/src/m{i}.rs")}},
            {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": format!("cargo test -p m{i}")}}
        ]}}));
    }
    lines
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx].as_secs_f64() * 1000.0
}

/// Times `ITERATIONS` generate + save rounds into a fresh project; returns (median, p95,
/// tokens, bytes).
fn measure(durability: Durability) -> (f64, f64, u64, u64) {
    let project = tempfile::tempdir().unwrap();
    let store =
        FsResumeLogStore::new(ProjectLayout::new(project.path())).with_durability(durability);
    let generator = ResumeLogGenerator::from_config(&ResumeLogsConfig::default());
    let agent = draft();
    let tail = ctxmon_infra_fs::transcript::records_from_values(&tail());
    let fill = FillEstimate::measured(Measured {
        tokens: TokenCount(166_000),
        window: ContextWindow::DEFAULT,
        thresholds: &Thresholds::default(),
        auto_compact_reserve: TokenCount(33_000),
        source: FillSource::Transcript,
        model: Some("claude-opus-4-6".into()),
    });
    let git = GitSnapshot {
        head: GitHead {
            branch: Some("main".into()),
            head: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
        },
        dirty_files: Some(vec![" M src/lib.rs".into()]),
    };
    let mut tokens = 0;
    let mut bytes = 0;
    let mut run = |i: usize| {
        let started = Instant::now();
        let generated = generator.generate(&GenerationInputs {
            session_id: "bench-session",
            trigger: TriggerKind::PreCompact,
            now: Timestamp(1_795_000_000_000 + i as i64),
            fill: Some(&fill),
            agent: Some(&agent),
            checkpoint: None,
            tail: Some(&tail),
            derived: None,
            head: None,
            git: Some(&git),
            transcript_path: Some("/home/you/.claude/projects/-w-shop/s.jsonl"),
            previous: None,
        });
        let markdown = generated.rendered.markdown();
        let saved = store.save(&generated.log, &markdown).unwrap();
        let elapsed = started.elapsed();
        tokens = generated.rendered.total_tokens().get();
        bytes = saved.bytes;
        elapsed
    };
    for i in 0..WARMUP {
        run(i);
    }
    let mut times: Vec<Duration> = (0..ITERATIONS).map(|i| run(WARMUP + i)).collect();
    times.sort();
    (
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        tokens,
        bytes,
    )
}

fn main() {
    // The shipped configuration first; the fsync figure shows what power-loss durability costs.
    let cases = [
        (
            "resume-log generate+save (10k tokens)",
            Durability::RenameOnly,
            Some(TARGET_MS),
        ),
        (
            "resume-log generate+save (10k tokens, with fsync; not the default)",
            Durability::Fsync,
            None,
        ),
    ];
    let mut lines = Vec::new();
    for (name, durability, target) in cases {
        let (median, p95, tokens, bytes) = measure(durability);
        println!(
            "{name}: {tokens} tokens of markdown, {bytes} bytes on disk, {ITERATIONS} iterations: median {median:.3} ms, p95 {p95:.3} ms{}",
            target.map_or(String::new(), |t| format!(" (target {t} ms)"))
        );
        lines.push(json!({
            "name": name,
            "median_ms": (median * 1000.0).round() / 1000.0,
            "p95_ms": (p95 * 1000.0).round() / 1000.0,
            "target_ms": target,
            "iterations": ITERATIONS,
            "tokens": tokens,
            "bytes": bytes,
        }));
    }
    for line in lines {
        println!("BENCH {line}");
    }
}
