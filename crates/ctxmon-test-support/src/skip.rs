//! A skipped test that `cargo test` shows. The project has no `#[ignore]` (an ignored test is
//! one nobody runs), so a test whose precondition is missing here (the shared fixtures, a
//! FIFO, git) returns early and passes, and would read as `ok`. libtest captures what `print!`
//! and `eprint!` write, showing it only for a failure or under `--nocapture`; a line written to
//! the stderr handle itself is not captured, so [`skipped`] writes there: a plain `cargo test`
//! shows `SKIPPED <test>: <why>` on a line of its own. Run one at a time (`--test-threads 1`,
//! or a one-core machine), libtest has written `test <name> ... ` when the test starts and
//! writes `ok` when it ends, so the notice opens with a line break rather than finish that
//! line; run in parallel, another test's line may be half written.

use std::io::Write;

/// The line [`skipped`] writes for test `test`.
pub fn skip_line(test: &str, why: &str) -> String {
    format!("\nSKIPPED {test}: {why}\n")
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

    /// Run by [`a_skip_is_shown_without_nocapture_on_its_own_line`] in a child test process.
    #[test]
    fn skips_when_asked() {
        if std::env::var_os("CTXMON_SKIP_PROBE").is_some() {
            skipped("the probe's precondition is missing");
        }
    }

    /// The notice reaches the output of a plain `cargo test` run (no `--nocapture`), named
    /// for the test, on a line of its own, whether tests run in parallel or one at a time
    /// (where libtest's `test <name> ... ` waits for the `ok`). Both streams go into one pipe,
    /// in the order they are written, as on a terminal.
    #[test]
    fn a_skip_is_shown_without_nocapture_on_its_own_line() {
        let exe = std::env::current_exe().expect("test binary");
        for threads in ["1", "2"] {
            let (mut reader, writer) = std::io::pipe().expect("a pipe");
            let mut child = std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "skip::tests::skips_when_asked",
                    "--test-threads",
                    threads,
                ])
                .env("CTXMON_SKIP_PROBE", "1")
                .stdout(writer.try_clone().expect("a second end"))
                .stderr(writer)
                .spawn()
                .expect("run the test binary");
            let mut text = String::new();
            std::io::Read::read_to_string(&mut reader, &mut text).expect("read the output");
            let status = child.wait().expect("wait for the test binary");
            assert!(status.success(), "{text}");
            assert!(
                text.lines().any(|line| line
                    == "SKIPPED skip::tests::skips_when_asked: the probe's precondition is missing"),
                "{threads} threads: {text}"
            );
        }
    }
}
