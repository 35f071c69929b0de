//! The current request, what a short reply answers, and the agent's newest words.

use super::*;
use crate::fakes::records::{request, request_of, text};
use crate::handoff::resumption::derive_from_tail;
use crate::ports::RequestKind;

#[test]
fn a_long_request_keeps_its_head_and_tail_around_a_marked_cut() {
    let long = format!("{} upload the files to the bucket too", "need ".repeat(600));
    let kept = request_text(&long).unwrap();
    assert!(kept.contains("characters cut …]"), "{kept}");
    assert!(
        kept.ends_with("upload the files to the bucket too"),
        "{kept}"
    );
    assert!(kept.starts_with("need need"));
    // Up to 2,000 characters a request is whole (it was cut at about 400 before).
    let whole = "word ".repeat(399);
    assert_eq!(request_text(&whole).as_deref(), Some(whole.trim()));
}

#[test]
fn a_short_reply_comes_with_the_question_it_answers() {
    for reply in ["yes, build it", "sí", "继续", "ok"] {
        let s = derive_from_tail(&[
            request("Plan the maintenance page"),
            text("Here is the plan.\n\nShould I build it with the existing layout?"),
            request(reply),
        ]);
        assert_eq!(
            s.request_answers.as_deref(),
            Some("Here is the plan.\n\nShould I build it with the existing layout?")
                .map(|t| t.rsplit('\n').next().unwrap_or(t)),
            "{reply}"
        );
    }
    // A long request answers nothing: it is the task itself.
    let s = derive_from_tail(&[
        text("Should I go on?"),
        request("Build the maintenance page with a countdown and the status feed from the API"),
    ]);
    assert_eq!(s.request_answers, None);
}

#[test]
fn slash_command_echoes_and_output_are_never_the_request() {
    let s = derive_from_tail(&[
        request("Fix the invoice rounding"),
        request_of(RequestKind::CommandOutput, "Unknown skill: deploy"),
        request_of(RequestKind::Interrupt, "[Request interrupted by user]"),
        request_of(RequestKind::Meta, "Caveat: the messages below"),
    ]);
    assert_eq!(s.last_user_requests, ["Fix the invoice rounding"]);
}

#[test]
fn the_newest_words_are_the_end_of_the_newest_text_after_the_request() {
    let s = derive_from_tail(&[
        request("Make pr_input optional"),
        text("First I read the parser."),
        text("I need to help the type checker see pr_url is a str. Let me restructure the code:"),
    ]);
    assert_eq!(
        s.intent.as_deref(),
        Some("I need to help the type checker see pr_url is a str. Let me restructure the code:")
    );
    assert!(!s.request_answered);
    // Words from before the newest request are stale.
    let s = derive_from_tail(&[
        text("Next I'll run the tests."),
        request("Stop and explain"),
    ]);
    assert_eq!(s.intent, None);
    // A 100 KB answer keeps its end, from a sentence start.
    let huge = format!("{}. Now let me run the build.", "x".repeat(100_000));
    let s = derive_from_tail(&[request("go"), text(&huge)]);
    let kept = s.intent.unwrap();
    assert!(kept.chars().count() <= 410, "{}", kept.len());
    assert!(kept.ends_with("Now let me run the build."), "{kept}");
}

#[test]
fn an_answered_request_is_marked_answered() {
    let s = derive_from_tail(&[
        request("Write a balanced opinion"),
        text("Here it is: the structure is cheap to try."),
    ]);
    assert!(s.request_answered);
}

#[test]
fn a_plan_the_user_stopped_is_not_the_agents_newest_words() {
    use crate::fakes::records::{result, result_record, shell};
    use crate::ports::ToolResult;
    let s = derive_from_tail(&[
        request("Find a cleaner way to reinstall"),
        text("Let me try a different approach: clear the caches and reinstall."),
        shell("1", "find . -name __pycache__ -exec rm -rf {} +"),
        result_record(ToolResult {
            rejected: Some(Some("STOP, wait for me".into())),
            ..result(
                "1",
                true,
                "The user doesn't want to proceed with this tool use.",
            )
        }),
    ]);
    assert_eq!(s.intent, None);
    let s = derive_from_tail(&[
        request("Refactor the parser"),
        text("Now let me split the module:"),
        request_of(RequestKind::Interrupt, "[Request interrupted by user]"),
    ]);
    assert_eq!(s.intent, None);
}

#[test]
fn an_answered_question_before_a_short_reply_is_never_the_current_request() {
    // The question was answered; the agent then proposed next steps, and the user agreed.
    let s = derive_from_tail(&[
        request("What does the fill line count?"),
        text("It counts input and cache tokens.\n\nShall I add the breakdown to the report?"),
        request("yes"),
    ]);
    let at = AtHand::of(&s.last_user_requests, s.request_answers.as_deref());
    assert_eq!(at.current, None);
    assert!(
        at.reply_line()
            .unwrap()
            .contains("Shall I add the breakdown")
    );
    // Another short reply before it says nothing on its own either.
    let s = derive_from_tail(&[
        request("option 2 and 3"),
        text("Done: both are fixed. Next I can 1. run the tests 2. write the report 3. push"),
        request("1-3 is okay"),
    ]);
    let at = AtHand::of(&s.last_user_requests, s.request_answers.as_deref());
    assert_eq!(at.current, None);
    // A request for work before the reply stays the task.
    let s = derive_from_tail(&[
        request("Move the session store to per-session folders"),
        text("One file or one per session? Shall I use one per session?"),
        request("sí"),
    ]);
    let at = AtHand::of(&s.last_user_requests, s.request_answers.as_deref());
    assert_eq!(
        at.current,
        Some("Move the session store to per-session folders")
    );
}

#[test]
fn a_reply_to_numbered_options_comes_with_all_of_them() {
    let s = derive_from_tail(&[
        request("what next?"),
        text(
            "All six fixes are in.\n\nOptions:\n1. Fix the failing tests\n2. Run coverage\n3. Write the audit report\n\nWhich one?",
        ),
        request("1"),
    ]);
    let answers = s.request_answers.unwrap();
    assert!(
        answers.starts_with("Options:\n1. Fix the failing tests"),
        "{answers}"
    );
    assert!(answers.ends_with("Which one?"), "{answers}");
}
