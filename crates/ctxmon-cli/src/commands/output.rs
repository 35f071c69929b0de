//! What the listing commands (`checkpoint`, `resume-log`) share for their text output: a column
//! table, text clipped for a terminal, a line on stdout by the one stdout rule (`crate::out`;
//! JSON goes through `crate::json_out`) and notes on stderr that never fail.

use std::io::{self, Write};

use anyhow::anyhow;
use ctxmon_application::ports::PortError;

use crate::exit::{CmdResult, Failure};

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// Numbers: right-aligned so the digits line up.
    Right,
}

/// A table for people: a header row, then one row per item, columns two spaces apart and as
/// wide as their widest cell (in characters), no trailing spaces.
pub fn table<const N: usize>(columns: [(&str, Align); N], rows: &[[String; N]]) -> String {
    let mut widths = columns.map(|(title, _)| title.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut push_row = |cells: &[String; N]| {
        let line: Vec<String> = cells
            .iter()
            .zip(widths)
            .zip(columns)
            .map(|((cell, w), (_, align))| match align {
                Align::Left => format!("{cell:<w$}"),
                Align::Right => format!("{cell:>w$}"),
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    };
    push_row(&columns.map(|(title, _)| title.to_owned()));
    for row in rows {
        push_row(row);
    }
    out
}

/// At most `max` characters, control characters made visible: session ids and rejected ids
/// come from outside and must not garble the terminal or flood it.
pub fn clip(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Prints `text` and a newline by the one stdout rule (`crate::out`: a reader that stopped
/// early ends the command quietly).
pub fn emit(text: &str) -> CmdResult {
    crate::out::outln!("{text}")
}

/// A note on stderr (a skipped file, a warning); a closed stderr is no reason to fail.
pub fn note(text: &str) {
    let _ = writeln!(io::stderr().lock(), "ctxmon: {text}");
}

/// A store that could not be read or written: exit 1 with the port's message.
pub fn storage(e: PortError) -> Failure {
    Failure::Other(anyhow!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fit_their_widest_cell_and_numbers_align_right() {
        let rows = [
            ["cx-001".to_owned(), "7%".to_owned(), "yes".to_owned()],
            ["cx-0002".to_owned(), "100%".to_owned(), String::new()],
        ];
        let text = table(
            [
                ("ID", Align::Left),
                ("FILL", Align::Right),
                ("ACK", Align::Left),
            ],
            &rows,
        );
        assert_eq!(
            text,
            "ID       FILL  ACK\ncx-001     7%  yes\ncx-0002  100%\n"
        );
    }

    #[test]
    fn clipped_text_stays_short_and_harmless() {
        assert_eq!(clip("ab\u{7}cdef", 4), "ab?c…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
