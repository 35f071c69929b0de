//! Edits on a settings file's text: insert, remove or replace one value, laid out like its
//! neighbours and with the file's line ending (CRLF when its first line ends so). Each
//! insertion starts right after the previous item's end, and each removal of a last item cuts
//! from the previous item's end, so removing what was inserted restores the bytes exactly.

use super::jsontext::{Doc, Kind, Node, Step, SyntaxError, line_indent, same_line};

/// A value ctxmon writes, with its keys in the order Claude Code's documentation shows them
/// (serde_json's map would sort them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    Str(String),
    Int(u64),
    Obj(Vec<(&'static str, Out)>),
    Arr(Vec<Out>),
}

impl Out {
    /// `JSON.stringify(value, null, unit)` laid out at `indent`, as Claude Code writes settings.
    pub fn pretty(&self, indent: &str, unit: &str) -> String {
        let inner = format!("{indent}{unit}");
        match self {
            Out::Obj(members) if !members.is_empty() => {
                let items: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{inner}{}: {}", quote(k), v.pretty(&inner, unit)))
                    .collect();
                format!("{{\n{}\n{indent}}}", items.join(",\n"))
            }
            Out::Arr(items) if !items.is_empty() => {
                let items: Vec<String> = items
                    .iter()
                    .map(|v| format!("{inner}{}", v.pretty(&inner, unit)))
                    .collect();
                format!("[\n{}\n{indent}]", items.join(",\n"))
            }
            _ => self.compact(),
        }
    }

    /// One line, for containers the user wrote on one line.
    pub fn compact(&self) -> String {
        match self {
            Out::Str(s) => quote(s),
            Out::Int(n) => n.to_string(),
            Out::Obj(members) => {
                let items: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{}: {}", quote(k), v.compact()))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
            Out::Arr(items) => {
                let items: Vec<String> = items.iter().map(Out::compact).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
}

/// A JSON string literal.
pub fn quote(s: &str) -> String {
    // Serialising a &str cannot fail; the fallback only keeps this total.
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.escape_default()))
}

/// Why an edit could not be made: the path vanished or the result did not parse. Both would be
/// bugs in ctxmon, reported instead of writing a broken file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError(pub String);

impl From<SyntaxError> for EditError {
    fn from(e: SyntaxError) -> EditError {
        EditError(format!(
            "an edit produced invalid JSON ({} at line {} column {})",
            e.message, e.line, e.column
        ))
    }
}

/// A document being edited. Every edit re-parses the result, so the next edit works on fresh
/// spans and a broken splice is caught before anything is written.
#[derive(Debug, Clone)]
pub struct Editor {
    pub doc: Doc,
    unit: String,
    /// The file's line ending, used for every line break an edit writes.
    crlf: bool,
}

/// An item of a container: a member (from its key) or an element.
struct Item {
    start: usize,
    end: usize,
}

impl Editor {
    pub fn new(doc: Doc) -> Editor {
        let unit = doc.indent_unit();
        // The first line break decides: a file is CRLF or LF as a whole in practice, and the
        // first break is what editors look at too.
        let crlf = doc
            .text
            .find('\n')
            .is_some_and(|i| doc.text[..i].ends_with('\r'));
        Editor { doc, unit, crlf }
    }

    /// `text` (built with `\n`) with the file's line ending. JSON strings cannot hold a raw
    /// line break, so every `\n` here is layout.
    fn eol(&self, text: String) -> String {
        if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        }
    }

    pub fn into_text(self) -> String {
        self.doc.text
    }

    fn find(&self, path: &[Step<'_>]) -> Result<Node, EditError> {
        self.doc
            .node(path)
            .cloned()
            .ok_or_else(|| EditError(format!("no value at {path:?}")))
    }

    fn splice(&mut self, start: usize, end: usize, with: &str) -> Result<(), EditError> {
        let mut text = String::with_capacity(self.doc.text.len() + with.len());
        text.push_str(&self.doc.text[..start]);
        text.push_str(with);
        text.push_str(&self.doc.text[end..]);
        self.doc = Doc::parse_with(text, self.doc.comments)?;
        Ok(())
    }

    fn items(node: &Node) -> Vec<Item> {
        match &node.kind {
            Kind::Object(members) => members
                .iter()
                .map(|m| Item {
                    start: m.key_start,
                    end: m.value.end,
                })
                .collect(),
            Kind::Array(items) => items
                .iter()
                .map(|n| Item {
                    start: n.start,
                    end: n.end,
                })
                .collect(),
            Kind::Scalar => Vec::new(),
        }
    }

    /// Appends a member (`key` given) to the object at `path`, or an element to the array there.
    pub fn append(
        &mut self,
        path: &[Step<'_>],
        key: Option<&str>,
        value: &Out,
    ) -> Result<(), EditError> {
        let container = self.find(path)?;
        let item = |indent: &str, unit: &str, pretty: bool| {
            let body = if pretty {
                value.pretty(indent, unit)
            } else {
                value.compact()
            };
            match key {
                Some(k) => format!("{}: {body}", quote(k)),
                None => body,
            }
        };
        let text = &self.doc.text;
        let open = container.start;
        let close = container.end.saturating_sub(1);
        let items = Editor::items(&container);
        let Some(last) = items.last() else {
            let indent = line_indent(text, open).to_string();
            let inner = format!("{indent}{}", self.unit);
            let body = item(&inner, &self.unit, true);
            let interior = text.get(open + 1..close).unwrap_or_default();
            if !interior.trim().is_empty() {
                // Only comments inside: they stay, and the item goes after them (where
                // `remove` takes it from again).
                let at = open + 1 + interior.trim_end().len();
                let with = self.eol(format!("\n{inner}{body}"));
                return self.splice(at, at, &with);
            }
            let with = self.eol(format!("\n{inner}{body}\n{indent}"));
            return self.splice(open + 1, close, &with);
        };
        let insertion = if !same_line(text, open, last.start) {
            // One item per line: a new line at the siblings' indentation.
            let indent = line_indent(text, last.start).to_string();
            format!(",\n{indent}{}", item(&indent, &self.unit, true))
        } else if !same_line(text, open, close) {
            // `[{` … `}]` hugging: the next item hugs too.
            let indent = line_indent(text, open).to_string();
            format!(", {}", item(&indent, &self.unit, true))
        } else {
            format!(", {}", item("", &self.unit, false))
        };
        let at = last.end;
        let insertion = self.eol(insertion);
        self.splice(at, at, &insertion)
    }

    /// Removes item `index` of the container at `path`, with the comma and layout that belong
    /// to it; the sole item leaves `{}` or `[]`.
    pub fn remove(&mut self, path: &[Step<'_>], index: usize) -> Result<(), EditError> {
        let container = self.find(path)?;
        let items = Editor::items(&container);
        let n = items.len();
        if index >= n {
            return Err(EditError(format!("no item {index} at {path:?}")));
        }
        let (start, end) = if n == 1 {
            let before = self
                .doc
                .text
                .get(container.start + 1..items[0].start)
                .unwrap_or_default();
            if before.trim().is_empty() {
                (container.start + 1, container.end.saturating_sub(1))
            } else {
                // Comments before the sole item stay: it goes from the end of the last of them.
                (container.start + 1 + before.trim_end().len(), items[0].end)
            }
        } else if index == n - 1 {
            (items[index - 1].end, items[index].end)
        } else {
            (items[index].start, items[index + 1].start)
        };
        self.splice(start, end, "")
    }

    /// Removes the member `key` (its last occurrence) of the object at `path`.
    pub fn remove_member(&mut self, path: &[Step<'_>], key: &str) -> Result<(), EditError> {
        let container = self.find(path)?;
        let Kind::Object(members) = &container.kind else {
            return Err(EditError(format!("{path:?} is not an object")));
        };
        let index = members
            .iter()
            .rposition(|m| m.key == key)
            .ok_or_else(|| EditError(format!("no `{key}` at {path:?}")))?;
        self.remove(path, index)
    }

    /// Replaces the value at `path`; pretty when the old value spanned lines, else on one line.
    pub fn replace(&mut self, path: &[Step<'_>], value: &Out) -> Result<(), EditError> {
        let node = self.find(path)?;
        let old = &self.doc.text[node.start..node.end];
        let new = if old.contains('\n') {
            self.eol(value.pretty(line_indent(&self.doc.text, node.start), &self.unit))
        } else {
            value.compact()
        };
        self.splice(node.start, node.end, &new)
    }

    /// Replaces the value at `path` with text taken verbatim from another copy of the file.
    pub fn replace_raw(&mut self, path: &[Step<'_>], raw: &str) -> Result<(), EditError> {
        let node = self.find(path)?;
        self.splice(node.start, node.end, raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn editor(text: &str) -> Editor {
        Editor::new(Doc::parse(text.to_string()).unwrap())
    }

    fn hook() -> Out {
        Out::Obj(vec![
            ("type", Out::Str("command".into())),
            ("timeout", Out::Int(5)),
        ])
    }

    /// Appends to the container at `path` and checks the text, then removes the new item and
    /// checks that the original bytes come back.
    fn round_trip(before: &str, path: &[Step<'_>], key: Option<&str>, after: &str) {
        let mut ed = editor(before);
        ed.append(path, key, &hook()).unwrap();
        assert_eq!(ed.doc.text, after);
        let n = match &ed.doc.node(path).unwrap().kind {
            Kind::Object(m) => m.len(),
            Kind::Array(a) => a.len(),
            Kind::Scalar => 0,
        };
        ed.remove(path, n - 1).unwrap();
        assert_eq!(ed.doc.text, before);
    }

    #[test]
    fn append_follows_the_layout_and_removal_undoes_it() {
        round_trip(
            "{\n    \"a\": 1\n}\n",
            &[],
            Some("h"),
            "{\n    \"a\": 1,\n    \"h\": {\n        \"type\": \"command\",\n        \"timeout\": 5\n    }\n}\n",
        );
        round_trip(
            "{}\n",
            &[],
            Some("h"),
            "{\n  \"h\": {\n    \"type\": \"command\",\n    \"timeout\": 5\n  }\n}\n",
        );
        round_trip(
            "{\"a\": [1, 2]}",
            &[Step::Key("a")],
            None,
            "{\"a\": [1, 2, {\"type\": \"command\", \"timeout\": 5}]}",
        );
        round_trip(
            "{\n  \"a\": [{\n    \"x\": 1\n  }]\n}",
            &[Step::Key("a")],
            None,
            "{\n  \"a\": [{\n    \"x\": 1\n  }, {\n    \"type\": \"command\",\n    \"timeout\": 5\n  }]\n}",
        );
    }

    #[test]
    fn a_crlf_file_gets_crlf_lines_and_removal_undoes_them() {
        round_trip(
            "{\r\n  \"a\": 1\r\n}\r\n",
            &[],
            Some("h"),
            "{\r\n  \"a\": 1,\r\n  \"h\": {\r\n    \"type\": \"command\",\r\n    \"timeout\": 5\r\n  }\r\n}\r\n",
        );
        round_trip(
            "{\"h\": {}}\r\n",
            &[Step::Key("h")],
            Some("x"),
            "{\"h\": {\r\n  \"x\": {\r\n    \"type\": \"command\",\r\n    \"timeout\": 5\r\n  }\r\n}}\r\n",
        );
        let mut ed = editor("{\r\n  \"a\": {\r\n    \"x\": 1\r\n  }\r\n}");
        ed.replace(&[Step::Key("a")], &hook()).unwrap();
        assert_eq!(
            ed.doc.text,
            "{\r\n  \"a\": {\r\n    \"type\": \"command\",\r\n    \"timeout\": 5\r\n  }\r\n}"
        );
    }

    #[test]
    fn removing_a_middle_or_first_item_takes_its_comma() {
        let mut ed = editor("{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}");
        ed.remove_member(&[], "b").unwrap();
        assert_eq!(ed.doc.text, "{\n  \"a\": 1,\n  \"c\": 3\n}");
        ed.remove(&[], 0).unwrap();
        assert_eq!(ed.doc.text, "{\n  \"c\": 3\n}");
        ed.remove(&[], 0).unwrap();
        assert_eq!(ed.doc.text, "{}");
    }

    #[test]
    fn replace_keeps_one_line_values_on_one_line() {
        let mut ed = editor("{\"a\": {\"x\": 1}, \"b\": \"old\"}");
        ed.replace(&[Step::Key("a")], &hook()).unwrap();
        ed.replace(&[Step::Key("b")], &Out::Str("new \"q\"".into()))
            .unwrap();
        assert_eq!(
            ed.doc.text,
            "{\"a\": {\"type\": \"command\", \"timeout\": 5}, \"b\": \"new \\\"q\\\"\"}"
        );
        assert!(ed.remove(&[], 7).is_err());
        assert!(ed.replace(&[Step::Key("zz")], &Out::Int(1)).is_err());
    }
}
