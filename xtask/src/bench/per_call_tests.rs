//! Tests of the per-call rows: the plan, the floor, the ratios and their rendering.

use super::*;
use crate::bench::cases::HOOK_TARGET;

fn generated(name: &str, bytes: u64) -> Generated {
    Generated {
        path: PathBuf::from(format!("/data/{name}.jsonl")),
        bytes,
        expected_tokens: 157_321,
        reused: true,
    }
}

fn row(name: &str, median_ms: f64, target: Target) -> Row {
    Row {
        name: name.to_owned(),
        median_ms,
        p95_ms: median_ms,
        max_rss_kib: Some(6 * 1024),
        floor_kib: Some(1024),
        target,
        note: None,
    }
}

#[test]
fn every_row_names_its_floor_and_the_floor_checks_what_it_read() {
    let (small, big) = (generated("1KiB", 1117), generated("1GiB", 1 << 30));
    let loops = plan(Path::new("/f"), ("1 KiB", &small), ("1 GiB", &big), None);
    assert_eq!(loops.iter().map(Vec::len).collect::<Vec<_>>(), [11, 2]);
    let plan: Vec<PerCallCase> = loops.into_iter().flatten().collect();
    let names: Vec<&str> = plan.iter().map(|p| p.case.name.as_str()).collect();
    for p in &plan {
        assert!(p.case.name.starts_with(GROUP), "{}", p.case.name);
        if let Some((floor, _)) = &p.against {
            assert!(names.contains(&floor.as_str()), "{floor}");
        }
    }
    let floors: Vec<&PerCallCase> = plan.iter().filter(|p| p.against.is_none()).collect();
    assert_eq!(
        floors.len(),
        3,
        "two compared with, one run after PreCompact"
    );
    assert_eq!(floors[0].case.program.as_deref(), Some(Path::new("/f")));
    assert_eq!(
        floors[0].case.check,
        Check::StdoutContains("{\"tail_bytes\":1117}".into())
    );
    assert_eq!(
        floors[1].case.check,
        Check::StdoutContains("{\"tail_bytes\":65536}".into())
    );
    let pre_compact = &plan[11];
    assert_eq!(pre_compact.case.args, ["hooks", "pre-compact"]);
    assert_eq!(
        pre_compact.against.as_ref().map(|a| a.1),
        Some(MAX_PRE_COMPACT_RATIO)
    );
    let hook_bar = plan.iter().filter(|p| p.case.target == HOOK_TARGET);
    assert_eq!(
        hook_bar.count(),
        9,
        "prompt-submit, post-tool-use and the status line keep the hooks' bar"
    );
    // The same three calls in a project other sessions have used, against the large
    // transcript's floor; their setup makes that history with ctxmon's own hooks.
    let history: Vec<&PerCallCase> = plan
        .iter()
        .filter(|p| p.case.name.ends_with(history::LABEL))
        .collect();
    assert_eq!(history.len(), 3);
    for p in history {
        assert_eq!(
            p.against.as_ref().map(|a| a.0.as_str()),
            Some(floors[1].case.name.as_str())
        );
        let pre_compacts = p
            .case
            .setup
            .iter()
            .filter(|r| r.args[1] == "pre-compact")
            .count();
        let prompts = p
            .case
            .setup
            .iter()
            .filter(|r| r.args[1] == "prompt-submit")
            .count();
        assert_eq!(
            (pre_compacts, prompts),
            (history::OTHER_SESSIONS, history::OTHER_SESSIONS / 2)
        );
        assert!(
            p.case
                .setup
                .iter()
                .all(|r| !r.stdin.contains("bench-session"))
        );
    }
    assert!(
        plan.iter()
            .filter(|p| !p.case.name.ends_with(history::LABEL))
            .all(|p| p.case.setup.is_empty())
    );
}

#[test]
fn the_loop_runs_enough_rounds_for_a_median() {
    assert_eq!(runs(false, 30), FULL_RUNS);
    assert_eq!(runs(false, 300), 300);
    assert_eq!(runs(true, 5), QUICK_RUNS);
}

#[test]
fn a_baseline_build_runs_each_call_beside_this_one() {
    let (small, big) = (generated("1KiB", 1117), generated("1GiB", 1 << 30));
    let loops = plan(
        Path::new("/f"),
        ("1 KiB", &small),
        ("1 GiB", &big),
        Some(Path::new("/old/ctxmon")),
    );
    let heavy: Vec<&str> = loops[1].iter().map(|p| p.case.name.as_str()).collect();
    assert_eq!(
        heavy,
        [
            "per call: `hooks pre-compact`, 1 GiB (8 MiB tail derived)",
            "per call: floor (spawn, stdin, last 64 KiB), 1 GiB, right after pre-compact",
            "per call: `hooks pre-compact`, 1 GiB (8 MiB tail derived), baseline build",
            "per call: floor (spawn, stdin, last 64 KiB), 1 GiB, right after the baseline build's pre-compact",
        ]
    );
    let both = &loops[0];
    assert_eq!(both.len(), 20, "9 calls twice, 2 floors once");
    let baseline: Vec<&PerCallCase> = both
        .iter()
        .filter(|p| p.case.name.ends_with(BASELINE))
        .collect();
    assert_eq!(baseline.len(), 9);
    for p in baseline {
        assert_eq!(p.case.program.as_deref(), Some(Path::new("/old/ctxmon")));
        assert!(p.against.is_some());
    }
    assert_eq!(both[1].case.name, "per call: `hooks prompt-submit`, 1 KiB");
    assert_eq!(
        both[2].case.name,
        "per call: `hooks prompt-submit`, 1 KiB, baseline build"
    );
}

#[test]
fn ratios_are_taken_against_the_named_floor_and_judged() {
    let (small, big) = (generated("1KiB", 1117), generated("1GiB", 1 << 30));
    let planned: Vec<PerCallCase> = plan(Path::new("/f"), ("1 KiB", &small), ("1 GiB", &big), None)
        .into_iter()
        .flatten()
        .collect();
    let medians = [
        1.0, 1.2, 1.25, 1.4, 2.0, 2.2, 2.3, 2.4, 2.5, 2.5, 2.6, 20.0, 2.5,
    ];
    let rows = planned
        .iter()
        .zip(medians)
        .map(|(p, ms)| row(&p.case.name, ms, p.case.target))
        .collect();
    let measured = with_ratios(&planned, rows);
    let ratios: Vec<Option<f64>> = measured
        .iter()
        .map(|r| r.ratio.map(|(v, _)| (v * 100.0).round() / 100.0))
        .collect();
    assert_eq!(
        ratios,
        [
            None,
            Some(1.2),
            Some(1.25),
            Some(1.4),
            None,
            Some(1.1),
            Some(1.15),
            Some(1.2),
            Some(1.25),
            Some(1.25),
            Some(1.3),
            Some(10.0),
            None
        ]
    );
    assert!(measured[1].misses().is_empty());
    assert_eq!(measured[3].misses(), ["1.40× the floor > 1.3×"]);
    assert!(measured[10].misses().is_empty(), "1.3× is within the bar");
    let mut text = String::new();
    render(&mut text, &measured, 100);
    assert!(
        text.contains("| 1.40× | ≤ 1.3× floor, ≤ 5 ms, ≤ 16.0 MiB | **MISSED**"),
        "{text}"
    );
    assert!(
        text.contains("| 10.00× | ≤ 15× floor, ≤ 50 ms, ≤ 16.0 MiB | met |"),
        "{text}"
    );
    assert!(
        text.contains("| 1× | — | — |"),
        "the floors compared with: {text}"
    );
    assert!(
        text.contains("right after pre-compact | 2.50 ms | 2.50 ms | 6.0 MiB | — | — | — |"),
        "{text}"
    );
    let mut none = String::new();
    render(&mut none, &[], 100);
    assert!(none.is_empty());
}

/// The floor compiles and reads what it says: a tail of a large file, a small file whole,
/// nothing for a missing one.
#[test]
fn the_floor_builds_and_reads_the_transcripts_tail() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().unwrap();
    let exe = build_floor(&root, dir.path()).unwrap();
    let big = dir.path().join("big.jsonl");
    std::fs::write(&big, vec![b'x'; 100_000]).unwrap();
    let small = dir.path().join("small.jsonl");
    std::fs::write(&small, b"{}\n").unwrap();
    let answer = |stdin: String| {
        let mut child = Command::new(&exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    let input = |p: &Path| {
        format!(
            "{{\"session_id\":\"s\",\"transcript_path\":\"{}\"}}",
            p.display()
        )
    };
    assert_eq!(answer(input(&big)), "{\"tail_bytes\":65536}\n");
    assert_eq!(answer(input(&small)), "{\"tail_bytes\":3}\n");
    assert_eq!(
        answer(input(&dir.path().join("none"))),
        "{\"tail_bytes\":0}\n"
    );
    assert_eq!(answer("not json".into()), "{\"tail_bytes\":0}\n");
}
