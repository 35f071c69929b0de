//! Benchmark of context assembly (contract C16): 2,000 files + 200 memories + 500 events in at most
//! 5 ms (median), 10,000 files / 50 MB in at most 100 ms, and linear growth (a 10× input takes
//! about 10× as long). Also reports how much of the budget each strategy fills.
//!
//! Run with `cargo run --release -p ctxmon-application --example assembly_bench`. Inputs are
//! generated in code from a fixed random seed, so runs are comparable. Human-readable figures go to
//! stdout first; the last lines are one `BENCH {json}` per measurement for `cargo xtask bench`.
//! Timing uses `Instant`, which the application's `src/` may not; examples are not scanned.

#![allow(clippy::unwrap_used)] // a benchmark that cannot build its input should stop loudly

use std::time::{Duration, Instant};

use ctxmon_application::assembly::{ContextBuilder, ContextBuilderOptions, create_context_builder};
use ctxmon_domain::assembly::{
    AgentDescriptor, AssemblyStrategyType, ContextBuildInput, ContextBundle, ContextConstraints,
    FileDescriptor, GitDiff, JsonValue, MemoryChunk, MemorySnapshot, RepoSnapshot, RuntimeEvent,
    SymbolIndex, UserGoal,
};

const NOW: i64 = 1_767_225_600_000;
/// A large model's window: big enough that packing is real work, small enough to bind.
const MAX_TOKENS: u64 = 200_000;

/// Deterministic xorshift, so every run benchmarks the same input.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Code-like text of `min` to `min + spread - 1` bytes.
    fn text_between(&mut self, min: usize, spread: u64) -> String {
        let len = min + self.below(spread) as usize;
        self.text(len)
    }

    /// Code-like text of exactly `len` bytes.
    fn text(&mut self, len: usize) -> String {
        const WORDS: &[&str] = &[
            "let", "value", "=", "self.", "fn", "return", "match", "Some(x)", "=>", "{", "}",
            "// why", "if", "else", "for", "in", "items", ".iter()", "?;", "\n", "\n    ",
        ];
        let mut out = String::with_capacity(len + 16);
        while out.len() < len {
            out.push_str(WORDS[self.below(WORDS.len() as u64) as usize]);
            out.push(' ');
        }
        out.truncate(len);
        out
    }
}

struct Shape {
    files: usize,
    /// Average file size in bytes (sizes vary from a fifth to nearly twice this).
    file_bytes: usize,
    memories: usize,
    events: usize,
    diffs: usize,
    symbols: usize,
}

fn generate(shape: &Shape, strategy: AssemblyStrategyType, seed: u64) -> ContextBuildInput {
    let mut rng = Rng(seed | 1);
    let files = (0..shape.files)
        .map(|i| {
            let len = shape.file_bytes / 5 + rng.below((shape.file_bytes * 8 / 5) as u64) as usize;
            let content = rng.text(len);
            FileDescriptor {
                path: format!("src/module_{:03}/file_{i:06}.rs", i % 200),
                size: content.len() as u64,
                language: Some("rust".into()),
                last_modified: Some(NOW - rng.below(30 * 86_400_000) as i64),
                content: Some(content),
                relevance_score: Some(rng.below(1000) as f64 / 1000.0),
            }
        })
        .collect();
    let diffs = (0..shape.diffs)
        .map(|i| GitDiff {
            file: format!("src/module_{:03}/file_{i:06}.rs", i % 200),
            patch: rng.text_between(200, 1800),
            change_type: Some("modified".into()),
            additions: Some(rng.below(50)),
            deletions: Some(rng.below(50)),
        })
        .collect();
    let symbols = (0..shape.symbols)
        .map(|i| SymbolIndex {
            name: format!("symbol_{i}"),
            kind: "function".into(),
            file: format!(
                "src/module_{:03}/file_{:06}.rs",
                i % 200,
                i % shape.files.max(1)
            ),
            range: (1, 40),
            documentation: Some(rng.text(80)),
        })
        .collect();
    let chunk = |rng: &mut Rng, i: usize| MemoryChunk {
        id: format!("mem-{i}"),
        content: rng.text_between(100, 500),
        importance: rng.below(1000) as f64 / 1000.0,
        timestamp: Some(NOW - rng.below(86_400_000) as i64),
        source: Some("agent".into()),
        kind: Some("fact".into()),
        related_to: Vec::new(),
    };
    // A tenth pinned, two fifths recent, half summaries.
    let memory = MemorySnapshot {
        pinned: (0..shape.memories / 10)
            .map(|i| chunk(&mut rng, i))
            .collect(),
        recent: (0..shape.memories * 2 / 5)
            .map(|i| chunk(&mut rng, 100_000 + i))
            .collect(),
        summaries: (0..shape.memories / 2)
            .map(|i| chunk(&mut rng, 200_000 + i))
            .collect(),
    };
    // Four fifths are tool calls with their results, the rest other events.
    let mut events = Vec::with_capacity(shape.events);
    let pairs = shape.events * 2 / 5;
    for i in 0..pairs {
        let at = NOW - 3_600_000 + (i as i64) * 1000;
        let call = format!("call-{i}");
        events.push(RuntimeEvent {
            event_type: "tool_call".into(),
            payload: JsonValue::object([
                ("toolName", "read_files".into()),
                ("toolCallId", call.clone().into()),
                (
                    "args",
                    JsonValue::object([("path", format!("src/file_{i}.rs").into())]),
                ),
            ]),
            timestamp: at,
            event_id: Some(format!("evt-{i}-call")),
        });
        events.push(RuntimeEvent {
            event_type: "tool_result".into(),
            payload: JsonValue::object([
                ("toolName", "read_files".into()),
                ("toolCallId", call.into()),
                ("result", rng.text_between(50, 950).into()),
            ]),
            timestamp: at + 500,
            event_id: Some(format!("evt-{i}-result")),
        });
    }
    for i in 2 * pairs..shape.events {
        events.push(RuntimeEvent {
            event_type: "execution_result".into(),
            payload: JsonValue::object([("output", rng.text(200).into())]),
            timestamp: NOW - rng.below(3_600_000) as i64,
            event_id: Some(format!("evt-{i}")),
        });
    }
    ContextBuildInput {
        run_id: "bench".into(),
        goal: UserGoal {
            raw: "Fix the failing integration test in the payment module".into(),
            ..Default::default()
        },
        agent: AgentDescriptor {
            id: "coder-1".into(),
            role: "coder".into(),
            capabilities: ["read_files", "write_files", "search", "run_tests"]
                .into_iter()
                .map(Into::into)
                .collect(),
            specializations: Vec::new(),
        },
        repo: Some(RepoSnapshot {
            root: "/workspace/bench".into(),
            files,
            symbols,
            diffs,
            metadata: None,
        }),
        memory: Some(memory),
        recent_events: events,
        constraints: ContextConstraints {
            strategy: Some(strategy),
            allow_summarization: true,
            max_event_age_ms: Some(86_400_000),
            now_ms: Some(NOW),
            ..ContextConstraints::new(MAX_TOKENS)
        },
    }
}

struct Timing {
    median_ms: f64,
    p95_ms: f64,
    iterations: usize,
}

/// Builds repeatedly (at least `min_iters` times and at least ~1.5 s, at most 400 times) after
/// three warm-up runs, and returns the median and 95th percentile of the wall times.
fn time(
    builder: &ContextBuilder,
    input: &ContextBuildInput,
    min_iters: usize,
) -> (Timing, ContextBundle) {
    let mut bundle = builder.build(input).unwrap();
    for _ in 0..2 {
        bundle = builder.build(input).unwrap();
    }
    let mut samples: Vec<Duration> = Vec::new();
    let started = Instant::now();
    while samples.len() < 400
        && (samples.len() < min_iters || started.elapsed() < Duration::from_millis(1500))
    {
        let t = Instant::now();
        let b = builder.build(input).unwrap();
        samples.push(t.elapsed());
        drop(std::hint::black_box(b));
    }
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p95_index = ((samples.len() as f64 * 0.95).ceil() as usize).clamp(1, samples.len()) - 1;
    let timing = Timing {
        median_ms: ms(samples[samples.len() / 2]),
        p95_ms: ms(samples[p95_index]),
        iterations: samples.len(),
    };
    (timing, bundle)
}

struct Row {
    name: String,
    timing: Timing,
    target_ms: Option<f64>,
    extra: Vec<(&'static str, serde_json::Value)>,
}

fn utilisation(bundle: &ContextBundle) -> Vec<(&'static str, serde_json::Value)> {
    let b = &bundle.debug.as_ref().unwrap().token_breakdown;
    let usable = b.max_tokens - b.reserved;
    vec![
        ("token_estimate", bundle.token_estimate.into()),
        ("max_tokens", b.max_tokens.into()),
        ("reserved", b.reserved.into()),
        (
            "utilisation",
            round3(bundle.token_estimate as f64 / b.max_tokens as f64).into(),
        ),
        (
            "utilisation_of_usable",
            round3(bundle.token_estimate as f64 / usable as f64).into(),
        ),
        ("messages", (bundle.messages.len() as u64).into()),
        (
            "summarized",
            bundle.debug.as_ref().unwrap().summarizations_applied.into(),
        ),
    ]
}

/// The report's line beside the timing: how much of the budget the bundle used (and of what
/// the strategy's buffer left usable), and for the 10× case how the time grew.
fn note(row: &Row) -> String {
    let get = |key: &str| {
        row.extra
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.as_f64())
    };
    let mut note = format!(
        "budget used {:.1}% of maxTokens {} ({:.1}% of what the {:.0}-token buffer leaves), {} messages, {} shortened",
        get("utilisation").unwrap_or(0.0) * 100.0,
        get("max_tokens").unwrap_or(0.0),
        get("utilisation_of_usable").unwrap_or(0.0) * 100.0,
        get("reserved").unwrap_or(0.0),
        get("messages").unwrap_or(0.0),
        get("summarized").unwrap_or(0.0),
    );
    if let Some(ratio) = get("ratio_to_1x") {
        note.push_str(&format!(
            "; time 10×/1× (balanced) = {ratio:.2}, where linear growth is 10"
        ));
    }
    note
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

fn input_mb(input: &ContextBuildInput) -> f64 {
    let repo = input.repo.as_ref().unwrap();
    let bytes: usize = repo
        .files
        .iter()
        .map(|f| f.content.as_ref().map_or(0, String::len))
        .sum();
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    // An optional argument runs only the cases whose name contains it (for profiling one).
    let filter = std::env::args().nth(1).unwrap_or_default();
    let wanted = |name: &str| name.contains(&filter);
    let builder = create_context_builder(ContextBuilderOptions::default());
    let base = Shape {
        files: 2_000,
        file_bytes: 2_500,
        memories: 200,
        events: 500,
        diffs: 50,
        symbols: 300,
    };
    let tenfold = Shape {
        files: 20_000,
        memories: 2_000,
        events: 5_000,
        diffs: 500,
        symbols: 3_000,
        ..base
    };
    let large = Shape {
        files: 10_000,
        file_bytes: 50 * 1024 * 1024 / 10_000,
        ..base
    };
    let mut rows = Vec::new();
    let mut one_x = None;

    for strategy in AssemblyStrategyType::ALL {
        let name = format!("assembly 2000 files + 200 memories + 500 events ({strategy})");
        if !wanted(&name) {
            continue;
        }
        let input = generate(&base, strategy, 42);
        let (timing, bundle) = time(&builder, &input, 100);
        if strategy == AssemblyStrategyType::Balanced {
            one_x = Some(timing.median_ms);
        }
        rows.push(Row {
            name,
            timing,
            target_ms: Some(5.0),
            extra: utilisation(&bundle),
        });
    }

    let name = "assembly 10000 files / 50 MB (balanced)";
    if wanted(name) {
        let input = generate(&large, AssemblyStrategyType::Balanced, 7);
        let mb = input_mb(&input);
        let (timing, bundle) = time(&builder, &input, 20);
        let mut extra = utilisation(&bundle);
        extra.push(("input_mb", round3(mb).into()));
        rows.push(Row {
            name: name.into(),
            timing,
            target_ms: Some(100.0),
            extra,
        });
    }

    let name = "assembly 10x: 20000 files + 2000 memories + 5000 events (balanced)";
    if wanted(name) {
        let input = generate(&tenfold, AssemblyStrategyType::Balanced, 42);
        let (timing, bundle) = time(&builder, &input, 20);
        let mut extra = utilisation(&bundle);
        if let Some(one_x) = one_x {
            extra.push(("ratio_to_1x", round3(timing.median_ms / one_x).into()));
        }
        rows.push(Row {
            name: name.into(),
            timing,
            // Linear growth from the 5 ms target.
            target_ms: Some(50.0),
            extra,
        });
    }

    println!("context assembly, max_tokens {MAX_TOKENS}, release build");
    println!(
        "{:<72} {:>9} {:>9} {:>7} {:>6} {:>11}",
        "case", "median", "p95", "target", "iters", "budget used"
    );
    for row in &rows {
        let used = row
            .extra
            .iter()
            .find(|(k, _)| *k == "utilisation")
            .map_or(0.0, |(_, v)| v.as_f64().unwrap_or(0.0));
        println!(
            "{:<72} {:>7.3}ms {:>7.3}ms {:>5.0}ms {:>6} {:>10.1}%",
            row.name,
            row.timing.median_ms,
            row.timing.p95_ms,
            row.target_ms.unwrap_or(f64::NAN),
            row.timing.iterations,
            used * 100.0
        );
    }
    for row in &rows {
        if let Some((_, ratio)) = row.extra.iter().find(|(k, _)| *k == "ratio_to_1x") {
            println!("10x/1x median ratio (balanced): {ratio} (linear is 10)");
        }
    }
    for row in &rows {
        let mut object = serde_json::Map::new();
        object.insert("note".into(), note(row).into());
        object.insert("name".into(), row.name.clone().into());
        object.insert("median_ms".into(), round3(row.timing.median_ms).into());
        object.insert("p95_ms".into(), round3(row.timing.p95_ms).into());
        if let Some(target) = row.target_ms {
            object.insert("target_ms".into(), target.into());
        }
        object.insert("iterations".into(), (row.timing.iterations as u64).into());
        for (k, v) in &row.extra {
            object.insert((*k).into(), v.clone());
        }
        println!("BENCH {}", serde_json::Value::Object(object));
    }
}
