//! Text helpers shared by both derivations: trimming and capping at a character boundary,
//! compact one-line renderings of maps, path and number checks.

use serde_json::Value;

use super::MAX_PATH_CHARS;

/// How deep a one-line rendering follows nested maps and lists before writing "…": past a
/// couple of levels the text stops helping a reader and only costs tokens.
const ONE_LINE_DEPTH: usize = 4;

/// `s` trimmed and capped at `max` characters; `None` when nothing but whitespace is left.
pub(crate) fn capped(s: &str, max: usize) -> Option<String> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    Some(cut(t, max))
}

/// `t` itself when it has at most `max` characters, else its first `max - 1` characters and
/// "…". Only the first `max + 1` characters are looked at, so a 5 MB string costs no more
/// than a short one.
pub(crate) fn cut(t: &str, max: usize) -> String {
    if t.char_indices().nth(max).is_none() {
        return t.to_string();
    }
    let end = t
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(t.len(), |(i, _)| i);
    let mut out = t.get(..end).unwrap_or(t).trim_end().to_string();
    out.push('…');
    out
}

/// A scalar as text: strings trimmed and capped, numbers and booleans as written. Maps, lists
/// and null are not scalars.
pub(crate) fn scalar_text(v: &Value, max: usize) -> Option<String> {
    match v {
        Value::String(s) => capped(s, max),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Any value as one line of text: a scalar as itself, a map as "k: v; k2: v2", a list as
/// "a; b", nested maps and lists in braces and brackets, whitespace runs collapsed. Writing
/// stops once `max` characters are exceeded, so a huge value costs no more than a short one.
pub(crate) fn one_line(v: &Value, max: usize) -> Option<String> {
    let mut line = OneLine {
        out: String::new(),
        chars: 0,
        limit: max,
    };
    match v {
        Value::Object(map) => {
            for (k, item) in map {
                if item.is_null() || line.full() {
                    continue;
                }
                if line.chars > 0 {
                    line.push("; ");
                }
                line.push(k);
                line.push(": ");
                line.value(item, 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                if item.is_null() || line.full() {
                    continue;
                }
                if line.chars > 0 {
                    line.push("; ");
                }
                line.value(item, 1);
            }
        }
        _ => line.value(v, 0),
    }
    capped(&line.out, max)
}

struct OneLine {
    out: String,
    chars: usize,
    limit: usize,
}

impl OneLine {
    /// True once more than the limit was written: `capped` then cuts and adds "…".
    fn full(&self) -> bool {
        self.chars > self.limit
    }

    fn push(&mut self, s: &str) {
        let mut after_space = self.out.ends_with(' ');
        for c in s.chars() {
            if self.full() {
                return;
            }
            if c.is_whitespace() {
                if after_space {
                    continue;
                }
                self.out.push(' ');
                after_space = true;
            } else {
                self.out.push(c);
                after_space = false;
            }
            self.chars += 1;
        }
    }

    fn value(&mut self, v: &Value, depth: usize) {
        if self.full() {
            return;
        }
        match v {
            Value::Null => self.push("null"),
            Value::Bool(b) => self.push(if *b { "true" } else { "false" }),
            Value::Number(n) => self.push(&n.to_string()),
            Value::String(s) => self.push(s),
            Value::Array(_) | Value::Object(_) if depth >= ONE_LINE_DEPTH => self.push("…"),
            Value::Array(items) => {
                self.push("[");
                for (i, item) in items.iter().enumerate() {
                    if self.full() {
                        return;
                    }
                    if i > 0 {
                        self.push(", ");
                    }
                    self.value(item, depth + 1);
                }
                self.push("]");
            }
            Value::Object(map) => {
                self.push("{");
                for (i, (k, item)) in map.iter().enumerate() {
                    if self.full() {
                        return;
                    }
                    if i > 0 {
                        self.push(", ");
                    }
                    self.push(k);
                    self.push(": ");
                    self.value(item, depth + 1);
                }
                self.push("}");
            }
        }
    }
}

/// A path worth keeping: trimmed, not empty, at most [`MAX_PATH_CHARS`] and free of control
/// characters. Paths are never cut (a cut path names a file that does not exist); one that
/// does not fit is dropped.
pub(crate) fn path_text(v: &Value) -> Option<String> {
    path_str(v.as_str()?)
}

/// [`path_text`] of a string.
pub(crate) fn path_str(s: &str) -> Option<String> {
    let s = s.trim();
    if s.is_empty() || s.chars().any(char::is_control) || s.chars().nth(MAX_PATH_CHARS).is_some() {
        return None;
    }
    Some(s.to_string())
}

/// A finite number, or a string that parses as one ("0.82").
pub(crate) fn lenient_f64(v: &Value) -> Option<f64> {
    let f = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    f.is_finite().then_some(f)
}

/// A whole number, or a string or float that holds one ("3", 3.0).
pub(crate) fn lenient_i64(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    if let Some(s) = v.as_str()
        && let Ok(i) = s.trim().parse::<i64>()
    {
        return Some(i);
    }
    let f = lenient_f64(v)?;
    // The range check keeps the cast exact: every whole f64 in it is an i64.
    (f.fract() == 0.0 && (-9.0e15..=9.0e15).contains(&f)).then_some(f as i64)
}

/// Deduplicates keeping each item's last occurrence (so the order says what was most
/// recent), then keeps the newest `max`.
pub(crate) fn dedup_keep_last(items: Vec<String>, max: usize) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = items
        .into_iter()
        .rev()
        .filter(|s| seen.insert(s.clone()))
        .take(max)
        .collect();
    out.reverse();
    out
}

/// Appends `item`, forgetting the oldest half of `list` once it holds twice `max`: at most
/// `2 * max` of the newest are kept, at a constant cost for each item on average.
pub(crate) fn push_newest<T>(list: &mut Vec<T>, item: T, max: usize) {
    if list.len() >= 2 * max {
        list.drain(..list.len() - max);
    }
    list.push(item);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cut_keeps_short_text_and_marks_long_text() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
        assert_eq!(cut("ééééé", 3).chars().count(), 3);
        assert_eq!(capped("  \n ", 10), None);
        assert_eq!(capped("  x  ", 10).as_deref(), Some("x"));
    }

    #[test]
    fn one_line_renders_maps_compactly() {
        let v = json!({"phase": "build\n  tests", "done": 3, "blocked": null, "parts": ["a", {"b": 1}]});
        assert_eq!(
            one_line(&v, 200).as_deref(),
            Some("done: 3; parts: [a, {b: 1}]; phase: build tests")
        );
        let long = json!({"k": "x".repeat(10_000)});
        assert_eq!(one_line(&long, 50).map(|s| s.chars().count()), Some(50));
    }

    #[test]
    fn numbers_are_read_leniently() {
        assert_eq!(lenient_f64(&json!("0.5")), Some(0.5));
        assert_eq!(lenient_f64(&json!("NaN")), None);
        assert_eq!(lenient_i64(&json!(" 7 ")), Some(7));
        assert_eq!(lenient_i64(&json!(2.0)), Some(2));
        assert_eq!(lenient_i64(&json!(2.5)), None);
        assert_eq!(lenient_i64(&json!(true)), None);
    }

    #[test]
    fn paths_are_dropped_not_cut() {
        assert_eq!(path_text(&json!(" a/b.rs ")).as_deref(), Some("a/b.rs"));
        assert_eq!(path_text(&json!("a\nb")), None);
        assert_eq!(path_text(&json!("x".repeat(MAX_PATH_CHARS + 1))), None);
        assert_eq!(path_text(&json!(3)), None);
    }

    #[test]
    fn dedup_keeps_the_last_occurrence() {
        let v = ["a", "b", "a", "c"].map(String::from).to_vec();
        assert_eq!(dedup_keep_last(v, 10), ["b", "a", "c"]);
        let v = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(dedup_keep_last(v, 2), ["b", "c"]);
    }
}
