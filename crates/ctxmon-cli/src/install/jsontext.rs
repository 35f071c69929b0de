//! Strict JSON text that knows where each of its values sits, and edits that splice one value in
//! or out without touching a byte around it.
//!
//! Why not parse and re-serialise: serde_json sorts object keys unless its `preserve_order`
//! feature is on, and that feature is a workspace-wide switch that would reorder every JSON
//! answer ctxmon prints; and any round trip loses the user's formatting. Splicing keeps both,
//! which is what makes `install` followed by `uninstall` give back the original bytes.

use ctxmon_application::readers::json::comments::blank_comments;
use serde_json::Value;

/// Where a settings file stops being strict JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A parsed value with its byte span in the text.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub value: Node,
}

/// One step of a path from the root: an object key (the last one wins, as in every JSON reader
/// Claude Code could use) or an array index.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Deep enough for any settings file; far below what would exhaust the stack.
const MAX_DEPTH: usize = 256;

/// JSON text, its span tree and its value: strict JSON, or JSON with comments for an agent
/// that reads its settings so (the comments are kept; spans are found with them blanked).
#[derive(Debug, Clone)]
pub struct Doc {
    pub text: String,
    pub root: Node,
    pub value: Value,
    /// Comments are allowed (and kept) in this text.
    pub comments: bool,
}

impl Doc {
    /// Parses `text`, refusing comments, trailing commas and everything else RFC 8259 forbids.
    pub fn parse(text: String) -> Result<Doc, SyntaxError> {
        Doc::parse_with(text, false)
    }

    /// Parses `text`; with `comments`, `//` and `/* */` comments are allowed and left in place
    /// (Gemini CLI strips them before it parses its settings), the rest is strict JSON.
    pub fn parse_with(text: String, comments: bool) -> Result<Doc, SyntaxError> {
        if !comments && let Some((line, column)) = find_comment(&text) {
            return Err(SyntaxError {
                line,
                column,
                message: "comments are not allowed in JSON".into(),
            });
        }
        // Comments blanked to spaces byte for byte: every span found here is the same in `text`.
        let analysed = if comments {
            blank_comments(&text)
        } else {
            std::borrow::Cow::Borrowed(text.as_str())
        };
        let value: Value = serde_json::from_str(&analysed).map_err(|e| SyntaxError {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        let mut parser = Parser {
            b: analysed.as_bytes(),
            pos: 0,
        };
        let root = parser.value(0)?;
        drop(analysed);
        Ok(Doc {
            text,
            root,
            value,
            comments,
        })
    }

    pub fn node(&self, path: &[Step<'_>]) -> Option<&Node> {
        let mut node = &self.root;
        for step in path {
            node = match (step, &node.kind) {
                (Step::Key(k), Kind::Object(members)) => {
                    &members.iter().rev().find(|m| m.key == *k)?.value
                }
                (Step::Index(i), Kind::Array(items)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The leading whitespace of one indentation level, guessed from the root's first member
    /// on its own line; two spaces (what Claude Code writes) when there is none.
    pub fn indent_unit(&self) -> String {
        if let Kind::Object(members) = &self.root.kind
            && let Some(m) = members
                .iter()
                .find(|m| !same_line(&self.text, self.root.start, m.key_start))
        {
            let unit = line_indent(&self.text, m.key_start);
            if !unit.is_empty() {
                return unit.to_string();
            }
        }
        "  ".into()
    }
}

/// `serde_json` ends its messages with " at line L column C"; the caller prints its own.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The first `//` or `/*` outside a string, as (line, column), both 1-based.
fn find_comment(text: &str) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    for i in 0..b.len() {
        let c = b[i];
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            let line = 1 + b[..i].iter().filter(|&&c| c == b'\n').count();
            let line_start = b[..i]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
            return Some((line, text[line_start..i].chars().count() + 1));
        }
    }
    None
}

/// A span parser for text serde_json has already accepted; it still fails cleanly, never
/// panics, if the two ever disagree.
struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> SyntaxError {
        let before = &self.b[..self.pos.min(self.b.len())];
        let line = 1 + before.iter().filter(|&&c| c == b'\n').count();
        let column = before.len()
            - before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
        SyntaxError {
            line,
            column: column + 1,
            message: message.into(),
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), SyntaxError> {
        self.skip_ws();
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", c as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.skip_ws();
        let start = self.pos;
        let kind = match self.b.get(self.pos) {
            Some(b'{') => Kind::Object(self.object(depth)?),
            Some(b'[') => Kind::Array(self.array(depth)?),
            Some(b'"') => {
                self.string()?;
                Kind::Scalar
            }
            Some(_) => {
                while let Some(c) = self.b.get(self.pos) {
                    if matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
                Kind::Scalar
            }
            None => return Err(self.error("unexpected end of text")),
        };
        Ok(Node {
            start,
            end: self.pos,
            kind,
        })
    }

    /// Skips a string and returns its span (quotes included).
    fn string(&mut self) -> Result<(usize, usize), SyntaxError> {
        let start = self.pos;
        self.expect(b'"')?;
        loop {
            match self.b.get(self.pos) {
                Some(b'\\') => self.pos += 2,
                Some(b'"') => {
                    self.pos += 1;
                    return Ok((start, self.pos));
                }
                Some(_) => self.pos += 1,
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Vec<Member>, SyntaxError> {
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.skip_ws();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(members);
        }
        loop {
            self.skip_ws();
            let (key_start, key_end) = self.string()?;
            let raw = std::str::from_utf8(&self.b[key_start..key_end])
                .map_err(|_| self.error("key is not UTF-8"))?;
            let key: String =
                serde_json::from_str(raw).map_err(|_| self.error("key is not a valid string"))?;
            self.expect(b':')?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_start,
                value,
            });
            self.skip_ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(members);
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Vec<Node>, SyntaxError> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(items);
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }
}

/// True when no newline lies between the two offsets.
pub fn same_line(text: &str, a: usize, b: usize) -> bool {
    let (lo, hi) = (a.min(b), a.max(b).min(text.len()));
    !text.as_bytes()[lo.min(hi)..hi].contains(&b'\n')
}

/// The spaces and tabs that begin the line holding `pos`.
pub fn line_indent(text: &str, pos: usize) -> &str {
    let pos = pos.min(text.len());
    let start = text.as_bytes()[..pos]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let len = text.as_bytes()[start..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    &text[start..start + len]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Doc {
        Doc::parse(text.to_string()).unwrap()
    }

    #[test]
    fn spans_cover_exactly_the_values() {
        let d = doc("{\n  \"a\": [1, {\"b\": \"x\\\"y\"}],\n  \"a\": true\n}");
        let last_a = d.node(&[Step::Key("a")]).unwrap();
        assert_eq!(&d.text[last_a.start..last_a.end], "true");
        // `a` is duplicated: paths see the last one, like serde_json's value does.
        assert_eq!(d.value["a"], Value::Bool(true));
        let Kind::Object(members) = &d.root.kind else {
            panic!("root is an object")
        };
        let first = &members[0].value;
        let Kind::Array(items) = &first.kind else {
            panic!("array")
        };
        assert_eq!(&d.text[items[1].start..items[1].end], "{\"b\": \"x\\\"y\"}");
        assert_eq!(d.indent_unit(), "  ");
    }

    #[test]
    fn comments_and_trailing_commas_are_refused_with_their_line() {
        let e = Doc::parse("{\n  // mine\n  \"a\": 1\n}".into()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("comments"), "{e:?}");
        let e = Doc::parse("{\n  \"a\": 1, /* x */\n}".into()).unwrap_err();
        assert_eq!(e.line, 2);
        let e = Doc::parse("{\n  \"a\": [1, 2,],\n  \"b\": 1\n}".into()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("trailing comma"), "{e:?}");
        // A `//` inside a string is text, not a comment.
        assert!(Doc::parse(r#"{"url": "https://x//y"}"#.into()).is_ok());
    }

    #[test]
    fn with_comments_allowed_they_stay_and_spans_point_into_the_text() {
        let text = "{\n  // mine\n  \"a\": 1, /* x */\n  \"b\": [true]\n}";
        let d = Doc::parse_with(text.into(), true).unwrap();
        assert_eq!(d.text, text, "nothing is taken out");
        assert_eq!(d.value["a"], 1);
        let b = d.node(&[Step::Key("b"), Step::Index(0)]).unwrap();
        assert_eq!(&d.text[b.start..b.end], "true");
        // Trailing commas stay refused: the agent's parser refuses them too.
        assert!(Doc::parse_with("{\"a\": 1,}".into(), true).is_err());
    }

    #[test]
    fn indentation_is_taken_from_the_file() {
        assert_eq!(doc("{\n    \"a\": 1\n}").indent_unit(), "    ");
        assert_eq!(doc("{\n\t\"a\": 1\n}").indent_unit(), "\t");
        assert_eq!(doc("{\"a\": 1}").indent_unit(), "  ");
        assert_eq!(line_indent("a\n   b", 5), "   ");
        assert!(same_line("ab\ncd", 0, 1) && !same_line("ab\ncd", 1, 4));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(Doc::parse(deep).is_err());
    }
}
