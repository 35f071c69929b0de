//! What `ctxmon status` reports of one transcript file, as a library call: the agent that
//! wrote it, the fill estimate (with the model the session last answered with after a
//! compaction), and whether the session is still waiting for its first answer; or why there
//! is no figure. The binary's `status` and an embedder (`examples/embed`) both call it, so
//! their figures cannot drift apart.

use std::path::Path;

use ctxmon_domain::{FillEstimate, FillSource, TokenCount};

use super::access::FileAccess;
use super::detect;
use super::files::TranscriptFiles;
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest, FillSettings, PointSource};
use crate::ports::{AgentKind, TranscriptError, TranscriptErrorKind};

/// Why Gemini CLI message lines without the chat's first line are not measured.
const HEADLESS_CHAT: &str = "this is not a Gemini CLI chat: its first line is a message, where a chat starts with the session's metadata (sessionId, projectHash)";

/// The note of a session measured before its first answer.
pub const NO_RESPONSE_YET: &str =
    "no response yet: the figure starts with the session's first answer";

/// A transcript's figure, as `ctxmon status` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptFill {
    /// The agent that wrote the file (Claude Code when its start cannot be read).
    pub agent: AgentKind,
    /// The fill: 0 tokens, with [`NO_RESPONSE_YET`] as its note, before the first answer.
    pub estimate: FillEstimate,
    /// The session has had no answer yet (an empty transcript, or one holding only the first
    /// request): a figure of 0 with nothing wrong.
    pub awaiting_first_response: bool,
    /// Where the agent auto-compacts on this window (`None` when it is off).
    pub auto_compact_point: Option<TokenCount>,
    /// What that point was taken from.
    pub point_source: PointSource,
}

/// Why a transcript gives no figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FillError {
    /// The file could not be read (missing, not a file, denied, an I/O error).
    Unreadable(TranscriptError),
    /// The file is one of the inputs the agents send ctxmon (a hook's, the status line's),
    /// not a transcript; the text says which.
    NotATranscript(&'static str),
    /// The file was read but holds nothing to measure; the text says why.
    NothingToMeasure(String),
}

impl std::fmt::Display for FillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FillError::Unreadable(e) => write!(f, "{e}"),
            FillError::NotATranscript(what) => write!(
                f,
                "this is {what}, not a transcript: pass the transcript_path it names"
            ),
            FillError::NothingToMeasure(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for FillError {}

impl<A: FileAccess> TranscriptFiles<A> {
    /// Measures the transcript at `path` under `settings` as `ctxmon status --transcript`
    /// does; `model_hint` is its `--model` (a model id that may carry `[1m]`).
    ///
    /// ```
    /// use std::io::Cursor;
    /// use std::path::Path;
    ///
    /// use ctxmon_application::monitor::fill::FillSettings;
    /// use ctxmon_application::readers::TranscriptFiles;
    ///
    /// let line = r#"{"type":"assistant","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":12,"cache_read_input_tokens":68170}}}"#;
    /// let reader = TranscriptFiles::new(move |_: &Path| Ok(Cursor::new(format!("{line}\n"))));
    /// let fill = reader.measure(Path::new("s.jsonl"), &FillSettings::default(), None)?;
    /// assert_eq!(fill.agent.key(), "claude-code");
    /// assert_eq!(fill.estimate.input_tokens.get(), 68_182);
    /// assert_eq!(fill.estimate.context_window_size.get(), 200_000);
    /// # Ok::<(), ctxmon_application::readers::FillError>(())
    /// ```
    pub fn measure(
        &self,
        path: &Path,
        settings: &FillSettings,
        model_hint: Option<&str>,
    ) -> Result<TranscriptFill, FillError> {
        let agent = self.agent_of(path).unwrap_or_default();
        let measurement =
            ContextFillEstimator::new(self, settings).measure_session(EstimateRequest {
                transcript_path: Some(path),
                model_hint,
                ..EstimateRequest::default()
            });
        let awaiting = measurement.awaits_first_response() && self.opens_as_json_lines(path);
        let version = measurement.reading.as_ref().and_then(|r| {
            r.usage
                .as_ref()
                .and_then(|u| u.version.as_deref())
                .or_else(|| r.boundary.as_ref().and_then(|b| b.version.as_deref()))
        });
        let point_settings = settings
            .for_agent(agent)
            .knowing(version, measurement.estimate.model.as_deref());
        let window = measurement.estimate.context_window_size;
        let auto_compact_point = point_settings.auto_compact_point(window);
        let point_source = point_settings.point_source(window);
        let mut estimate = measurement.estimate;
        if awaiting {
            if let Ok(head) = self.head(path)
                && let Some(what) = detect::input_in_place_of_transcript(&head)
            {
                return Err(FillError::NotATranscript(what));
            }
            if let Ok(head) = self.head(path)
                && crate::readers::gemini::headless_chat(&head)
            {
                return Err(FillError::NothingToMeasure(HEADLESS_CHAT.to_string()));
            }
            estimate.note = Some(NO_RESPONSE_YET.to_string());
        } else {
            if let Some(error) = measurement.error {
                return Err(FillError::Unreadable(error));
            }
            if estimate.source == FillSource::Unavailable {
                let why = estimate.note.as_deref().unwrap_or("nothing to measure");
                return Err(FillError::NothingToMeasure(why.to_string()));
            }
        }
        Ok(TranscriptFill {
            agent,
            estimate,
            awaiting_first_response: awaiting,
            auto_compact_point,
            point_source,
        })
    }

    /// True when `path` starts like a JSON-lines file (`detect::opens_as_json_lines`) or is
    /// empty: a session's transcript before its first answer, as opposed to a file that is no
    /// transcript at all. A file that cannot be read is `false`.
    pub fn opens_as_json_lines(&self, path: &Path) -> bool {
        match self.head(path) {
            Ok(head) => detect::opens_as_json_lines(&head),
            Err(e) => e.kind == TranscriptErrorKind::Empty,
        }
    }
}
