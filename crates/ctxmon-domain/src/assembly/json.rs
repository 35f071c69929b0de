//! A JSON value the domain can hold without depending on `serde_json`.
//!
//! Event payloads and tool schemas are free-form JSON (`payload` can be anything). The
//! domain may depend on `serde` only, so it carries its own small value type. Objects are kept in
//! a `BTreeMap`, which makes every rendering of a payload sort its keys: the same input always
//! prints the same bytes, whatever order a producer wrote the keys in.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Any JSON value.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum JsonValue {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, in the form it arrived in.
    Number(JsonNumber),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object, its keys sorted.
    Object(BTreeMap<String, JsonValue>),
}

/// A JSON number, kept in the form it arrived in so integers round-trip exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JsonNumber {
    /// A non-negative integer.
    PosInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// Serialized as `null` by `serde_json` when not finite, which JSON cannot express.
    Float(f64),
}

impl JsonValue {
    /// An object from key/value pairs; later duplicates win, as in JSON parsers.
    pub fn object<K: Into<String>>(pairs: impl IntoIterator<Item = (K, JsonValue)>) -> JsonValue {
        JsonValue::Object(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The member `key` of an object; `None` for other values.
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// The text of a string; `None` for other values.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, JsonValue::Null)
    }
}

impl From<&str> for JsonValue {
    fn from(s: &str) -> JsonValue {
        JsonValue::String(s.to_owned())
    }
}

impl From<String> for JsonValue {
    fn from(s: String) -> JsonValue {
        JsonValue::String(s)
    }
}

impl From<bool> for JsonValue {
    fn from(b: bool) -> JsonValue {
        JsonValue::Bool(b)
    }
}

impl From<u64> for JsonValue {
    fn from(n: u64) -> JsonValue {
        JsonValue::Number(JsonNumber::PosInt(n))
    }
}

impl From<i64> for JsonValue {
    fn from(n: i64) -> JsonValue {
        match u64::try_from(n) {
            Ok(u) => JsonValue::Number(JsonNumber::PosInt(u)),
            Err(_) => JsonValue::Number(JsonNumber::NegInt(n)),
        }
    }
}

impl From<f64> for JsonValue {
    fn from(n: f64) -> JsonValue {
        JsonValue::Number(JsonNumber::Float(n))
    }
}

impl<T: Into<JsonValue>> From<Vec<T>> for JsonValue {
    fn from(items: Vec<T>) -> JsonValue {
        JsonValue::Array(items.into_iter().map(Into::into).collect())
    }
}

impl Serialize for JsonValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonValue::Null => serializer.serialize_unit(),
            JsonValue::Bool(b) => serializer.serialize_bool(*b),
            JsonValue::Number(JsonNumber::PosInt(n)) => serializer.serialize_u64(*n),
            JsonValue::Number(JsonNumber::NegInt(n)) => serializer.serialize_i64(*n),
            JsonValue::Number(JsonNumber::Float(n)) => serializer.serialize_f64(*n),
            JsonValue::String(s) => serializer.serialize_str(s),
            JsonValue::Array(items) => serializer.collect_seq(items),
            JsonValue::Object(map) => serializer.collect_map(map),
        }
    }
}

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<JsonValue, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = JsonValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<JsonValue, E> {
        Ok(JsonValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<JsonValue, E> {
        Ok(JsonValue::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<JsonValue, E> {
        Ok(JsonValue::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<JsonValue, E> {
        Ok(JsonValue::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<JsonValue, E> {
        Ok(JsonValue::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<JsonValue, E> {
        Ok(JsonValue::String(v))
    }

    fn visit_unit<E>(self) -> Result<JsonValue, E> {
        Ok(JsonValue::Null)
    }

    fn visit_none<E>(self) -> Result<JsonValue, E> {
        Ok(JsonValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<JsonValue, D::Error> {
        JsonValue::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonValue, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(JsonValue::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonValue, A::Error> {
        let mut out = BTreeMap::new();
        while let Some((k, v)) = map.next_entry::<String, JsonValue>()? {
            out.insert(k, v);
        }
        Ok(JsonValue::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_serde_json_with_sorted_keys() {
        let text = r#"{"b":[1,-2,3.5,true,null],"a":{"z":"x","y":18446744073709551615}}"#;
        let v: JsonValue = serde_json::from_str(text).unwrap();
        assert_eq!(
            v.get("a")
                .and_then(|a| a.get("z"))
                .and_then(JsonValue::as_str),
            Some("x")
        );
        let out = serde_json::to_string(&v).unwrap();
        assert_eq!(
            out,
            r#"{"a":{"y":18446744073709551615,"z":"x"},"b":[1,-2,3.5,true,null]}"#
        );
    }

    #[test]
    fn non_finite_floats_serialize_as_null() {
        let v = JsonValue::from(f64::NAN);
        assert_eq!(serde_json::to_string(&v).unwrap(), "null");
    }
}
