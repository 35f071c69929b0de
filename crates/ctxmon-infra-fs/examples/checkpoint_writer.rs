//! A stand-alone checkpoint writer for process-level tests of `FsCheckpointRepository`: many of
//! these run at once, or get SIGKILLed mid-write, to prove ids never collide and no torn file is
//! ever visible (contract C15).
//!
//! ```text
//! checkpoint_writer PROJECT_DIR [--payload BYTES] [--count N] [--session ID]
//!                               [--hold-ms MS] [--wait-for PATH]
//! ```
//! Prints `building cx-NNN` once it holds the lock and `saved cx-NNN` after each save, so a test
//! can tell where a process was when it killed it. `--hold-ms` sleeps while holding the lock;
//! `--wait-for` spins until a file exists, so that a batch of writers starts together.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ctxmon_application::ports::CheckpointRepository;
use ctxmon_domain::{
    CheckpointData, CompactionTrigger, ContextWindow, FillEstimate, FillSource, Measured,
    ResumptionState, SessionInfo, Thresholds, Timestamp, TokenCount,
};
use ctxmon_infra_fs::{FsCheckpointRepository, ProjectLayout};

#[derive(Debug)]
struct Args {
    project: PathBuf,
    payload: usize,
    count: u32,
    session: String,
    hold: Duration,
    wait_for: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let project = args
        .next()
        .ok_or("usage: checkpoint_writer PROJECT_DIR [options]")?;
    let mut parsed = Args {
        project: PathBuf::from(project),
        payload: 0,
        count: 1,
        session: format!("writer-{}", std::process::id()),
        hold: Duration::ZERO,
        wait_for: None,
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|e| format!("{flag} {value:?}: {e}"))
        };
        match flag.as_str() {
            "--payload" => {
                parsed.payload = usize::try_from(number()?).map_err(|e| e.to_string())?
            }
            "--count" => parsed.count = u32::try_from(number()?).map_err(|e| e.to_string())?,
            "--session" => parsed.session = value,
            "--hold-ms" => parsed.hold = Duration::from_millis(number()?),
            "--wait-for" => parsed.wait_for = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(parsed)
}

/// A checkpoint like PreCompact's, with `payload` bytes of text as its resumption summary.
fn checkpoint(id: ctxmon_domain::CheckpointId, args: &Args, summary: &str) -> CheckpointData {
    let now = Timestamp(1_790_000_000_000);
    CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: id,
        timestamp: now.to_rfc3339(),
        created_at_ms: now,
        compaction_sequence: 1,
        trigger: CompactionTrigger::Auto,
        custom_instructions: None,
        context_state: FillEstimate::measured(Measured {
            tokens: TokenCount(170_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: None,
        }),
        resumption_state: Some(ResumptionState {
            summary: Some(summary.to_string()),
            ..Default::default()
        }),
        session_info: SessionInfo {
            session_id: Some(args.session.clone()),
            project_dir: Some(args.project.display().to_string()),
            ..Default::default()
        },
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("checkpoint_writer: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(start) = &args.wait_for {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !start.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    // Varied text, so the payload is not one repeated byte a file system could special-case.
    // (ASCII, so truncating at any byte keeps it a valid string.)
    const TEXT: &str = "the quick brown fox jumps over the lazy dog; ";
    let mut summary = TEXT.repeat(args.payload / TEXT.len() + 1);
    summary.truncate(args.payload);
    let repo = FsCheckpointRepository::new(ProjectLayout::new(&args.project));
    for _ in 0..args.count {
        let saved = repo.save_new(Some(&args.session), &mut |given| {
            println!("building {}", given.id);
            std::thread::sleep(args.hold);
            checkpoint(given.id, &args, &summary)
        });
        match saved {
            Ok(data) => println!("saved {}", data.checkpoint_id),
            Err(e) => {
                eprintln!("checkpoint_writer: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
