//! A `serde_json::Value` read without serde_json's nesting limit costing the whole document:
//! lists and objects deeper than [`MAX_DEPTH`] are skipped (read as `null`), the rest is kept.
//!
//! serde_json refuses a document nested deeper than 128 levels, wherever the nesting is. The
//! files and inputs ctxmon only consults (a hook's stdin, Claude Code's settings) are written
//! by other programs whose parsers accept it (JavaScript's `JSON.parse` has no such limit), and
//! ctxmon reads a handful of shallow fields from them: one deep subtree under a key it never
//! reads must not cost the fields it does. Skipping goes through serde's `IgnoredAny`, which
//! serde_json reads without recursion, so neither the limit nor the stack is reached, and the
//! syntax is still checked to the end: broken JSON is still refused.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Levels of lists and objects kept below the value being read; deeper ones become `null`.
/// Well under serde_json's 128, so a value read here inside a few levels of its own (a hook
/// input's top-level object) never reaches it.
pub const MAX_DEPTH: usize = 64;

/// A JSON value read with its subtrees deeper than [`MAX_DEPTH`] skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounded(pub Value);

impl<'de> serde::Deserialize<'de> for Bounded {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Bounded, D::Error> {
        Seed { left: MAX_DEPTH }
            .deserialize(deserializer)
            .map(Bounded)
    }
}

/// Reads one value whose lists and objects may go `left` levels deeper.
#[derive(Debug, Clone, Copy)]
pub struct Seed {
    pub left: usize,
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // Finite: serde_json refuses what does not fit an f64 before it gets here.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let Some(left) = self.left.checked_sub(1) else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Seed { left })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(left) = self.left.checked_sub(1) else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        };
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // A repeated key: the last one counts, as in a `Value`.
            out.insert(key, map.next_value_seed(Seed { left })?);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}1{}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn shallow_values_read_as_serde_json_reads_them() {
        for text in [
            r#"{"a":[1,-2,3.5,"x",null,true,{"b":{}}],"a":"last","c":18446744073709551615}"#,
            "[]",
            "\"s\"",
            "0",
        ] {
            let plain: Value = serde_json::from_str(text).unwrap();
            let bounded: Bounded = serde_json::from_str(text).unwrap();
            assert_eq!(bounded.0, plain, "{text}");
        }
    }

    #[test]
    fn deep_subtrees_are_skipped_and_the_rest_kept() {
        let text = format!(r#"{{"keep":"yes","deep":{},"after":[1]}}"#, nested(10_000));
        assert!(serde_json::from_str::<Value>(&text).is_err());
        let Bounded(v) = serde_json::from_str(&text).unwrap();
        assert_eq!(v["keep"], "yes");
        assert_eq!(v["after"], serde_json::json!([1]));
        // Kept down to the limit, `null` below it.
        let mut level = &v["deep"];
        let mut depth = 0;
        while let Some(first) = level.as_array().and_then(|a| a.first()) {
            level = first;
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH - 1);
        assert!(level.is_null());
        // Deep objects too.
        let objects = format!("{}1{}", r#"{"k":"#.repeat(500), "}".repeat(500));
        let Bounded(v) = serde_json::from_str(&objects).unwrap();
        assert!(v.is_object());
    }

    #[test]
    fn broken_json_inside_a_skipped_subtree_is_still_refused() {
        let text = format!(r#"{{"deep":{}"#, nested(300));
        assert!(serde_json::from_str::<Bounded>(&text).is_err());
        let text = format!(r#"{{"deep":{}}}"#, nested(300).replacen('1', "1,", 1));
        assert!(serde_json::from_str::<Bounded>(&text).is_err());
    }
}
