//! Editing in place: one key changes and every other byte of the file stays.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use super::*;

/// A file as people write them: a header comment, comments above and after values, blank
/// lines, keys in no particular order, an inline table and a dotted key.
const FILE: &str = "\
# ctxmon settings for this project
resumption.tail_bytes = 65536

[context_monitor]
# Warn a little earlier than the default.
warning_threshold = 0.72   # was 0.75
inject = \"on-change\"
models = { \"claude-opus-4\" = 1000000, \"gpt-4.1\" = 1047576 }

# Hooks answer within this.
[hooks]
deadline_ms = 900

[resume_logs]
keep = 20 # a month of work
";

fn key(name: &str) -> KeyRef {
    KeyRef::resolve(name).unwrap()
}

fn edited(text: &str) -> Edited {
    Edited {
        original: text.to_string(),
        doc: text.parse().unwrap(),
    }
}

fn set_text(text: &str, name: &str, value: &str) -> String {
    let mut file = edited(text);
    let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .unwrap()
        .remove("v")
        .unwrap();
    set(&mut file.doc, &key(name), to_edit_value(&value).unwrap()).unwrap();
    file.text()
}

fn remove_text(text: &str, name: &str) -> (bool, String) {
    let mut file = edited(text);
    let removed = remove(&mut file.doc, &key(name));
    (removed, file.text())
}

#[test]
fn an_unchanged_document_is_the_file_byte_for_byte() {
    assert_eq!(edited(FILE).text(), FILE);
}

#[test]
fn replacing_a_value_keeps_its_comments_and_place() {
    assert_eq!(
        set_text(FILE, "context_monitor.warning_threshold", "0.7"),
        FILE.replace(
            "warning_threshold = 0.72   #",
            "warning_threshold = 0.7   #"
        )
    );
    assert_eq!(
        set_text(FILE, "resume_logs.keep", "30"),
        FILE.replace("keep = 20 #", "keep = 30 #")
    );
}

#[test]
fn a_new_key_joins_the_end_of_its_table() {
    assert_eq!(
        set_text(FILE, "hooks.log_max_bytes", "4096"),
        FILE.replace(
            "deadline_ms = 900\n",
            "deadline_ms = 900\nlog_max_bytes = 4096\n"
        )
    );
}

#[test]
fn a_new_section_goes_at_the_end() {
    assert_eq!(
        set_text(FILE, "checkpoints.keep", "5"),
        format!("{FILE}\n[checkpoints]\nkeep = 5\n")
    );
}

#[test]
fn an_inline_table_stays_inline() {
    assert_eq!(
        set_text(FILE, "context_monitor.models.o3", "200000"),
        FILE.replace("1047576 }", "1047576, o3 = 200000 }")
    );
    let (removed, text) = remove_text(FILE, "context_monitor.models.gpt-4.1");
    assert!(removed);
    assert_eq!(text, FILE.replace(", \"gpt-4.1\" = 1047576", ""));
    let (_, text) = remove_text(FILE, "context_monitor.models.claude-opus-4");
    assert_eq!(text, FILE.replace("\"claude-opus-4\" = 1000000, ", ""));
}

#[test]
fn a_dotted_key_stays_dotted() {
    assert_eq!(
        set_text(FILE, "resumption.max_age_hours", "12"),
        FILE.replace(
            "tail_bytes = 65536\n",
            "tail_bytes = 65536\nresumption.max_age_hours = 12\n"
        )
    );
}

#[test]
fn a_new_table_inside_an_inline_one_is_inline() {
    assert_eq!(
        set_text(
            "context_monitor = { inject = \"on-change\" }\n",
            "context_monitor.models.o3",
            "5"
        ),
        "context_monitor = { inject = \"on-change\", models = { o3 = 5 } }\n"
    );
}

#[test]
fn a_model_rule_in_a_new_file_gets_only_the_table_it_needs() {
    assert_eq!(
        set_text("", "context_monitor.models.gpt-4.1", "5"),
        "[context_monitor.models]\n\"gpt-4.1\" = 5\n"
    );
}

#[test]
fn a_whole_table_replaced_stays_a_table_where_it_was() {
    let text = "[context_monitor.models]\n# ours\nopus = 1\n\n[hooks]\ndeadline_ms = 900\n";
    assert_eq!(
        set_text(text, "context_monitor.models", "{ sonnet = 2 }"),
        "[context_monitor.models]\nsonnet = 2\n\n[hooks]\ndeadline_ms = 900\n"
    );
}

#[test]
fn removing_a_key_takes_the_comment_above_it_and_nothing_else() {
    let (removed, text) = remove_text(FILE, "context_monitor.warning_threshold");
    assert!(removed);
    assert_eq!(
        text,
        FILE.replace(
            "# Warn a little earlier than the default.\nwarning_threshold = 0.72   # was 0.75\n",
            ""
        )
    );
    let block = "[hooks]\ndeadline_ms = 900\n# Two lines\n# about this key.\nlog_max_bytes = 1\n";
    let (_, text) = remove_text(block, "hooks.log_max_bytes");
    assert_eq!(text, "[hooks]\ndeadline_ms = 900\n");
    let (removed, same) = remove_text(FILE, "checkpoints.keep");
    assert!(!removed);
    assert_eq!(same, FILE);
}

#[test]
fn an_emptied_table_goes_unless_its_header_has_a_comment() {
    let (_, text) = remove_text(FILE, "resume_logs.keep");
    assert_eq!(
        text,
        FILE.replace("\n[resume_logs]\nkeep = 20 # a month of work\n", "")
    );

    let hooks = "[hooks]\ndeadline_ms = 900\n";
    let first = format!("{hooks}\n[resume_logs]\nkeep = 20\n");
    let (_, text) = remove_text(&first, "hooks.deadline_ms");
    assert_eq!(
        text, "[resume_logs]\nkeep = 20\n",
        "no blank line left at the top"
    );

    let commented = format!("# Hooks answer within this.\n{hooks}");
    let (removed, text) = remove_text(&commented, "hooks.deadline_ms");
    assert!(removed);
    assert_eq!(text, "# Hooks answer within this.\n[hooks]\n");
}

#[test]
fn a_value_in_the_way_of_a_table_is_named() {
    let mut file = edited("context_monitor = 3\n");
    let err = set(
        &mut file.doc,
        &KeyRef::ModelEntry("gpt-4.1".into()),
        Value::from(5),
    )
    .unwrap_err();
    assert_eq!(err, "context_monitor is not a table; fix the file by hand");
    let mut file = edited("[context_monitor]\nmodels = 3\n");
    let err = set(
        &mut file.doc,
        &KeyRef::ModelEntry("gpt-4.1".into()),
        Value::from(5),
    )
    .unwrap_err();
    assert_eq!(
        err,
        "context_monitor.models is not a table; fix the file by hand"
    );
}
