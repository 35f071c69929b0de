//! Fitting across sections: room a section leaves unused goes to the sections that need it,
//! the 10,000-token whole holds, and the session metadata's lists keep their newest entries.

use proptest::prelude::*;

use super::fit::{Part, TOTAL_CHARS};
use super::fit_meta::{apply_meta, plan_meta};
use super::meta_fields::MetaList;
use super::pieces::{Piece, body_of, context_pieces, decision_pieces, item_pieces, mission_pieces};
use super::pieces_meta::{list_lead, metadata_pieces};
use super::tests::any_log;
use super::*;
use crate::estimate_tokens;

fn metrics() -> ContextMetrics {
    ContextMetrics::new(
        200_000,
        100_003,
        "manual",
        "claude-sonnet-4-5",
        Timestamp(1_795_000_000_000),
    )
}

/// A session of 60 failed test runs, each editing a file: the busy session whose log once
/// lost its newest errors to the oldest.
fn busy_session() -> ResumeLog {
    let mut log = ResumeLog::new("sess-many", metrics());
    log.mission_summary = "Make the build green".into();
    log.metadata.trigger = "manual".into();
    log.metadata.files_modified = (0..60).map(|i| format!("/w/src/mod_{i:03}.rs")).collect();
    log.metadata.commands_run = (0..60)
        .map(|i| format!("cargo test -p billing --test case_{i:03} -- --nocapture  # run {i}"))
        .collect();
    log.metadata.errors = (0..60)
        .map(|i| format!("error[E0308]: mismatched types in case_{i:03}.rs (failure number {i})"))
        .collect();
    log
}

#[test]
fn nothing_is_left_out_while_the_document_has_room() {
    let log = busy_session();
    let md = log.to_markdown();
    let rendered = log.render();
    // About 3,000 tokens of facts: far over the metadata's 40% of 1,000, far under 10,000.
    assert!(
        rendered.total_tokens().get() < 5_000,
        "{}",
        rendered.total_tokens()
    );
    assert_eq!(rendered.omitted_tokens(), 0, "{md}");
    for (i, list) in [
        &log.metadata.files_modified,
        &log.metadata.commands_run,
        &log.metadata.errors,
    ]
    .into_iter()
    .enumerate()
    {
        for entry in list {
            assert!(
                md.contains(&format!("- {entry}\n")),
                "list {i}: {entry}\n{md}"
            );
        }
    }
    assert!(!md.contains("truncated"), "{md}");
}

#[test]
fn shortened_lists_keep_their_newest_entries_and_count_the_rest() {
    let mut log = busy_session();
    let n = 400;
    log.metadata.files_modified = (0..n).map(|i| format!("/w/src/mod_{i:03}.rs")).collect();
    log.metadata.commands_run = (0..n)
        .map(|i| format!("cargo test -p billing --test case_{i:03} -- --nocapture  # run {i}"))
        .collect();
    log.metadata.errors = (0..n)
        .map(|i| format!("error[E0308]: mismatched types in case_{i:03}.rs (failure number {i})"))
        .collect();
    let md = log.to_markdown();
    let rendered = log.render();
    assert!(rendered.omitted_tokens() > 0);
    // The document is full: what is left out would not have fitted.
    assert!(
        rendered.total_tokens().get() > 9_950,
        "{}",
        rendered.total_tokens()
    );
    let newest = n - 1;
    for entry in [
        format!("- /w/src/mod_{newest:03}.rs\n"),
        format!("# run {newest}\n"),
        format!("(failure number {newest})\n"),
    ] {
        assert!(md.contains(&entry), "{entry} is missing:\n{md}");
    }
    for oldest in ["mod_000.rs", "case_000.rs", "(failure number 0)"] {
        assert!(!md.contains(oldest), "{oldest} is shown:\n{md}");
    }
    // Each list says how many older entries it left out, and the data agrees.
    let mut fitted = log.clone();
    fitted.fit_to_budget();
    let (was, now) = (&log.metadata, &fitted.metadata);
    for (label, before, after) in [
        ("Files Modified", &was.files_modified, &now.files_modified),
        ("Errors/Warnings", &was.errors, &now.errors),
        ("Commands Run", &was.commands_run, &now.commands_run),
    ] {
        assert!(after.len() > 10, "{label}: {}", after.len());
        let left_out = before.len() - after.len();
        assert!(
            md.contains(&format!("**{label} ({left_out} older left out):**")),
            "{label}\n{md}"
        );
        assert_eq!(after[1..], before[left_out + 1..], "{label}");
    }
}

#[test]
fn a_list_that_keeps_every_entry_but_shortens_its_oldest_draws_what_was_planned() {
    let mut meta = SessionMetadata::default();
    let oldest = "The build failed in the tax module. ".repeat(30);
    meta.errors = vec![oldest.clone(), "error: the newest one".into()];
    let pieces = metadata_pieces(&meta);
    let plan = plan_meta(&pieces, 400, 0).unwrap();
    let used = plan.used;
    apply_meta(&mut meta, &pieces, plan);
    // Both kept, the oldest shortened at a sentence: no older entry is left out.
    assert_eq!(meta.errors.len(), 2);
    assert!(meta.errors[0].len() < oldest.len() && oldest.starts_with(&meta.errors[0]));
    assert!(meta.older_left_out.is_empty());
    let drawn = body_of(&metadata_pieces(&meta).text(), 1).chars().count();
    assert!(drawn <= used, "{drawn} > {used}");
}

#[test]
fn a_section_alone_over_its_budget_gets_the_room_the_others_leave() {
    for section in [
        ResumeLogSection::MissionSummary,
        ResumeLogSection::Accomplishments,
        ResumeLogSection::KeyFindings,
        ResumeLogSection::Decisions,
        ResumeLogSection::NextSteps,
        ResumeLogSection::CriticalContext,
    ] {
        let mut log = ResumeLog::new("s", metrics());
        let items: Vec<String> = (0..2_000)
            .map(|i| format!("Item {i} is a full sentence."))
            .collect();
        match section {
            ResumeLogSection::MissionSummary => log.mission_summary = items.join(" "),
            ResumeLogSection::Accomplishments => log.accomplishments = items,
            ResumeLogSection::KeyFindings => log.key_findings = items,
            ResumeLogSection::Decisions => {
                log.decisions = items
                    .into_iter()
                    .map(|decision| Decision {
                        decision,
                        rationale: String::new(),
                    })
                    .collect();
            }
            ResumeLogSection::NextSteps => log.next_steps = items,
            _ => {
                log.critical_context = items
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| (format!("k{i:04}"), t.into()))
                    .collect();
            }
        }
        let rendered = log.render();
        let total = rendered.total_tokens().get();
        assert!(total > 9_950 && total <= 10_000, "{section:?}: {total}");
        let block = rendered
            .sections
            .iter()
            .find(|s| s.section == section)
            .unwrap();
        assert!(block.tokens.get() > 8_000, "{section:?}: {}", block.tokens);
        assert!(block.text.contains("tokens omitted]"), "{section:?}");
    }
}

#[test]
fn spare_room_goes_first_to_the_sections_a_resuming_agent_needs_most() {
    let mut log = ResumeLog::new("s", metrics());
    let many = |what: &str| -> Vec<String> {
        (0..2_000)
            .map(|i| format!("{what} {i} is a full sentence."))
            .collect()
    };
    log.accomplishments = many("Done");
    log.next_steps = many("Todo");
    let rendered = log.render();
    let tokens = |s: ResumeLogSection| {
        rendered
            .sections
            .iter()
            .find(|b| b.section == s)
            .map(|b| b.tokens.get())
            .unwrap_or(0)
    };
    // Next steps come first in the spare order, accomplishments keep their own share.
    assert!(tokens(ResumeLogSection::NextSteps) > 5_000);
    let done = tokens(ResumeLogSection::Accomplishments);
    assert!((1_900..=2_000).contains(&done), "{done}");
    assert_eq!(Part::SPARE_ORDER[0], Part::NextSteps);
}

/// The largest piece of `log` (tidied), with the longest list label it could need: no part
/// leaves out a piece while this much room is unused.
fn largest_piece(log: &ResumeLog) -> usize {
    let mut log = log.clone();
    log.tidy();
    let m = metadata_pieces(&log.metadata);
    let pieces: Vec<Vec<Piece>> = vec![
        mission_pieces(&log.mission_summary),
        item_pieces("- [x] ", &log.accomplishments),
        item_pieces("- ", &log.key_findings),
        decision_pieces(&log.decisions),
        item_pieces("- [ ] ", &log.next_steps),
        context_pieces(&log.critical_context),
        m.facts.clone(),
        m.notes.clone(),
        m.lists.iter().flat_map(|l| l.items.clone()).collect(),
    ];
    let label = MetaList::ALL
        .iter()
        .map(|l| list_lead(*l, u64::MAX).chars().count())
        .max()
        .unwrap_or(0);
    pieces.iter().flatten().map(Piece::chars).max().unwrap_or(0) + label
}

/// Markers end with their count's digits and parts trim a line break or two: what the room a
/// document leaves unused may hold beyond the piece it could not show.
const SLACK: usize = 64;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_whole_holds_and_nothing_is_left_out_that_would_fit(log in any_log()) {
        let rendered = log.render();
        let md = rendered.markdown();
        let chars = md.chars().count();
        prop_assert!(chars <= TOTAL_CHARS, "{chars}");
        prop_assert!(estimate_tokens(&md) <= ResumeLogSection::TOTAL_BUDGET);
        if rendered.omitted_tokens() > 0 {
            let unused = TOTAL_CHARS - chars;
            let largest = largest_piece(&log);
            prop_assert!(
                unused < largest + SLACK,
                "{unused} characters unused, largest piece {largest}"
            );
        }
    }

    #[test]
    fn each_part_draws_within_its_room_and_gets_at_least_its_share(log in any_log()) {
        let mut tidied = log.clone();
        tidied.tidy();
        let before = tidied.drawn_chars();
        let mut fitted = log.clone();
        let rooms = fitted.fit_rooms();
        let after = fitted.drawn_chars();
        let mut sum = 0;
        for part in Part::ALL {
            prop_assert!(after.of(part) <= rooms.of(part), "{part:?}: {} > {}", after.of(part), rooms.of(part));
            if part != Part::Metrics {
                // A part that needed its share had it (less a piece that did not fit).
                let share = part.share().min(before.of(part));
                prop_assert!(
                    rooms.of(part) + largest_piece(&log) + SLACK >= share,
                    "{part:?}: {} of share {share}",
                    rooms.of(part)
                );
            }
            sum += rooms.of(part);
        }
        prop_assert!(sum <= TOTAL_CHARS, "{sum}");
    }

    #[test]
    fn shortened_metadata_lists_keep_a_suffix(
        log in any_log(),
        files in prop::collection::vec("[a-z/]{1,300}", 0..120),
        errors in prop::collection::vec("([a-z]{1,9}[ .\n]){1,60}", 0..120),
        commands in prop::collection::vec("[ -~]{1,300}", 0..120),
        dirty in prop::collection::vec("( M|\\?\\?) [a-z/]{1,60}", 0..100),
        agents in prop::collection::vec("[A-Za-z]{1,20}", 0..30),
    ) {
        let mut log = log;
        log.metadata.files_modified = files;
        log.metadata.errors = errors;
        log.metadata.commands_run = commands;
        log.metadata.git_dirty_files = dirty;
        log.metadata.agents_used = agents;
        let mut original = log.clone();
        original.tidy();
        let mut fitted = log.clone();
        fitted.fit_to_budget();
        for list in MetaList::ALL {
            let was = list.of(&original.metadata);
            let now = list.of(&fitted.metadata);
            prop_assert!(now.len() <= was.len());
            let left_out = was.len() - now.len();
            if let Some((oldest, rest)) = now.split_first() {
                // A suffix of the newest entries, the oldest of them perhaps shortened.
                prop_assert_eq!(rest, &was[left_out + 1..]);
                prop_assert!(was[left_out].starts_with(oldest.as_str()));
                let counted = fitted.metadata.older_left_out.get(list.key()).copied().unwrap_or(0);
                prop_assert_eq!(counted, left_out as u64);
            } else {
                prop_assert!(!fitted.metadata.older_left_out.contains_key(list.key()));
            }
        }
        let again = {
            let mut a = fitted.clone();
            a.fit_to_budget();
            a
        };
        prop_assert_eq!(&again, &fitted);
        prop_assert_eq!(fitted.to_markdown(), log.to_markdown());
    }
}
