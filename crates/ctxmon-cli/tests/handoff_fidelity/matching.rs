//! Whether the injected `<resumption-context>` holds an expected item: by content, lenient
//! about format, strict about substance. The XML is unescaped (text and attribute values), all
//! whitespace runs count as one space, a long text counts when its first
//! [`PREFIX_CHARS`] characters appear, and a list item also counts when the context says it
//! is among "+N more … in cx-NNN" with N the number of items not shown.

/// How much of a long text must appear for it to count: enough to be distinctive, short
/// enough that a shortened rendering (with a marker) still shows it.
pub const PREFIX_CHARS: usize = 40;

/// The context as the test reads it.
pub struct Context {
    /// Unescaped content, one text node or attribute value per line.
    pub lines: Vec<String>,
    /// The same, whitespace-normalised and joined.
    pub flat: String,
    pub well_formed: bool,
    /// ceil(chars / 4) of the whole additionalContext.
    pub tokens: usize,
}

pub fn norm(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn needle(text: &str) -> String {
    norm(text).chars().take(PREFIX_CHARS).collect()
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Reads the `<resumption-context>` element out of an additionalContext. When it is missing
/// or not well-formed the text is still searched (unescaped by hand), and the replay counts
/// as not well-formed.
pub fn read(additional: &str) -> Context {
    let tokens = additional.chars().count().div_ceil(4);
    let element = additional.find("<resumption-context").and_then(|start| {
        let end = additional.rfind("</resumption-context>")? + "</resumption-context>".len();
        (end > start).then(|| &additional[start..end])
    });
    let parsed = element.and_then(|xml| {
        let doc = roxmltree::Document::parse(xml).ok()?;
        (doc.root_element().tag_name().name() == "resumption-context").then(|| {
            let mut lines = Vec::new();
            for node in doc.descendants() {
                lines.extend(node.attributes().map(|a| a.value().to_string()));
                if let Some(t) = node.text().filter(|_| node.is_text()) {
                    lines.extend(t.lines().map(str::to_string));
                }
            }
            lines
        })
    });
    let well_formed = parsed.is_some();
    let lines =
        parsed.unwrap_or_else(|| unescape(additional).lines().map(str::to_string).collect());
    let flat = norm(&lines.join("\n"));
    Context {
        lines,
        flat,
        well_formed,
        tokens,
    }
}

impl Context {
    /// A text counts when its distinctive prefix appears.
    pub fn has_text(&self, text: &str) -> bool {
        let n = needle(text);
        !n.is_empty() && self.flat.contains(&n)
    }

    /// An exact atom (a path, an id), whole.
    pub fn has_atom(&self, atom: &str) -> bool {
        let n = norm(atom);
        !n.is_empty() && self.flat.contains(&n)
    }

    /// A branch name as a whole token (`main` is not found inside `domain`).
    pub fn has_branch(&self, branch: &str) -> bool {
        let hay = &self.flat;
        let inside = |c: char| c.is_alphanumeric() || "-_./".contains(c);
        let mut from = 0;
        while let Some(pos) = hay[from..].find(branch) {
            let start = from + pos;
            let end = start + branch.len();
            let before = hay[..start].chars().next_back();
            let after = hay[end..].chars().next();
            if !before.is_some_and(inside) && !after.is_some_and(inside) {
                return true;
            }
            from = start + branch.len().max(1);
        }
        false
    }

    /// Every "+N more … in cx-NNN" count that names `checkpoint`.
    fn more_counts(&self, checkpoint: &str) -> Vec<usize> {
        let mut counts = Vec::new();
        for line in &self.lines {
            let mut rest = line.as_str();
            while let Some(pos) = rest.find('+') {
                rest = &rest[pos + 1..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let after = &rest[digits.len()..];
                if let Ok(n) = digits.parse::<usize>()
                    && after.starts_with(" more")
                    && after.contains(checkpoint)
                {
                    counts.push(n);
                }
            }
        }
        counts
    }

    /// Which of `items` count as present: shown (by `shown`), or all the missing ones
    /// together when a "+N more … in `checkpoint`" line has N equal to how many are missing.
    pub fn list_found<T>(
        &self,
        items: &[T],
        checkpoint: Option<&str>,
        shown: impl Fn(&Context, &T) -> bool,
    ) -> Vec<bool> {
        let mut found: Vec<bool> = items.iter().map(|i| shown(self, i)).collect();
        let missing = found.iter().filter(|f| !**f).count();
        if missing > 0
            && let Some(id) = checkpoint
            && self.more_counts(id).contains(&missing)
        {
            found.iter_mut().for_each(|f| *f = true);
        }
        found
    }
}
