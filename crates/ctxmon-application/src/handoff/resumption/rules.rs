//! The user's standing instructions, found in what they typed: "never run git commands",
//! "don't keep asking me to confirm", "restore from backup, not git", "no uses npm", "不要修改测试".
//! A model's summary drops these first, and an agent that forgets one undoes what the user
//! asked for. They are kept verbatim, newest first; one the user later took back is replaced
//! by the newer words.
//!
//! Only sentences of what the user typed count (never a slash command, tool output or the
//! agent's text), and only short imperative ones: a long paragraph that happens to say "only"
//! is a request, not a rule. A sentence that asks something is not a rule either.

use std::collections::HashSet;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::rule_words::{
    FILLERS, INSIDE, OPENINGS, PERMISSIONS, RESTRICTIONS, REVERSALS, STANDING, STOPWORDS, TEMPORARY,
};
use super::text::capped;

/// The most rules kept.
pub const MAX_RULES: usize = 20;
/// A sentence longer than this is part of a request, not a standing rule.
const RULE_CHARS: usize = 300;

/// The user's rules from their requests (oldest first), after those carried from before the
/// tail (newest first), as kept in a state: newest first, at most [`MAX_RULES`].
///
/// Only what the user framed as standing counts ("always", "never", "from now on",
/// "remember", …), or an instruction said in more than one message: a one-off instruction
/// about the task at hand ("ensure min-width also", "don't change it yet, just review") is not
/// a rule, and showing it as one after a compaction makes the agent hold to what the user
/// has moved past. A rule a later message takes back is dropped, not kept beside its
/// replacement.
pub(crate) fn standing_rules(carried: &[String], requests: &[&str]) -> Vec<String> {
    let mut kept: Vec<String> = candidates(carried, requests)
        .into_iter()
        .filter(|r| r.standing)
        .map(|r| r.text)
        .collect();
    kept.reverse();
    kept.truncate(MAX_RULES);
    kept
}

/// The rules found in `requests` after `carried`, oldest first, standing or not: at most
/// [`MAX_CANDIDATES`].
fn candidates(carried: &[String], requests: &[&str]) -> Vec<Candidate> {
    // Oldest first while they are gathered, so that a later message can take back an earlier
    // rule. Carried rules passed this filter when they were first found.
    let mut rules: Vec<Candidate> = carried
        .iter()
        .rev()
        .map(|r| Candidate::new(original(r).to_string(), None, true))
        .collect();
    for (k, request) in requests.iter().enumerate() {
        let sentences = own_sentences(request);
        if sentences.iter().any(|s| says_permission(s)) {
            rules.retain(|r| !r.restriction);
        }
        for sentence in sentences.iter().filter(|s| is_rule(s)) {
            let Some(rule) = capped(sentence, RULE_CHARS) else {
                continue;
            };
            let lower = rule.to_lowercase();
            let reverses = has_any(&lower, REVERSALS);
            let temporary = has_any(&format!(" {lower}"), TEMPORARY);
            let standing = is_standing(&lower);
            let new = Candidate::new(rule, Some(k), false);
            // Said before, in another message: the user means it to hold.
            let repeated = rules.iter().any(|r| {
                r.message != Some(k)
                    && (r.key == new.key || r.words.intersection(&new.words).nth(1).is_some())
            });
            rules.retain(|r| {
                !(r.key == new.key || (reverses && !r.content.is_disjoint(&new.content)))
            });
            rules.push(Candidate {
                standing: !temporary && (repeated || standing),
                ..new
            });
            forget_oldest(&mut rules);
        }
    }
    rules
}

/// The most candidates remembered while the requests are read. Each new sentence is compared
/// with every one of them, so without a bound a tail of thousands of short instructions cost
/// time that grew with the square of their number; a rule is only kept among the newest
/// [`MAX_RULES`] anyway, and one said again long after is still found by its own words.
const MAX_CANDIDATES: usize = 8 * MAX_RULES;

/// Past [`MAX_CANDIDATES`], forgets the oldest candidate that does not stand (a one-off
/// instruction that was never repeated), else the oldest one.
fn forget_oldest(rules: &mut Vec<Candidate>) {
    if rules.len() <= MAX_CANDIDATES {
        return;
    }
    let at = rules.iter().position(|r| !r.standing).unwrap_or(0);
    rules.remove(at);
}

/// A rule found so far: its words, the message it came from (`None`: carried), and whether it
/// is standing; with what the comparisons with later sentences need, worked out once.
struct Candidate {
    text: String,
    message: Option<usize>,
    standing: bool,
    /// Its words lower-cased and trimmed: the same rule said again has the same key.
    key: String,
    /// Words of substance (three letters or more): two in common make it the same instruction.
    words: HashSet<String>,
    /// Words of four letters or more: one in common is what a reversal takes back.
    content: HashSet<String>,
    /// Whether it restricts what the agent may do (a later permission lifts it).
    restriction: bool,
}

impl Candidate {
    fn new(text: String, message: Option<usize>, standing: bool) -> Candidate {
        let lower = text.trim().to_lowercase();
        Candidate {
            words: words_of(&lower, 3, THIN),
            content: words_of(&lower, 4, &[]),
            restriction: is_restriction(&lower),
            key: lower,
            text,
            message,
            standing,
        }
    }
}

/// Words too common to say two instructions are about the same thing.
const THIN: &[&str] = &[
    "use", "not", "the", "and", "for", "don't", "dont", "but", "all", "any", "you",
];

/// The distinct words of a lower-cased text with at least `min_chars` letters, neither a
/// stopword nor in `also_skip`.
fn words_of(lower: &str, min_chars: usize, also_skip: &[&str]) -> HashSet<String> {
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| {
            w.chars().count() >= min_chars && !STOPWORDS.contains(w) && !also_skip.contains(w)
        })
        .map(str::to_string)
        .collect()
}

/// Whether a lower-cased sentence frames itself as standing (see [`STANDING`]).
fn is_standing(lower: &str) -> bool {
    STANDING.iter().any(|marker| {
        if !marker.is_ascii() {
            return lower.contains(marker);
        }
        lower.match_indices(marker).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + marker.len()..].chars().next();
            before.is_none_or(|c| !c.is_alphanumeric())
                && after.is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// The sentences of a request the user wrote themselves, as far as can be told: of a long
/// one (a pasted log, manual page or file) only its first and last lines, where people put
/// what they ask around what they paste.
fn own_sentences(request: &str) -> Vec<String> {
    const LONG: usize = 25;
    const KEPT: usize = 5;
    let lines: Vec<&str> = request.lines().collect();
    if lines.len() <= LONG {
        return sentences(request);
    }
    let mut out = sentences(&lines[..KEPT].join("\n"));
    out.extend(sentences(&lines[lines.len() - KEPT..].join("\n")));
    out
}

/// A rule without the note on what it replaced.
fn original(rule: &str) -> &str {
    rule.split(" (replaces: ").next().unwrap_or(rule)
}

/// Whether `sentence` is a standing instruction.
pub(crate) fn is_rule(sentence: &str) -> bool {
    let t = sentence.trim();
    let n = t.chars().count();
    if !(6..=RULE_CHARS).contains(&n) || t.ends_with(['?', '？']) {
        return false;
    }
    let raw = t.to_lowercase();
    let lower = without_fillers(&raw);
    // "Remember: the data is in UTC", "always run the linter": framed as standing from the
    // first word.
    STANDING
        .iter()
        .any(|m| raw.starts_with(m) || lower.starts_with(m))
        || OPENINGS.iter().any(|o| lower.starts_with(o))
        || spanish_negative_imperative(&lower)
        || any_marker(&INSIDE_MARKERS, &lower)
        || (lower.starts_with("use ") && has_any(&lower, &[" instead", " not ", " only"]))
        || (lower.starts_with("usa ") && has_any(&lower, &[" no ", " solo"]))
}

/// "no uses …", "no hagas …", "no me preguntes …": a negative imperative, whose verb ends in
/// -s; "no sé" or "no funciona" are not.
fn spanish_negative_imperative(lower: &str) -> bool {
    let Some(rest) = lower.strip_prefix("no ") else {
        return false;
    };
    let mut words = rest.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let first = if matches!(
        first,
        "me" | "te" | "lo" | "la" | "le" | "los" | "las" | "les" | "se"
    ) {
        words.next().unwrap_or("")
    } else {
        first
    };
    first.chars().count() > 3 && first.ends_with('s') && first.is_ascii() || first.ends_with("és")
}

fn without_fillers(lower: &str) -> String {
    let mut t = lower.trim_start();
    loop {
        let before = t;
        for f in FILLERS {
            if let Some(rest) = t.strip_prefix(f)
                && rest.starts_with([' ', ',', ':', '!'])
            {
                t = rest.trim_start_matches([' ', ',', ':', '!']);
            }
        }
        if t == before {
            return t.to_string();
        }
    }
}

fn says_permission(sentence: &str) -> bool {
    !sentence.trim().ends_with(['?', '？'])
        && any_marker(&PERMISSION_MARKERS, &sentence.to_lowercase())
}

/// [`INSIDE`] and [`PERMISSIONS`], each searcher built once: every sentence of every request
/// is searched for them, and building a searcher for each search was most of that time.
static INSIDE_MARKERS: LazyLock<Vec<Finder<'static>>> = LazyLock::new(|| finders(INSIDE));
static PERMISSION_MARKERS: LazyLock<Vec<Finder<'static>>> = LazyLock::new(|| finders(PERMISSIONS));

fn finders(markers: &'static [&'static str]) -> Vec<Finder<'static>> {
    markers.iter().map(|m| Finder::new(m.as_bytes())).collect()
}

fn any_marker(markers: &[Finder<'_>], text: &str) -> bool {
    markers.iter().any(|m| m.find(text.as_bytes()).is_some())
}

/// Whether a lower-cased rule restricts what the agent may do.
fn is_restriction(lower: &str) -> bool {
    let negative = has_any(
        lower,
        &[
            "don't", "dont", "do not", "never", "only", "no ", "nunca", "solo", "sólo", "nie",
            "nicht", "nur ", "kein", "不要", "别", "只", "禁止",
        ],
    );
    negative && has_any(lower, RESTRICTIONS)
}

fn has_any(text: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| text.contains(n))
}

/// The sentences of a message: its lines, split after `. ! ?` followed by a space and after
/// the CJK stops; list markers removed.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut current = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            let western = matches!(c, '.' | '!' | '?' | ';')
                && chars.peek().is_none_or(|n| n.is_whitespace());
            if western || matches!(c, '。' | '！' | '？' | '；') {
                push_sentence(&mut out, &current);
                current.clear();
            }
        }
        push_sentence(&mut out, &current);
    }
    out
}

fn push_sentence(out: &mut Vec<String>, s: &str) {
    let t = s
        .trim()
        .trim_start_matches(['-', '*', '•', '>'])
        .trim_start();
    let t = match t.split_once(". ") {
        Some((n, rest)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => t,
    };
    if !t.is_empty() {
        out.push(t.to_string());
    }
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
