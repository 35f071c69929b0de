//! JSON on stdout, under one rule for every command: indented (two spaces) when stdout is a
//! terminal, where a person reads it, and one line otherwise (a pipe, a file), where a program
//! does and one document per line is easiest to split. `--json` output, `assemble`'s bundle and
//! `config schema` follow it; hook answers do not: they are Claude Code's wire format, always
//! one line.

use std::io::IsTerminal;

use anyhow::anyhow;
use serde::Serialize;

use crate::exit::{CmdResult, Failure};

/// How JSON is laid out on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Pretty,
    Compact,
}

impl Layout {
    /// The layout for this process's stdout.
    pub fn for_stdout() -> Layout {
        if std::io::stdout().is_terminal() {
            Layout::Pretty
        } else {
            Layout::Compact
        }
    }
}

/// `value` laid out as `layout` says (no trailing newline).
pub fn to_text(value: &impl Serialize, layout: Layout) -> Result<String, Failure> {
    let text = match layout {
        Layout::Pretty => serde_json::to_string_pretty(value),
        Layout::Compact => serde_json::to_string(value),
    };
    text.map_err(|e| Failure::Other(anyhow!("cannot write JSON: {e}")))
}

/// `value` and a newline on stdout, laid out for it.
pub fn print(value: &impl Serialize) -> CmdResult {
    let text = to_text(value, Layout::for_stdout())?;
    write_line(&text)
}

/// The `--json` error object of a failed command on stdout (see `Failure::json_error`). Its
/// write may fail like any other; the exit code says what happened either way.
pub fn print_error(failure: &Failure) {
    if let Some(object) = failure.json_error() {
        let _ = print(&object);
    }
}

/// One line on stdout under `out`'s rule: a reader that has gone ends the command quietly.
fn write_line(text: &str) -> CmdResult {
    crate::out::outln!("{text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_line_for_programs_indented_for_people() {
        let value = json!({"a": [1, 2], "b": null});
        assert_eq!(
            to_text(&value, Layout::Compact).unwrap(),
            r#"{"a":[1,2],"b":null}"#
        );
        assert_eq!(
            to_text(&value, Layout::Pretty).unwrap(),
            "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": null\n}"
        );
    }
}
