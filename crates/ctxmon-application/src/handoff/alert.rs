//! `<compaction-alert>`: the first prompt after a checkpoint tells the agent that its context
//! was compacted and where the checkpoint is (contract C7). At most 280 tokens.
//!
//! The required parts (the checkpoint id, its time and the fill at compaction in the opening
//! tag, what happened, what to do, and the command that reads the checkpoint) are each bounded,
//! so together they always fit; they are measured first. The optional parts share what is left,
//! in this order: the checkpoint's path (whole, or left out with a note saying so) and the
//! `/compact` custom instructions (shortened at a word, with a marker saying where the full text
//! is). Whatever the optional text, the required parts are never pushed out.

use ctxmon_domain::CheckpointData;
use ctxmon_domain::human::thousands;
use ctxmon_domain::tokens::chars_for_tokens;
use ctxmon_domain::xml::{escape_attr, escape_text};

use crate::handoff::budget_writer::{ItemKind, chars, fit, frame};
use crate::monitor::tag::steps_noun;
use crate::ports::AgentKind;

/// The most tokens a `<compaction-alert>` may take.
pub const ALERT_MAX_TOKENS: u64 = 280;
const CLOSING: &str = "</compaction-alert>";
/// Ends custom instructions that had to be shortened.
pub const SHORTENED_MARKER: &str = " [shortened; the checkpoint has the full text]";

/// [`render_compaction_alert_for`] worded for Claude Code.
pub fn render_compaction_alert(cp: &CheckpointData, checkpoint_path: &str) -> String {
    render_compaction_alert_for(cp, checkpoint_path, AgentKind::ClaudeCode)
}

/// `checkpoint_path` is where the checkpoint file is, as the agent can read it; what to check
/// is named in `agent`'s words (a Codex session has a plan, not a todo list).
pub fn render_compaction_alert_for(
    cp: &CheckpointData,
    checkpoint_path: &str,
    agent: AgentKind,
) -> String {
    let id = cp.checkpoint_id.to_string();
    let fill = &cp.context_state;
    let limit = chars_for_tokens(ALERT_MAX_TOKENS);

    let header = format!(
        "<compaction-alert checkpoint=\"{}\" created=\"{}\" fill-at-compaction=\"{}%\" trigger=\"{}\">\n",
        escape_attr(&id),
        // A hand-edited checkpoint could hold anything here; the header must stay small (found
        // by fuzzing: a 1,300-character timestamp did not fit, the opening tag was left out and
        // the agent got a stray `</compaction-alert>`).
        escape_attr(&cp.timestamp.chars().take(40).collect::<String>()),
        fill.percent(),
        cp.trigger.key()
    );
    let what_happened = element(
        "what-happened",
        &format!(
            "Your context was compacted at {}% ({} of {} tokens). Details from before it may be missing from the summary you now see.",
            fill.percent(),
            thousands(fill.input_tokens.get()),
            thousands(fill.context_window_size.get())
        ),
    );
    let what_to_do = element(
        "what-to-do",
        &format!(
            "Before continuing, re-read the files you were editing and check your {}; if a detail is missing, read the checkpoint.",
            steps_noun(agent)
        ),
    );
    let read_it = element(
        "read-it",
        &escape_text(&format!("ctxmon checkpoint show {id}")),
    );
    let required = [&header, &what_happened, &what_to_do, &read_it]
        .iter()
        .map(|s| chars(s))
        .sum::<usize>()
        + chars(CLOSING);
    if required > limit {
        // Every required part is bounded (an id of at most 12 characters, a 40-character time,
        // numbers), so this cannot happen; saying nothing beats unbalanced or oversized markup.
        return String::new();
    }
    let mut room = limit - required;

    // The path is an atom: whole, or a note that it was left out (the command still finds it).
    let path = checkpoint_path.trim();
    let path_part = if path.is_empty() {
        String::new()
    } else {
        match fit(
            path,
            room.saturating_sub(frame("checkpoint-file")),
            ItemKind::Atom,
        ) {
            Some(p) => element("checkpoint-file", &p),
            None => element(
                "checkpoint-file-omitted",
                &format!(
                    "The checkpoint's path ({} characters) is too long to show; the command below prints the checkpoint.",
                    thousands(path.chars().count() as u64)
                ),
            ),
        }
    };
    if chars(&path_part) > room {
        // Not even the note fits (it cannot: the required parts leave ~500 characters).
        return assemble(&[&header, &what_happened, &what_to_do, &read_it]);
    }
    room -= chars(&path_part);

    let instructions_part = cp
        .custom_instructions
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .and_then(|text| instructions(text, room.saturating_sub(frame("compact-instructions"))))
        .map(|body| element("compact-instructions", &body))
        .unwrap_or_default();

    assemble(&[
        &header,
        &what_happened,
        &instructions_part,
        &what_to_do,
        &path_part,
        &read_it,
    ])
}

/// The escaped instructions within `max` characters: whole, or cut at a word and ended with
/// [`SHORTENED_MARKER`]; `None` when not even a word and the marker fit.
fn instructions(text: &str, max: usize) -> Option<String> {
    if let Some(whole) = fit(text, max, ItemKind::Atom) {
        return Some(whole);
    }
    let cut = fit(
        text,
        max.checked_sub(chars(SHORTENED_MARKER))?,
        ItemKind::Text,
    )?;
    Some(format!("{cut}{SHORTENED_MARKER}"))
}

/// `<tag>body</tag>\n`; `body` is already escaped.
fn element(tag: &str, body: &str) -> String {
    format!("<{tag}>{body}</{tag}>\n")
}

fn assemble(parts: &[&String]) -> String {
    let mut out = String::new();
    for part in parts {
        out.push_str(part);
    }
    out.push_str(CLOSING);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_whole_or_marked() {
        assert_eq!(instructions("keep it", 40).as_deref(), Some("keep it"));
        let long = "Focus on the parser work please. ".repeat(100);
        let cut = instructions(&long, 200).unwrap();
        assert!(cut.ends_with(SHORTENED_MARKER), "{cut}");
        assert!(chars(&cut) <= 200, "{}", chars(&cut));
        assert_eq!(instructions(&long, 20), None);
    }
}
