//! How a lesson reads: "use `X`, not `Y` (why Y failed)", short enough to be paid for on every
//! later turn.
//!
//! A short command of one line is quoted whole. A longer one, or a command of several lines
//! (a `curl` with its headers and body on lines of their own, a script), is not: whole, the
//! two would cost hundreds of characters to say what a few say. Its lesson quotes where the
//! two differ (the first line that differs, around the characters that do), after how the
//! command starts, which says what was being run.

use super::text::cut;

/// The most characters quoted of a differing line, and of how the command starts.
const LINE_CHARS: usize = 100;
/// The characters kept on each side of where two long lines differ.
const AROUND: usize = 24;

/// The lesson that `good` worked where `bad` failed for `why`: whole when both are single
/// lines of at most `max` characters together, else where they differ; `None` when they
/// differ in no line both have.
pub(crate) fn lesson(good: &str, bad: &str, why: &str, max: usize) -> Option<String> {
    let lines = |c: &str| -> Vec<String> {
        c.lines()
            .map(|l| l.trim().trim_end_matches('\\').trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    let (g, b) = (lines(good), lines(bad));
    if let ([x], [y]) = (g.as_slice(), b.as_slice())
        && x.chars().count() + y.chars().count() <= max
    {
        return Some(format!("use `{x}`, not `{y}` ({why})"));
    }
    let at = g.iter().zip(&b).position(|(x, y)| x != y)?;
    let (start, x, y) = around_difference(&g[at], &b[at]);
    let head = match (at, start) {
        (0, "") => None,
        (0, start) => Some(start.to_string()),
        _ => Some(cut(&g[0], LINE_CHARS)),
    };
    Some(match head {
        None => format!("use `{x}`, not `{y}` ({why})"),
        Some(head) => format!("in `{head}`: use `{x}`, not `{y}` ({why})"),
    })
}

/// Two lines that differ, as quoted: whole when both are short, else from a few characters
/// before their first difference to a few after their last, with what comes before that
/// (cut to a few words) to say where it is.
fn around_difference<'l>(x: &'l str, y: &str) -> (&'l str, String, String) {
    if x.chars().count().max(y.chars().count()) <= LINE_CHARS {
        return ("", x.to_string(), y.to_string());
    }
    let (xc, yc): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
    let same_start = xc.iter().zip(&yc).take_while(|(a, b)| a == b).count();
    let same_end = xc
        .iter()
        .rev()
        .zip(yc.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(xc.len().min(yc.len()) - same_start);
    // A few characters back, from the start of a word where there is one.
    let back = same_start.saturating_sub(AROUND);
    let from = match back {
        0 => 0,
        _ => xc[back..same_start]
            .iter()
            .position(|c| c.is_whitespace())
            .map_or(back, |w| back + w + 1),
    };
    let quote = |c: &[char]| -> String {
        let to = (c.len() - same_end + AROUND).min(c.len());
        let mut out = String::new();
        if from > 0 {
            out.push('…');
        }
        out.extend(&c[from..to]);
        if to < c.len() {
            out.push('…');
        }
        cut(&out, LINE_CHARS)
    };
    let before = x
        .char_indices()
        .nth(from)
        .map_or(x, |(byte, _)| &x[..byte])
        .trim_end();
    let start = match before.char_indices().nth(LINE_CHARS / 2) {
        // Up to the last whole word that fits.
        Some((byte, _)) => before[..byte]
            .rsplit_once(char::is_whitespace)
            .map_or(&before[..byte], |(words, _)| words),
        None => before,
    };
    (start, quote(&xc), quote(&yc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_commands_are_quoted_whole_within_the_limit() {
        assert_eq!(
            lesson("py run.py", "python3 run.py", "command not found", 200).as_deref(),
            Some("use `py run.py`, not `python3 run.py` (command not found)")
        );
        assert_eq!(lesson("  ", "y", "why", 200), None);
    }

    #[test]
    fn commands_of_several_lines_quote_the_line_that_differs_under_their_first() {
        let bad = "curl -X POST http://localhost:8888/notify \\\n  -H \"Content-Type: application/json\" \\\n  -d '{\"message\": \"Hi!\"}'";
        let good = "curl -X POST http://localhost:8888/notify \\\n  -H \"Content-Type: application/json\" \\\n  -d \"{\\\"message\\\": \\\"Hi!\\\"}\"";
        assert_eq!(
            lesson(good, bad, "{\"status\":\"error\"}", 200).as_deref(),
            Some(
                "in `curl -X POST http://localhost:8888/notify`: use `-d \"{\\\"message\\\": \\\"Hi!\\\"}\"`, not `-d '{\"message\": \"Hi!\"}'` ({\"status\":\"error\"})"
            )
        );
        // Different first lines: those are the lesson.
        assert_eq!(
            lesson(
                "py a.py\necho ok",
                "python3 a.py\necho ok",
                "not found",
                200
            )
            .as_deref(),
            Some("use `py a.py`, not `python3 a.py` (not found)")
        );
        // One is the other plus lines: no line differs, nothing to say.
        assert_eq!(lesson("a\nb\nc", "a\nb", "why", 200), None);
        // A long line that differs near its start is quoted from its start.
        let body = format!("{{\"message\": \"{}\"}}", "w".repeat(120));
        let text = lesson(
            &format!("curl -X POST http://h/notify \\\n  -d \"{body}\""),
            &format!("curl -X POST http://h/notify \\\n  -d '{body}'"),
            "bad",
            200,
        )
        .unwrap();
        assert!(
            text.starts_with("in `curl -X POST http://h/notify`: use `-d \"{"),
            "{text}"
        );
        // A long line is cut, not dropped.
        let body = "z".repeat(300);
        let text = lesson(&format!("cmd\n-d {body}"), "cmd\n-d 'q'", "bad", 200).unwrap();
        assert!(text.chars().count() < 260, "{text}");
        assert!(text.contains('…'), "{text}");
    }

    #[test]
    fn long_lines_are_quoted_around_where_they_differ() {
        let send = |message: &str| {
            format!(
                "curl -s -X POST http://localhost:8888/notify -H \"Content-Type: application/json\" -d '{{\"title\": \"PAI\", \"message\": \"{message}\"}}'"
            )
        };
        let good = send("Ja, ich bin da. Was kann ich fuer dich tun?");
        let bad = send("Ja, ich bin da! Was kann ich für dich tun?");
        let text = lesson(&good, &bad, "Failed to parse JSON", 200).unwrap();
        assert_eq!(
            text,
            "in `curl -s -X POST http://localhost:8888/notify -H`: use `…\"Ja, ich bin da. Was kann ich fuer dich tun?\"}'`, not `…\"Ja, ich bin da! Was kann ich für dich tun?\"}'` (Failed to parse JSON)"
        );
        assert!(text.chars().count() < good.chars().count() + bad.chars().count());
        // Different from the first character: no start to name.
        let (x, y) = ("a".repeat(150), "b".repeat(150));
        let text = lesson(&x, &y, "why", 100).unwrap();
        assert!(text.starts_with("use `aaaa"), "{text}");
        assert!(text.chars().count() < 230, "{text}");
    }
}
