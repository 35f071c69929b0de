//! Tests of `json_repair`: the quoted defects, and properties over generated documents with and
//! without them, split into chunks anywhere.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn repaired(text: &str) -> String {
    String::from_utf8(repair(text.as_bytes()).expect("something to repair")).expect("UTF-8")
}

fn shrink(chunks: &[&[u8]], cap: usize, max_string: usize) -> Option<Vec<u8>> {
    let mut s = Shrinker::new(cap, max_string);
    for c in chunks {
        s.push(c);
    }
    s.finish()
}

#[test]
fn a_lone_surrogate_becomes_the_replacement_character() {
    assert_eq!(
        repaired(r#"{"custom_instructions":"keep the \ud83d notes"}"#),
        r#"{"custom_instructions":"keep the \ufffd notes"}"#
    );
    for (text, expected) in [
        (r#""\udc00""#, r#""\ufffd""#),
        (r#""\uD83D""#, r#""\ufffd""#),
        // A lone one before a valid pair: only the lone one goes.
        (r#""\ud83d\ud83d\ude00""#, r#""\ufffd\ud83d\ude00""#),
        // Followed by another escape, which is read on its own.
        (r#""\ud83d\n\u0041""#, r#""\ufffd\n\u0041""#),
        (r#""\ud83d\u0041""#, r#""\ufffd\u0041""#),
        (r#""\ud83d\"""#, r#""\ufffd\"""#),
        (r#"{"\ud800":1}"#, r#"{"\ufffd":1}"#),
    ] {
        assert_eq!(repaired(text), expected, "{text}");
        let value: Value = from_slice_lenient(text.as_bytes()).expect(text);
        assert!(value.to_string().contains('\u{fffd}'), "{text}: {value}");
    }
    // A valid pair, escaped in either case, is left alone.
    assert_eq!(repair(br#""\ud83d\ude00 \uD83D\uDE00""#), None);
}

#[test]
fn a_number_beyond_f64_becomes_the_largest_round_one() {
    assert_eq!(
        repaired(r#"{"postTokens":1e999,"preTokens":5}"#),
        r#"{"postTokens":1e308,"preTokens":5}"#
    );
    assert_eq!(repaired("[-2.5E+400]"), "[-1e308]");
    let digits = "9".repeat(400);
    assert_eq!(repaired(&format!("[{digits}]")), "[1e308]");
    // Tiny numbers and large ones in range parse already: nothing to do.
    for fine in ["[1e-999]", "[1.5e3]", "[1e308]", "[18446744073709551616]"] {
        assert!(serde_json::from_str::<Value>(fine).is_ok(), "{fine}");
        assert_eq!(repair(fine.as_bytes()), None, "{fine}");
    }
    let value: Value = from_slice_lenient(br#"{"a":1e999,"b":"x"}"#).unwrap();
    assert_eq!(value, json!({"a": 1e308, "b": "x"}));
}

#[test]
fn other_defects_stay_refused_with_the_original_error() {
    for bad in [
        &br#"{"a":"\ud83d"#[..],
        br#"{"a":1e}"#,
        br#"{"a":"\x"}"#,
        br#"{"a":"\u12"}"#,
        br#"{"a":01}"#,
    ] {
        let direct = serde_json::from_slice::<Value>(bad)
            .unwrap_err()
            .to_string();
        let lenient = from_slice_lenient::<Value>(bad).unwrap_err().to_string();
        assert_eq!(direct, lenient, "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn a_long_string_keeps_a_prefix_of_whole_characters_and_its_length() {
    let text = format!(r#"{{"prompt":"{}","cwd":"/p"}}"#, "é".repeat(100));
    for split in [1, 7, text.len()] {
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(split).collect();
        let out = shrink(&chunks, 1024, 15).expect("fits");
        let value: Value = serde_json::from_slice(&out).expect("valid JSON");
        let prompt = value["prompt"].as_str().unwrap();
        // 15 bytes hold seven two-byte characters; the eighth would be cut in half.
        assert_eq!(
            prompt,
            format!("{}… [ctxmon kept 14 of 200 bytes]", "é".repeat(7))
        );
        assert_eq!(value["cwd"], "/p");
    }
    // An escape is never split: a pair that does not fit is left out whole.
    let out = shrink(&[br#"["ab\ud83d\ude00cd"]"#], 100, 8).unwrap();
    let value: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(value[0], "ab… [ctxmon kept 2 of 16 bytes]");
}

#[test]
fn output_beyond_the_cap_is_refused_after_reading_everything() {
    // Many short strings: nothing long to shorten, so it cannot fit.
    let many = format!("[{}\"x\"]", "\"x\",".repeat(1000));
    assert_eq!(shrink(&[many.as_bytes()], 100, 50), None);
    assert!(shrink(&[many.as_bytes()], many.len(), 50).is_some());
}

/// A piece of string content: plain text, an escaped lone surrogate, or a character outside the
/// BMP written as an escaped pair.
#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    LoneHigh(u16),
    LoneLow(u16),
    Pair(char),
}

#[derive(Debug, Clone)]
enum Tree {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A number beyond f64's range, in one of its spellings.
    Huge(bool, u8),
    Str(Vec<Piece>),
    Arr(Vec<Tree>),
    Obj(Vec<(Vec<Piece>, Tree)>),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        4 => "[ -~é\u{1F600}\n\"\\\\]{0,12}".prop_map(Piece::Text),
        1 => (0xD800u16..=0xDBFF).prop_map(Piece::LoneHigh),
        1 => (0xDC00u16..=0xDFFF).prop_map(Piece::LoneLow),
        1 => prop::char::range('\u{10000}', '\u{10FFFF}').prop_map(Piece::Pair),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        Just(Tree::Null),
        any::<bool>().prop_map(Tree::Bool),
        any::<i64>().prop_map(Tree::Int),
        (-1e300f64..1e300).prop_map(Tree::Float),
        (any::<bool>(), 0u8..4).prop_map(|(n, k)| Tree::Huge(n, k)),
        prop::collection::vec(piece(), 0..4).prop_map(Tree::Str),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Tree::Arr),
            prop::collection::vec((prop::collection::vec(piece(), 0..3), inner), 0..6)
                .prop_map(Tree::Obj),
        ]
    })
}

/// The tree as JSON text (with its defects) and the value the repaired text must parse to.
fn render(tree: &Tree, text: &mut String) -> Value {
    match tree {
        Tree::Null => {
            text.push_str("null");
            Value::Null
        }
        Tree::Bool(b) => {
            text.push_str(&b.to_string());
            json!(b)
        }
        Tree::Int(n) => {
            text.push_str(&n.to_string());
            json!(n)
        }
        Tree::Float(f) => {
            let v = json!(f);
            text.push_str(&v.to_string());
            serde_json::from_str(&v.to_string()).unwrap()
        }
        Tree::Huge(negative, spelling) => {
            let sign = if *negative { "-" } else { "" };
            let body = match spelling {
                0 => "1e999".to_string(),
                1 => "2.5E+400".to_string(),
                2 => "9".repeat(320),
                _ => "1.0e310".to_string(),
            };
            text.push_str(&format!("{sign}{body}"));
            if *negative {
                json!(-1e308)
            } else {
                json!(1e308)
            }
        }
        Tree::Str(pieces) => json!(render_str(pieces, text)),
        Tree::Arr(items) => {
            text.push('[');
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                out.push(render(item, text));
            }
            text.push(']');
            Value::Array(out)
        }
        Tree::Obj(entries) => {
            text.push_str("{ ");
            let mut out = serde_json::Map::new();
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                let key = render_str(key, text);
                text.push(':');
                out.insert(key, render(value, text));
            }
            text.push('}');
            Value::Object(out)
        }
    }
}

fn render_str(pieces: &[Piece], text: &mut String) -> String {
    text.push('"');
    let mut value = String::new();
    let mut after_high = false;
    for p in pieces {
        match p {
            Piece::Text(s) => {
                let quoted = serde_json::to_string(s).unwrap();
                text.push_str(&quoted[1..quoted.len() - 1]);
                value.push_str(s);
                after_high &= s.is_empty();
            }
            Piece::LoneHigh(u) => {
                text.push_str(&format!("\\u{u:04x}"));
                value.push('\u{fffd}');
                after_high = true;
            }
            Piece::LoneLow(u) => {
                // Right after a lone leading surrogate it would make a valid pair.
                if after_high {
                    text.push('x');
                    value.push('x');
                }
                text.push_str(&format!("\\u{u:04X}"));
                value.push('\u{fffd}');
                after_high = false;
            }
            Piece::Pair(c) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    text.push_str(&format!("\\u{u:04x}"));
                }
                value.push(*c);
                after_high = false;
            }
        }
    }
    text.push('"');
    value
}

fn has_defect(tree: &Tree) -> bool {
    let lone = |ps: &[Piece]| {
        ps.iter()
            .any(|p| matches!(p, Piece::LoneHigh(_) | Piece::LoneLow(_)))
    };
    match tree {
        Tree::Huge(..) => true,
        Tree::Str(ps) => lone(ps),
        Tree::Arr(items) => items.iter().any(has_defect),
        Tree::Obj(entries) => entries.iter().any(|(k, v)| lone(k) || has_defect(v)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Valid JSON apart from the repaired defects parses after the repair, to the value with
    /// U+FFFD and ±1e308 in their places; valid JSON without them is left byte for byte.
    #[test]
    fn repairs_exactly_the_defects(tree in tree()) {
        let mut text = String::new();
        let expected = render(&tree, &mut text);
        let value: Value = from_slice_lenient(text.as_bytes())
            .map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert_eq!(&value, &expected);
        match repair(text.as_bytes()) {
            None => prop_assert!(!has_defect(&tree), "a defect was missed: {}", text),
            Some(fixed) => {
                prop_assert!(has_defect(&tree));
                prop_assert!(fixed.len() <= text.len());
                // Repairing repaired text changes nothing.
                prop_assert_eq!(repair(&fixed), None);
            }
        }
    }

    /// The stream gives the same output however the input is split; with room for everything it
    /// is the repair, and the output is never larger than the cap.
    #[test]
    fn streaming_is_split_independent_and_bounded(
        tree in tree(),
        split in 1usize..40,
        cap in 0usize..400,
        max_string in 0usize..30,
    ) {
        let mut text = String::new();
        let expected = render(&tree, &mut text);
        let bytes = text.as_bytes();
        let chunks: Vec<&[u8]> = bytes.chunks(split).collect();
        let whole = shrink(&[bytes], usize::MAX, usize::MAX).unwrap();
        prop_assert_eq!(&whole, &repair(bytes).unwrap_or_else(|| bytes.to_vec()));
        prop_assert_eq!(shrink(&chunks, usize::MAX, usize::MAX), Some(whole));
        let small = shrink(&chunks, cap, max_string);
        prop_assert_eq!(&small, &shrink(&[bytes], cap, max_string));
        if let Some(out) = small {
            prop_assert!(out.len() <= cap);
            // Shortened strings and keys keep the document valid.
            let value: Value = serde_json::from_slice(&out)
                .map_err(|e| TestCaseError::fail(format!("{e}: {}", String::from_utf8_lossy(&out))))?;
            if max_string >= bytes.len() {
                prop_assert_eq!(value, expected);
            }
        }
    }

    /// Any bytes at all: no panic, the cap holds, and splitting changes nothing.
    #[test]
    fn arbitrary_bytes_never_break_the_bounds(
        bytes in prop::collection::vec(
            prop_oneof![Just(b'"'), Just(b'\\'), Just(b'u'), Just(b'd'), Just(b'8'), Just(b'e'), any::<u8>()],
            0..200,
        ),
        split in 1usize..20,
        cap in 0usize..100,
    ) {
        let chunks: Vec<&[u8]> = bytes.chunks(split).collect();
        // With room for everything the stream is the repair, or the bytes themselves, even
        // when they end inside an escape.
        let whole = repair(&bytes).unwrap_or_else(|| bytes.clone());
        prop_assert_eq!(shrink(&chunks, usize::MAX, usize::MAX), Some(whole));
        let out = shrink(&chunks, cap, 10);
        prop_assert_eq!(&out, &shrink(&[&bytes], cap, 10));
        prop_assert!(out.is_none_or(|o| o.len() <= cap));
        if let Some(fixed) = repair(&bytes) {
            prop_assert!(fixed.len() <= bytes.len());
        }
    }
}

/// A byte that is not UTF-8 inside a string costs that character only (U+FFFD), with a lone
/// surrogate elsewhere in the same text repaired too; outside a string it is still refused.
#[test]
fn bytes_that_are_not_utf8_become_the_replacement_character() {
    let v: serde_json::Value =
        from_slice_lenient(b"{\"a\":\"caf\xe9\",\"b\":\"\\ud83d x\",\"c\":[\"\xff\xfe\"]}")
            .unwrap();
    assert_eq!(v["a"], "caf\u{fffd}");
    assert_eq!(v["b"], "\u{fffd} x");
    assert_eq!(v["c"][0], "\u{fffd}\u{fffd}");
    assert!(from_slice_lenient::<serde_json::Value>(b"{\"a\":1\xff}").is_err());
}
