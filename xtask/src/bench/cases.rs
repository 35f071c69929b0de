//! The benchmark cases: what to run, how to check its answer, and the target it is held to.
//!
//! To add a row, add a [`BenchCase`] in `bench::plan` (a ctxmon command line with its stdin and
//! answer check) or an [`ExternalBench`](super::external::ExternalBench) whose command prints
//! `BENCH` lines.

use serde_json::Value;

use super::runner::RunOutput;
use super::transcript_gen::Generated;

/// Contract C16: hooks answer in ≤ 5 ms median with ≤ 16 MiB peak RSS.
pub const HOOK_TARGET: Target = Target {
    median_ms: Some(5.0),
    rss_kib: Some(16 * 1024),
};

/// Contract C16: the 1 GiB / 1 KiB median ratio of a hook stays ≤ 1.5.
pub const MAX_SIZE_RATIO: f64 = 1.5;

/// What a row is held to; `None` fields are not targeted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub median_ms: Option<f64>,
    pub rss_kib: Option<u64>,
}

impl Target {
    pub const NONE: Target = Target {
        median_ms: None,
        rss_kib: None,
    };
}

/// How a run's output is verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Exit 0 and nothing else (the answer's content is not known).
    ExitZero,
    /// A `UserPromptSubmit` answer whose `<context-monitor>` says `tokens="N"`.
    HookTokens(u64),
    /// The same for Gemini CLI's answer to `BeforeAgent`, its prompt-submit.
    GeminiHookTokens(u64),
    /// `ctxmon --json status` reporting `input_tokens` N from the transcript.
    StatusTokens(u64),
    /// Exit 0 and stdout starting with the text.
    StdoutStartsWith(&'static str),
    /// Exit 0 and stdout containing the text.
    StdoutContains(String),
    /// `hooks post-tool-use`: on the case's first run (no record yet, the tier rises) a
    /// `PostToolUse` answer whose `<context-monitor>` says `tokens="N"`, which proves the fill
    /// was measured right; on every later run no answer at all, the unchanged path a tool loop
    /// pays after almost every call.
    FirstTagThenSilent(u64),
}

impl Check {
    /// Checks the output of the case's run number `round` (0 is its first, a warm-up).
    pub fn verify(&self, out: &RunOutput, round: usize) -> Result<(), String> {
        if out.exit_code != Some(0) {
            return Err(format!("exit code {:?}, expected 0", out.exit_code));
        }
        let stdout = out.stdout.as_str();
        match self {
            Check::FirstTagThenSilent(expected) if round == 0 => {
                let found = tokens_of(stdout, "PostToolUse")?;
                expect_tokens(found, *expected)
            }
            Check::FirstTagThenSilent(_) if stdout.is_empty() => Ok(()),
            Check::FirstTagThenSilent(_) => Err(format!(
                "an answer on an unchanged tier (run {}): expected none",
                round + 1
            )),
            Check::ExitZero => Ok(()),
            Check::StdoutStartsWith(prefix) if stdout.starts_with(prefix) => Ok(()),
            Check::StdoutStartsWith(prefix) => {
                Err(format!("stdout does not start with {prefix:?}"))
            }
            Check::StdoutContains(text) if stdout.contains(text.as_str()) => Ok(()),
            Check::StdoutContains(text) => Err(format!("stdout does not contain {text:?}")),
            Check::HookTokens(expected) => {
                let found = hook_tokens(stdout)?;
                expect_tokens(found, *expected)
            }
            Check::GeminiHookTokens(expected) => {
                let found = tokens_of(stdout, "BeforeAgent")?;
                expect_tokens(found, *expected)
            }
            Check::StatusTokens(expected) => {
                let v: Value =
                    serde_json::from_str(stdout).map_err(|e| format!("stdout is not JSON: {e}"))?;
                if v["source"] != "transcript" {
                    return Err(format!("source {}, expected \"transcript\"", v["source"]));
                }
                let found = v["input_tokens"]
                    .as_u64()
                    .ok_or("no integer input_tokens")?;
                expect_tokens(found, *expected)
            }
        }
    }
}

fn expect_tokens(found: u64, expected: u64) -> Result<(), String> {
    if found == expected {
        Ok(())
    } else {
        Err(format!("tokens {found}, expected {expected}"))
    }
}

/// The `tokens` attribute of the `<context-monitor>` tag in a prompt-submit answer.
pub fn hook_tokens(stdout: &str) -> Result<u64, String> {
    tokens_of(stdout, "UserPromptSubmit")
}

/// The `tokens` attribute of the `<context-monitor>` tag in a hook's JSON answer for `event`.
fn tokens_of(stdout: &str, event: &str) -> Result<u64, String> {
    let v: Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("stdout is not one JSON object: {e}"))?;
    let output = &v["hookSpecificOutput"];
    if output["hookEventName"] != event {
        return Err(format!("hookEventName {}", output["hookEventName"]));
    }
    let context = output["additionalContext"]
        .as_str()
        .ok_or("no additionalContext string")?;
    let tag = context
        .split_once("<context-monitor ")
        .map(|(_, rest)| rest.split_once('>').map_or(rest, |(attrs, _)| attrs))
        .ok_or("no <context-monitor> tag")?;
    let value = tag
        .split_once(" tokens=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(value, _)| value)
        .ok_or("no tokens attribute")?;
    value
        .parse()
        .map_err(|_| format!("tokens attribute {value:?} is not a number"))
}

/// One row: a ctxmon command line.
#[derive(Debug, Clone)]
pub struct BenchCase {
    pub name: String,
    pub args: Vec<String>,
    pub stdin: String,
    pub check: Check,
    pub target: Target,
    /// Files written into the case's project before its first run: `(relative path, content)`.
    pub files: Vec<(String, String)>,
    /// Another program to run instead of ctxmon (a peer tool measured for comparison).
    pub program: Option<std::path::PathBuf>,
    /// ctxmon runs that make the case's project before its first run (after `files`), each
    /// checked to exit 0: history made by ctxmon itself, as a long-used project has it.
    pub setup: Vec<SetupRun>,
}

/// One ctxmon run of a case's setup.
#[derive(Debug, Clone)]
pub struct SetupRun {
    pub args: Vec<String>,
    pub stdin: String,
}

/// `ctxmon hooks prompt-submit` on a transcript, checked against its expected tokens.
pub fn prompt_submit(name: &str, transcript: &Generated) -> BenchCase {
    let input = serde_json::json!({
        "session_id": "bench-session",
        "transcript_path": transcript.path,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hi"
    });
    BenchCase {
        name: name.to_owned(),
        args: vec!["hooks".into(), "prompt-submit".into()],
        stdin: input.to_string(),
        check: Check::HookTokens(transcript.expected_tokens),
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// `ctxmon hooks post-tool-use` after a Bash call with `response_bytes` of output: the first
/// run tags the tier (checked), every later one is the unchanged path (no answer, no write).
pub fn post_tool_use(name: &str, transcript: &Generated, response_bytes: usize) -> BenchCase {
    let input = serde_json::json!({
        "session_id": "bench-session",
        "transcript_path": transcript.path,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test --workspace", "description": "Run the tests"},
        "tool_response": {"stdout": "test result: ok. ".repeat(response_bytes / 17 + 1), "stderr": "", "interrupted": false},
        "tool_use_id": "toolu_01bench"
    });
    BenchCase {
        name: name.to_owned(),
        args: vec!["hooks".into(), "post-tool-use".into()],
        stdin: input.to_string(),
        check: Check::FirstTagThenSilent(transcript.expected_tokens),
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// `ctxmon --json status --transcript PATH`, held to the hooks' bar (contract C16).
pub fn status(name: &str, transcript: &Generated) -> BenchCase {
    BenchCase {
        name: name.to_owned(),
        args: vec![
            "--json".into(),
            "status".into(),
            "--transcript".into(),
            transcript.path.display().to_string(),
        ],
        stdin: String::new(),
        check: Check::StatusTokens(transcript.expected_tokens),
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// The hook with a transcript path that does not exist: everything but the transcript read.
pub fn prompt_submit_without_transcript(name: &str) -> BenchCase {
    let input = serde_json::json!({
        "session_id": "bench-session",
        "transcript_path": "/nonexistent/ctxmon-bench.jsonl",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hi"
    });
    BenchCase {
        name: name.to_owned(),
        args: vec!["hooks".into(), "prompt-submit".into()],
        stdin: input.to_string(),
        check: Check::ExitZero,
        target: HOOK_TARGET,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// `ctxmon --version`: process start, argument parsing and exit, no work at all.
pub fn process_floor(name: &str) -> BenchCase {
    BenchCase {
        name: name.to_owned(),
        args: vec!["--version".into()],
        stdin: String::new(),
        check: Check::StdoutStartsWith("ctxmon "),
        target: Target::NONE,
        files: Vec::new(),
        program: None,
        setup: Vec::new(),
    }
}

/// `/bin/true`: what starting any process costs here, below which no command can go.
pub fn bare_process() -> BenchCase {
    BenchCase {
        name: "`/bin/true` (bare process floor)".to_owned(),
        args: Vec::new(),
        stdin: String::new(),
        check: Check::ExitZero,
        target: Target::NONE,
        files: Vec::new(),
        program: Some(std::path::PathBuf::from("/bin/true")),
        setup: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(stdout: &str) -> RunOutput {
        RunOutput {
            case: 0,
            wall_ns: 0,
            max_rss_kib: None,
            floor_kib: None,
            exit_code: Some(0),
            stdout: stdout.to_owned(),
            stderr: String::new(),
        }
    }

    #[test]
    fn a_gemini_answer_is_checked_by_its_own_event() {
        let gemini = ANSWER
            .replace("UserPromptSubmit", "BeforeAgent")
            .replace("157321", "450000");
        assert_eq!(
            Check::GeminiHookTokens(450_000).verify(&out(&gemini), 0),
            Ok(())
        );
        assert!(
            Check::GeminiHookTokens(450_000)
                .verify(&out(ANSWER), 0)
                .is_err()
        );
        assert!(Check::HookTokens(450_000).verify(&out(&gemini), 0).is_err());
    }

    const ANSWER: &str = r#"{"hookSpecificOutput":{"additionalContext":"<context-monitor fill=\"78%\" tier=\"WARNING\" tokens=\"157321\" window=\"200000\" until-auto-compact=\"9679\" source=\"transcript\">\nFinish.\n</context-monitor>","hookEventName":"UserPromptSubmit"}}"#;

    #[test]
    fn the_hook_answer_is_checked_by_its_tokens_attribute() {
        assert_eq!(hook_tokens(ANSWER), Ok(157_321));
        assert_eq!(Check::HookTokens(157_321).verify(&out(ANSWER), 0), Ok(()));
        assert!(Check::HookTokens(1).verify(&out(ANSWER), 0).is_err());
        assert!(Check::HookTokens(1).verify(&out(""), 0).is_err());
        let mut failed = out(ANSWER);
        failed.exit_code = Some(1);
        assert!(Check::HookTokens(157_321).verify(&failed, 0).is_err());
    }

    #[test]
    fn post_tool_use_must_tag_its_first_run_and_stay_silent_after() {
        let tag = ANSWER.replace("UserPromptSubmit", "PostToolUse");
        let check = Check::FirstTagThenSilent(157_321);
        assert_eq!(check.verify(&out(&tag), 0), Ok(()));
        assert!(check.verify(&out(ANSWER), 0).is_err(), "another event");
        assert!(
            check.verify(&out(""), 0).is_err(),
            "the first run must measure"
        );
        assert!(Check::FirstTagThenSilent(1).verify(&out(&tag), 0).is_err());
        assert_eq!(check.verify(&out(""), 3), Ok(()));
        assert!(check.verify(&out(&tag), 3).is_err(), "a repeated tag");
    }

    #[test]
    fn the_status_answer_is_checked_by_input_tokens_and_source() {
        let ok = r#"{"input_tokens":157321,"source":"transcript"}"#;
        assert_eq!(Check::StatusTokens(157_321).verify(&out(ok), 0), Ok(()));
        let wrong = r#"{"input_tokens":157321,"source":"unavailable"}"#;
        assert!(Check::StatusTokens(157_321).verify(&out(wrong), 0).is_err());
    }

    #[test]
    fn cases_carry_their_expected_answer() {
        let transcript = Generated {
            path: "/tmp/t.jsonl".into(),
            bytes: 1,
            expected_tokens: 42,
            reused: false,
        };
        let case = prompt_submit("x", &transcript);
        let stdin: Value = serde_json::from_str(&case.stdin).unwrap();
        assert_eq!(stdin["transcript_path"], "/tmp/t.jsonl");
        assert_eq!(case.check, Check::HookTokens(42));
        assert_eq!(status("y", &transcript).check, Check::StatusTokens(42));
    }
}
