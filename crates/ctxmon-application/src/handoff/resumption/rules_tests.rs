//! The user's standing rules.

use super::*;

fn rules(requests: &[&str]) -> Vec<String> {
    standing_rules(&[], requests)
}

#[test]
fn rules_said_in_passing_are_kept_verbatim_newest_first() {
    let r = rules(&[
        "Fix the login page. Never run git commands.",
        "Restore from backup, not git",
        "don't keep asking me to confirm safe operations",
        "Why does the build fail?",
        "Remember: the timestamps in the CSV are UTC",
    ]);
    assert_eq!(
        r,
        [
            "Remember: the timestamps in the CSV are UTC",
            "don't keep asking me to confirm safe operations",
            "Never run git commands.",
        ]
    );
}

#[test]
fn a_one_off_instruction_about_the_task_at_hand_is_not_a_rule() {
    // Seen shown as standing rules after a compaction, and followed against the user's next
    // message.
    let r = rules(&[
        "ensure min-width also",
        "don't change it yet, just review",
        "Only the header for now",
        "ok now change it",
    ]);
    assert!(r.is_empty(), "{r:?}");
    // "yet" makes even a strong word temporary.
    assert!(rules(&["Don't work in OneDrive yet"]).is_empty());
}

#[test]
fn an_instruction_said_in_two_messages_stands() {
    let r = rules(&[
        "use pnpm, not npm",
        "fix the lockfile",
        "I said: use pnpm for installs, not npm",
    ]);
    assert_eq!(r, ["I said: use pnpm for installs, not npm"]);
}

#[test]
fn spanish_and_chinese_rules_count() {
    let r = rules(&[
        "Nunca uses npm, usa pnpm",
        "永远不要修改测试文件。",
        "No sé por qué falla",
        "No uses la rama main todavía",
    ]);
    assert_eq!(r, ["永远不要修改测试文件。", "Nunca uses npm, usa pnpm"]);
}

#[test]
fn a_rule_taken_back_is_dropped() {
    let r = rules(&["Never execute anything, analyze only", "ok, do it yourself"]);
    assert!(r.is_empty(), "{r:?}");
    let r = rules(&["Always use tabs", "Actually, use spaces instead of tabs"]);
    assert!(r.is_empty(), "{r:?}");
}

#[test]
fn rules_carried_from_an_earlier_compaction_stay_older_than_the_tail() {
    let carried = vec!["Never push to main".to_string()];
    let r = standing_rules(&carried, &["Never touch the migrations"]);
    assert_eq!(r, ["Never touch the migrations", "Never push to main"]);
    // The same rule said again is one rule, at its newest place.
    let r = standing_rules(&carried, &["never push to main"]);
    assert_eq!(r, ["never push to main"]);
}

#[test]
fn a_pasted_manual_page_gives_no_rules() {
    let mut paste = String::from("Please add a --web flag like this:\n");
    for i in 0..40 {
        paste.push_str(&format!("line {i} of the manual\n"));
    }
    paste.insert_str(200, "With --web, open the page in a browser instead.\n");
    assert!(rules(&[&paste]).is_empty());
}

#[test]
fn the_rules_compared_with_each_new_sentence_stay_bounded() {
    // Every sentence is compared with the candidates found before it: unbounded, a tail of
    // thousands of short instructions cost PreCompact seconds (the square of their number).
    let requests: Vec<String> = (0..3 * MAX_CANDIDATES)
        .map(|i| format!("Never touch module{i} in crate{i}"))
        .collect();
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let found = candidates(&[], &requests);
    assert_eq!(found.len(), MAX_CANDIDATES);
    // The newest are the ones kept, and the kept rules are the newest standing ones.
    assert_eq!(
        found.last().map(|c| c.text.as_str()),
        requests.last().copied()
    );
    let r = rules(&requests);
    assert_eq!(r.len(), MAX_RULES);
    assert_eq!(r[0], requests[requests.len() - 1]);
}

#[test]
fn a_one_off_instruction_gives_way_before_a_standing_rule() {
    let mut requests = vec!["Never run the migrations"];
    let one_offs: Vec<String> = (0..MAX_CANDIDATES)
        .map(|i| format!("Only change file{i} here"))
        .collect();
    requests.extend(one_offs.iter().map(String::as_str));
    assert_eq!(rules(&requests), ["Never run the migrations"]);
}

#[test]
fn german_rules_count_and_german_one_offs_do_not() {
    let r = rules(&[
        "Nie direkt auf main pushen.",
        "Nur Stille. System Ton funktioniert aber.",
        "Immer noch kaputt.",
        "Nie pushen, vorerst",
        "Warum geht das nicht?",
        // In a real session: "note where we stand" before other work, not a rule.
        "merke dir den status. ich möchte erst noch ein paar aufräum und research arbeiten machen.",
        "Ab jetzt bitte immer die Tests laufen lassen",
    ]);
    assert_eq!(
        r,
        [
            "Ab jetzt bitte immer die Tests laufen lassen",
            "Nie direkt auf main pushen.",
        ]
    );
    // Taken back by a later permission, as in the other languages.
    let r = rules(&["Nie etwas ausführen, nur analysieren", "ok, mach es selbst"]);
    assert!(r.is_empty(), "{r:?}");
}
