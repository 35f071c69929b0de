//! Doctor's judgement of a hook's matcher: which matchers make an agent skip events ctxmon
//! must see, for Claude Code's hooks and Codex's.

use super::check::Status;
use crate::cli::Hook;
use crate::install::table::Registration;

/// Codex honours every matcher ctxmon could meet (SessionStart's `compact` included), and
/// ctxmon registers none: any other matcher runs the hook for some occurrences only.
pub(super) fn codex_matcher_finding(
    agent: ctxmon_application::agents::AgentKind,
    want: &Registration,
    matcher: Option<&str>,
    file: &str,
) -> Option<(Status, String, Option<String>)> {
    let m = matcher
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*")?;
    Some((
        Status::Warn,
        format!(
            "{file} registers {} with matcher `{m}`: {} runs it only for what `{m}` matches",
            want.event,
            agent.name()
        ),
        Some(format!(
            "run `ctxmon install --agent {}`, which registers it without a matcher",
            agent.description().flag
        )),
    ))
}

/// SessionStart must see every source (Claude Code fires the `compact` matcher unreliably,
/// anthropics/claude-code#15174), PreCompact every trigger, PreToolUse the edit tools,
/// PostToolUse every tool.
pub(super) fn matcher_finding(
    hook: Hook,
    matcher: Option<&str>,
    file: &str,
) -> Option<(Status, String, Option<&'static str>)> {
    let m = matcher
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*")?;
    match hook {
        Hook::SessionStart if m.split('|').any(|s| s.trim() == "compact") => Some((
            Status::Fail,
            format!(
                "{file} registers SessionStart with matcher `{m}`: Claude Code fires the `compact` matcher unreliably, so the resumption context can be lost"
            ),
            Some("remove the matcher; ctxmon decides by the event's source itself"),
        )),
        Hook::SessionStart => Some((
            Status::Warn,
            format!(
                "{file} registers SessionStart with matcher `{m}`: it never runs after a compaction"
            ),
            Some("remove the matcher; ctxmon decides by the event's source itself"),
        )),
        Hook::PreCompact if !(m.contains("auto") && m.contains("manual")) => Some((
            Status::Warn,
            format!(
                "{file} registers PreCompact with matcher `{m}`: the compactions it leaves out get no checkpoint"
            ),
            Some("remove the matcher"),
        )),
        Hook::PreToolUse if !(m.contains("Write") && m.contains("Edit")) => Some((
            Status::Warn,
            format!(
                "{file} registers PreToolUse with matcher `{m}`: edits with Write or Edit get no staleness note"
            ),
            Some("use the matcher `Write|Edit|MultiEdit`"),
        )),
        Hook::PostToolUse if m != ".*" => Some((
            Status::Warn,
            format!(
                "{file} registers PostToolUse with matcher `{m}`: tool loops using other tools get no warning when the context fills"
            ),
            Some("remove the matcher (every tool)"),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_that_lose_events_are_flagged() {
        let compact = matcher_finding(Hook::SessionStart, Some("compact"), "f");
        assert_eq!(compact.map(|f| f.0), Some(Status::Fail));
        let either = matcher_finding(Hook::SessionStart, Some("resume|compact"), "f");
        assert_eq!(either.map(|f| f.0), Some(Status::Fail));
        let startup = matcher_finding(Hook::SessionStart, Some("startup"), "f");
        assert_eq!(startup.map(|f| f.0), Some(Status::Warn));
        assert!(matcher_finding(Hook::SessionStart, Some(""), "f").is_none());
        assert!(matcher_finding(Hook::SessionStart, Some("*"), "f").is_none());
        assert!(matcher_finding(Hook::PreToolUse, Some("Write|Edit|MultiEdit"), "f").is_none());
        assert!(matcher_finding(Hook::PreToolUse, Some("Bash"), "f").is_some());
        assert!(matcher_finding(Hook::PreCompact, Some("auto"), "f").is_some());
        assert!(matcher_finding(Hook::PreCompact, Some("manual|auto"), "f").is_none());
        assert!(matcher_finding(Hook::SessionEnd, Some("clear"), "f").is_none());
        assert!(matcher_finding(Hook::PostToolUse, None, "f").is_none());
        assert!(matcher_finding(Hook::PostToolUse, Some(".*"), "f").is_none());
        let bash = matcher_finding(Hook::PostToolUse, Some("Bash"), "f");
        assert_eq!(bash.map(|f| f.0), Some(Status::Warn));
    }
}
