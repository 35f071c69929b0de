//! A critical-context value: any JSON the agent wrote under `critical_context` (a map of any
//! values: `file_paths: {name: path}`, `environment_variables: [..]`, plain text),
//! kept as a tree so the markdown can show it as a nested list and the JSON keeps its shape.
//!
//! Why not `assembly::JsonValue`: a resume log round-trips through JSON exactly, and
//! serde_json reads most floats back only approximately (its default parser is not
//! correctly rounded). So a value here has no float: a number that is not a 64-bit signed
//! integer is a [`ContextValue::Number`], its exact JSON text ([`JsonNumber`]), which renders
//! as written and which ctxmon's JSON writer puts back as the same number token. It is not a
//! [`ContextValue::Text`]: JSON tells `1.50` from `"1.50"`, and a log that turned one into the
//! other would hand the next session a string where the agent wrote a number.
//!
//! Read through serde alone (`Deserialize`), a number arrives already converted: an integer
//! beyond `i64` keeps its digits, a float becomes the shortest text that reads back as it
//! (`1.50` as `1.5`). The exact text needs the document's raw text, which the application's
//! readers walk (`readers::json::exact`).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::number::JsonNumber;

/// One value of the critical context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextValue {
    /// A string.
    Text(String),
    /// A whole number that an `i64` holds.
    Integer(i64),
    /// Any other JSON number, as its exact text (`18446744073709551616`, `1.50`, `-0`,
    /// `1e400`): written back as that number token, never as a string.
    Number(JsonNumber),
    /// `true` or `false`.
    Bool(bool),
    /// `null`, shown as `null`.
    Null,
    /// A list, shown as a nested list.
    List(Vec<ContextValue>),
    /// By key, so the rendering is deterministic whatever order the agent wrote.
    Map(BTreeMap<String, ContextValue>),
}

impl ContextValue {
    /// The text of a `Text` value; `None` for every other kind.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ContextValue::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The value of the JSON number `text`: an [`ContextValue::Integer`] when an `i64` holds
    /// it as written, else a [`ContextValue::Number`]; `None` when `text` is not a JSON number.
    pub fn from_number_text(text: &str) -> Option<ContextValue> {
        match text.parse::<i64>() {
            Ok(n) if n.to_string() == text => Some(ContextValue::Integer(n)),
            _ => JsonNumber::new(text).map(ContextValue::Number),
        }
    }

    /// A scalar as the markdown shows it (`None` for lists and maps).
    pub fn scalar_text(&self) -> Option<String> {
        match self {
            ContextValue::Text(t) => Some(t.clone()),
            ContextValue::Integer(n) => Some(n.to_string()),
            ContextValue::Number(n) => Some(n.as_str().to_owned()),
            ContextValue::Bool(b) => Some(b.to_string()),
            ContextValue::Null => Some("null".into()),
            ContextValue::List(_) | ContextValue::Map(_) => None,
        }
    }

    /// True for a list or map with at least one entry: shown as a label with entries beneath.
    pub fn is_branch(&self) -> bool {
        match self {
            ContextValue::List(items) => !items.is_empty(),
            ContextValue::Map(map) => !map.is_empty(),
            _ => false,
        }
    }
}

impl Default for ContextValue {
    fn default() -> ContextValue {
        ContextValue::Text(String::new())
    }
}

impl From<&str> for ContextValue {
    fn from(s: &str) -> ContextValue {
        ContextValue::Text(s.to_owned())
    }
}

impl From<String> for ContextValue {
    fn from(s: String) -> ContextValue {
        ContextValue::Text(s)
    }
}

impl From<&String> for ContextValue {
    fn from(s: &String) -> ContextValue {
        ContextValue::Text(s.clone())
    }
}

impl PartialEq<str> for ContextValue {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for ContextValue {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl Serialize for ContextValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ContextValue::Text(s) => serializer.serialize_str(s),
            ContextValue::Integer(n) => serializer.serialize_i64(*n),
            ContextValue::Number(n) => n.serialize(serializer),
            ContextValue::Bool(b) => serializer.serialize_bool(*b),
            ContextValue::Null => serializer.serialize_unit(),
            ContextValue::List(items) => serializer.collect_seq(items),
            ContextValue::Map(map) => serializer.collect_map(map),
        }
    }
}

impl<'de> Deserialize<'de> for ContextValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ContextValue, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = ContextValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<ContextValue, E> {
        Ok(ContextValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<ContextValue, E> {
        Ok(ContextValue::Integer(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<ContextValue, E> {
        // Above i64::MAX: a number of those digits, exactly what the reader saw.
        Ok(ContextValue::from_number_text(&v.to_string()).unwrap_or(ContextValue::Null))
    }

    fn visit_f64<E>(self, v: f64) -> Result<ContextValue, E> {
        // The shortest text that reads back as `v` (`85.0`, `0.1`, `1e-7`); a format that has
        // infinities or NaN (no JSON reader gives them) keeps their name as text.
        let text = format!("{v:?}");
        Ok(JsonNumber::new(&text).map_or(ContextValue::Text(text), ContextValue::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<ContextValue, E> {
        Ok(ContextValue::Text(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<ContextValue, E> {
        Ok(ContextValue::Text(v))
    }

    fn visit_unit<E>(self) -> Result<ContextValue, E> {
        Ok(ContextValue::Null)
    }

    fn visit_none<E>(self) -> Result<ContextValue, E> {
        Ok(ContextValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<ContextValue, D::Error> {
        ContextValue::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ContextValue, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(ContextValue::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContextValue, A::Error> {
        let mut out = BTreeMap::new();
        while let Some((k, v)) = map.next_entry::<String, ContextValue>()? {
            out.insert(k, v);
        }
        Ok(ContextValue::Map(out))
    }
}

/// How many leaves (scalars and empty lists or maps: one rendered line each) `map` holds.
#[cfg(test)]
pub(super) fn leaf_count(map: &BTreeMap<String, ContextValue>) -> usize {
    map.values().map(value_leaves).sum()
}

#[cfg(test)]
fn value_leaves(value: &ContextValue) -> usize {
    match value {
        ContextValue::List(items) if !items.is_empty() => items.iter().map(value_leaves).sum(),
        ContextValue::Map(map) if !map.is_empty() => leaf_count(map),
        _ => 1,
    }
}

/// Keeps the first `keep` leaves of `map` in document order, then `cut` in place of the next
/// one (a shortened text) if given; everything after is removed, and so is a list or map left
/// with no leaf (it was not shown).
pub(super) fn retain_leaves(
    map: &mut BTreeMap<String, ContextValue>,
    keep: usize,
    cut: Option<String>,
) {
    let mut left = keep;
    let mut cut = cut;
    retain_in_map(map, &mut left, &mut cut);
}

fn retain_in_map(
    map: &mut BTreeMap<String, ContextValue>,
    left: &mut usize,
    cut: &mut Option<String>,
) {
    let entries = std::mem::take(map);
    for (k, mut v) in entries {
        if *left == 0 && cut.is_none() {
            break;
        }
        if retain_value(&mut v, left, cut) {
            map.insert(k, v);
        }
    }
}

/// Whether `value` keeps anything.
fn retain_value(value: &mut ContextValue, left: &mut usize, cut: &mut Option<String>) -> bool {
    match value {
        ContextValue::List(items) if !items.is_empty() => {
            let all = std::mem::take(items);
            for mut item in all {
                if *left == 0 && cut.is_none() {
                    break;
                }
                if retain_value(&mut item, left, cut) {
                    items.push(item);
                }
            }
            !items.is_empty()
        }
        ContextValue::Map(map) if !map.is_empty() => {
            retain_in_map(map, left, cut);
            !map.is_empty()
        }
        leaf => {
            if *left > 0 {
                *left -= 1;
                true
            } else if let Some(text) = cut.take() {
                *leaf = ContextValue::Text(text);
                true
            } else {
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ContextValue {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn any_json_reads_and_writes_back_exactly() {
        let v = parse(
            r#"{"b":[1,-2,3.5,true,null,"x"],"a":{"z":"y","big":18446744073709551615,"f":85.0}}"#,
        );
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(
            json,
            r#"{"a":{"big":18446744073709551615,"f":85.0,"z":"y"},"b":[1,-2,3.5,true,null,"x"]}"#
        );
        assert_eq!(parse(&json), v);
        assert_eq!(parse(r#""text""#), "text");
        assert_eq!(parse(r#""7""#), "7");
    }

    #[test]
    fn numbers_and_strings_stay_apart() {
        let number = |t: &str| ContextValue::from_number_text(t).unwrap();
        assert_eq!(number("7"), ContextValue::Integer(7));
        assert_eq!(
            number("1.50"),
            ContextValue::Number(JsonNumber::new("1.50").unwrap())
        );
        assert_ne!(number("1.50"), ContextValue::from("1.50"));
        assert_eq!(number("1.50").scalar_text().as_deref(), Some("1.50"));
        assert_eq!(number("1.50").as_str(), None, "a number is not a text");
        for bad in ["", "1.", "+7", "07", "NaN", "7 ", "\"7\""] {
            assert_eq!(ContextValue::from_number_text(bad), None, "{bad:?}");
        }
        // Read by serde alone, a number keeps its kind: beyond i64 its digits, a float the
        // shortest text of the f64 serde_json made of it.
        assert_eq!(
            parse("18446744073709551615"),
            number("18446744073709551615")
        );
        assert_eq!(parse("1.50"), number("1.5"));
        assert_eq!(parse("-0"), number("-0.0"));
    }

    #[test]
    fn leaves_are_kept_in_document_order() {
        let ContextValue::Map(mut map) =
            parse(r#"{"a":{"x":"1","y":"2"},"b":["3",[],"4"],"c":"5"}"#)
        else {
            panic!("a map")
        };
        assert_eq!(leaf_count(&map), 6);
        let mut first = map.clone();
        retain_leaves(&mut first, 2, Some("cut".into()));
        assert_eq!(
            serde_json::to_string(&first).unwrap(),
            r#"{"a":{"x":"1","y":"2"},"b":["cut"]}"#
        );
        retain_leaves(&mut map, 1, None);
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":{"x":"1"}}"#);
    }
}
