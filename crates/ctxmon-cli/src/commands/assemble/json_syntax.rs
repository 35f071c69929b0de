//! JSON syntax errors that say *where* in the document they are, as a JSON path.
//!
//! serde_json reports a syntax error by line and column, which in a 50 MB single-line document
//! is no help. Re-reading the text up to the error with a tiny scanner that only tracks object
//! keys and array indices gives the path (`repo.files[0].relevanceScore`) at the cost of one
//! linear pass, paid only when the document is already rejected.

/// `not valid JSON at <path> (line L, column C): <serde's reason>[; <hint>]`.
pub fn describe(text: &str, error: &serde_json::Error) -> String {
    let offset = byte_offset(text, error.line(), error.column());
    let prefix = text.get(..offset).unwrap_or(text);
    let path = path_at(prefix);
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    };
    let message = error.to_string();
    let reason = reason_only(&message);
    let hint = hint(text.get(offset.saturating_sub(1)..).unwrap_or(""));
    format!(
        "not valid JSON{at} (line {}, column {}): {reason}{hint}",
        error.line(),
        error.column()
    )
}

/// serde_json appends " at line L column C" to its message; the caller prints them itself.
fn reason_only(message: &str) -> &str {
    message
        .rfind(" at line ")
        .and_then(|at| message.get(..at))
        .unwrap_or(message)
}

/// Words for the mistakes people really make: JavaScript's and Python's non-JSON numbers.
fn hint(rest: &str) -> &'static str {
    let rest = rest.trim_start_matches(|c: char| c == ':' || c == ',' || c.is_whitespace());
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    if ["NaN", "Infinity", "inf", "nan"]
        .iter()
        .any(|word| rest.starts_with(word))
    {
        "; NaN and Infinity are not JSON numbers: write a number or null"
    } else {
        ""
    }
}

/// serde_json counts lines from 1 and columns in bytes from 1 (0 at the very start).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(at, _)| at + 1)
    };
    line_start.saturating_add(column).min(text.len())
}

#[derive(Debug)]
enum Frame {
    /// The key of the member being read, once its name has been seen.
    Object {
        key: Option<String>,
        in_value: bool,
    },
    Array {
        index: usize,
    },
}

/// The path of the value being read at the end of `prefix`.
fn path_at(prefix: &str) -> String {
    let mut stack: Vec<Frame> = Vec::new();
    let mut chars = prefix.chars();
    while let Some(c) = chars.next() {
        match c {
            '{' => stack.push(Frame::Object {
                key: None,
                in_value: false,
            }),
            '[' => stack.push(Frame::Array { index: 0 }),
            '}' | ']' => {
                stack.pop();
            }
            ':' => {
                if let Some(Frame::Object { in_value, .. }) = stack.last_mut() {
                    *in_value = true;
                }
            }
            ',' => match stack.last_mut() {
                Some(Frame::Array { index }) => *index = index.saturating_add(1),
                Some(Frame::Object { key, in_value }) => {
                    *key = None;
                    *in_value = false;
                }
                None => {}
            },
            '"' => {
                let string = read_string(&mut chars);
                if let Some(Frame::Object {
                    key,
                    in_value: false,
                }) = stack.last_mut()
                {
                    *key = Some(string);
                }
            }
            _ => {}
        }
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object { key: Some(key), .. } => {
                let plain = !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if plain {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                } else {
                    path.push_str(&format!("[{key:?}]"));
                }
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// Reads a string's body after its opening quote; escapes are kept as written except `\"`.
fn read_string(chars: &mut std::str::Chars<'_>) -> String {
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => {
                if let Some(escaped) = chars.next() {
                    if escaped != '"' && escaped != '\\' {
                        out.push('\\');
                    }
                    out.push(escaped);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        match serde_json::from_str::<serde_json::Value>(text) {
            Err(e) => describe(text, &e),
            Ok(_) => panic!("{text} parsed"),
        }
    }

    #[test]
    fn nan_and_infinity_are_named_by_path_with_a_hint() {
        let text = r#"{"repo":{"files":[{"path":"a"},{"path":"b","relevanceScore":NaN}]}}"#;
        let got = message(text);
        assert!(
            got.starts_with("not valid JSON at repo.files[1].relevanceScore (line 1, column "),
            "{got}"
        );
        assert!(got.ends_with("NaN and Infinity are not JSON numbers: write a number or null"));
        let got = message("{\n  \"memory\": {\"pinned\": [\n {\"importance\": -Infinity}]}}");
        assert!(
            got.starts_with("not valid JSON at memory.pinned[0].importance (line 3, column "),
            "{got}"
        );
    }

    #[test]
    fn out_of_range_numbers_and_truncation_are_named_by_path() {
        let got = message(r#"{"a":[1,2,{"b":1e400}]}"#);
        assert!(
            got.starts_with("not valid JSON at a[2].b (line 1, column "),
            "{got}"
        );
        assert!(got.contains("number out of range"), "{got}");
        assert!(!got.contains("; NaN"), "{got}");
        let got = message(r#"{"runId":"#);
        assert!(got.starts_with("not valid JSON at runId ("), "{got}");
        assert!(got.ends_with("EOF while parsing a value"), "{got}");
    }

    #[test]
    fn keys_with_odd_characters_and_escaped_quotes_stay_readable() {
        let got = message(r#"{"we\"ird key":{"x,y":[true, nope]}}"#);
        assert!(
            got.starts_with(r#"not valid JSON at ["we\"ird key"]["x,y"][1] ("#),
            "{got}"
        );
    }

    #[test]
    fn an_error_at_the_top_level_has_no_path() {
        let got = message("nope");
        assert!(got.starts_with("not valid JSON (line 1, column "), "{got}");
    }
}
