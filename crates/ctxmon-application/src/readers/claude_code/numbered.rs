//! The line numbers a Read or an Edit result shows (`cat -n` style, "    12→text"): where the
//! agent last looked in a file, read from the ends of the result without copying its text.

/// The first and last numbers of the `cat -n` lines ("\\n    12→text") in a raw line: the
/// first numbered line, then each next one while its number is one more (consecutive lines of
/// one file; what follows, such as the same file's text in `toolUseResult`, is not counted).
pub(super) fn numbered_range(line: &[u8]) -> Option<(u64, u64)> {
    const ARROW: &[u8] = "→".as_bytes();
    let number_before = |at: usize| -> Option<u64> {
        let head = line.get(..at)?;
        let digits = head.iter().rev().take_while(|b| b.is_ascii_digit()).count();
        let start = at - digits;
        // After `\n` and padding, or at the start of the string.
        let before = head.get(..start)?.iter().rev().find(|b| **b != b' ')?;
        if digits == 0 || digits > 9 || !matches!(before, b'n' | b'"') {
            return None;
        }
        std::str::from_utf8(head.get(start..)?).ok()?.parse().ok()
    };
    let mut arrows = memchr::memmem::find_iter(line, ARROW);
    let first = arrows.by_ref().find_map(number_before)?;
    let mut last = first;
    for at in arrows {
        match number_before(at) {
            Some(n) if n == last + 1 => last = n,
            Some(_) => break,
            None => {}
        }
    }
    Some((first, last))
}

/// The first and last line numbers of a file shown `cat -n` style ("    12→text", or a tab
/// after the number in older versions): the start of a read, or of an edit's snippet after
/// its one line of preamble; the end before any reminder the tool appends.
pub(super) fn numbered_lines(text: &str) -> Option<(u64, u64)> {
    let number = |line: &str| {
        let (n, _) = line.split_once('→').or_else(|| line.split_once('\t'))?;
        let n = n.trim();
        (!n.is_empty() && n.len() <= 9).then(|| n.parse::<u64>().ok())?
    };
    let first = text.lines().take(3).find_map(number)?;
    let last = text
        .lines()
        .rev()
        .take(40)
        .find_map(number)
        .unwrap_or(first);
    Some((first, last.max(first)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_and_an_edit_snippet_give_their_first_and_last_lines() {
        let read = "   657→    a = 1\n   658→\n   659→def f():\n\n<system-reminder>\nx\n</system-reminder>\n";
        assert_eq!(numbered_lines(read), Some((657, 659)));
        let edit = "The file /p/a.rs has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     5→<head>\n     6→  x\n     7→</head>";
        assert_eq!(numbered_lines(edit), Some((5, 7)));
        // Older versions put a tab after the number.
        assert_eq!(
            numbered_lines("     1\tfn main() {}\n     2\t}"),
            Some((1, 2))
        );
        assert_eq!(
            numbered_lines("File created successfully at: /p/a.rs"),
            None
        );
        assert_eq!(numbered_lines(""), None);
    }

    #[test]
    fn raw_lines_count_consecutive_numbers_only() {
        let line = r#"{"type":"user","message":{"content":[{"tool_use_id":"r1","type":"tool_result","content":"   120→fn a() {}\n   121→\n   122→fn b() {}\n"}]},"toolUseResult":{"file":{"content":"fn a() {}\n 7→ arrows in the file\n"}}}"#;
        assert_eq!(numbered_range(line.as_bytes()), Some((120, 122)));
        let edit = r#"{"content":"The file /p/a.rs has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     5→<head>\n     6→x"}"#;
        assert_eq!(numbered_range(edit.as_bytes()), Some((5, 6)));
        // No numbered line, an arrow in prose, a number too long to be a line: nothing.
        assert_eq!(numbered_range(br#"{"content":"ok"}"#), None);
        assert_eq!(numbered_range(r#"{"content":"a → b"}"#.as_bytes()), None);
        assert_eq!(
            numbered_range(r#"{"content":"\n12345678901234→x"}"#.as_bytes()),
            None
        );
    }
}
