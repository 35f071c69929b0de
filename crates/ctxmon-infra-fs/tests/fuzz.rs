//! Fuzz targets for every adapter that parses a file ctxmon did not write, or wrote and may find
//! corrupted: transcripts (backward scan, tail, forward read), the resumption source (YAML and
//! JSON), the layered configuration (TOML files and `CTXMON_*` variables), checkpoints, resume
//! logs, session state and `.git`; and the JSON repair the transcript reader and hook input
//! share. Each target writes the mutated bytes into a temp project, calls the adapter as the
//! hooks and commands do, and hands what it returns on to the application code that consumes it. The harness (`ctxmon_test_support::fuzz`) fails the test on a panic.
//!
//! `CTXFUZZ_SECS` sets the time per target (default 2 s; `cargo xtask fuzz` for longer).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ctxmon_application::config::Config;
use ctxmon_application::handoff::resume_log::{self, ExactJson};
use ctxmon_application::handoff::resumption::context::{
    HandBackMode, ResumptionInput, render_resumption_context,
};
use ctxmon_application::handoff::resumption::{
    commands_run, derive_from_tail, errors_seen, first_user_request, from_section,
};
use ctxmon_application::monitor::fill::{
    ContextFillEstimator, EstimateRequest, FillSeriesBuilder, FillSettings,
};
use ctxmon_application::monitor::status_line::{StatusPayload, status_estimate};
use ctxmon_application::ports::{
    CheckpointRepository, GitInfo, ResumeLogStore, ResumptionSource, ScanLimits, SessionStateStore,
    TranscriptEvent, TranscriptReader, TranscriptTail,
};
use ctxmon_application::readers::json::repair as json_repair;
use ctxmon_domain::resume_log::{ContextMetrics, ContextValue, Decision};
use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, ContextWindow, FillEstimate, FillSource,
    Measured, ResumeLog, SessionInfo, SessionKey, SessionState, Thresholds, Timestamp, TokenCount,
    estimate_tokens,
};
use ctxmon_infra_fs::config::{EnvVars, load_config};
use ctxmon_infra_fs::transcript::read_tail_lines;
use ctxmon_infra_fs::{
    FsCheckpointRepository, FsGitInfo, FsResumeLogStore, FsResumptionSource, FsSessionStateStore,
    JsonlTranscriptReader, ProjectLayout,
};
use ctxmon_test_support::fuzz::seeds::{
    ORCHESTRATION_YAML, SYNTHETIC_TRANSCRIPT, TRANSCRIPT_KEYS, transcript_seeds,
};
use ctxmon_test_support::fuzz::{Format, Fuzz, Outcome};

/// A temp folder that lives as long as the target runs.
fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create the parent folder");
    }
    fs::write(path, bytes).expect("write the fuzzed file");
}

fn settings() -> FillSettings {
    FillSettings::from_config(&Config::default()).expect("default thresholds are valid")
}

/// A count as a label word: digits are dropped from labels, so "none", "one" and "many" it is.
fn few(n: usize) -> &'static str {
    match n {
        0 => "none",
        1 => "one",
        _ => "many",
    }
}

fn label<T, E: std::fmt::Debug>(result: &Result<T, E>, ok: &str) -> Outcome {
    match result {
        Ok(_) => Ok(ok.to_string()),
        Err(e) => Err(format!("{e:?}")),
    }
}

// ---------------------------------------------------------------------------------------------
// Transcripts

/// The qualifying events of a forward read, for comparison with the backward scan.
fn forward_events(reader: &JsonlTranscriptReader, path: &Path) -> Option<Vec<TranscriptEvent>> {
    let mut events = Vec::new();
    reader.read_events(path, |e| events.push(e)).ok()?;
    Some(events)
}

/// What the backward scan must find, derived from the forward read: the newest main-chain
/// event, else (the whole file having been read) the newest sidechain one.
fn expected_from_forward(events: &[TranscriptEvent]) -> (Option<&TranscriptEvent>, bool) {
    let side = |e: &&TranscriptEvent| match e {
        TranscriptEvent::Usage { sidechain, .. } | TranscriptEvent::Boundary { sidechain, .. } => {
            *sidechain
        }
    };
    match events.iter().rev().find(|e| !side(e)) {
        Some(main) => (Some(main), false),
        None => (events.iter().rev().find(side), true),
    }
}

#[test]
fn fuzz_transcript_backward() {
    let dir = temp();
    let path = dir.path().join("t.jsonl");
    let settings = settings();
    let report = Fuzz::new("transcript_backward", Format::JsonLines)
        .seeds(transcript_seeds(16 * 1024))
        .dict(TRANSCRIPT_KEYS)
        .run(|bytes| {
            write(&path, bytes);
            let default = JsonlTranscriptReader::default();
            let whole = ScanLimits {
                max_scan_bytes: u64::MAX,
            };
            let result = default.scan(&path, whole);
            // Small blocks put line ends on block boundaries; the answer must not change.
            let block = if bytes.len() < 2_048 { 7 } else { 509 };
            let small = default.with_block_size(block).scan(&path, whole);
            // (`bytes_scanned` counts whole blocks, so it may differ.)
            let meaning = |r: &ctxmon_infra_fs::transcript::ScanReport| {
                let r = &r.reading;
                (
                    r.usage.clone(),
                    r.boundary.clone(),
                    r.scope,
                    r.hit_scan_limit,
                )
            };
            assert_eq!(
                result.as_ref().map(meaning).map_err(|e| e.kind),
                small.as_ref().map(meaning).map_err(|e| e.kind),
                "block size {block} changed the reading"
            );
            // The backward scan agrees with a forward read of the whole file.
            if let (Ok(report), Some(events)) = (&result, forward_events(&default, &path)) {
                let (expected, sidechain) = expected_from_forward(&events);
                let reading = &report.reading;
                match expected {
                    Some(TranscriptEvent::Usage { record, .. }) => {
                        assert_eq!(reading.usage.as_ref(), Some(record), "usage differs");
                        assert_eq!(reading.boundary, None);
                    }
                    Some(TranscriptEvent::Boundary { boundary, .. }) => {
                        assert_eq!(
                            reading.boundary.as_ref(),
                            Some(boundary),
                            "boundary differs"
                        );
                        assert_eq!(reading.usage, None);
                    }
                    None => assert!(reading.usage.is_none() && reading.boundary.is_none()),
                }
                if expected.is_some() {
                    let scope = if sidechain { "Sidechain" } else { "Main" };
                    assert_eq!(format!("{:?}", reading.scope), scope);
                }
            }
            // A scan limit and a small line cap: only "never panics" is asked of these.
            let half = ScanLimits {
                max_scan_bytes: bytes.len() as u64 / 2,
            };
            let capped = default.with_max_line_bytes(300).with_block_size(97);
            let _ = capped.scan(&path, half);
            let _ = default.read_latest(&path, ScanLimits { max_scan_bytes: 1 });
            // The estimator consumes the reading as prompt-submit does.
            let estimate =
                ContextFillEstimator::new(&default, &settings).estimate(EstimateRequest {
                    transcript_path: Some(&path),
                    model_hint: Some("claude-opus-4-6[1m]"),
                    ..EstimateRequest::default()
                });
            assert!(estimate.fill_percentage.is_finite(), "{estimate:?}");
            match result {
                Ok(report) => Ok(format!(
                    "usage={} boundary={} scope={:?} oversized={}",
                    report.reading.usage.is_some(),
                    report.reading.boundary.is_some(),
                    report.reading.scope,
                    report.stats.oversized_lines > 0
                )),
                Err(e) => Err(format!("{:?}", e.kind)),
            }
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_transcript_tail() {
    let dir = temp();
    let path = dir.path().join("t.jsonl");
    let reader = JsonlTranscriptReader::default();
    let report = Fuzz::new("transcript_tail", Format::JsonLines)
        .seeds(transcript_seeds(16 * 1024))
        .dict(TRANSCRIPT_KEYS)
        .run(|bytes| {
            write(&path, bytes);
            let len = bytes.len() as u64;
            let whole = read_tail_lines(&path, u64::MAX);
            if let Ok(tail) = &whole {
                assert!(tail.from_file_start);
                assert_eq!(tail.bytes_read, len);
            }
            for max in [len / 2 + 1, 100, 1, 0] {
                let _ = read_tail_lines(&path, max);
            }
            // The port, with the derivation filter, feeding every derivation that reads it.
            let lines = reader.read_tail(&path, len.saturating_sub(7).max(1));
            if let Ok(lines) = &lines {
                let state = derive_from_tail(lines);
                let _ = (
                    commands_run(lines),
                    first_user_request(lines),
                    errors_seen(lines),
                );
                return Ok(format!(
                    "lines={} todos={} files={} requests={}",
                    few(lines.len()),
                    few(state.todos.len()),
                    few(state.files_touched.len()),
                    few(state.last_user_requests.len())
                ));
            }
            label(&whole.map(|_| ()), "tail")
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_transcript_forward() {
    let dir = temp();
    let path = dir.path().join("t.jsonl");
    let settings = settings();
    let report = Fuzz::new("transcript_forward", Format::JsonLines)
        .seeds(transcript_seeds(16 * 1024))
        .dict(TRANSCRIPT_KEYS)
        .run(|bytes| {
            write(&path, bytes);
            let default = JsonlTranscriptReader::default();
            let events = forward_events(&default, &path);
            // Block size and the line cap's boundary must not change what is read.
            let small = forward_events(&default.with_block_size(13), &path);
            assert_eq!(events, small, "block size 13 changed the events");
            let mut oversized = 0;
            let _ = default
                .with_max_line_bytes(200)
                .with_block_size(64)
                .read_events(&path, |_| oversized += 1);
            // `ctxmon report` builds the session's series from the events.
            let Some(events) = events else {
                return Err("unreadable".into());
            };
            let count = events.len();
            let mut builder = FillSeriesBuilder::new();
            for event in events {
                builder.push(event);
            }
            let series = builder.finish(&settings, Some("claude-sonnet-4-5"));
            let json = serde_json::to_string(&series).expect("a series serializes");
            assert!(!json.is_empty());
            Ok(format!(
                "events={} points={}",
                few(count),
                few(series.points.len())
            ))
        });
    assert!(report.executions > 0);
}

/// The JSON repair behind every transcript line and hook input serde_json refuses (lone
/// surrogate escapes, numbers beyond f64), and the shortened copy of a stdin over its cap:
/// JSON serde_json accepts is never changed; a repair only shortens, and a second one finds
/// nothing; the stream gives the same bytes however it is split, never more than its cap; and
/// a document the repair makes valid stays valid when its strings are shortened.
#[test]
fn fuzz_json_repair() {
    let mut seeds = transcript_seeds(4 * 1024);
    seeds.push(br#"{"custom_instructions":"keep the \ud83d notes","postTokens":1e999}"#.to_vec());
    seeds.push(br#"["\udc00\ud83d\ude00\ud83d\n",-2.5E+400,1e-999]"#.to_vec());
    let report = Fuzz::new("json_repair", Format::Json)
        .seeds(seeds)
        .dict(TRANSCRIPT_KEYS)
        .run(|bytes| {
            let valid = serde_json::from_slice::<serde_json::Value>(bytes).is_ok();
            let repaired = json_repair::repair(bytes);
            if valid {
                assert_eq!(repaired, None, "valid JSON was changed");
            }
            if let Some(fixed) = &repaired {
                assert!(fixed.len() <= bytes.len(), "a repair grew the text");
                assert_eq!(json_repair::repair(fixed), None, "a repair left work");
            }
            let whole = repaired.clone().unwrap_or_else(|| bytes.to_vec());
            let shrink = |split: usize, cap: usize, max_string: usize| {
                let mut s = json_repair::Shrinker::new(cap, max_string);
                for chunk in bytes.chunks(split.max(1)) {
                    s.push(chunk);
                }
                s.finish()
            };
            assert_eq!(
                shrink(bytes.len(), usize::MAX, usize::MAX),
                Some(whole.clone())
            );
            let cap = bytes.len() / 2;
            let small = shrink(7, cap, 16);
            assert_eq!(
                small,
                shrink(bytes.len(), cap, 16),
                "the split changed the output"
            );
            assert!(small.as_ref().is_none_or(|s| s.len() <= cap));
            let parses = serde_json::from_slice::<serde_json::Value>(&whole).is_ok();
            if parses && let Some(small) = &small {
                let back = serde_json::from_slice::<serde_json::Value>(small);
                assert!(back.is_ok(), "shortening broke valid JSON: {back:?}");
            }
            Ok(format!(
                "valid={valid} repaired={} parses={parses} shortened={}",
                repaired.is_some(),
                small.is_some()
            ))
        });
    assert!(report.executions > 0);
}

// ---------------------------------------------------------------------------------------------
// Resumption source

fn resumption_target(name: &'static str, file: &'static str, format: Format, seeds: Vec<Vec<u8>>) {
    let dir = temp();
    let path = dir.path().join(file);
    let source = FsResumptionSource::new(file.to_string(), 1024 * 1024);
    let report = Fuzz::new(name, format)
        .seeds(seeds)
        .dict(&[
            "resumption",
            "recovery_state",
            "summary",
            "quality_trajectory",
            "score",
            "iteration",
            "decisions",
            "decision",
            "rationale",
            "agent_summaries",
            "agent",
            "files_to_read",
            "path",
            "priority",
            "reason",
            "next_steps",
            "updated_at",
            "resumption:\n  ",
            "  - ",
            "&anchor ",
            "*anchor",
            "!!binary ",
            "!!str ",
            "!!int ",
            "!!float ",
            "!!map ",
            "~",
            ".nan",
            ".inf",
            "0x1F",
            "0o17",
            "1_000",
        ])
        .run(|bytes| {
            write(&path, bytes);
            let doc = source.read(dir.path());
            let Ok(Some(doc)) = doc else {
                return label(&doc, "none");
            };
            for w in &doc.warnings {
                assert!(w.chars().count() < 1_000, "a warning is short: {w}");
            }
            let Some(section) = doc.section else {
                let first = doc.warnings.first().map_or("", String::as_str);
                return Err(first.chars().take(40).collect());
            };
            let state = from_section(&section);
            let rendered = render_state(&state);
            Ok(format!(
                "summary={} steps={} files={} decisions={} rendered={}",
                state.summary.is_some(),
                few(state.next_steps.len()),
                few(state.files_to_read.len()),
                few(state.decisions.len()),
                !rendered.is_empty()
            ))
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_resumption_source_yaml() {
    let seeds = vec![
        ORCHESTRATION_YAML.as_bytes().to_vec(),
        b"resumption: {next_steps: [a, b], files_to_read: [x]}\n".to_vec(),
        b"---\nresumption:\n  summary: |\n    multi\n    line\n...\n".to_vec(),
        b"- a list\n- not a map\n".to_vec(),
        b"resumption: just text\n".to_vec(),
        b"a: &a [1,2,3]\nb: &b [*a,*a,*a]\nresumption: {next_steps: *b}\n".to_vec(),
        // The deep shapes that must be refused quickly (the anchored one once was not).
        format!(
            "resumption: {{summary: ok}}\nb: &b {}1{}\n",
            "[".repeat(5_000),
            "]".repeat(5_000)
        )
        .into_bytes(),
        format!("resumption:\n{}x\n", "- ".repeat(5_000)).into_bytes(),
    ];
    resumption_target(
        "resumption_source_yaml",
        "ORCHESTRATION.yaml",
        Format::Text,
        seeds,
    );
}

#[test]
fn fuzz_resumption_source_json() {
    let value = yaml_as_json(ORCHESTRATION_YAML);
    let seeds = vec![
        serde_json::to_vec_pretty(&value).expect("serialize"),
        br#"{"resumption":{"next_steps":["a",{"x":1},7,null],"files_to_read":[{"path":"a","priority":"high"}],"quality_trajectory":{"score":"0.5","iteration":1e300}}}"#.to_vec(),
        br#"{"resumption":[]}"#.to_vec(),
        format!("{{\"resumption\":{}1{}}}", "[".repeat(5_000), "]".repeat(5_000)).into_bytes(),
        b"[]".to_vec(),
        b"null".to_vec(),
    ];
    resumption_target(
        "resumption_source_json",
        "ORCHESTRATION.json",
        Format::Json,
        seeds,
    );
}

/// A YAML seed as JSON, through the adapter itself (no YAML dependency in this test).
fn yaml_as_json(yaml: &str) -> serde_json::Value {
    let dir = temp();
    fs::write(dir.path().join("o.yaml"), yaml).expect("write");
    let doc = FsResumptionSource::new("o.yaml".into(), 1 << 20)
        .read(dir.path())
        .expect("readable")
        .expect("present");
    serde_json::json!({ "project": "shop", "resumption": doc.section })
}

/// A checkpoint holding `state`, rendered as SessionStart would hand it back.
fn render_state(state: &ctxmon_domain::ResumptionState) -> String {
    let mut checkpoint = sample_checkpoint(1, "s1");
    checkpoint.resumption_state = Some(state.clone());
    let beside = render_resumption_context(ResumptionInput {
        checkpoint: &checkpoint,
        resume_log: Some("session-s1.md"),
        mode: HandBackMode::BesideSummary,
    });
    assert_within_budget(&beside, 760, "resumption-context");
    let rendered = render_resumption_context(ResumptionInput {
        checkpoint: &checkpoint,
        resume_log: Some("session-s1.md"),
        mode: HandBackMode::Alone,
    });
    assert_within_budget(&rendered, 760, "resumption-context");
    rendered
}

/// The tags' budgets are in estimated tokens: ceil(chars / 4).
fn assert_within_budget(text: &str, max_tokens: u64, what: &str) {
    let tokens = estimate_tokens(text).get();
    assert!(
        tokens <= max_tokens,
        "<{what}> is {tokens} tokens, over its budget of {max_tokens}:\n{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// Configuration

const CONFIG_TOML: &str = r#"[context_monitor]
enabled = true
low_threshold = 0.55
warning_threshold = 0.70
critical_threshold = 0.80
emergency_threshold = 0.88
context_window = 200000
auto_compact_buffer = 33000
max_scan_bytes = 33554432
inject = "always"
post_compaction_percent = 20

[context_monitor.models]
"claude-opus-4-6" = 1000000
"claude-sonnet" = 200000

[hooks]
deadline_ms = 1500
log_max_bytes = 1048576

[resumption]
source_file = "ORCHESTRATION.yaml"
derive_from_transcript = true
max_age_hours = 24
stale_after_minutes = 30
tail_bytes = 262144
max_source_bytes = 1048576

[resume_logs]
enabled = true
triggers = ["pre_compact", "session_end", "tier:critical"]
keep = 20
"#;

const CONFIG_DICT: &[&str] = &[
    "context_monitor",
    "enabled",
    "low_threshold",
    "warning_threshold",
    "critical_threshold",
    "emergency_threshold",
    "context_window",
    "auto_compact_buffer",
    "max_scan_bytes",
    "inject",
    "post_compaction_percent",
    "models",
    "hooks",
    "deadline_ms",
    "log_max_bytes",
    "resumption",
    "source_file",
    "derive_from_transcript",
    "max_age_hours",
    "stale_after_minutes",
    "tail_bytes",
    "max_source_bytes",
    "resume_logs",
    "triggers",
    "keep",
    "[context_monitor]\n",
    "[hooks]\n",
    "[resumption]\n",
    "[resume_logs]\n",
    "[context_monitor.models]\n",
    "\"always\"",
    "\"never\"",
    "\"on-change\"",
    "\"tier:warning\"",
    "\"tier:critical\"",
    "\"manual\"",
    "0.999999999999",
    "1.0000000001",
    "-0.0",
    "+inf",
    "18446744073709551615",
    "9223372036854775807",
    "9223372036854775808",
];

/// The configuration a command would use, and what `config show` prints of it.
fn load_and_show(project: &Path, env: &EnvVars, flags: &[(String, String)]) -> Outcome {
    match load_config(project, env, None, flags) {
        Ok(loaded) => {
            let _ = loaded.to_toml(true);
            let _ = loaded.to_json();
            let _ = loaded.get("context_monitor.warning_threshold");
            let _ = loaded.get("context_monitor.models");
            // The thresholds were validated while loading, so the settings must build.
            let settings = FillSettings::from_config(&loaded.config);
            assert!(
                settings.is_ok(),
                "a configuration that loads has valid thresholds: {:?}",
                loaded.config.context_monitor
            );
            Ok("loaded".into())
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.is_empty());
            Err(text.chars().take(60).collect())
        }
    }
}

#[test]
fn fuzz_config_toml() {
    let dir = temp();
    let project = dir.path().join("proj");
    let file = project.join(".ctxmon/config.toml");
    let env = EnvVars::new().with("HOME", dir.path().join("home"));
    let report = Fuzz::new("config_toml", Format::Text)
        .seed(CONFIG_TOML)
        .seed("[context_monitor]\nwarning_threshold = 0.9\ncritical_threshold = 0.8\n")
        .seed("context_monitor.models.\"x[1m]\" = 0\nhooks = 3\n")
        .seed("[[resume_logs]]\nkeep = -1\n")
        .seed("")
        // Deep nesting, past toml's own recursion limit.
        .seed(format!(
            "[hooks]\ndeadline_ms = {}1{}\n",
            "[".repeat(5_000),
            "]".repeat(5_000)
        ))
        .seed(format!(
            "a = {}1{}\n",
            "{b = ".repeat(5_000),
            "}".repeat(5_000)
        ))
        .dict(CONFIG_DICT)
        .run(|bytes| {
            write(&file, bytes);
            load_and_show(&project, &env, &[])
        });
    assert!(report.executions > 0);
}

/// `CTXMON_*` variables and `--set`-style flags: one `KEY=VALUE` per line, each line both a
/// variable (`CTXMON_<KEY>`) and a flag (`<key>` with `__` read as `.`).
#[test]
fn fuzz_config_env() {
    let dir = temp();
    let project = dir.path().join("proj");
    fs::create_dir_all(&project).expect("project");
    let report = Fuzz::new("config_env", Format::Text)
        .seed("CONTEXT_MONITOR__WARNING_THRESHOLD=0.7\nHOOKS__DEADLINE_MS=900\n")
        .seed("RESUME_LOGS__TRIGGERS=[\"pre_compact\"]\nCONTEXT_MONITOR__MODELS={opus=1000000}\n")
        .seed("CONTEXT_MONITOR__INJECT=never\nRESUMPTION__SOURCE_FILE=\n")
        .seed("CONTEXT_MONITOR__CONTEXT_WINDOW=0\n")
        .dict(CONFIG_DICT)
        .dict(&[
            "CONTEXT_MONITOR__",
            "HOOKS__",
            "RESUMPTION__",
            "RESUME_LOGS__",
            "__",
        ])
        .run(|bytes| {
            let text = String::from_utf8_lossy(bytes);
            let mut env = EnvVars::new().with("HOME", dir.path().join("home"));
            let mut flags = Vec::new();
            for line in text.lines().take(20) {
                let (key, value) = line.split_once('=').unwrap_or((line, ""));
                env = env.with(format!("CTXMON_{key}"), value);
                flags.push((
                    key.to_ascii_lowercase().replace("__", "."),
                    value.to_string(),
                ));
            }
            let from_env = load_and_show(&project, &env, &[]);
            let empty = EnvVars::new().with("HOME", dir.path().join("home"));
            let from_flags = load_and_show(&project, &empty, &flags);
            match (from_env, from_flags) {
                (Ok(a), Ok(_)) => Ok(a),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        });
    assert!(report.executions > 0);
}

// ---------------------------------------------------------------------------------------------
// Stored files: checkpoints, resume logs, session state

fn sample_checkpoint(sequence: u32, session: &str) -> CheckpointData {
    let state = derive_from_tail(&ctxmon_infra_fs::transcript::records_from_values(
        &SYNTHETIC_TRANSCRIPT
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect::<Vec<_>>(),
    ));
    CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: CheckpointId::new(sequence).expect("a positive id"),
        timestamp: Timestamp(1_790_000_000_000).to_rfc3339(),
        created_at_ms: Timestamp(1_790_000_000_000),
        compaction_sequence: sequence,
        trigger: CompactionTrigger::Auto,
        custom_instructions: Some("keep the tax work".into()),
        context_state: FillEstimate::measured(Measured {
            tokens: TokenCount(170_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: Some("claude-sonnet-4-5".into()),
        }),
        resumption_state: Some(state),
        session_info: SessionInfo {
            session_id: Some(session.into()),
            project_dir: Some("/home/dev/shop".into()),
            cwd: Some("/home/dev/shop".into()),
            transcript_path: Some("/home/dev/.claude/projects/shop/s1.jsonl".into()),
            git_branch: Some("main".into()),
            git_head: Some("0123456789abcdef0123456789abcdef01234567".into()),
        },
    }
}

#[test]
fn fuzz_checkpoint_file() {
    let dir = temp();
    let repo = FsCheckpointRepository::new(ProjectLayout::new(dir.path()));
    let id = CheckpointId::FIRST;
    let path = repo.dir().join(id.file_name());
    let mut from_yaml = sample_checkpoint(1, "s1");
    from_yaml.resumption_state = Some(from_section(
        &yaml_as_json(ORCHESTRATION_YAML)["resumption"],
    ));
    let report = Fuzz::new("checkpoint_file", Format::Json)
        .seed(serde_json::to_vec_pretty(&sample_checkpoint(1, "s1")).expect("serialize"))
        .seed(serde_json::to_vec(&from_yaml).expect("serialize"))
        .seed(serde_json::to_vec(&sample_checkpoint(2, "s1")).expect("serialize"))
        .seed(br#"{"schema_version":99,"checkpoint_id":"cx-001"}"#.to_vec())
        .dict(&[
            "schema_version",
            "checkpoint_id",
            "timestamp",
            "created_at_ms",
            "compaction_sequence",
            "trigger",
            "custom_instructions",
            "context_state",
            "resumption_state",
            "session_info",
            "fill_percentage",
            "input_tokens",
            "context_window_size",
            "tier",
            "next_steps",
            "files_to_read",
            "todos",
            "origin",
            "quality_trajectory",
        ])
        .run(|bytes| {
            let _ = fs::remove_dir_all(repo.dir());
            write(&path, bytes);
            let got = repo.get(id);
            let listing = repo.list();
            let latest = repo.latest_unacknowledged(Some("s1"));
            let _ = repo.latest_unacknowledged(None);
            if let Ok(listing) = &listing {
                // A file is either listed or reported, never both, never neither.
                assert_eq!(
                    listing.checkpoints.len() + listing.problems.len(),
                    1,
                    "{listing:?}"
                );
            }
            if let Ok(Some(stored)) = &got {
                let cp = &stored.data;
                let context = render_resumption_context(ResumptionInput {
                    checkpoint: cp,
                    resume_log: None,
                    mode: HandBackMode::Alone,
                });
                assert_within_budget(&context, 760, "resumption-context");
                let alert = ctxmon_application::handoff::alert::render_compaction_alert(
                    cp,
                    &path.display().to_string(),
                );
                assert_within_budget(&alert, 280, "compaction-alert");
                let _ = serde_json::to_string(cp).expect("a loaded checkpoint serializes");
            }
            let _ = latest;
            match got {
                Ok(Some(_)) => Ok("loaded".into()),
                Ok(None) => Ok("absent".into()),
                Err(e) => Err(format!("{:?}", e.kind)),
            }
        });
    assert!(report.executions > 0);
}

fn sample_log(session: &str) -> ResumeLog {
    let mut log = ResumeLog::new(
        session,
        ContextMetrics::new(
            200_000,
            170_000,
            "pre_compact",
            "claude-sonnet-4-5",
            Timestamp(1_790_000_000_000),
        ),
    );
    log.mission_summary = "Add tax support to billing".into();
    log.accomplishments = vec!["Split billing.rs".into(), "Wrote invoice.rs".into()];
    log.key_findings = vec!["VAT is rounded per line".into()];
    log.decisions = vec![Decision {
        decision: "Round per line".into(),
        rationale: "Matches the ledger".into(),
    }];
    log.next_steps = vec!["Write the migration".into()];
    log.critical_context
        .insert("ledger".into(), "/w/shop/ledger.csv".into());
    log.critical_context.insert(
        "file_paths".into(),
        ContextValue::Map(BTreeMap::from([(
            "auth_service".into(),
            "src/services/auth.py".into(),
        )])),
    );
    log.metadata.trigger = "pre_compact".into();
    log.metadata.sources = vec!["agent document".into(), "checkpoint cx-001".into()];
    log.metadata.files_modified = vec!["src/tax.rs".into()];
    log.metadata.commands_run = vec!["cargo test".into()];
    log.metadata.errors = vec!["error[E0425]".into()];
    log.metadata.git_dirty_files = vec![" M src/tax.rs".into()];
    log.metadata.notes.insert("note".into(), "text".into());
    log
}

#[test]
fn fuzz_resume_log_file() {
    let dir = temp();
    let store = FsResumeLogStore::new(ProjectLayout::new(dir.path()));
    let key = SessionKey::from_raw("s1");
    let json = store.json_path(&key);
    let report = Fuzz::new("resume_log_file", Format::Json)
        .seed(serde_json::to_vec_pretty(&sample_log("s1")).expect("serialize"))
        .seed(
            serde_json::to_vec(&ResumeLog::new("s1", ContextMetrics::default()))
                .expect("serialize"),
        )
        .seed(serde_json::to_vec(&sample_log("other")).expect("serialize"))
        .dict(&[
            "schema_version",
            "session_id",
            "context_metrics",
            "total_budget",
            "used_tokens",
            "percentage_used",
            "remaining_tokens",
            "stop_reason",
            "model",
            "timestamp",
            "mission_summary",
            "accomplishments",
            "key_findings",
            "decisions",
            "decision",
            "rationale",
            "next_steps",
            "critical_context",
            "metadata",
            "notes",
            "git_dirty_files",
            "agent_metrics",
            "older_left_out",
            "session_duration_minutes",
        ])
        .run(|bytes| {
            write(&json, bytes);
            let loaded = store.load(&key);
            let _ = store.list();
            let _ = store.latest();
            let _ = store.stats();
            if let Ok(Some(stored)) = &loaded {
                let markdown = stored.log.to_markdown();
                assert_within_budget(&markdown, 10_000, "resume log");
                // As the store writes and reads it: a critical-context number is its token.
                let back = serde_json::to_string(&ExactJson(&stored.log)).expect("serialize");
                let again = resume_log::from_json(back.as_bytes()).expect("round trip");
                assert_eq!(again, stored.log, "a loaded log round-trips exactly");
            } else if loaded.is_err() {
                // A corrupt log is reported and skipped, and cleanup never deletes it.
                let _ = store.cleanup(0);
                assert!(json.exists(), "cleanup deleted a corrupt log");
            }
            match loaded {
                Ok(Some(_)) => Ok("loaded".into()),
                Ok(None) => Ok("absent".into()),
                Err(e) => Err(format!("{:?}", e.kind)),
            }
        });
    assert!(report.executions > 0);
}

#[test]
fn fuzz_session_state_file() {
    let dir = temp();
    let layout = ProjectLayout::new(dir.path());
    let store = FsSessionStateStore::new(layout.clone());
    let key = SessionKey::from_raw("s1");
    let path = layout.state_file(&key);
    let transcript = dir.path().join("t.jsonl");
    write(&transcript, SYNTHETIC_TRANSCRIPT.as_bytes());
    let mut state = SessionState {
        last_fill: Some(0.81),
        last_tokens: Some(162_000),
        handoff_complete: true,
        threshold_crossed_at: Some(Timestamp(1_790_000_000_000)),
        resumption_delivered: Some("cx-001".into()),
        resume_log_triggers: vec!["pre_compact".into()],
        updated_at: Some(Timestamp(1_790_000_000_500)),
        ..SessionState::default()
    };
    state.compactions_seen.count = 2;
    state.compactions_seen.last_boundary_uuid = Some("b-1".into());
    state.compactions_seen.last_checkpoint_id = Some("cx-002".into());
    state.compactions_seen.last_checkpoint_at = Some(Timestamp(1_790_000_000_000));
    let settings = settings();
    let reader = JsonlTranscriptReader::default();
    let report = Fuzz::new("session_state_file", Format::Json)
        .seed(serde_json::to_vec_pretty(&state).expect("serialize"))
        .seed(serde_json::to_vec(&SessionState::default()).expect("serialize"))
        .dict(&[
            "schema_version",
            "last_tier",
            "last_injected_tier",
            "last_fill",
            "last_tokens",
            "compactions_seen",
            "count",
            "last_boundary_uuid",
            "last_checkpoint_at",
            "handoff_complete",
            "threshold_crossed_at",
            "resumption_delivered",
            "resume_log_triggers",
            "updated_at",
            "\"critical\"",
            "\"emergency\"",
        ])
        .run(|bytes| {
            write(&path, bytes);
            let loaded = store.load(&key);
            if let Ok(Some(state)) = &loaded {
                // The status line applies the state to its estimate.
                let estimate = status_estimate(
                    &settings,
                    &reader,
                    Some(state),
                    &StatusPayload {
                        transcript_path: Some(&transcript),
                        ..StatusPayload::default()
                    },
                );
                assert!(estimate.fill_percentage.is_finite());
            }
            match loaded {
                Ok(Some(_)) => Ok("loaded".into()),
                Ok(None) => Ok("absent".into()),
                Err(e) => Err(format!("{:?}", e.kind)),
            }
        });
    assert!(report.executions > 0);
}

// ---------------------------------------------------------------------------------------------
// .git

const HEAD_ID: &str = "0123456789abcdef0123456789abcdef01234567";

/// The files of a fixed git folder (a branch, a symbolic ref, packed refs).
fn git_files() -> [(&'static str, Vec<u8>); 4] {
    [
        ("HEAD", b"ref: refs/heads/main\n".to_vec()),
        ("refs/heads/main", format!("{HEAD_ID}\n").into_bytes()),
        (
            "packed-refs",
            format!("# pack-refs with: peeled fully-peeled sorted\n{HEAD_ID} refs/heads/packed\n^{HEAD_ID}\n").into_bytes(),
        ),
        ("refs/heads/sym", b"ref: refs/heads/main\n".to_vec()),
    ]
}

#[test]
fn fuzz_git_head() {
    let dir = temp();
    let plain = dir.path().join("plain");
    let git_dir = plain.join(".git");
    for (file, content) in git_files() {
        write(&git_dir.join(file), &content);
    }
    let linked = dir.path().join("linked");
    let git = FsGitInfo::new();
    let report = Fuzz::new("git_head", Format::Text)
        .seed("ref: refs/heads/main\n")
        .seed("ref: refs/heads/packed\n")
        .seed("ref: refs/heads/sym\n")
        .seed(format!("{HEAD_ID}\n"))
        .seed(format!("{HEAD_ID} refs/heads/main\n"))
        .seed("gitdir: ../plain/.git\n")
        .seed("../..\n")
        .dict(&[
            "ref: ",
            "refs/heads/",
            "gitdir: ",
            "../",
            "packed-refs",
            HEAD_ID,
        ])
        .run(|bytes| {
            // The fuzzed bytes as HEAD, as packed-refs, as a loose ref and as commondir, each
            // in an otherwise sound git folder.
            let mut labels = Vec::new();
            for (file, original) in git_files()
                .into_iter()
                .take(3)
                .chain([("commondir", Vec::new())])
            {
                write(&git_dir.join(file), bytes);
                let head = git.head(&plain);
                if let Some(id) = head.as_ref().and_then(|h| h.head.as_ref()) {
                    assert!(id.len() == 40 || id.len() == 64, "{id}");
                }
                labels.push(match head {
                    None => "none",
                    Some(h) if h.head.is_some() => "head",
                    Some(_) => "unknown",
                });
                if file == "commondir" {
                    fs::remove_file(git_dir.join(file)).expect("remove commondir");
                } else {
                    write(&git_dir.join(file), &original);
                }
            }
            // And as a `.git` file (a worktree's link).
            write(&linked.join(".git"), bytes);
            labels.push(if git.head(&linked).is_some() {
                "linked"
            } else {
                "unlinked"
            });
            Ok(labels.join(","))
        });
    assert!(report.executions > 0);
}

/// The temp projects of these targets are outside any git work tree, so the git reader's
/// answer depends on the input alone.
#[test]
fn temp_projects_are_outside_any_git_work_tree() {
    let dir = temp();
    let outside: PathBuf = dir.path().to_path_buf();
    assert_eq!(FsGitInfo::new().head(&outside), None);
}
