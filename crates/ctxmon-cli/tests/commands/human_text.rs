//! Numbers and times read the same everywhere: thousands separators in
//! every sentence (`About 2,000 tokens`), fills as whole percentages rounded down (a resume
//! log's `83%`, as `status` shows it, not `83.2%`), and times for people in the local zone with
//! its offset while JSON keeps UTC.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::{Sandbox, additional_context, transcript_with};

/// 2026-11-18T11:06:40Z.
const CREATED_MS: i64 = 1_795_000_000_000;

fn seed_checkpoint(sb: &Sandbox) {
    use ctxmon_application::ports::CheckpointRepository;
    use ctxmon_domain::{
        CheckpointData, CompactionTrigger, ContextWindow, FillEstimate, FillSource, Measured,
        SessionInfo, Thresholds, Timestamp, TokenCount,
    };
    ctxmon_infra_fs::FsCheckpointRepository::new(ctxmon_infra_fs::ProjectLayout::new(sb.dir()))
        .save_new(Some("s"), &mut |given| CheckpointData {
            schema_version: CheckpointData::SCHEMA_VERSION,
            checkpoint_id: given.id,
            timestamp: Timestamp(CREATED_MS).to_rfc3339(),
            created_at_ms: Timestamp(CREATED_MS),
            compaction_sequence: 1,
            trigger: CompactionTrigger::Auto,
            custom_instructions: None,
            context_state: FillEstimate::measured(Measured {
                tokens: TokenCount(166_400),
                window: ContextWindow::DEFAULT,
                thresholds: &Thresholds::default(),
                auto_compact_reserve: TokenCount(33_000),
                source: FillSource::Transcript,
                model: None,
            }),
            resumption_state: None,
            session_info: SessionInfo {
                session_id: Some("s".into()),
                ..Default::default()
            },
        })
        .unwrap();
}

#[test]
fn times_for_people_are_local_with_their_offset_and_json_stays_utc() {
    let mut sb = Sandbox::new();
    seed_checkpoint(&sb);
    // A zone given as a POSIX rule needs no zone files on the machine.
    sb.set_env("TZ", "<+0530>-5:30");
    let list = sb.run(&["checkpoint", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(
        list.stdout.contains("2026-11-18 16:36:40 +05:30"),
        "{}",
        list.stdout
    );
    let page = sb.run(&["checkpoint", "show", "1"], "");
    assert!(
        page.stdout
            .starts_with("cx-001 · 2026-11-18 16:36:40 +05:30 · "),
        "{}",
        page.stdout
    );
    let json = sb.run(&["--json", "checkpoint", "list"], "");
    let items: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(items[0]["timestamp"], "2026-11-18T11:06:40.000Z");

    // Summer and winter time of one zone, each at its own date.
    sb.set_env("TZ", "CET-1CEST,M3.5.0,M10.5.0/3");
    let winter = sb.run(&["checkpoint", "list"], "").stdout;
    assert!(winter.contains("2026-11-18 12:06:40 +01:00"), "{winter}");

    let generated = sb.run(
        &["resume-log", "generate", "--session", "s", "--from", "-"],
        json!({"mission_summary": "m"}).to_string(),
    );
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    let stats = sb.run(&["resume-log", "stats"], "").stdout;
    let newest = stats.lines().find(|l| l.starts_with("newest ")).unwrap();
    assert!(
        newest.ends_with(" +01:00") || newest.ends_with(" +02:00"),
        "{stats}"
    );
    assert!(stats.lines().nth(1).unwrap().ends_with(" bytes"), "{stats}");
    let stats: Value =
        serde_json::from_str(&sb.run(&["--json", "resume-log", "stats"], "").stdout).unwrap();
    assert!(stats["newest"].as_str().unwrap().ends_with('Z'), "{stats}");
}

/// A zone named in the system's database, and `TZ` values that name nothing readable (a
/// device, a folder, nonsense): the time is still shown, in UTC, and the command succeeds.
#[test]
fn named_zones_and_unreadable_tz_values() {
    let mut sb = Sandbox::new();
    seed_checkpoint(&sb);
    for tz in ["no such zone", "/dev/zero", "/", "../../etc/passwd"] {
        sb.set_env("TZ", tz);
        let list = sb.run(&["checkpoint", "list"], "");
        assert_eq!(list.code, 0, "TZ={tz:?}: {}", list.stderr);
        assert!(
            list.stdout.contains("2026-11-18 11:06:40 +00:00"),
            "TZ={tz:?}: {}",
            list.stdout
        );
    }
    if !std::path::Path::new("/usr/share/zoneinfo/Europe/Berlin").is_file() {
        ctxmon_test_support::skip!(
            "no /usr/share/zoneinfo/Europe/Berlin here; skipping the named zone"
        );
        return;
    }
    for tz in [
        "Europe/Berlin",
        ":Europe/Berlin",
        "/usr/share/zoneinfo/Europe/Berlin",
    ] {
        sb.set_env("TZ", tz);
        let list = sb.run(&["checkpoint", "list"], "").stdout;
        assert!(
            list.contains("2026-11-18 12:06:40 +01:00"),
            "TZ={tz:?}: {list}"
        );
    }
}

#[test]
fn sentences_use_separators_and_whole_percentages() {
    let sb = Sandbox::new();
    // 165,000 of 200,000: CRITICAL, 2,000 tokens before Claude Code's auto-compact point.
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    let transcript = folder.join("s.jsonl");
    std::fs::write(&transcript, transcript_with(&[40_000, 165_000])).unwrap();
    let run = sb.run(
        &["hooks", "prompt-submit"],
        sb.prompt_input("s", &transcript),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(
        tag.contains("About 2,000 tokens until auto-compaction."),
        "{tag}"
    );
    // Attribute values are data for programs and keep plain digits.
    assert!(tag.contains("tokens=\"165000\""), "{tag}");

    let status = sb.run(
        &["status", "--transcript", transcript.to_str().unwrap()],
        "",
    );
    assert!(status.stdout.starts_with("ctx 82% "), "{}", status.stdout);
    assert!(
        status.stdout.contains("165,000/200,000 tokens"),
        "{}",
        status.stdout
    );

    // The resume log writes the fill as status does: 82%, not 82.5%.
    let log = sb.run(
        &["resume-log", "generate", "--session", "s", "--from", "-"],
        json!({"mission_summary": "m"}).to_string(),
    );
    assert_eq!(log.code, 0, "{}", log.stderr);
    assert!(log.stdout.contains(" tokens)"), "{}", log.stdout);
    let md = sb.run(&["resume-log", "show", "s"], "").stdout;
    assert!(md.contains("- Used: 165,000 tokens (82%)"), "{md}");
    assert!(!md.contains("82.5%"), "{md}");
}
