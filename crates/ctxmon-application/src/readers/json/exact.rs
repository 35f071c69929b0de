//! Any JSON value as a [`ContextValue`], its numbers exactly as written: the agent's
//! `critical_context`, from a `--from` document or a stored resume log.
//!
//! A number that is not a 64-bit integer is a [`ContextValue::Number`] of the text between its
//! delimiters, but a `serde_json::Value`, or any serde reading of serde_json, has turned it
//! into an f64 before a visitor sees it: 2^64 came back as `1.8446744073709552e19`, 24
//! significant digits as `1.0`, `-0` as `-0.0`, and `1e400` was refused. So the value is read
//! as raw JSON (`serde_json::value::RawValue`): objects and lists are walked, a number keeps its
//! text, and any other value reads as usual.
//!
//! Why raw values rather than serde_json's `arbitrary_precision`: that feature changes every
//! `serde_json::Number` in a build (one build of serde_json serves every crate, an embedder's
//! too), and with it numbers buffered by serde for `#[serde(flatten)]` and tagged enums (the
//! events log's records) arrive as maps, which those types do not read. `raw_value` only adds
//! a type.

use std::collections::BTreeMap;

use ctxmon_domain::ContextValue;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::repair as json_repair;

/// The document's `critical_context`, read from `text` (a JSON object already known to parse);
/// `None` when it has none, it is not an object (the typed reading has said so) or it cannot be
/// read this way (a key with a lone surrogate): the caller keeps the typed reading then.
pub fn critical_context(text: &str) -> Option<BTreeMap<String, ContextValue>> {
    let top = entries(text).ok()?;
    let raw = top.get("critical_context")?;
    match value(raw).ok()? {
        ContextValue::Map(map) => Some(map),
        _ => None,
    }
}

/// The value of one raw JSON value, its numbers exact; strings with a lone surrogate read as
/// U+FFFD, as the lenient reader reads them.
pub fn value(raw: &RawValue) -> Result<ContextValue, serde_json::Error> {
    let text = raw.get();
    Ok(match text.as_bytes().first() {
        Some(b'{') => ContextValue::Map(
            entries(text)?
                .into_iter()
                .map(|(k, v)| Ok((k, value(v)?)))
                .collect::<Result<_, serde_json::Error>>()?,
        ),
        Some(b'[') => ContextValue::List(
            items(text)?
                .into_iter()
                .map(value)
                .collect::<Result<_, _>>()?,
        ),
        // serde_json has checked the grammar; the domain checks it again rather than trust
        // that, so an invalid text never becomes a number.
        Some(b'-' | b'0'..=b'9') => ContextValue::from_number_text(text)
            .ok_or_else(|| serde::de::Error::custom(format_args!("not a JSON number: {text}")))?,
        // Strings, booleans and null, with a lone surrogate read as the document was.
        _ => json_repair::from_str_lenient(text)?,
    })
}

/// An object's entries, the last of a repeated key counting (as in a `Value`).
pub fn entries(text: &str) -> Result<BTreeMap<String, &RawValue>, serde_json::Error> {
    struct Entries;
    impl<'de> Visitor<'de> for Entries {
        type Value = BTreeMap<String, &'de RawValue>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    // A key with a lone surrogate fails here; the caller then keeps the typed reading.
    serde_json::Deserializer::from_str(text).deserialize_map(Entries)
}

fn items(text: &str) -> Result<Vec<&RawValue>, serde_json::Error> {
    struct Items;
    impl<'de> Visitor<'de> for Items {
        type Value = Vec<&'de RawValue>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(item) = seq.next_element::<&'de RawValue>()? {
                out.push(item);
            }
            Ok(out)
        }
    }
    serde_json::Deserializer::from_str(text).deserialize_seq(Items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text_and_integers_stay_integers() {
        let map = critical_context(
            r#"{"critical_context": {"a": 18446744073709551616, "b": -0, "c": 1e400, "d": 7,
            "e": [1.50, {"f": -12}], "g": "t", "h": null, "i": true, "a": 0.1}, "x": 1e999}"#,
        )
        .unwrap();
        let text = |s: &str| ContextValue::Text(s.into());
        let number = |s: &str| ContextValue::Number(ctxmon_domain::JsonNumber::new(s).unwrap());
        assert_eq!(map["a"], number("0.1"), "the last repeated key counts");
        assert_eq!(map["b"], number("-0"));
        assert_eq!(map["c"], number("1e400"));
        assert_eq!(map["d"], ContextValue::Integer(7));
        assert_eq!(
            map["e"],
            ContextValue::List(vec![
                number("1.50"),
                ContextValue::Map(BTreeMap::from([("f".into(), ContextValue::Integer(-12))]))
            ])
        );
        assert_eq!(map["g"], text("t"));
        assert_eq!(map["h"], ContextValue::Null);
        assert_eq!(map["i"], ContextValue::Bool(true));
    }

    #[test]
    fn lone_surrogates_read_as_the_document_does() {
        let map = critical_context(r#"{"critical_context": {"k": "v\udc00", "n": 2}}"#).unwrap();
        assert_eq!(map["k"], ContextValue::Text("v\u{fffd}".into()));
        assert_eq!(map["n"], ContextValue::Integer(2));
        assert_eq!(
            critical_context(r#"{"critical_context": {"k\ud800": 1}}"#),
            None
        );
    }

    #[test]
    fn no_object_no_context() {
        assert_eq!(critical_context(r#"{"critical_context": [1]}"#), None);
        assert_eq!(critical_context(r#"{"mission_summary": "m"}"#), None);
        assert_eq!(critical_context("[1]"), None);
    }
}
