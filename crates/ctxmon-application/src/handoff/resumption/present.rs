//! What the work is about right now: the newest request (whole, or its head and tail around a
//! marked cut), what a short reply answers, and the assistant's newest statement of what it
//! does next. A model's summary paraphrases these; a resuming agent needs the words.

use super::text::capped;
use crate::ports::{RecordBody, TranscriptRecord};

/// The most of a request kept whole, in characters. A longer one keeps its head and its tail.
pub const REQUEST_CHARS: usize = 2_000;
/// Of a longer request: how much of its start and of its end are kept.
const REQUEST_HEAD: usize = 1_400;
const REQUEST_TAIL: usize = 500;
/// A reply shorter than this says little on its own ("yes, build it", "sí", "继续").
const SHORT_REPLY_CHARS: usize = 40;
/// The most of the question or proposal a short reply answers that is kept.
const ANSWERED_CHARS: usize = 500;
/// The most of a statement of intent that is kept.
const INTENT_CHARS: usize = 300;

/// Bare answers, in the languages seen in real sessions, that say nothing without the question
/// before them, whatever their length.
const BARE_REPLIES: &[&str] = &[
    "yes",
    "y",
    "yep",
    "yeah",
    "no",
    "n",
    "ok",
    "okay",
    "k",
    "sure",
    "go",
    "go on",
    "go ahead",
    "continue",
    "proceed",
    "do it",
    "please",
    "sounds good",
    "lgtm",
    "approved",
    "sí",
    "si",
    "vale",
    "dale",
    "claro",
    "sigue",
    "continúa",
    "continua",
    "adelante",
    "hazlo",
    "de acuerdo",
    "好",
    "好的",
    "是",
    "是的",
    "继续",
    "可以",
    "行",
    "对",
    "嗯",
    "同意",
    "开始",
];

/// Sentence openings that announce the next step ("Now let me…"), lower case.
const INTENT_OPENINGS: &[&str] = &[
    "now let me",
    "now let's",
    "let me",
    "let's",
    "next i'll",
    "next, i'll",
    "next i will",
    "next, i will",
    "next, let me",
    "next step",
    "now i'll",
    "now i will",
    "now i need to",
    "now i'm going to",
    "i'll now",
    "i'll",
    "i will",
    "i'm going to",
    "i am going to",
    "then i'll",
    "first, let me",
    "first let me",
    "ahora voy a",
    "voy a",
    "a continuación",
    "ahora déjame",
    "déjame",
    "primero voy a",
    "接下来",
    "现在我",
    "现在让我",
    "让我",
    "我将",
    "我会",
    "下一步",
    "然后我",
];

/// A reply that says little without what it answers: a bare yes/no/ok/continue in any
/// language, or anything under [`SHORT_REPLY_CHARS`] characters.
pub(crate) fn is_short_reply(text: &str) -> bool {
    (text.trim().chars().count() < SHORT_REPLY_CHARS && !is_question(text)) || is_bare_reply(text)
}

/// A short message that asks something ("what are we building", "why?") is a request of its
/// own, not an answer to the agent's last words.
fn is_question(text: &str) -> bool {
    const ASKING: &[&str] = &[
        "what ",
        "why ",
        "how ",
        "where ",
        "when ",
        "which ",
        "who ",
        "can you",
        "could you",
        "is it",
        "are you",
        "do you",
        "does ",
        "qué ",
        "cómo ",
        "por qué",
        "dónde ",
        "was ",
        "wie ",
        "warum ",
        "wo ",
        "什么",
        "为什么",
        "怎么",
    ];
    let t = text.trim().to_lowercase();
    t.ends_with(['?', '？']) || ASKING.iter().any(|a| t.starts_with(a))
}

/// A bare yes/no/ok/continue, in any of the languages of [`BARE_REPLIES`].
pub(crate) fn is_bare_reply(text: &str) -> bool {
    let bare = text
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "。！？，".contains(c))
        .to_lowercase();
    BARE_REPLIES.contains(&bare.as_str())
}

/// `text` trimmed, whole up to [`REQUEST_CHARS`]; a longer one keeps its first
/// [`REQUEST_HEAD`] and last [`REQUEST_TAIL`] characters around a marked cut, because the
/// requirements are as often at a request's end as at its start.
pub(crate) fn request_text(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let n = t.chars().count();
    if n <= REQUEST_CHARS {
        return Some(t.to_string());
    }
    let head: String = t.chars().take(REQUEST_HEAD).collect();
    let tail: String = t.chars().skip(n - REQUEST_TAIL).collect();
    let cut = n - REQUEST_HEAD - REQUEST_TAIL;
    Some(format!(
        "{}\n[… {cut} characters cut …]\n{}",
        head.trim_end(),
        tail.trim_start()
    ))
}

/// The index of the newest real request of the main chain.
pub(crate) fn newest_request_at(records: &[TranscriptRecord]) -> Option<usize> {
    records.iter().rposition(|r| {
        !r.sidechain && matches!(&r.body, RecordBody::Request(q) if q.kind.is_real())
    })
}

/// When the newest request is a short reply: the question or proposal of the assistant's last
/// text before it — its last question when it asks one, else its last paragraph.
pub(crate) fn what_reply_answers(records: &[TranscriptRecord]) -> Option<String> {
    let at = newest_request_at(records)?;
    let RecordBody::Request(reply) = &records.get(at)?.body else {
        return None;
    };
    if !is_short_reply(&reply.text) {
        return None;
    }
    let before = records
        .get(..at)?
        .iter()
        .rev()
        .find_map(|r| match &r.body {
            _ if r.sidechain => None,
            // Claude Code's placeholder after a resumed session is not the agent's words.
            RecordBody::AssistantText(t) if t.trim() == "No response requested." => None,
            RecordBody::AssistantText(t) if !t.trim().is_empty() => Some(Some(t.as_str())),
            // An earlier request ends the search: what came before it answered that one. So
            // does a call the user declined: the reply after it redirects, it answers nothing.
            RecordBody::Request(q) if q.kind.is_real() => Some(None),
            RecordBody::ToolResult(r) if r.rejected.is_some() => Some(None),
            _ => None,
        })??;
    let question = numbered_options(before)
        .or_else(|| last_question(before))
        .unwrap_or_else(|| last_paragraph(before));
    capped(question, ANSWERED_CHARS)
}

/// When the text ends with numbered options ("1. Fix the tests 2. Write the report … Which
/// one?"), the options with the line that introduces them: a reply "1" or "2 and 3" means
/// nothing without all of them. Only options in the text's last lines count.
fn numbered_options(text: &str) -> Option<&str> {
    let lines: Vec<(usize, &str)> = text
        .trim_end()
        .lines()
        .scan(0usize, |at, line| {
            let start = *at;
            *at += line.len() + 1;
            Some((start, line))
        })
        .collect();
    let is_option = |line: &str, n: u32| {
        let t = line.trim_start().trim_start_matches(['*', '#', ' ']);
        t.strip_prefix(&n.to_string())
            .is_some_and(|rest| rest.starts_with(['.', ')', ':']))
    };
    let first = lines.iter().rposition(|(_, l)| is_option(l, 1))?;
    // The options must end the text: at most a question or a short line after the last one.
    let last_option = lines
        .iter()
        .rposition(|(_, l)| (2..=9).any(|n| is_option(l, n)) || is_option(l, 1))?;
    if last_option < first || lines.len() - last_option > 4 {
        return None;
    }
    let intro = first.saturating_sub(1);
    let from = lines
        .get(intro)
        .filter(|(_, l)| !l.trim().is_empty())
        .map_or(lines[first].0, |(at, _)| *at);
    text.get(from..).map(str::trim)
}

/// The last sentence that ends with a question mark, with the sentence before it when it is
/// short (a question often leans on it: "Two options: A or B. Which do you prefer?").
fn last_question(text: &str) -> Option<&str> {
    let end = text.rfind(['?', '？'])?;
    let end = end + text.get(end..)?.chars().next()?.len_utf8();
    let upto = text.get(..end)?;
    let start = upto
        .rfind(['\n'])
        .map_or(0, |i| i + 1)
        .max(sentence_start(upto, 2));
    upto.get(start..).map(str::trim)
}

/// The byte index where the `n`-th sentence from the end of `text` begins (0 when fewer).
fn sentence_start(text: &str, n: usize) -> usize {
    let mut seen = 0;
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in bytes.iter().enumerate().rev() {
        let next_is_space = bytes.get(k + 1).is_some_and(|(_, n)| n.is_whitespace());
        let ends = matches!(c, '.' | '!' | '?') && next_is_space || matches!(c, '。' | '！' | '？');
        if ends && i + c.len_utf8() < text.len() {
            seen += 1;
            if seen == n {
                return i + c.len_utf8();
            }
        }
    }
    0
}

fn last_paragraph(text: &str) -> &str {
    let t = text.trim();
    t.rsplit("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty())
        .unwrap_or(t)
}

/// The assistant's newest words since the newest request, in its own words: the end of its
/// newest text (up to [`INTENT_CHARS`], from a sentence start), which holds its statement of
/// what it does next ("… so `pr_url` is always a str. Let me restructure the code:") or its
/// answer. `None` when it has not spoken since the request.
pub(crate) fn intent(records: &[TranscriptRecord]) -> Option<String> {
    newest_words(newest_text_since_request(records)?)
}

/// How many tool calls the main chain made after the assistant's newest text: actions taken
/// since its words, which may have done what they announced.
pub(crate) fn calls_after_newest_text(records: &[TranscriptRecord]) -> usize {
    let at = records.iter().rposition(|r| {
        !r.sidechain && matches!(&r.body, RecordBody::AssistantText(t) if !t.trim().is_empty())
    });
    at.and_then(|at| records.get(at + 1..))
        .unwrap_or_default()
        .iter()
        .filter(|r| !r.sidechain && matches!(r.body, RecordBody::ToolCall(_)))
        .count()
}

/// The end of `newest`, up to [`INTENT_CHARS`], from a sentence start: from its last
/// statement of what comes next when that fits, so a long answer keeps its plan.
fn newest_words(newest: &str) -> Option<String> {
    let n = newest.chars().count();
    if n <= INTENT_CHARS {
        return capped(newest, INTENT_CHARS);
    }
    if let Some(at) = intent_start(newest)
        && let Some(plan) = newest.get(at..)
        && plan.chars().count() <= INTENT_CHARS
    {
        return capped(plan, INTENT_CHARS).map(|t| format!("… {t}"));
    }
    let skip = newest
        .char_indices()
        .nth(n - INTENT_CHARS)
        .map_or(0, |(i, _)| i);
    let rest = newest.get(skip..)?;
    // Begin at the first sentence that starts inside the kept end, else at a word.
    let start = rest
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?' | ':' | '\n' | '。')
                && rest
                    .get(i + c.len_utf8()..)
                    .is_some_and(|r| r.starts_with(char::is_whitespace) || c == '\n' || c == '。')
        })
        .map(|(i, c)| i + c.len_utf8())
        .filter(|&i| i < rest.len() / 2)
        .or_else(|| rest.find(char::is_whitespace))
        .unwrap_or(0);
    capped(rest.get(start..)?, INTENT_CHARS).map(|t| format!("… {t}"))
}

/// Whether the turn of the newest request ended with the assistant's answer: its newest text
/// came after every tool call since the request, so it answered rather than stopped midway.
pub(crate) fn request_answered(records: &[TranscriptRecord]) -> bool {
    let Some(from) = newest_request_at(records) else {
        return false;
    };
    let after = records.get(from + 1..).unwrap_or_default();
    let last = after.iter().rev().find(|r| {
        !r.sidechain
            && matches!(
                r.body,
                RecordBody::AssistantText(_) | RecordBody::ToolCall(_) | RecordBody::ToolResult(_)
            )
    });
    matches!(last.map(|r| &r.body), Some(RecordBody::AssistantText(t)) if intent_start(t).is_none())
}

/// The newest text since the newest request, unless the user stopped what it announced: an
/// interrupt or a refused call after it makes its plan void.
fn newest_text_since_request(records: &[TranscriptRecord]) -> Option<&str> {
    let from = newest_request_at(records).map_or(0, |i| i + 1);
    let since = records.get(from..)?;
    let at = since.iter().rposition(|r| {
        !r.sidechain && matches!(&r.body, RecordBody::AssistantText(t) if !t.trim().is_empty())
    })?;
    let stopped = since.get(at + 1..)?.iter().any(|r| match &r.body {
        RecordBody::Request(q) => q.kind == crate::ports::RequestKind::Interrupt,
        RecordBody::ToolResult(res) => res.rejected.is_some(),
        _ => false,
    });
    match &since.get(at)?.body {
        RecordBody::AssistantText(t) if !stopped => Some(t.trim()),
        _ => None,
    }
}

/// The byte index of the last sentence of `text` that announces a next step.
fn intent_start(text: &str) -> Option<usize> {
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths (rarely); then only whole-text openings are trusted.
    let same_len = lower.len() == text.len();
    let mut starts: Vec<usize> = vec![0];
    for (i, c) in text.char_indices() {
        let after = i + c.len_utf8();
        let boundary = matches!(c, '\n' | '。' | '！' | '？' | '；')
            || (matches!(c, '.' | '!' | '?' | ':')
                && text
                    .get(after..)
                    .is_some_and(|r| r.starts_with(char::is_whitespace)));
        if boundary && after < text.len() {
            starts.push(after);
        }
    }
    starts.into_iter().rev().find_map(|s| {
        let at = if same_len { s } else { 0 };
        let rest = lower.get(at..)?;
        let lead = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '-')
                .len();
        let rest = rest.get(lead..)?;
        INTENT_OPENINGS
            .iter()
            .any(|o| rest.starts_with(o))
            .then_some(at + lead)
    })
}

#[cfg(test)]
#[path = "present_tests.rs"]
mod tests;

/// What a hand-back shows as the task at hand, from a state's requests (oldest first): the
/// newest request, or, when that is a short reply to a question, the request before it with
/// the reply and what it answers beside it. The resumption context and the resume log choose
/// it the same way, so the two never disagree about what is being worked on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AtHand<'a> {
    /// The request the work is for.
    pub current: Option<&'a str>,
    /// The newest request when it is a short reply.
    pub reply: Option<&'a str>,
    /// What that reply answers.
    pub answers: Option<&'a str>,
}

impl<'a> AtHand<'a> {
    /// Chooses from `requests` (oldest first) and what the newest one answers, if anything.
    pub(crate) fn of(requests: &'a [String], answers: Option<&'a str>) -> AtHand<'a> {
        let newest = requests.last().map(String::as_str);
        let reply = newest.filter(|r| is_short_reply(r) && answers.is_some());
        // A short reply with the proposal it answers says what is asked. The request before it
        // is the task only when it asked for work: a question before it was answered long
        // since, and another short reply says nothing on its own.
        let current = match reply {
            Some(_) => requests
                .iter()
                .rev()
                .nth(1)
                .map(String::as_str)
                .filter(|r| !is_short_reply(r) && !r.trim_end().ends_with(['?', '？'])),
            None => newest,
        };
        AtHand {
            current,
            reply,
            answers: answers.filter(|_| reply.is_some()),
        }
    }

    /// The reply quoted with what it answers.
    pub(crate) fn reply_line(&self) -> Option<String> {
        let reply = self.reply?.trim();
        Some(match self.answers {
            Some(asked) => format!("\"{reply}\" — answering: \"{}\"", asked.trim()),
            None => format!("\"{reply}\""),
        })
    }

    /// True when `first` (the session's first request) says something the requests shown do
    /// not: it is neither one of them nor the start of one. Only then is it worth showing, and
    /// only under its own name, because the work may have moved on since.
    pub(crate) fn is_other(&self, first: &str) -> bool {
        let first = first.trim();
        !first.is_empty()
            && self.current.into_iter().chain(self.reply).all(|r| {
                // A long request is shown as its head and tail around a marked cut: its
                // head says whether it is the same request.
                let r = r.trim();
                let head = r.split("\n[… ").next().unwrap_or(r);
                !r.starts_with(first) && !first.starts_with(head)
            })
    }
}
