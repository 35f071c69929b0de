//! Checkpoint numbering and retention end to end (contract C5), with the real
//! binary: a session's `compaction_sequence` is unique and increasing whatever was pruned or
//! ran at once, PreCompact's cost does not grow with the checkpoints ever saved, and old
//! acknowledged checkpoints are pruned as `checkpoints.keep` says — never the session's newest,
//! one a resume log names, or one not yet acknowledged.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctxmon_domain::DomainEvent;
use serde_json::{Value, json};

use crate::common::disk;
use crate::common::{Run, Sandbox, assistant_line_at, now_rfc3339};

fn transcript(sb: &Sandbox, session: &str) -> PathBuf {
    sb.write(
        &format!("{session}.jsonl"),
        assistant_line_at("a1", 170_000, "2026-11-20T09:59:00.000Z") + "\n",
    )
}

fn pre_compact(sb: &Sandbox, session: &str, t: &Path) -> Run {
    let input = sb.hook_input("PreCompact", session, t, json!({"trigger": "auto"}));
    sb.run(&["hooks", "pre-compact"], input)
}

fn prompt(sb: &Sandbox, session: &str, t: &Path) -> Run {
    let input = sb.hook_input("UserPromptSubmit", session, t, json!({"prompt": "go on"}));
    sb.run(&["hooks", "prompt-submit"], input)
}

/// `{"systemMessage":"Checkpoint cx-NNN saved at N% context fill"}` → NNN.
fn saved_id(run: &Run) -> u32 {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("no answer ({e}): {:?} {}", run.stdout, run.stderr));
    let message = v["systemMessage"].as_str().unwrap();
    message
        .strip_prefix("Checkpoint cx-")
        .and_then(|m| m.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{message}"))
}

/// The `compaction-alert`s of one prompt answer, by checkpoint id.
fn alerts(run: &Run) -> Vec<String> {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let Ok(v) = serde_json::from_str::<Value>(run.stdout.trim()) else {
        return Vec::new();
    };
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    let wrapped = format!("<all>{text}</all>");
    let doc = roxmltree::Document::parse(&wrapped).unwrap();
    doc.root_element()
        .children()
        .filter(|n| n.has_tag_name("compaction-alert"))
        .map(|n| n.attribute("checkpoint").unwrap().to_string())
        .collect()
}

#[test]
fn a_prune_does_not_bring_a_sequence_back() {
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    for n in 1..=5 {
        assert_eq!(saved_id(&pre_compact(&sb, "s", &t)), n);
    }
    let prune = sb.run(&["checkpoint", "prune", "--keep", "2"], "");
    assert_eq!(prune.code, 0, "{}", prune.stderr);
    assert_eq!(saved_id(&pre_compact(&sb, "s", &t)), 6);
    let disk = disk::audit(sb.dir());
    let sequences: Vec<(u32, u32)> = disk
        .checkpoints
        .values()
        .map(|c| (c.checkpoint_id.sequence(), c.compaction_sequence))
        .collect();
    assert_eq!(
        sequences,
        [(4, 4), (5, 5), (6, 6)],
        "the sixth is the sixth"
    );
    let recorded: Vec<u32> = disk
        .events_of("s")
        .filter_map(|e| match e.event {
            DomainEvent::CompactionDetected {
                compaction_sequence,
                ..
            } => Some(compaction_sequence),
            _ => None,
        })
        .collect();
    assert_eq!(recorded, [1, 2, 3, 4, 5, 6]);
}

/// 50 pre-compacts of one session at once, with prompts of that session among them. All run
/// unlocked, as hooks do once they have waited past the session lock (here `.ctxmon/state` is
/// a file, so the lock cannot be taken at all): the checkpoint lock alone must keep the
/// sequences distinct and gapless, and the markers alone must keep each alert to one prompt.
#[test]
fn fifty_concurrent_compactions_of_one_session_number_and_alert_once_each() {
    const N: usize = 50;
    let sb = Sandbox::new();
    // Generous, so that a loaded machine does not turn a lock wait into a lost checkpoint.
    sb.write(".ctxmon/config.toml", "[hooks]\ndeadline_ms = 60000\n");
    sb.write(".ctxmon/state", "not a folder");
    let t = sb.write(
        "t.jsonl",
        assistant_line_at("a1", 170_000, &now_rfc3339()) + "\n",
    );
    let compact = sb.hook_input("PreCompact", "one", &t, json!({"trigger": "auto"}));
    let ask = sb.hook_input("UserPromptSubmit", "one", &t, json!({"prompt": "go on"}));
    // Prompts spread among the compactions: every fifth job.
    let jobs: Vec<(Vec<String>, String)> = (0..N + N / 5)
        .map(|i| match i % 6 {
            5 => (vec!["hooks".into(), "prompt-submit".into()], ask.clone()),
            _ => (vec!["hooks".into(), "pre-compact".into()], compact.clone()),
        })
        .collect();
    let runs = sb.run_bounded(&jobs, 16);
    let mut ids = Vec::new();
    let mut alerted = Vec::new();
    for ((args, _), run) in jobs.iter().zip(&runs) {
        if args[1] == "pre-compact" {
            ids.push(saved_id(run));
        } else {
            alerted.extend(alerts(run));
        }
    }
    // Afterwards, one prompt alerts about whatever is left.
    alerted.extend(alerts(&prompt(&sb, "one", &t)));
    ids.sort_unstable();
    assert_eq!(ids, (1..=N as u32).collect::<Vec<_>>());

    std::fs::remove_file(sb.path(".ctxmon/state")).unwrap();
    let disk = disk::audit(sb.dir());
    let mut sequences: Vec<u32> = disk
        .checkpoints_of("one")
        .iter()
        .map(|c| c.compaction_sequence)
        .collect();
    sequences.sort_unstable();
    assert_eq!(
        sequences,
        (1..=N as u32).collect::<Vec<_>>(),
        "distinct and gapless"
    );
    assert_eq!(disk.sequence_marks["one"], N as u64 + 1);
    let mut created: Vec<u32> = disk
        .events_of("one")
        .filter_map(|e| match e.event {
            DomainEvent::CheckpointCreated {
                compaction_sequence,
                ..
            } => Some(compaction_sequence),
            _ => None,
        })
        .collect();
    created.sort_unstable();
    assert_eq!(created, sequences, "the events say the same");

    let distinct: BTreeSet<&String> = alerted.iter().collect();
    assert_eq!(distinct.len(), alerted.len(), "an alert twice: {alerted:?}");
    assert!(!alerted.is_empty());
    // Every checkpoint ends up acknowledged, each exactly once.
    assert_eq!(disk.markers.len(), N);
    let acks: Vec<&String> = disk
        .events_of("one")
        .filter_map(|e| match &e.event {
            DomainEvent::CheckpointAcknowledged { checkpoint_id } => Some(checkpoint_id),
            _ => None,
        })
        .collect();
    let distinct_acks: BTreeSet<&&String> = acks.iter().collect();
    assert_eq!((acks.len(), distinct_acks.len()), (N, N));
    eprintln!(
        "proof: {N} concurrent pre-compacts of one session and {} prompts, unlocked: sequences 1..={N}, {} alerts, none repeated",
        N / 5 + 1,
        alerted.len()
    );
}

/// The attack run's other finding: after one compaction, prompts of the session running at
/// once (unlocked, as past the session lock's wait; here `.ctxmon/state` is a file) each read
/// the checkpoint as pending, and one alert was injected into up to 4 prompts. Only the prompt
/// whose acknowledgement created the marker may alert.
#[test]
fn concurrent_prompts_alert_each_checkpoint_once() {
    const ROUNDS: u32 = 6;
    const PROMPTS: usize = 16;
    let sb = Sandbox::new();
    sb.write(".ctxmon/config.toml", "[hooks]\ndeadline_ms = 60000\n");
    sb.write(".ctxmon/state", "not a folder");
    // A long session, so that each prompt has real work between reading the checkpoint as
    // pending and acknowledging it (a `tier:critical` resume log from the transcript).
    let history: String = (0..2_000)
        .map(|i| assistant_line_at(&format!("h{i}"), 60_000, "2026-11-20T09:00:00.000Z") + "\n")
        .collect();
    let t = sb.write("t.jsonl", history);
    let ask = sb.hook_input("UserPromptSubmit", "one", &t, json!({"prompt": "go on"}));
    let jobs: Vec<(Vec<String>, String)> = (0..PROMPTS)
        .map(|_| (vec!["hooks".into(), "prompt-submit".into()], ask.clone()))
        .collect();
    let mut per_round = Vec::new();
    for round in 1..=ROUNDS {
        assert_eq!(saved_id(&pre_compact(&sb, "one", &t)), round);
        // A response after the compaction, CRITICAL again.
        let line = assistant_line_at(&format!("r{round}"), 170_000, &now_rfc3339()) + "\n";
        let mut file = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
        std::io::Write::write_all(&mut file, line.as_bytes()).unwrap();
        let alerted: Vec<String> = sb
            .run_bounded(&jobs, PROMPTS)
            .iter()
            .flat_map(alerts)
            .collect();
        per_round.push(alerted.len());
        assert_eq!(
            alerted,
            [format!("cx-{round:03}")],
            "round {round}: one alert, by one prompt"
        );
    }
    eprintln!(
        "proof: {ROUNDS} compactions, {PROMPTS} concurrent prompts after each: alerts per round {per_round:?}"
    );
}

/// 5,000 files under checkpoint names that cannot be read (as if thousands of checkpoints had
/// been saved by something else) next to one real checkpoint: PreCompact saves the next
/// checkpoint and reports none of them. Reading every file (as `next_sequence` did) reported
/// each one, and at 10,000 to 20,000 real checkpoints on a cold cache missed the deadline.
#[test]
fn pre_compact_does_not_read_the_checkpoints_it_does_not_need() {
    const PLANTED: u32 = 5_000;
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    assert_eq!(saved_id(&pre_compact(&sb, "s", &t)), 1);
    let dir = sb.path(".ctxmon/checkpoints");
    for n in 2..=PLANTED + 1 {
        std::fs::write(
            dir.join(format!("cx-{n:03}-checkpoint.json")),
            format!("{{\"not\": \"a checkpoint {n}\""),
        )
        .unwrap();
    }
    std::fs::write(dir.join(".next-id"), format!("{}\n", PLANTED + 2)).unwrap();

    let run = pre_compact(&sb, "s", &t);
    assert_eq!(saved_id(&run), PLANTED + 2);
    assert!(
        run.stderr.is_empty(),
        "no planted file may be read; {} lines on stderr, the first: {:?}",
        run.stderr.lines().count(),
        run.stderr.lines().next()
    );
    let saved: Value = serde_json::from_slice(
        &std::fs::read(dir.join(format!("cx-{}-checkpoint.json", PLANTED + 2))).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["compaction_sequence"], 2);
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default();
    assert!(!log.contains("skipped"), "{log}");
    // The planted files are still there: not counted, not deleted.
    let left = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().ends_with("-checkpoint.json")
        })
        .count();
    // All but cx-001, which the new checkpoint of its session superseded (pruned).
    assert_eq!(left, PLANTED as usize + 1);
    assert!(!dir.join("cx-001-checkpoint.json").exists());
}

#[test]
fn old_checkpoints_are_pruned_automatically() {
    let sb = Sandbox::new();
    sb.write(".ctxmon/config.toml", "[checkpoints]\nkeep = 3\n");
    let [n, u, a] = ["named", "unacked", "active"].map(|s| (s, transcript(&sb, s)));
    let compact = |(s, t): &(&str, PathBuf)| {
        let run = pre_compact(&sb, s, t);
        assert_eq!(run.stderr, "", "healthy: {}", run.stderr);
        saved_id(&run)
    };
    let ask = |(s, t): &(&str, PathBuf)| assert_eq!(prompt(&sb, s, t).code, 0);
    // cx-001: acknowledged, and named by its session's resume log (its only checkpoint).
    assert_eq!(compact(&n), 1);
    ask(&n);
    // cx-002: never acknowledged (no prompt of its session follows); superseded by cx-008.
    assert_eq!(compact(&u), 2);
    // cx-003 to cx-007: acknowledged one by one; the log of "active" names only the newest.
    for id in 3..=7 {
        assert_eq!(compact(&a), id);
        ask(&a);
    }
    // cx-008: the current session's newest.
    assert_eq!(compact(&u), 8);

    let disk = disk::audit(sb.dir());
    let left: Vec<u32> = disk.checkpoints.keys().copied().collect();
    assert_eq!(left, [1, 6, 7, 8], "pruned: 2 (superseded), 3, 4, 5");
    assert_eq!(disk.markers, [1, 6, 7], "markers go with their checkpoints");
    assert_eq!(
        disk.logs["named"]
            .named_checkpoints()
            .first()
            .map(|id| id.sequence()),
        Some(1)
    );
    // Pruning is housekeeping: info lines in the hook log, nothing on stderr (checked above).
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap();
    let pruned: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(" info pre-compact: pruned "))
        .filter_map(|l| l.rsplit(": ").next())
        .collect();
    assert_eq!(pruned, ["cx-003", "cx-004", "cx-002, cx-005"], "{log}");
    assert!(!log.contains(" warn "), "{log}");
    // Sequences carry on per session after all that.
    assert_eq!(disk.checkpoints[&8].compaction_sequence, 2);
    assert_eq!(disk.checkpoints[&7].compaction_sequence, 5);
}
