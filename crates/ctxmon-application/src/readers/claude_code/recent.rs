//! What a Claude Code session's context holds since its last compaction, read backwards from
//! the end: the largest tool outputs, file reads and pasted messages, and the fill after each
//! recent response.
//!
//! One backward walk serves both, and it stops at the newest main-chain compaction boundary:
//! everything older was summarized away. A result is met before its call (the walk goes
//! backwards), so its size waits under its call id until the call's line names the tool and
//! its target. Subagents' lines are left out: their tool outputs are in the subagent's
//! context, not the session's. Sizes are characters of the text the model was given, counted
//! while parsing without building the text (`Chars`), and turned into tokens by the project's
//! one estimate.

use std::collections::HashMap;
use std::io::{self, Read, Seek};

use memchr::memmem;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::line::{LineEvent, classify};
use crate::monitor::pace::PACE_TURNS;
use crate::ports::{ContextItem, ItemKind, RecentContext};
use crate::readers::json::repair::from_str_lenient;
use crate::readers::jsonl::backward::{BackLine, BackwardLines, ScanShape};
use crate::readers::jsonl::lenient::{Obj, Scalar};

/// The most responses whose fill is kept: the pace looks at the last few only.
pub const MAX_FILLS: usize = PACE_TURNS + 1;

/// A user message shorter than this many characters is a prompt, not pasted text (about 500
/// tokens: a pasted log or file, not a typed request).
pub const PASTED_MIN_CHARS: u64 = 2_000;

/// The longest target shown, in characters: a path keeps its end, a command its start.
pub const TARGET_CHARS: usize = 40;

/// Reads `src` (`file_len` bytes long) back from its end over at most `max_bytes` and
/// reports the `keep` largest items and the recent fills (see the module docs). With `keep`
/// 0 no item is parsed and the walk ends at the [`MAX_FILLS`]th response back: the pace
/// alone is cheap enough for every prompt.
pub fn recent_context<R: Read + Seek>(
    src: R,
    file_len: u64,
    max_bytes: u64,
    shape: ScanShape,
    keep: usize,
) -> io::Result<RecentContext> {
    let mut lines = BackwardLines::new(
        src,
        file_len,
        max_bytes,
        shape.block_size,
        shape.max_line_bytes,
    );
    let sidechain = memmem::Finder::new(b"\"isSidechain\":true");
    let mut walk = Walk::default();
    let mut reached_boundary = false;
    let mut stopped = false;
    while let Some(line) = lines.next_line()? {
        let BackLine::Line(bytes) = line else {
            continue;
        };
        if sidechain.find(bytes).is_some() {
            continue;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        match classify(bytes) {
            LineEvent::Boundary {
                sidechain: false, ..
            } => {
                reached_boundary = true;
                break;
            }
            LineEvent::Usage {
                sidechain: false,
                record,
            } => walk.fill(record.message_id, record.tokens.get()),
            _ => {}
        }
        if keep == 0 {
            if walk.fills.len() == MAX_FILLS {
                stopped = true;
                break;
            }
            continue;
        }
        walk.items(text);
    }
    let complete = reached_boundary || (!lines.hit_limit() && !stopped);
    Ok(walk.finish(keep, complete))
}

/// What the walk has gathered so far, newest first.
#[derive(Default)]
struct Walk {
    /// Result sizes waiting for their call, by call id.
    waiting: HashMap<String, u64>,
    items: Vec<ContextItem>,
    fills: Vec<u64>,
    last_id: Option<String>,
}

impl Walk {
    /// One response's fill; a response written as several lines sharing its id counts once.
    fn fill(&mut self, id: Option<String>, tokens: u64) {
        if id.is_some() && id == self.last_id {
            return;
        }
        self.last_id = id;
        if self.fills.len() < MAX_FILLS {
            self.fills.push(tokens);
        }
    }

    fn items(&mut self, text: &str) {
        // Most lines are neither; they are not parsed again.
        let user = text.contains("\"type\":\"user\"");
        if !user && !text.contains("\"tool_use\"") {
            return;
        }
        let Ok(line) = from_str_lenient::<RawLine>(text) else {
            return;
        };
        let Some(message) = line.message.0 else {
            return;
        };
        match line.kind.as_str() {
            Some("user") => self.user(&line.is_meta, &line.summary, message.content),
            Some("assistant") => self.calls(message.content, line.cwd.as_str()),
            _ => {}
        }
    }

    fn user(&mut self, meta: &Scalar, summary: &Scalar, content: Content) {
        match content {
            Content::Text(chars) if !meta.is_true() && !summary.is_true() => self.pasted(chars),
            Content::Blocks(blocks) => {
                let mut text = 0u64;
                let mut results = false;
                for block in blocks {
                    match block.kind.as_str() {
                        Some("tool_result") => {
                            results = true;
                            if let Some(id) = block.tool_use_id.into_string() {
                                self.waiting.insert(id, block.content.chars());
                            }
                        }
                        Some("text") => text = text.saturating_add(block.text.0),
                        _ => {}
                    }
                }
                if !results && !meta.is_true() && !summary.is_true() {
                    self.pasted(text);
                }
            }
            Content::Text(_) | Content::None => {}
        }
    }

    fn pasted(&mut self, chars: u64) {
        if chars >= PASTED_MIN_CHARS {
            self.items.push(ContextItem {
                kind: ItemKind::PastedText,
                tool: "prompt".to_string(),
                target: None,
                tokens: tokens_of(chars),
            });
        }
    }

    fn calls(&mut self, content: Content, cwd: Option<&str>) {
        let Content::Blocks(blocks) = content else {
            return;
        };
        // A line's calls are in order; walking backwards, its last result is the newest.
        for block in blocks.into_iter().rev() {
            if block.kind.as_str() != Some("tool_use") {
                continue;
            }
            let Some(chars) = block.id.as_str().and_then(|id| self.waiting.remove(id)) else {
                continue;
            };
            let name = block.name.into_string().unwrap_or_else(|| "tool".into());
            let kind = match name.as_str() {
                "Read" | "NotebookRead" => ItemKind::FileRead,
                _ => ItemKind::ToolOutput,
            };
            let target = block.input.0.and_then(|input| input.target(cwd));
            self.items.push(ContextItem {
                kind,
                tool: name,
                target,
                tokens: tokens_of(chars),
            });
        }
    }

    fn finish(mut self, keep: usize, complete: bool) -> RecentContext {
        // A result whose call lies beyond what was read is still in the context.
        let mut orphans: Vec<u64> = self.waiting.into_values().collect();
        orphans.sort_unstable_by(|a, b| b.cmp(a));
        self.items
            .extend(orphans.into_iter().map(|chars| ContextItem {
                kind: ItemKind::ToolOutput,
                tool: "tool".to_string(),
                target: None,
                tokens: tokens_of(chars),
            }));
        self.items.retain(|item| item.tokens > 0);
        // Stable: equal sizes stay newest first.
        self.items
            .sort_by_key(|item| std::cmp::Reverse(item.tokens));
        self.items.truncate(keep);
        self.fills.reverse();
        RecentContext {
            largest: self.items,
            fills: self.fills,
            complete,
        }
    }
}

/// `ceil(chars / 4)`, the estimate `ctxmon_domain::estimate_tokens` makes of a text.
fn tokens_of(chars: u64) -> u64 {
    chars.div_ceil(4)
}

/// `target` shortened to [`TARGET_CHARS`]: a path (`keep_end`) keeps its end, where the file's
/// name is; anything else its start.
pub fn shorten(target: &str, keep_end: bool) -> String {
    let count = target.chars().count();
    if count <= TARGET_CHARS {
        return target.to_string();
    }
    let kept = TARGET_CHARS - 1;
    if keep_end {
        let tail: String = target.chars().skip(count - kept).collect();
        format!("…{tail}")
    } else {
        let head: String = target.chars().take(kept).collect();
        format!("{head}…")
    }
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawLine {
    #[serde(rename = "type")]
    kind: Scalar,
    #[serde(rename = "isMeta")]
    is_meta: Scalar,
    #[serde(rename = "isCompactSummary")]
    summary: Scalar,
    cwd: Scalar,
    message: Obj<RawMessage>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawMessage {
    content: Content,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct Block {
    #[serde(rename = "type")]
    kind: Scalar,
    id: Scalar,
    tool_use_id: Scalar,
    name: Scalar,
    text: Chars,
    content: Content,
    input: Obj<Input>,
}

/// The arguments that say what a call was pointed at.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Input {
    file_path: Scalar,
    notebook_path: Scalar,
    path: Scalar,
    command: Scalar,
    pattern: Scalar,
    url: Scalar,
    query: Scalar,
    description: Scalar,
}

impl Input {
    fn target(self, cwd: Option<&str>) -> Option<String> {
        let path = [self.file_path, self.notebook_path, self.path]
            .into_iter()
            .find_map(Scalar::into_string);
        if let Some(path) = path {
            return Some(shorten(relative(&path, cwd), true));
        }
        let other = [
            self.command,
            self.pattern,
            self.url,
            self.query,
            self.description,
        ]
        .into_iter()
        .find_map(Scalar::into_string)?;
        let first = other.lines().map(str::trim).find(|l| !l.is_empty())?;
        Some(shorten(first, false))
    }
}

/// `path` inside `cwd` without it (Claude Code writes absolute paths); any other path as is.
fn relative<'p>(path: &'p str, cwd: Option<&str>) -> &'p str {
    let Some(cwd) = cwd.filter(|c| !c.is_empty()) else {
        return path;
    };
    match path.strip_prefix(cwd) {
        Some(rest) if rest.starts_with(['/', '\\']) && rest.len() > 1 => &rest[1..],
        _ => path,
    }
}

/// A message's or a result's content: text (its length in characters), blocks, or anything
/// else (nothing).
#[derive(Default)]
enum Content {
    #[default]
    None,
    Text(u64),
    Blocks(Vec<Block>),
}

impl Content {
    /// The characters of its text: a string's, or the sum of its text blocks'.
    fn chars(&self) -> u64 {
        match self {
            Content::None => 0,
            Content::Text(n) => *n,
            Content::Blocks(blocks) => blocks
                .iter()
                .filter(|b| b.kind.as_str() == Some("text"))
                .fold(0u64, |sum, b| sum.saturating_add(b.text.0)),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Content, D::Error> {
        d.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
        Ok(Content::Text(v.chars().count() as u64))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<Obj<Block>>()? {
            blocks.extend(block.0);
        }
        Ok(Content::Blocks(blocks))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Content::None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content, E> {
        Ok(Content::None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content, E> {
        Ok(Content::None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content, E> {
        Ok(Content::None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content, E> {
        Ok(Content::None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
        Ok(Content::None)
    }
}

/// A string's length in characters, counted without keeping the string; 0 for anything else.
#[derive(Default)]
struct Chars(u64);

impl<'de> Deserialize<'de> for Chars {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Chars, D::Error> {
        match d.deserialize_any(ContentVisitor)? {
            Content::Text(n) => Ok(Chars(n)),
            Content::None | Content::Blocks(_) => Ok(Chars(0)),
        }
    }
}

#[cfg(test)]
#[path = "recent_tests.rs"]
mod tests;
