//! Typed deserialization from a `serde_json::Value` that names the JSON path of the first
//! problem: `repo.files[3].relevanceScore: invalid type: string "high", expected a number`.
//!
//! serde_json's own errors give a line and column, which point into a 50 MB single-line input
//! uselessly. Wrapping the value in a deserializer that knows where it is costs about a hundred
//! lines and no dependency. Leaves and enums are delegated to serde_json's `&Value`
//! deserializer; only objects and arrays are walked here, which is where the path grows.
//!
//! `serde_path_to_error` (0.1.20) was tried in its place and kept out: it wraps
//! serde_json's deserializer, which lets a derived struct be read from an array of its fields
//! in order. So `["a", null, [1, 2]]` where an object belongs is silently accepted, and a
//! top-level `[1]` is reported as ``[0]: invalid type: integer `1`, expected a sequence`` instead
//! of `top level: invalid type: array, expected an object` (both tested below, the second also
//! end to end). Paths and the other messages matched once `plain_words` was applied.

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Unexpected, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::Value;

/// Deserializes `T` from `value`, or says where and why it cannot.
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, PathError> {
    T::deserialize(At {
        value,
        path: &Path::Root,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// `None` until the innermost value that saw the error names itself.
    path: Option<String>,
    message: String,
}

impl PathError {
    fn at(mut self, path: &Path<'_>) -> PathError {
        if self.path.is_none() {
            self.path = Some(path.to_string());
        }
        self
    }

    fn from_json(error: serde_json::Error) -> PathError {
        de::Error::custom(error)
    }
}

impl de::Error for PathError {
    fn custom<T: fmt::Display>(msg: T) -> PathError {
        PathError {
            path: None,
            message: plain_words(&msg.to_string()),
        }
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path.as_deref() {
            Some("") | None => write!(f, "top level: {}", self.message),
            Some(path) => write!(f, "{path}: {}", self.message),
        }
    }
}

impl std::error::Error for PathError {}

/// serde names Rust types (`expected f64`); people reading a JSON error want JSON words.
fn plain_words(message: &str) -> String {
    let mut message = message.to_owned();
    if let Some(at) = message.find("expected struct ") {
        message.replace_range(at.., "expected an object");
    }
    message
        .replace("invalid type: unit value", "invalid type: null")
        .replace("invalid type: sequence", "invalid type: array")
        .replace("invalid type: map", "invalid type: object")
        .replace("expected a sequence", "expected an array")
        .replace("expected f64", "expected a number")
        .replace("expected u64", "expected a non-negative integer")
        .replace(
            "expected i64",
            "expected an integer (milliseconds since the epoch)",
        )
        .replace(
            "expected a tuple of size 2",
            "expected an array of two numbers",
        )
}

/// Where a value sits, as a chain of borrowed segments: building it costs nothing until an
/// error is rendered.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(Path::Root, key) => f.write_str(key),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// A value and its path, as a deserializer.
struct At<'de, 'p> {
    value: &'de Value,
    path: &'p Path<'p>,
}

impl<'de> de::Deserializer<'de> for At<'de, '_> {
    type Error = PathError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        let result = match self.value {
            Value::Array(items) => visitor.visit_seq(Seq {
                items: items.iter().enumerate(),
                path: self.path,
            }),
            Value::Object(map) => visitor.visit_map(Map {
                entries: map.iter(),
                pending: None,
                path: self.path,
            }),
            leaf => de::Deserializer::deserialize_any(leaf, visitor).map_err(PathError::from_json),
        };
        result.map_err(|e| e.at(self.path))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        match self.value {
            Value::Null => visitor.visit_none().map_err(|e: PathError| e.at(self.path)),
            _ => visitor.visit_some(self),
        }
    }

    /// Objects only: serde's derived structs would also accept an array of fields in order,
    /// which turns a misplaced array into a baffling error about its first element.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        if self.value.is_object() {
            return self.deserialize_any(visitor);
        }
        let unexpected = match self.value {
            Value::Null => Unexpected::Unit,
            Value::Bool(b) => Unexpected::Bool(*b),
            // An integer is named as one: `5`, not "floating point 5.0".
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => Unexpected::Unsigned(u),
                (None, Some(i), _) => Unexpected::Signed(i),
                (None, None, Some(f)) => Unexpected::Float(f),
                (None, None, None) => Unexpected::Other("number"),
            },
            Value::String(s) => Unexpected::Str(s),
            _ => Unexpected::Seq,
        };
        Err(<PathError as de::Error>::invalid_type(unexpected, &visitor).at(self.path))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, PathError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PathError> {
        de::Deserializer::deserialize_enum(self.value, name, variants, visitor)
            .map_err(PathError::from_json)
            .map_err(|e| e.at(self.path))
    }

    /// A count: a whole number past 64 bits has become a float by the time it is here, and
    /// serde would call it "floating point `1.8446744073709552e19`"; it is named as the whole
    /// number too large that it was.
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, PathError> {
        if let Value::Number(n) = self.value
            && n.as_u64().is_none()
            && n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
        {
            return Err(<PathError as de::Error>::custom(format!(
                "a whole number above {}, the largest count ctxmon keeps",
                u64::MAX
            ))
            .at(self.path));
        }
        self.deserialize_any(visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

struct Seq<'de, 'p> {
    items: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    path: &'p Path<'p>,
}

impl<'de> SeqAccess<'de> for Seq<'de, '_> {
    type Error = PathError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, PathError> {
        let Some((index, value)) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(self.path, index);
        seed.deserialize(At { value, path: &path }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Map<'de, 'p> {
    entries: serde_json::map::Iter<'de>,
    pending: Option<(&'de str, &'de Value)>,
    path: &'p Path<'p>,
}

impl<'de> MapAccess<'de> for Map<'de, '_> {
    type Error = PathError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, PathError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some((key.as_str(), value));
        let path = Path::Key(self.path, key);
        // An unknown or misspelt key is reported at its own path.
        let key = de::value::BorrowedStrDeserializer::<'de, PathError>::new(key.as_str());
        seed.deserialize(key).map(Some).map_err(|e| e.at(&path))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, PathError> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("a value was requested before its key"));
        };
        let path = Path::Key(self.path, key);
        seed.deserialize(At { value, path: &path })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Outer {
        items: Vec<Inner>,
        #[serde(default)]
        mode: Option<Mode>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Inner {
        name: String,
        #[serde(default)]
        score: Option<f64>,
        range: (u64, u64),
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        Fast,
    }

    fn err(json: &str) -> String {
        let value: Value = serde_json::from_str(json).unwrap();
        from_value::<Outer>(&value).unwrap_err().to_string()
    }

    #[test]
    fn a_good_value_deserializes() {
        let value = serde_json::json!({"items": [{"name": "a", "score": 0.5, "range": [1, 2]}], "mode": "fast"});
        let outer: Outer = from_value(&value).unwrap();
        assert_eq!(outer.items[0].range, (1, 2));
        assert_eq!(outer.mode, Some(Mode::Fast));
    }

    #[test]
    fn errors_name_the_path() {
        assert_eq!(
            err(
                r#"{"items":[{"name":"a","range":[1,2]},{"name":"b","score":"high","range":[1,2]}]}"#
            ),
            "items[1].score: invalid type: string \"high\", expected a number"
        );
        assert_eq!(
            err(r#"{"items":[{"range":[1,2]}]}"#),
            "items[0]: missing field `name`"
        );
        assert_eq!(
            err(r#"{"items":[{"name":"a","range":[1,-2]}]}"#),
            "items[0].range[1]: invalid value: integer `-2`, expected a non-negative integer"
        );
        assert_eq!(
            err(r#"{"items":[],"mode":"slow"}"#),
            "mode: unknown variant `slow`, expected `fast`"
        );
        assert!(err(r#"{"items":[],"mdoe":1}"#).starts_with("mdoe: unknown field `mdoe`"));
        assert_eq!(
            err(r#"[1]"#),
            "top level: invalid type: array, expected an object"
        );
        assert_eq!(
            err(r#"{"items":[null]}"#),
            "items[0]: invalid type: null, expected an object"
        );
        assert_eq!(
            err(r#"{"items":{}}"#),
            "items: invalid type: object, expected an array"
        );
        // What serde_json alone would read as an `Inner` (its fields in order) is refused.
        assert_eq!(
            err(r#"{"items":[["a", null, [1, 2]]]}"#),
            "items[0]: invalid type: array, expected an object"
        );
    }
}
