//! Lenient serde building blocks for transcript fields: they deserialize from any JSON value and
//! record what they saw, so a field of the wrong type never turns into an error that discards the
//! whole line. The rules in `line` decide what a wrong type means.

use ctxmon_domain::TokenCount;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One JSON value as the rules see it. Deserializes from anything, so a wrong type is recorded
/// rather than turned into an error that would discard the whole line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// The key is not present.
    #[default]
    Absent,
    Null,
    Bool(bool),
    /// A non-negative integer that fits in `u64`.
    Uint(u64),
    Str(String),
    /// A negative number, a float, a number beyond `u64`, an object or an array.
    Invalid,
}

impl Scalar {
    pub(crate) fn is_true(&self) -> bool {
        matches!(self, Scalar::Bool(true))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn into_string(self) -> Option<String> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_count(&self) -> Option<TokenCount> {
        match self {
            Scalar::Uint(n) => Some(TokenCount(*n)),
            _ => None,
        }
    }

    /// A token field as the usage formula reads it: missing or null counts as 0 (older versions
    /// omit cache fields); a value of the wrong type makes the record unusable (`None`), because
    /// guessing 0 for, say, a stringified `cache_read_input_tokens` would under-report the fill by
    /// almost all of it.
    pub(crate) fn token_field(&self) -> Option<u64> {
        match self {
            Scalar::Absent | Scalar::Null => Some(0),
            Scalar::Uint(n) => Some(*n),
            Scalar::Bool(_) | Scalar::Str(_) | Scalar::Invalid => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Uint(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
        Ok(u64::try_from(v).map_or(Scalar::Invalid, Scalar::Uint))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Scalar, E> {
        Ok(Scalar::Invalid)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar, E> {
        Ok(Scalar::Str(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Invalid)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Invalid)
    }
}

/// A nested object read leniently: an object becomes `Some(T)`, anything else (null, a string, an
/// array) becomes `None` instead of an error. `T`'s own fields are all lenient too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Obj<T>(pub(crate) Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Obj<T>, D::Error> {
        d.deserialize_any(ObjVisitor(std::marker::PhantomData))
    }
}

struct ObjVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Obj<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Obj<T>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Obj(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Obj<T>, E> {
        Ok(Obj(None))
    }
}

/// The sum of `cache_creation.ephemeral_*_input_tokens`, whatever durations future versions add.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EphemeralSum {
    pub(crate) sum: u64,
    /// Some `ephemeral_*_input_tokens` value had the wrong type.
    pub(crate) invalid: bool,
}

impl<'de> Deserialize<'de> for EphemeralSum {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<EphemeralSum, D::Error> {
        d.deserialize_map(EphemeralVisitor)
    }
}

struct EphemeralVisitor;

impl<'de> Visitor<'de> for EphemeralVisitor {
    type Value = EphemeralSum;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object of ephemeral cache counts")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EphemeralSum, A::Error> {
        let mut acc = EphemeralSum::default();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<Scalar>()?;
            if !(key.starts_with("ephemeral_") && key.ends_with("_input_tokens")) {
                continue;
            }
            match value.token_field() {
                Some(n) => acc.sum = acc.sum.saturating_add(n),
                None => acc.invalid = true,
            }
        }
        Ok(acc)
    }
}
