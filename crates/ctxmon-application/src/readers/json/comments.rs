//! JSON with comments, as Gemini CLI reads its `settings.json` (it strips `//` and `/* */`
//! comments before parsing): the comments are blanked to spaces, byte for byte, so the text
//! parses as JSON and every value keeps its byte offsets. A span editor can then find a value
//! in the blanked text and splice the original at the same place, comments kept.

/// `text` with every comment outside a string replaced by spaces (line breaks kept), the same
/// length in bytes; borrowed when it has none. An unterminated block comment runs to the end,
/// as it does for the agent.
pub fn blank_comments(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    if !b.windows(2).any(|w| w == b"//" || w == b"/*") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = b.to_vec();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (c, b.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                i += 1;
            }
            (b'/', Some(b'/')) => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p);
                blank(&mut out[i..end]);
                i = end;
            }
            (b'/', Some(b'*')) => {
                let end = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 2);
                blank(&mut out[i..end]);
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes of whole comments were replaced by ASCII spaces: still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// Spaces for every byte but line breaks, which keep the lines where they were.
fn blank(bytes: &mut [u8]) {
    for byte in bytes {
        if !matches!(*byte, b'\n' | b'\r') {
            *byte = b' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_become_spaces_and_offsets_stay() {
        let text = "{\n  // the model\n  \"a\": 1, /* ünïcode\n  block */ \"b\": \"x//y /*z*/\"\n}";
        let blanked = blank_comments(text);
        assert_eq!(blanked.len(), text.len());
        let value: serde_json::Value = serde_json::from_str(&blanked).unwrap();
        assert_eq!(value["a"], 1);
        assert_eq!(
            value["b"], "x//y /*z*/",
            "a string's slashes are not comments"
        );
        assert_eq!(blanked.find("\"b\""), text.find("\"b\""));
        assert_eq!(blanked.lines().count(), text.lines().count());
    }

    #[test]
    fn text_without_comments_is_borrowed_and_escapes_do_not_end_strings() {
        assert!(matches!(
            blank_comments(r#"{"url": "https:\/\/x"}"#),
            std::borrow::Cow::Borrowed(_)
        ));
        let tricky = r#"{"q": "a \" // not a comment", "n": 1} // one"#;
        let v: serde_json::Value = serde_json::from_str(&blank_comments(tricky)).unwrap();
        assert_eq!(v["q"], "a \" // not a comment");
    }

    #[test]
    fn an_unterminated_block_comment_runs_to_the_end() {
        let blanked = blank_comments("{\"a\": 1} /* open");
        assert_eq!(blanked.trim_end(), "{\"a\": 1}");
    }
}
