//! The mutator: a seeded generator and stacked mutations ("havoc") over bytes, lines and JSON
//! structure. Deterministic: the same seed and corpus give the same mutants.

use serde_json::{Map, Value};

/// What an input is, which decides the structure-aware mutations that apply on top of the
/// byte-level ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Opaque bytes.
    Bytes,
    /// One JSON document.
    Json,
    /// Newline-separated JSON documents (a transcript).
    JsonLines,
    /// Line-oriented text (TOML, YAML, git refs).
    Text,
}

/// SplitMix64: tiny, fast, and good enough to pick mutations.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform enough in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Below `common` usually, below `rare` once in `one_in` calls.
    pub fn skewed(&mut self, common: usize, rare: usize, one_in: usize) -> usize {
        let n = if self.one_in(one_in) { rare } else { common };
        self.below(n)
    }

    /// A length skewed towards small values: mostly 1–8, sometimes up to `max`.
    fn len(&mut self, max: usize) -> usize {
        let max = max.max(1);
        match self.below(10) {
            0..=6 => 1 + self.below(max.min(8)),
            7 | 8 => 1 + self.below(max.min(128)),
            _ => 1 + self.below(max),
        }
    }
}

/// Bytes that tend to matter to parsers.
const INTERESTING_BYTES: &[u8] = &[
    0, 1, 0x7f, 0x80, 0xff, b'"', b'\\', b'\n', b'\r', b'\t', b' ', b'{', b'}', b'[', b']', b':',
    b',', b'-', b'+', b'.', b'e', b'0', b'9', b'#', b'\'', b'=', b'&', b'*', b'!', b'|', b'>',
    b'<', b'%', b'@', b'`', b'?',
];

/// Number literals at the edges of `u64`, `i64` and `f64`, and ones JSON forbids.
pub const INTERESTING_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.5",
    "1.0",
    "-1.5",
    "255",
    "65536",
    "2147483647",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "1e308",
    "1e309",
    "-1e309",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "0.000000000000000000000000000001",
    "1E+2",
    "01",
    "1.",
    ".5",
    "+1",
    "0x10",
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "inf",
    "nan",
];

/// Strings that tend to break text handling downstream of a parser.
const INTERESTING_STRINGS: &[&str] = &[
    "",
    " ",
    "NaN",
    "Infinity",
    "-1",
    "1e999",
    "null",
    "true",
    "\u{0}",
    "\u{1b}[31m",
    "\u{feff}",
    "\u{202e}",
    "\u{10ffff}",
    "\u{2028}",
    "é",
    "😀",
    "\r\n",
    "\n\n\n",
    "</context-monitor>",
    "</resumption-context><x>",
    "]]><![CDATA[",
    "&amp;&lt;",
    "../../../../etc/passwd",
    "/",
    "cx-001",
    "cx-999999999999999999999",
    "session-..",
    "claude-opus-4-6[1m]",
    "<synthetic>",
    "compact_boundary",
    "2026-11-22T04:59:04.463Z",
    "9999-99-99T99:99:99Z",
    "-0001-01-01T00:00:00Z",
    "tier:critical",
    "ephemeral_5m_input_tokens",
];

/// Deep nesting straddling serde_json's recursion limit (128) and a few far beyond it.
const DEPTHS: &[usize] = &[63, 64, 65, 127, 128, 129, 200, 1_000, 20_000];

/// Tokens every format gets.
pub fn default_dictionary(format: Format) -> Vec<Vec<u8>> {
    let mut tokens: Vec<&str> = vec!["\n", "\r\n", " ", "\t", "\u{0}", "\u{feff}"];
    match format {
        Format::Json | Format::JsonLines | Format::Bytes => tokens.extend([
            "{",
            "}",
            "[",
            "]",
            "\"",
            ":",
            ",",
            "null",
            "true",
            "false",
            "\\u0000",
            "\\ud800",
            "\\udc00\\ud800",
            "\\\"",
            "{}",
            "[]",
            "\"\":",
            "1e400",
            "-0",
        ]),
        Format::Text => tokens.extend([
            "=",
            "[",
            "]",
            "[[",
            "]]",
            "{",
            "}",
            "\"",
            "'",
            "\"\"\"",
            "'''",
            "#",
            ":",
            "- ",
            "---",
            "...",
            "&a",
            "*a",
            "!!",
            "? ",
            "|",
            ">",
            "%YAML 1.2",
            "<<",
            "\\",
            "nan",
            "inf",
            "-inf",
            "1979-05-27T07:32:00Z",
            "true",
            "false",
            "ref: ",
        ]),
    }
    tokens.into_iter().map(|t| t.as_bytes().to_vec()).collect()
}

/// Applies a stack of 1–8 random mutations to `data`, then cuts it to `max_len`.
pub fn havoc(
    data: &mut Vec<u8>,
    rng: &mut Rng,
    corpus: &[Vec<u8>],
    dict: &[Vec<u8>],
    format: Format,
    max_len: usize,
) {
    let structured = matches!(format, Format::Json | Format::JsonLines);
    // Structured inputs: mostly JSON edits alone (a byte edit on top usually breaks the syntax,
    // and then the code behind the parser is never reached), sometimes both, sometimes bytes.
    let (json_edits, byte_edits) = match (structured, rng.below(10)) {
        (true, 0..=4) => (1 + rng.below(3), 0),
        (true, 5) => (1, 1 + rng.below(3)),
        _ => (0, 1 + rng.skewed(4, 16, 4)),
    };
    for _ in 0..json_edits {
        json_mutation(data, rng, dict, format);
    }
    for _ in 0..byte_edits {
        byte_mutation(data, rng, corpus, dict, format);
    }
    if data.len() > max_len {
        data.truncate(max_len);
    }
}

fn byte_mutation(
    data: &mut Vec<u8>,
    rng: &mut Rng,
    corpus: &[Vec<u8>],
    dict: &[Vec<u8>],
    format: Format,
) {
    let len = data.len();
    match rng.below(18) {
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.next_u64() as u8;
        }
        2 if len > 0 => {
            let i = rng.below(len);
            data[i] = *rng.pick(INTERESTING_BYTES);
        }
        3 => {
            let at = rng.below(len + 1);
            let n = rng.len(32);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            data.splice(at..at, bytes);
        }
        4 if len > 0 => {
            let at = rng.below(len);
            let n = rng.len(len - at);
            data.drain(at..at + n);
        }
        5 if len > 0 => {
            let at = rng.below(len);
            let n = rng.len(len - at);
            let copy = data[at..at + n].to_vec();
            let to = rng.below(len + 1);
            data.splice(to..to, copy);
        }
        6 | 7 if !dict.is_empty() => {
            let token = rng.pick(dict).clone();
            let at = rng.below(len + 1);
            if rng.one_in(2) || at + token.len() > len {
                data.splice(at..at, token);
            } else {
                data.splice(at..at + token.len(), token);
            }
        }
        8 if !corpus.is_empty() => {
            // Splice: our head, another input's tail.
            let other = rng.pick(corpus);
            let cut = rng.below(len + 1);
            let from = rng.below(other.len() + 1);
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        9 if len > 0 => {
            data.truncate(rng.below(len));
        }
        10 => {
            const BAD_UTF8: &[&[u8]] = &[
                b"\xff",
                b"\xfe\xff",
                b"\xc0\x80",
                b"\xc3",
                b"\xe2\x82",
                b"\xed\xa0\x80",
                b"\xf4\x90\x80\x80",
                b"\xf0\x9f\x98",
                b"\x80",
            ];
            let at = rng.below(len + 1);
            data.splice(at..at, rng.pick(BAD_UTF8).iter().copied());
        }
        11 => replace_number(data, rng),
        12 => line_mutation(data, rng),
        13 => {
            let depth = *rng.pick(DEPTHS);
            let (open, close): (&[u8], &[u8]) = match (format, rng.below(3)) {
                (Format::Text, 0) => (b"[", b"]"),
                (Format::Text, 1) => (b"{a: ", b"}"),
                (Format::Text, _) => (b"- ", b""),
                (_, 0) => (b"[", b"]"),
                (_, 1) => (b"{\"a\":", b"}"),
                _ => (b"[{\"a\":", b"}]"),
            };
            let mut nested = open.repeat(depth);
            if rng.one_in(2) {
                nested.extend_from_slice(b"1");
                nested.extend(close.repeat(depth));
            }
            let at = rng.below(len + 1);
            data.splice(at..at, nested);
        }
        14 => replace_string(data, rng),
        15 if len > 0 => {
            // Repeat a chunk many times: long lines, long strings, many keys.
            let at = rng.below(len);
            let n = rng.len((len - at).min(64));
            let copy = data[at..at + n].to_vec();
            let times = 2 + rng.skewed(64, 4_000, 8);
            let to = rng.below(len + 1);
            data.splice(to..to, copy.repeat(times));
        }
        16 if len > 1 => {
            // Swap two ranges' bytes.
            let a = rng.below(len);
            let b = rng.below(len);
            data.swap(a, b);
        }
        _ => {
            let at = rng.below(len + 1);
            let token = rng.pick(INTERESTING_STRINGS).as_bytes().to_vec();
            data.splice(at..at, token);
        }
    }
}

/// Replaces a run of digits (found from a random position) with an interesting number.
fn replace_number(data: &mut Vec<u8>, rng: &mut Rng) {
    let number = rng.pick(INTERESTING_NUMBERS).as_bytes().to_vec();
    let len = data.len();
    let from = rng.below(len + 1);
    let start = (from..len)
        .chain(0..from)
        .find(|&i| data[i].is_ascii_digit());
    match start {
        Some(mut start) => {
            if start > 0 && data[start - 1] == b'-' {
                start -= 1;
            }
            let mut end = start + 1;
            while end < len && (data[end].is_ascii_digit() || b".eE+-".contains(&data[end])) {
                end += 1;
            }
            data.splice(start..end, number);
        }
        None => {
            data.splice(from..from, number);
        }
    }
}

/// Replaces the content of a JSON-ish quoted string with an interesting one (escaped as JSON).
fn replace_string(data: &mut Vec<u8>, rng: &mut Rng) {
    let quotes: Vec<usize> = data
        .iter()
        .enumerate()
        .filter(|(i, b)| **b == b'"' && (*i == 0 || data[i - 1] != b'\\'))
        .map(|(i, _)| i)
        .collect();
    if quotes.len() < 2 {
        return;
    }
    let k = rng.below(quotes.len() - 1);
    let (open, close) = (quotes[k], quotes[k + 1]);
    let text = if rng.one_in(6) {
        "x".repeat(1 + rng.below(100_000))
    } else {
        (*rng.pick(INTERESTING_STRINGS)).to_string()
    };
    let quoted = serde_json::to_string(&text).unwrap_or_default();
    let inner = quoted
        .as_bytes()
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default()
        .to_vec();
    data.splice(open + 1..close, inner);
}

fn line_mutation(data: &mut Vec<u8>, rng: &mut Rng) {
    let mut lines: Vec<Vec<u8>> = data.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    match rng.below(7) {
        0 if n > 1 => {
            let (a, b) = (rng.below(n), rng.below(n));
            lines.swap(a, b);
        }
        1 => {
            let i = rng.below(n);
            let line = lines[i].clone();
            let times = 1 + rng.skewed(3, 200, 4);
            for _ in 0..times {
                lines.insert(i, line.clone());
            }
        }
        2 if n > 1 => {
            lines.remove(rng.below(n));
        }
        3 if n > 1 => {
            // Join two lines: a newline lost mid-file.
            let i = rng.below(n - 1);
            let next = lines.remove(i + 1);
            lines[i].extend(next);
        }
        4 => {
            let i = rng.below(n);
            lines[i].push(b'\r');
        }
        5 => {
            lines.insert(rng.below(n + 1), Vec::new());
        }
        _ => {
            // Cut a line in half, as a writer interrupted mid-line would leave it.
            let i = rng.below(n);
            let cut = rng.below(lines[i].len() + 1);
            lines[i].truncate(cut);
        }
    }
    *data = lines.join(&b'\n');
}

/// Parses the input (or one of its lines) as JSON, changes one node, and writes it back.
fn json_mutation(data: &mut Vec<u8>, rng: &mut Rng, dict: &[Vec<u8>], format: Format) {
    let keys: Vec<String> = dict
        .iter()
        .filter_map(|t| std::str::from_utf8(t).ok())
        .filter(|t| t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(str::to_string)
        .collect();
    if format == Format::JsonLines {
        let mut lines: Vec<Vec<u8>> = data.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
        let parsed: Vec<usize> = (0..lines.len())
            .filter(|&i| serde_json::from_slice::<Value>(&lines[i]).is_ok())
            .collect();
        if parsed.is_empty() {
            return;
        }
        let i = *rng.pick(&parsed);
        mutate_document(&mut lines[i], rng, &keys, false);
        *data = lines.join(&b'\n');
    } else {
        mutate_document(data, rng, &keys, true);
    }
}

fn mutate_document(doc: &mut Vec<u8>, rng: &mut Rng, keys: &[String], may_pretty: bool) {
    let Ok(mut value) = serde_json::from_slice::<Value>(doc) else {
        return;
    };
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let count = count_nodes(&value);
        if count > 100_000 {
            break;
        }
        let target = rng.below(count);
        let mut seen = 0;
        visit_nth(&mut value, target, &mut seen, &mut |node| {
            mutate_node(node, rng, keys)
        });
    }
    if depth(&value) > 300 {
        return;
    }
    let text = if may_pretty && rng.one_in(4) {
        serde_json::to_vec_pretty(&value)
    } else {
        serde_json::to_vec(&value)
    };
    if let Ok(text) = text {
        *doc = text;
    }
}

fn depth(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn count_nodes(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_nodes).sum(),
        Value::Object(map) => map.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// Calls `f` on the `n`th node in pre-order; returns true once it has.
fn visit_nth(value: &mut Value, n: usize, seen: &mut usize, f: &mut dyn FnMut(&mut Value)) -> bool {
    if *seen == n {
        f(value);
        return true;
    }
    *seen += 1;
    match value {
        Value::Array(items) => items.iter_mut().any(|v| visit_nth(v, n, seen, f)),
        Value::Object(map) => map.values_mut().any(|v| visit_nth(v, n, seen, f)),
        _ => false,
    }
}

fn mutate_node(node: &mut Value, rng: &mut Rng, keys: &[String]) {
    match rng.below(8) {
        0 | 1 => *node = random_value(rng, keys, 2),
        2 => {
            // Same kind of container, a value of another type inside.
            match node {
                Value::Object(map) if !map.is_empty() => {
                    let key = map
                        .keys()
                        .nth(rng.below(map.len()))
                        .cloned()
                        .unwrap_or_default();
                    map.insert(key, random_value(rng, keys, 1));
                }
                Value::Array(items) if !items.is_empty() => {
                    let i = rng.below(items.len());
                    items[i] = random_value(rng, keys, 1);
                }
                _ => *node = random_value(rng, keys, 0),
            }
        }
        3 => match node {
            Value::Object(map) if !map.is_empty() => {
                let key = map
                    .keys()
                    .nth(rng.below(map.len()))
                    .cloned()
                    .unwrap_or_default();
                map.remove(&key);
            }
            Value::Array(items) if !items.is_empty() => {
                items.remove(rng.below(items.len()));
            }
            _ => *node = Value::Null,
        },
        4 => match node {
            Value::Object(map) => {
                let key = if keys.is_empty() || rng.one_in(4) {
                    (*rng.pick(INTERESTING_STRINGS)).to_string()
                } else {
                    rng.pick(keys).clone()
                };
                map.insert(key, random_value(rng, keys, 2));
            }
            Value::Array(items) => {
                // Many copies of a small item; a big one is copied once (the stacked rounds
                // would otherwise multiply a document into gigabytes).
                let copy = items.get(rng.below(items.len())).cloned();
                let small = copy.as_ref().is_none_or(|c| count_nodes(c) <= 8);
                let times = 1 + if small { rng.skewed(3, 500, 8) } else { 0 };
                for _ in 0..times {
                    items.push(copy.clone().unwrap_or_else(|| random_value(rng, keys, 1)));
                }
            }
            _ => *node = Value::Array(vec![node.take()]),
        },
        5 => {
            // Wrap the node in one more level.
            let inner = node.take();
            *node = if rng.one_in(2) {
                Value::Array(vec![inner])
            } else {
                let mut map = Map::new();
                map.insert(keys.first().cloned().unwrap_or_else(|| "a".into()), inner);
                Value::Object(map)
            };
        }
        6 => {
            // Just past serde_json's parse limit of 128 is what matters; far deeper input is
            // made at the byte level (`[` × 20,000), since building and serialising a deep
            // `Value` recurses and would overflow this thread's stack first.
            let depth = (*rng.pick(DEPTHS)).min(200);
            let mut deep = random_value(rng, keys, 0);
            for _ in 0..depth {
                deep = Value::Array(vec![deep]);
            }
            *node = deep;
        }
        _ => {
            if let Value::Object(map) = node
                && !map.is_empty()
                && !keys.is_empty()
            {
                // Rename a key: the value lands under a field it was not meant for.
                let old = map
                    .keys()
                    .nth(rng.below(map.len()))
                    .cloned()
                    .unwrap_or_default();
                if let Some(v) = map.remove(&old) {
                    map.insert(rng.pick(keys).clone(), v);
                }
            } else {
                *node = random_value(rng, keys, 1);
            }
        }
    }
}

/// A random JSON value; containers at most `depth` deep.
pub fn random_value(rng: &mut Rng, keys: &[String], depth: usize) -> Value {
    match rng.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => {
            let text = rng.pick(INTERESTING_NUMBERS);
            serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::from(u64::MAX))
        }
        3 => Value::from(rng.next_u64() >> rng.below(64)),
        4 => Value::String((*rng.pick(INTERESTING_STRINGS)).to_string()),
        5 => Value::String(if rng.one_in(4) {
            "x".repeat(rng.below(20_000))
        } else {
            rng.pick(keys_or_default(keys)).clone()
        }),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, keys, depth - 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                let key = rng.pick(keys_or_default(keys)).clone();
                map.insert(key, random_value(rng, keys, depth - 1));
            }
            Value::Object(map)
        }
    }
}

fn keys_or_default(keys: &[String]) -> &[String] {
    static DEFAULT: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    if keys.is_empty() {
        DEFAULT.get_or_init(|| vec!["a".to_string()])
    } else {
        keys
    }
}
