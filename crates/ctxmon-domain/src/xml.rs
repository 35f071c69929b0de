//! XML escaping for everything ctxmon interpolates into the tags it injects.
//!
//! Text from transcripts, resumption files and hook input is untrusted: a `</context-monitor>`
//! inside a user's prompt must stay text, never close our tag.

/// Escapes character data (element content): `&`, `<` and `>`.
pub fn escape_text(input: &str) -> String {
    escape(input, false)
}

/// Escapes an attribute value: additionally `"` and `'`, and the whitespace characters an XML
/// reader would otherwise normalise away.
pub fn escape_attr(input: &str) -> String {
    escape(input, true)
}

fn escape(input: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(input.len() + input.len() / 8);
    for c in input.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            // Characters XML 1.0 forbids outright are dropped rather than escaped: no reader
            // would accept them even as references.
            c if is_forbidden(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// XML 1.0 allows #x9, #xA, #xD, #x20-#xD7FF, #xE000-#xFFFD and #x10000-#x10FFFF.
fn is_forbidden(c: char) -> bool {
    let u = c as u32;
    !(u == 0x9
        || u == 0xA
        || u == 0xD
        || (0x20..=0xD7FF).contains(&u)
        || (0xE000..=0xFFFD).contains(&u)
        || u >= 0x10000)
}

/// Removes the characters XML cannot carry, which is what an escape → parse round trip yields.
pub fn xml_representable(input: &str) -> String {
    input.chars().filter(|c| !is_forbidden(*c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_text("</context-monitor> & <x>"),
            "&lt;/context-monitor&gt; &amp; &lt;x&gt;"
        );
        assert_eq!(escape_attr(r#"a"b'c"#), "a&quot;b&apos;c");
        assert_eq!(escape_text("nul\u{0}bell\u{7}"), "nulbell");
    }

    fn round_trip_text(s: &str) -> String {
        let xml = format!("<t>{}</t>", escape_text(s));
        let doc = roxmltree::Document::parse(&xml).expect("escaped text must parse");
        doc.root_element().text().unwrap_or("").to_string()
    }

    fn round_trip_attr(s: &str) -> String {
        let xml = format!("<t a=\"{}\"/>", escape_attr(s));
        let doc = roxmltree::Document::parse(&xml).expect("escaped attribute must parse");
        doc.root_element().attribute("a").unwrap_or("").to_string()
    }

    proptest! {
        #[test]
        fn text_round_trips(s in any::<String>()) {
            prop_assert_eq!(round_trip_text(&s), xml_representable(&s));
        }

        #[test]
        fn attributes_round_trip(s in any::<String>()) {
            prop_assert_eq!(round_trip_attr(&s), xml_representable(&s));
        }

        #[test]
        fn hostile_fragments_never_form_tags(prefix in "[a-z ]{0,8}", tag in "(</?[a-z-]{1,16}>|&[a-z]{2,4};|\\]\\]>)") {
            let s = format!("{prefix}{tag}");
            let escaped = escape_text(&s);
            prop_assert!(!escaped.contains('<'));
            prop_assert_eq!(round_trip_text(&s), s);
        }
    }
}
