//! `<compaction-alert>`: the first prompt after a checkpoint tells the agent that its context
//! was compacted and where the checkpoint is (spec §7). At most 280 tokens.

use ctxmon_domain::CheckpointData;
use ctxmon_domain::xml::escape_attr;

use crate::budget_writer::{BudgetWriter, ItemKind};

pub const ALERT_MAX_TOKENS: u64 = 280;
const CLOSING: &str = "</compaction-alert>";

/// `checkpoint_path` is where the checkpoint file is, as the agent can read it.
pub fn render_compaction_alert(cp: &CheckpointData, checkpoint_path: &str) -> String {
    let id = cp.checkpoint_id.to_string();
    let fill = &cp.context_state;
    let mut w = BudgetWriter::new(ALERT_MAX_TOKENS, CLOSING);
    let opened = w.raw(&format!(
        "<compaction-alert checkpoint=\"{}\" created=\"{}\" fill-at-compaction=\"{}%\" trigger=\"{}\">\n",
        escape_attr(&id),
        // A hand-edited checkpoint could hold anything here; the header must stay small (found
        // by fuzzing: a 1,300-character timestamp did not fit, the opening tag was left out and
        // the agent got a stray `</compaction-alert>`).
        escape_attr(&cp.timestamp.chars().take(40).collect::<String>()),
        fill.percent(),
        cp.trigger.key()
    ));
    if !opened {
        // Everything else in the header is bounded; without an opening tag, say nothing rather
        // than inject unbalanced markup.
        return String::new();
    }
    w.element(
        "what-happened",
        &format!(
            "Your context was compacted at {}% ({} of {} tokens). Details from before it may be missing from the summary you now see.",
            fill.percent(),
            fill.input_tokens,
            fill.context_window_size.get()
        ),
        ItemKind::Text,
    );
    if let Some(instructions) = cp
        .custom_instructions
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        w.element("compact-instructions", instructions, ItemKind::Text);
    }
    w.element(
        "what-to-do",
        "Before continuing, re-read the files you were editing and check your todo list; if a detail is missing, read the checkpoint.",
        ItemKind::Text,
    );
    // The path is an atom: if it does not fit whole, the command alone still finds it.
    w.element("checkpoint-file", checkpoint_path, ItemKind::Atom);
    w.element(
        "read-it",
        &format!("ctxmon checkpoint show {id}"),
        ItemKind::Atom,
    );
    w.finish(CLOSING)
}
