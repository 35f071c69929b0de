//! The status line's shape: a template such as `{percent} {bar} {until-compact}`, parsed once
//! and laid out to fit a width.
//!
//! A template is text with fields in braces (`{{` and `}}` are literal braces). The fields are
//! [`StatusField::ALL`]; anything else in braces is an error that names it, so a typo never
//! shows up as text in someone's status line. [`DEFAULT_STATUS_FORMAT`] is the line ctxmon has
//! always printed.
//!
//! Laying out: the text before a field belongs to that field (its separator), except the text
//! before the first field and after the last, which always stay. A field with nothing to show
//! (no git branch, say) goes with its separator. When the line is wider than the room it has,
//! fields go in a fixed order, least telling first — branch, model, until-compact, tokens and
//! window together, bar, tier, percent — until it fits; the percentage is the last to go.
//! For the default template that reproduces the line's old shortening step for step.

/// The line ctxmon prints without a format: `ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to
/// compact`.
pub const DEFAULT_STATUS_FORMAT: &str =
    "ctx {percent} {bar} {tokens}/{window} {tier} · {until-compact}";

/// A template longer than this is not a status line.
pub const MAX_FORMAT_CHARS: usize = 1_000;

/// What a template can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatusField {
    /// `75%`, rounded down like every fill.
    Percent,
    /// `▰▰▰▰▰▰▰▱▱▱`.
    Bar,
    /// The context's tokens, `150k`.
    Tokens,
    /// The window, `200k`.
    Window,
    /// `WARNING`.
    Tier,
    /// `17k to compact`, `compacting soon` past the auto-compact point, `auto-compact off`.
    UntilCompact,
    /// `~6 turns`: the responses left before auto-compaction at the recent pace; nothing
    /// when too few responses were seen or the context is not growing.
    TurnsLeft,
    /// The model id.
    Model,
    /// The project's git branch.
    Branch,
}

impl StatusField {
    /// Every field, in the order error messages and help list them ([`StatusField::names`]).
    pub const ALL: [StatusField; 9] = [
        StatusField::Percent,
        StatusField::Bar,
        StatusField::Tokens,
        StatusField::Window,
        StatusField::Tier,
        StatusField::UntilCompact,
        StatusField::TurnsLeft,
        StatusField::Model,
        StatusField::Branch,
    ];

    /// The name between the braces.
    pub fn name(self) -> &'static str {
        match self {
            StatusField::Percent => "percent",
            StatusField::Bar => "bar",
            StatusField::Tokens => "tokens",
            StatusField::Window => "window",
            StatusField::Tier => "tier",
            StatusField::UntilCompact => "until-compact",
            StatusField::TurnsLeft => "turns-left",
            StatusField::Model => "model",
            StatusField::Branch => "branch",
        }
    }

    /// The field named `name` inside braces (`until-compact`); `None` for an unknown name.
    pub fn parse(name: &str) -> Option<StatusField> {
        StatusField::ALL.into_iter().find(|f| f.name() == name)
    }

    /// When a narrow line drops it: lower goes first. Tokens and window go together (`150k/200k`
    /// is one figure), and the percentage stays longest.
    fn drop_rank(self) -> u8 {
        match self {
            StatusField::Branch => 0,
            StatusField::Model => 1,
            // The room before compaction said another way: it goes with it.
            StatusField::UntilCompact | StatusField::TurnsLeft => 2,
            StatusField::Tokens | StatusField::Window => 3,
            StatusField::Bar => 4,
            StatusField::Tier => 5,
            StatusField::Percent => 6,
        }
    }

    /// `percent, bar, tokens, …`: for error messages and help.
    pub fn names() -> String {
        StatusField::ALL
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Field(StatusField),
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusTemplate {
    pieces: Vec<Piece>,
}

/// Why a template cannot be used; the message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError(pub String);

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TemplateError {}

/// A field's text: as measured (`plain`) and as printed (`styled`, e.g. with colour codes that
/// take no room).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldText {
    /// The text as it takes room on the terminal, without escape codes.
    pub plain: String,
    /// The text as printed; the same as `plain` when unstyled.
    pub styled: String,
}

impl FieldText {
    /// Unstyled text: `styled` equals `plain`.
    pub fn plain(text: impl Into<String>) -> FieldText {
        let text = text.into();
        FieldText {
            styled: text.clone(),
            plain: text,
        }
    }
}

impl Default for StatusTemplate {
    fn default() -> StatusTemplate {
        // The default is a constant this module's tests parse; should it ever fail, a line with
        // the percentage alone is still a status line.
        StatusTemplate::parse(DEFAULT_STATUS_FORMAT).unwrap_or(StatusTemplate {
            pieces: vec![Piece::Field(StatusField::Percent)],
        })
    }
}

impl StatusTemplate {
    /// Parses a format such as [`DEFAULT_STATUS_FORMAT`]: fields in braces, `{{` and `}}` for
    /// literal braces. Rejects an empty format, one over [`MAX_FORMAT_CHARS`], a line break, or an
    /// unknown field, with a message that says what to write.
    pub fn parse(format: &str) -> Result<StatusTemplate, TemplateError> {
        if format.trim().is_empty() {
            return Err(TemplateError(format!(
                "the format is empty; write fields in braces, e.g. {DEFAULT_STATUS_FORMAT:?}"
            )));
        }
        if format.chars().count() > MAX_FORMAT_CHARS {
            return Err(TemplateError(format!(
                "the format is longer than {MAX_FORMAT_CHARS} characters"
            )));
        }
        if format.contains(['\n', '\r']) {
            return Err(TemplateError(
                "the format has a line break; a status line is one line".into(),
            ));
        }
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = format.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|p| p.1) == Some('{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek().map(|p| p.1) == Some('}') => {
                    chars.next();
                    text.push('}');
                }
                '}' => {
                    return Err(TemplateError(format!(
                        "`}}` without a `{{` at character {} (write `}}}}` for a brace)",
                        column(format, at)
                    )));
                }
                '{' => {
                    let rest = &format[at + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err(TemplateError(format!(
                            "`{{` at character {} is never closed (write `{{{{` for a brace)",
                            column(format, at)
                        )));
                    };
                    let name = &rest[..end];
                    let field = StatusField::parse(name.trim()).ok_or_else(|| {
                        TemplateError(format!(
                            "unknown field `{{{name}}}`; the fields are {}",
                            StatusField::names()
                        ))
                    })?;
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Field(field));
                    // Skip the name and its closing brace.
                    while chars.peek().is_some_and(|&(i, _)| i <= at + 1 + end) {
                        chars.next();
                    }
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        if !pieces.iter().any(|p| matches!(p, Piece::Field(_))) {
            return Err(TemplateError(format!(
                "the format has no field; the fields are {} (in braces)",
                StatusField::names()
            )));
        }
        Ok(StatusTemplate { pieces })
    }

    /// The fields the template shows, so a caller computes only those (the branch reads
    /// `.git`).
    pub fn uses(&self, field: StatusField) -> bool {
        self.pieces.contains(&Piece::Field(field))
    }

    /// The line for `value`s (`None`: nothing to show), at most `width` characters wide when
    /// dropping fields can make it so; with everything dropped, what is left is the template's
    /// own text.
    pub fn render(&self, value: impl Fn(StatusField) -> Option<FieldText>, width: usize) -> String {
        let values: Vec<Option<FieldText>> = self
            .pieces
            .iter()
            .map(|p| match p {
                Piece::Field(f) => value(*f).filter(|v| !v.plain.is_empty()),
                Piece::Text(_) => None,
            })
            .collect();
        let last_rank = StatusField::ALL
            .iter()
            .map(|f| f.drop_rank())
            .max()
            .unwrap_or(0);
        let mut fallback = String::new();
        for dropped_below in 0..=last_rank + 1 {
            let keep = |f: StatusField, v: &Option<FieldText>| {
                v.is_some() && f.drop_rank() >= dropped_below
            };
            let (plain, styled) = self.assemble(&values, keep);
            if plain.chars().count() <= width {
                return styled;
            }
            fallback = styled;
        }
        fallback
    }

    /// The line with the kept fields, as measured and as printed.
    fn assemble(
        &self,
        values: &[Option<FieldText>],
        keep: impl Fn(StatusField, &Option<FieldText>) -> bool,
    ) -> (String, String) {
        let kept: Vec<bool> = self
            .pieces
            .iter()
            .zip(values)
            .map(|(p, v)| matches!(p, Piece::Field(f) if keep(*f, v)))
            .collect();
        let is_field = |p: &Piece| matches!(p, Piece::Field(_));
        let first = self.pieces.iter().position(is_field);
        let last = self.pieces.iter().rposition(is_field);
        // Text before the first field and after the last always stays; any other text is a
        // separator, shown only between two shown fields: the next field is shown, and so is
        // one before it.
        let mut segments: Vec<(&str, &str, bool)> = Vec::new();
        let mut dropped_any = false;
        let mut shown_before = false;
        for (i, piece) in self.pieces.iter().enumerate() {
            match (piece, &values[i]) {
                (Piece::Field(_), Some(v)) if kept[i] => {
                    segments.push((&v.plain, &v.styled, false));
                    shown_before = true;
                }
                (Piece::Field(_), _) => dropped_any = true,
                (Piece::Text(t), _) => {
                    let edge =
                        first.is_none_or(|first| i < first) || last.is_none_or(|last| i > last);
                    let next_shown = (i + 1..self.pieces.len())
                        .find(|&j| is_field(&self.pieces[j]))
                        .is_some_and(|j| kept[j]);
                    if edge || (next_shown && shown_before) {
                        segments.push((t, t, true));
                    }
                }
            }
        }
        if dropped_any {
            trim_edges(&mut segments);
        }
        let plain = segments.iter().map(|s| s.0).collect();
        let styled = segments.iter().map(|s| s.1).collect();
        (plain, styled)
    }
}

/// Removes the whitespace a dropped field leaves at either end of the line (only the template's
/// own text can carry it: field values have none).
fn trim_edges<'a>(segments: &mut Vec<(&'a str, &'a str, bool)>) {
    while let Some(first) = segments.first_mut().filter(|s| s.2) {
        first.0 = first.0.trim_start();
        first.1 = first.0;
        if !first.0.is_empty() {
            break;
        }
        segments.remove(0);
    }
    while let Some(last) = segments.last_mut().filter(|s| s.2) {
        last.0 = last.0.trim_end();
        last.1 = last.0;
        if !last.0.is_empty() {
            break;
        }
        segments.pop();
    }
}

/// The 1-based character position of byte `at`, for messages.
fn column(text: &str, at: usize) -> usize {
    text[..at].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(f: StatusField) -> Option<FieldText> {
        Some(FieldText::plain(match f {
            StatusField::Percent => "75%",
            StatusField::Bar => "▰▰▰▰▰▰▰▱▱▱",
            StatusField::Tokens => "150k",
            StatusField::Window => "200k",
            StatusField::Tier => "WARNING",
            StatusField::UntilCompact => "17k to compact",
            StatusField::TurnsLeft => "~6 turns",
            StatusField::Model => "claude-opus-4-6",
            StatusField::Branch => "",
        }))
    }

    /// The default template shortens as the line always did: the room to compact first, then
    /// the tokens, the bar, the tier, the percentage, and `ctx` when nothing fits.
    #[test]
    fn the_default_shortens_step_by_step() {
        let t = StatusTemplate::default();
        let line = |w| t.render(values, w);
        assert_eq!(
            line(80),
            "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact"
        );
        assert_eq!(line(45), "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING");
        assert_eq!(line(30), "ctx 75% ▰▰▰▰▰▰▰▱▱▱ WARNING");
        assert_eq!(line(24), "ctx 75% WARNING");
        assert_eq!(line(12), "ctx 75%");
        assert_eq!(line(1), "ctx");
    }

    #[test]
    fn empty_fields_go_with_their_separator() {
        let t = StatusTemplate::parse("{branch} | {percent} {bar} | {model}").unwrap();
        assert_eq!(t.render(values, 200), "75% ▰▰▰▰▰▰▰▱▱▱ | claude-opus-4-6");
        let t = StatusTemplate::parse("{model} · {percent} {until-compact}").unwrap();
        assert_eq!(
            t.render(values, 200),
            "claude-opus-4-6 · 75% 17k to compact"
        );
        assert_eq!(
            t.render(values, 18),
            "75% 17k to compact",
            "the model goes first"
        );
        assert_eq!(t.render(values, 17), "75%");
        let t = StatusTemplate::parse("{percent} {model} {tier}").unwrap();
        assert_eq!(t.render(values, 11), "75% WARNING", "one separator stays");
    }

    #[test]
    fn styled_text_takes_no_room() {
        let t = StatusTemplate::parse("{percent} {tier}").unwrap();
        let styled = |f: StatusField| {
            values(f).map(|v| FieldText {
                styled: format!("\x1b[33m{}\x1b[0m", v.plain),
                plain: v.plain,
            })
        };
        assert_eq!(
            t.render(styled, 11),
            "\x1b[33m75%\x1b[0m \x1b[33mWARNING\x1b[0m"
        );
        assert_eq!(t.render(styled, 10), "\x1b[33m75%\x1b[0m");
    }

    #[test]
    fn braces_and_mistakes() {
        let t = StatusTemplate::parse("{{ {percent} }}").unwrap();
        assert_eq!(t.render(values, 80), "{ 75% }");
        assert!(t.uses(StatusField::Percent) && !t.uses(StatusField::Bar));
        let err = |f: &str| StatusTemplate::parse(f).unwrap_err().0;
        assert!(err("{percent} {brach}").starts_with("unknown field `{brach}`; the fields are percent, bar, tokens, window, tier, until-compact, turns-left, model, branch"));
        assert!(err("{percent").contains("character 1 is never closed"));
        assert!(err("75} {percent}").contains("`}` without a `{` at character 3"));
        assert!(err("").contains("empty"));
        assert!(err("   ").contains("empty"));
        assert!(err("{percent}\n{bar}").contains("one line"));
        assert!(err(&"x".repeat(1_001)).contains("longer than 1000"));
        assert!(err("{}").contains("unknown field `{}`"));
        assert!(err("ctx {{percent}}").contains("no field"));
        assert!(
            StatusTemplate::parse("{ percent }").is_ok(),
            "spaces inside"
        );
        assert!(StatusTemplate::parse("ctx ▰ {percent} 🙂").is_ok());
    }
}
