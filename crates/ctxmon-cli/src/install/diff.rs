//! A unified diff of two small texts, for `ctxmon install --dry-run`: the user sees exactly the
//! lines that would change, in the form every reviewer already reads.
//!
//! The diff itself is `similar`'s (Myers on lines, hunks and headers as diff(1) writes them);
//! this module fixes the context and bounds the time it may take.

use std::time::Duration;

use similar::TextDiff;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Settings files are small; a pathological pair stops refining after this long and shows the
/// rest of the difference as replaced lines, still a correct diff, rather than hang the command.
const TIMEOUT: Duration = Duration::from_secs(1);

/// `--- old_name` / `+++ new_name` and `@@` hunks; empty when the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    TextDiff::configure()
        .timeout(TIMEOUT)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(old_name, new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a\n", "a\n", "x", "y"), "");
    }

    #[test]
    fn an_insertion_shows_its_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\n4.5\n5\n6\n7\n8\n";
        assert_eq!(
            unified(old, new, "a", "b"),
            "--- a\n+++ b\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+4.5\n 5\n 6\n 7\n"
        );
    }

    #[test]
    fn far_apart_changes_make_two_hunks_and_a_missing_newline_is_marked() {
        let lines: Vec<String> = (1..=20).map(|i| format!("{i}\n")).collect();
        let old = lines.concat();
        let mut changed = lines.clone();
        changed[1] = "two\n".into();
        changed[18] = "nineteen\n".into();
        let new = changed.concat() + "end";
        let d = unified(&old, &new, "a", "b");
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert!(d.contains("-2\n+two\n"), "{d}");
        assert!(d.ends_with("+end\n\\ No newline at end of file\n"), "{d}");
    }

    #[test]
    fn a_new_file_is_all_additions() {
        let d = unified("", "{\n}\n", "/dev/null", "b");
        assert_eq!(d, "--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+{\n+}\n");
    }

    #[test]
    fn a_one_line_range_is_written_as_diff_writes_it() {
        assert_eq!(
            unified("a\n", "b\n", "x", "y"),
            "--- x\n+++ y\n@@ -1 +1 @@\n-a\n+b\n"
        );
    }

    #[test]
    fn two_large_unrelated_texts_still_diff_quickly_and_completely() {
        let old: String = (0..20_000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..20_000).map(|i| format!("new {i}\n")).collect();
        let started = std::time::Instant::now();
        let d = unified(&old, &new, "a", "b");
        assert!(started.elapsed() < TIMEOUT * 10, "{:?}", started.elapsed());
        assert_eq!(d.lines().filter(|l| l.starts_with("-old ")).count(), 20_000);
        assert_eq!(d.lines().filter(|l| l.starts_with("+new ")).count(), 20_000);
    }
}
