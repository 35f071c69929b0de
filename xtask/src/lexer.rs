//! A small Rust lexer for the source checks (`check-arch`'s scan and module rules, tidy's
//! function lengths): comments vanish, string, char and byte literals are opaque, and only the
//! few token kinds the checks need are told apart, each with its line. Not a parser: it
//! knows no precedence or items, so the checks built on it stay simple and say so.

/// A token kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Dot,
    OpenParen,
    CloseParen,
    OpenBracket,
    CloseBracket,
    Semi,
    Eq,
    Other,
}

/// A token and where it starts.
#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    /// 1-based line the token starts on.
    pub line: usize,
}

/// Splits Rust source into the few token kinds the checks need. Comments vanish; string, char
/// and byte literals become `Other`, so their contents are never mistaken for code.
pub fn lex(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        let mut push = |tok: Tok| {
            out.push(Token {
                tok,
                line: start_line,
            })
        };
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if at(i + 1) == '/' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => i = skip_block_comment(&chars, i, &mut line),
            '"' => {
                i = skip_string(&chars, i + 1, &mut line);
                push(Tok::Other);
            }
            '\'' => {
                if at(i + 1) == '\\' {
                    // An escaped char literal: '\n', '\'', '\u{1F600}'.
                    i += 3;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                    push(Tok::Other);
                } else if at(i + 2) == '\'' {
                    i += 3;
                    push(Tok::Other);
                } else {
                    // A lifetime or label; its name is lexed as an identifier next.
                    i += 1;
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let begin = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let ident: String = chars[begin..i].iter().collect();
                let raw_prefix = matches!(ident.as_str(), "r" | "br" | "cr");
                if raw_prefix && let Some(end) = skip_raw_string(&chars, i, &mut line) {
                    i = end;
                    push(Tok::Other);
                } else if ident == "r" && at(i) == '#' {
                    // A raw identifier (`r#type`): the name is lexed next.
                    i += 1;
                } else {
                    push(Tok::Ident(ident));
                }
            }
            c if c.is_ascii_digit() => {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                push(Tok::Other);
            }
            ':' if at(i + 1) == ':' => {
                i += 2;
                push(Tok::PathSep);
            }
            '{' | '}' | ',' | '(' | ')' | '[' | ']' | ';' => {
                i += 1;
                push(match c {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    '(' => Tok::OpenParen,
                    ')' => Tok::CloseParen,
                    '[' => Tok::OpenBracket,
                    ']' => Tok::CloseBracket,
                    ';' => Tok::Semi,
                    _ => Tok::Comma,
                });
            }
            // A lone `.` (a method call or field); `..` and `..=` are ranges.
            '.' if at(i + 1) != '.' && (i == 0 || chars[i - 1] != '.') => {
                i += 1;
                push(Tok::Dot);
            }
            // A lone `=`: not `==`, `=>`, `<=`, `>=`, `!=` or a compound assignment.
            '=' if !matches!(at(i + 1), '=' | '>')
                && (i == 0 || !"=<>!+-*/%^&|".contains(chars[i - 1])) =>
            {
                i += 1;
                push(Tok::Eq);
            }
            c if c.is_whitespace() => i += 1,
            _ => {
                i += 1;
                push(Tok::Other);
            }
        }
    }
    out
}

/// Skips a (possibly nested) block comment starting at `i`; returns the index after it.
fn skip_block_comment(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0usize;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        if chars[i] == '/' && next == Some('*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && next == Some('/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if chars[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// Skips the body of a `"…"` string from just after the opening quote.
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if chars.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 2;
            }
            '"' => return i + 1,
            '\n' => {
                *line += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

/// If `i` (just after an `r`/`br`/`cr` prefix) opens a raw string `#*"`, skips the whole
/// literal and returns the index after it.
fn skip_raw_string(chars: &[char], mut i: usize, line: &mut usize) -> Option<usize> {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '\n' {
            *line += 1;
        } else if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(i)
}
