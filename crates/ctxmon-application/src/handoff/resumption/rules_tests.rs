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
    ]);
    assert_eq!(
        r,
        [
            "don't keep asking me to confirm safe operations",
            "Restore from backup, not git",
            "Never run git commands.",
        ]
    );
}

#[test]
fn spanish_and_chinese_rules_count() {
    let r = rules(&[
        "No uses npm, usa pnpm",
        "不要修改测试文件。",
        "No sé por qué falla",
    ]);
    assert_eq!(r, ["不要修改测试文件。", "No uses npm, usa pnpm"]);
}

#[test]
fn a_rule_taken_back_is_replaced_by_the_newer_words() {
    let r = rules(&["Analyze only, don't execute anything", "ok, do it yourself"]);
    assert_eq!(
        r,
        ["ok, do it yourself (replaces: Analyze only, don't execute anything)"]
    );
    let r = rules(&["Always use tabs", "Actually, use spaces instead of tabs"]);
    assert_eq!(
        r,
        ["Actually, use spaces instead of tabs (replaces: Always use tabs)"]
    );
}

#[test]
fn rules_carried_from_an_earlier_compaction_stay_older_than_the_tail() {
    let carried = vec!["Never push to main".to_string()];
    let r = standing_rules(&carried, &["Don't touch the migrations"]);
    assert_eq!(r, ["Don't touch the migrations", "Never push to main"]);
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
