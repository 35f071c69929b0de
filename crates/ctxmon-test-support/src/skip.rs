//! A skipped test that `cargo test` shows. The project has no `#[ignore]` (an ignored test is
//! one nobody runs), so a test whose precondition is missing here (the shared fixtures, a
//! FIFO, git) returns early and passes, and would read as `ok`. libtest captures what `print!`
//! and `eprint!` write, showing it only for a failure or under `--nocapture`; a line written to
//! the stderr handle itself is not captured, so [`skipped`] writes there: a plain `cargo test`
//! shows `SKIPPED <test>: <why>` beside the test's `ok`.

use std::io::Write;

/// The line [`skipped`] writes for test `test`.
pub fn skip_line(test: &str, why: &str) -> String {
    format!("SKIPPED {test}: {why}\n")
}

/// Says on the terminal, past libtest's capture, that the running test skips its work and why.
/// The test then returns (and shows `ok`); this line is what tells the two apart.
pub fn skipped(why: &str) {
    let current = std::thread::current();
    let test = current.name().unwrap_or("a test");
    // Written in one call so that lines of tests running in parallel do not interleave; a
    // failed write has nowhere better to go.
    let _ = std::io::stderr().write_all(skip_line(test, why).as_bytes());
}

/// [`skipped`] with `format!` arguments.
#[macro_export]
macro_rules! skip {
    ($($arg:tt)*) => {
        $crate::skip::skipped(&format!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run by [`a_skip_is_shown_without_nocapture`] in a child test process.
    #[test]
    fn skips_when_asked() {
        if std::env::var_os("CTXMON_SKIP_PROBE").is_some() {
            skipped("the probe's precondition is missing");
        }
    }

    /// The notice reaches the output of a plain `cargo test` run (no `--nocapture`), named
    /// for the test.
    #[test]
    fn a_skip_is_shown_without_nocapture() {
        let exe = std::env::current_exe().expect("test binary");
        let out = std::process::Command::new(exe)
            .args([
                "--exact",
                "skip::tests::skips_when_asked",
                "--test-threads",
                "2",
            ])
            .env("CTXMON_SKIP_PROBE", "1")
            .output()
            .expect("run the test binary");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{text}");
        assert!(
            text.contains(
                "SKIPPED skip::tests::skips_when_asked: the probe's precondition is missing"
            ),
            "{text}"
        );
    }
}
