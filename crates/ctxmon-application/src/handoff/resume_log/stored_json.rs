//! A resume log's JSON as ctxmon stores and shows it: [`ExactJson`] writes it, [`from_json`]
//! reads it, and both keep every number of the critical context as the token the agent wrote.
//!
//! A [`ContextValue::Number`] is text (`18446744073709551616`, `1.50`, `-0`, `1e400`) that
//! serde's data model cannot carry as a number; its own `Serialize` gives the nearest value a
//! plain serializer can take. serde_json can write a token as it is only through its public
//! `RawValue`, which the domain, depending on serde alone, does not name. So the writer is
//! here: `ResumeLog`'s derived `Serialize` runs as usual (its field order, its attributes), into a
//! serializer that passes its one struct through and writes the `critical_context` field by
//! walking the values, each number as a `RawValue` of its text. Nothing depends on serde_json's
//! private names, and an embedder with its own store writes the same bytes by serialising
//! `ExactJson(&log)`.
//!
//! Reading it back whole through serde_json would turn those numbers into f64s first (and
//! refuse `1e400`). So [`from_json`] reads the critical context with
//! [`crate::readers::json::exact`], and everything else with serde_json from the same text, the
//! critical context blanked to `{ }` of the same length and lines: any error elsewhere is the
//! one, and at the place, it would be without the blanking. A log whose critical context is not
//! an object, or cannot be walked, is read as before, with serde_json's own error when it has
//! one. A log written before numbers were kept (their text stored as strings) reads them as
//! strings, as written.

use std::collections::BTreeMap;

use ctxmon_domain::{ContextValue, ResumeLog};
use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use serde_json::value::RawValue;

use crate::readers::json::exact;

/// The field `ResumeLog`'s derived `Serialize` names the critical context by.
const CONTEXT_FIELD: &str = "critical_context";

/// A [`ResumeLog`] that serialises into serde_json's text writers (`to_string`, `to_vec_pretty`,
/// `to_writer`) with the critical context's numbers as the tokens the agent wrote.
///
/// Into other serializers (`serde_json::to_value` among them) a number goes as serde_json
/// reads its text: a `Value` cannot hold `1e400`, and holds `1.50` as `1.5`.
#[derive(Debug, Clone, Copy)]
pub struct ExactJson<'a>(pub &'a ResumeLog);

impl Serialize for ExactJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(LogSerializer {
            inner: serializer,
            context: &self.0.critical_context,
        })
    }
}

/// The log's JSON `bytes` as a [`ResumeLog`], the critical context's numbers exact. A log
/// [`ExactJson`] wrote reads back equal to the one written.
pub fn from_json(bytes: &[u8]) -> Result<ResumeLog, serde_json::Error> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        // Not UTF-8: serde_json says where.
        return serde_json::from_slice(bytes);
    };
    match exact_context(text) {
        Some((blanked, context)) => {
            let mut log: ResumeLog = serde_json::from_str(&blanked)?;
            log.critical_context = context;
            Ok(log)
        }
        None => serde_json::from_str(text),
    }
}

/// The critical context of the log `text` read exactly, and `text` with it blanked; `None`
/// when the log has none or it is not an object that can be walked.
fn exact_context(text: &str) -> Option<(String, BTreeMap<String, ContextValue>)> {
    let top = exact::entries(text).ok()?;
    let raw = top.get(CONTEXT_FIELD)?.get();
    let ContextValue::Map(context) = exact::value(top.get(CONTEXT_FIELD)?).ok()? else {
        return None;
    };
    // The raw value is a slice of `text` (serde_json borrows it): where it starts.
    let start = (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(raw.len())?;
    if text.get(start..end) != Some(raw) {
        return None;
    }
    // `{`, then a space for every byte but a line end, then `}`: an empty object at the same
    // line and column, so serde_json places an error elsewhere where it is.
    let mut blanked = String::with_capacity(text.len());
    blanked.push_str(&text[..start]);
    let inner = raw.len().saturating_sub(2);
    blanked.push('{');
    blanked.extend(
        raw.bytes()
            .skip(1)
            .take(inner)
            .map(|b| if b == b'\n' { '\n' } else { ' ' }),
    );
    blanked.push('}');
    blanked.push_str(&text[end..]);
    Some((blanked, context))
}

fn only_a_log<E: ser::Error>() -> E {
    E::custom("ExactJson serialises a resume log, which is a struct")
}

/// What `ResumeLog::serialize` writes into: its struct goes through to `inner`, the critical
/// context written by [`Exact`]. Anything but a struct is an error (it cannot happen: the log
/// is one).
struct LogSerializer<'a, S> {
    inner: S,
    context: &'a BTreeMap<String, ContextValue>,
}

struct LogFields<'a, S> {
    inner: S,
    context: &'a BTreeMap<String, ContextValue>,
    context_written: bool,
}

macro_rules! only_a_log {
    ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ok, S::Error> {
            Err(only_a_log())
        })*
    };
}

impl<'a, S: Serializer> Serializer for LogSerializer<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = LogFields<'a, S::SerializeStruct>;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        Ok(LogFields {
            inner: self.inner.serialize_struct(name, len)?,
            context: self.context,
            context_written: false,
        })
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<S::Ok, S::Error> {
        Err(only_a_log())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(only_a_log())
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(only_a_log())
    }

    only_a_log! {
        serialize_bool(bool) -> S::Ok;
        serialize_i8(i8) -> S::Ok;
        serialize_i16(i16) -> S::Ok;
        serialize_i32(i32) -> S::Ok;
        serialize_i64(i64) -> S::Ok;
        serialize_u8(u8) -> S::Ok;
        serialize_u16(u16) -> S::Ok;
        serialize_u32(u32) -> S::Ok;
        serialize_u64(u64) -> S::Ok;
        serialize_f32(f32) -> S::Ok;
        serialize_f64(f64) -> S::Ok;
        serialize_char(char) -> S::Ok;
        serialize_str(&str) -> S::Ok;
        serialize_bytes(&[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(&'static str) -> S::Ok;
        serialize_unit_variant(&'static str, u32, &'static str) -> S::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

impl<S: SerializeStruct> SerializeStruct for LogFields<'_, S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        if key == CONTEXT_FIELD {
            self.context_written = true;
            self.inner.serialize_field(key, &ExactMap(self.context))
        } else {
            self.inner.serialize_field(key, value)
        }
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.inner.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        // A renamed field would write the numbers as a plain serializer takes them: refuse
        // that rather than store a log that no longer says what the agent wrote.
        if !self.context_written {
            return Err(ser::Error::custom(format_args!(
                "the resume log has no `{CONTEXT_FIELD}` field to write exactly"
            )));
        }
        self.inner.end()
    }
}

struct ExactMap<'a>(&'a BTreeMap<String, ContextValue>);

impl Serialize for ExactMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, Exact(v))))
    }
}

/// One value, its numbers as raw JSON.
struct Exact<'a>(&'a ContextValue);

impl Serialize for Exact<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ContextValue::Number(n) => serde_json::from_str::<&RawValue>(n.as_str())
                .map_err(ser::Error::custom)?
                .serialize(serializer),
            ContextValue::List(items) => serializer.collect_seq(items.iter().map(Exact)),
            ContextValue::Map(map) => ExactMap(map).serialize(serializer),
            other => other.serialize(serializer),
        }
    }
}

#[cfg(test)]
#[path = "stored_json_tests.rs"]
mod tests;
