//! Exit codes (contract C13): 0 ok, 2 usage or configuration error, 1 any other failure; a closed
//! stdout ends a command with 0 (see `out`); and what a failure prints on stdout under `--json`
//! (see `json_out`).

use std::fmt;
use std::process::ExitCode;

use serde_json::{Map, Value};

/// A failure that knows its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or configuration: exit 2.
    Usage(anyhow::Error),
    /// Anything else: exit 1.
    Other(anyhow::Error),
    /// The command's own output already says what failed (doctor's checks and summary): exit 1
    /// with nothing more on stderr.
    Reported,
    /// Stdout's reader has gone (`| head -1`): the command stops writing and exits 0 quietly,
    /// as a SIGPIPE would end it (see `out`).
    StdoutClosed,
}

impl Failure {
    pub fn usage(e: impl Into<anyhow::Error>) -> Failure {
        Failure::Usage(e.into())
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code())
    }

    /// The exit code as a number, for the `--json` error object.
    pub fn code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Other(_) | Failure::Reported => 1,
            Failure::StdoutClosed => 0,
        }
    }

    /// What to tell the user; `None` when there is nothing to say (a closed stdout) or the
    /// command said it already.
    pub fn error(&self) -> Option<&anyhow::Error> {
        match self {
            Failure::Usage(e) | Failure::Other(e) => Some(e),
            Failure::Reported | Failure::StdoutClosed => None,
        }
    }

    /// The same failure with `fields` added to its `--json` error object (install names the
    /// file it refused to change). The message is unchanged.
    pub fn with_json_fields(self, fields: Map<String, Value>) -> Failure {
        self.annotate(JsonAnswer::Fields(fields))
    }

    /// What `--json` prints on stdout for this failure: `{"error", "exit_code"}` plus the
    /// command's fields; nothing when the command reported it itself (doctor's checks, which
    /// stay stdout's one document) or stdout is gone.
    pub fn json_error(&self) -> Option<Value> {
        let error = self.error()?;
        let mut object = match error.downcast_ref::<Annotated>().map(|a| &a.json) {
            Some(JsonAnswer::Fields(fields)) => fields.clone(),
            None => Map::new(),
        };
        object.insert("error".into(), format!("{error:#}").into());
        object.insert("exit_code".into(), self.code().into());
        Some(Value::Object(object))
    }

    fn annotate(self, json: JsonAnswer) -> Failure {
        let wrap = |error| anyhow::Error::new(Annotated { error, json });
        match self {
            Failure::Usage(e) => Failure::Usage(wrap(e)),
            Failure::Other(e) => Failure::Other(wrap(e)),
            Failure::Reported => Failure::Reported,
            Failure::StdoutClosed => Failure::StdoutClosed,
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

pub type CmdResult = Result<(), Failure>;

/// What a failure's command adds to its `--json` answer.
#[derive(Debug)]
enum JsonAnswer {
    Fields(Map<String, Value>),
}

/// An error carrying a [`JsonAnswer`]; it displays exactly as the error it wraps, so stderr and
/// the `error` field read the same with or without it.
#[derive(Debug)]
struct Annotated {
    error: anyhow::Error,
    json: JsonAnswer,
}

impl fmt::Display for Annotated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

impl std::error::Error for Annotated {}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::anyhow;
    use serde_json::json;

    #[test]
    fn every_failure_has_an_error_object_unless_its_command_answered() {
        let plain = Failure::usage(anyhow!("bad flag"));
        assert_eq!(
            plain.json_error(),
            Some(json!({"error": "bad flag", "exit_code": 2}))
        );
        let mut fields = Map::new();
        fields.insert("agent".into(), "codex".into());
        let named = Failure::Other(anyhow!("outer: {}", "inner")).with_json_fields(fields);
        assert_eq!(format!("{:#}", named.error().unwrap()), "outer: inner");
        assert_eq!(
            named.json_error(),
            Some(json!({"agent": "codex", "error": "outer: inner", "exit_code": 1}))
        );
        let answered = Failure::Reported;
        assert_eq!(answered.json_error(), None);
        assert_eq!(answered.code(), 1);
        assert!(answered.error().is_none(), "nothing more on stderr");
        // A reader that has gone gets nothing more.
        assert_eq!(Failure::StdoutClosed.json_error(), None);
    }
}
