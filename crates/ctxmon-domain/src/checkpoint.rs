//! Checkpoints: the snapshot PreCompact writes so the work survives compaction (contract C5).

use serde::{Deserialize, Serialize};

use crate::{FillEstimate, ResumptionState, Timestamp};

/// The fill at the moment of the checkpoint. The checkpoint names it apart (contract C5) because it is
/// the context the agent had, not the one it will have.
pub type ContextState = FillEstimate;

/// `cx-NNN`: monotonic per project, at least three digits. Parsing is strict because ids reach
/// file names: `../../etc/passwd` or `cx-1;rm` are rejected, never sanitised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckpointId(u32);

impl CheckpointId {
    /// The first id a project gives, `cx-001`.
    pub const FIRST: CheckpointId = CheckpointId(1);

    /// The id with this sequence number; `None` for 0 (ids start at 1).
    pub fn new(sequence: u32) -> Option<CheckpointId> {
        (sequence > 0).then_some(CheckpointId(sequence))
    }

    /// The sequence number, `cx-004` → 4.
    pub fn sequence(self) -> u32 {
        self.0
    }

    /// The id after this one; `None` past `u32::MAX`.
    pub fn next(self) -> Option<CheckpointId> {
        self.0.checked_add(1).map(CheckpointId)
    }

    /// Accepts exactly `cx-` followed by 3 to 9 ASCII digits, not all zero.
    pub fn parse(s: &str) -> Option<CheckpointId> {
        let digits = s.strip_prefix("cx-")?;
        if !(3..=9).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u32>().ok().and_then(CheckpointId::new)
    }

    /// An id as a person types it: `4`, `cx-4`, `cx-004` or `CX-004` (1 to 9 digits, not all
    /// zero, spaces around ignored). File names and stored data keep the strict
    /// [`CheckpointId::parse`]; the result names the same checkpoint either way.
    pub fn parse_short(s: &str) -> Option<CheckpointId> {
        let s = s.trim();
        let digits = match s.get(..3) {
            Some(prefix) if prefix.eq_ignore_ascii_case("cx-") => s.get(3..)?,
            _ => s,
        };
        if !(1..=9).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u32>().ok().and_then(CheckpointId::new)
    }

    /// The data file's name, `cx-004-checkpoint.json`.
    pub fn file_name(self) -> String {
        format!("{self}-checkpoint.json")
    }

    /// The acknowledgement marker's name, `cx-004.acknowledged`.
    pub fn marker_name(self) -> String {
        format!("{self}.acknowledged")
    }
}

impl std::fmt::Display for CheckpointId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cx-{:03}", self.0)
    }
}

impl Serialize for CheckpointId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CheckpointId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        CheckpointId::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!("invalid checkpoint id {s:?} (expected cx-NNN)"))
        })
    }
}

/// Who started a compaction, as Claude Code reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CompactionTrigger {
    /// The user ran `/compact`.
    Manual,
    /// Claude Code compacted on its own, near the window's end.
    Auto,
    /// The user ran `/clear`: the checkpoint was taken as the cleared session ended, so the
    /// next session can be handed the work without a compaction's wait.
    Clear,
    /// Not reported, or a value ctxmon does not know.
    #[default]
    Unknown,
}

impl CompactionTrigger {
    /// Reads Claude Code's `trigger` field, ignoring case and spaces; anything else is `Unknown`.
    pub fn parse(s: Option<&str>) -> CompactionTrigger {
        match s.map(str::trim) {
            Some(t) if t.eq_ignore_ascii_case("manual") => CompactionTrigger::Manual,
            Some(t) if t.eq_ignore_ascii_case("auto") => CompactionTrigger::Auto,
            Some(t) if t.eq_ignore_ascii_case("clear") => CompactionTrigger::Clear,
            _ => CompactionTrigger::Unknown,
        }
    }

    /// The lower-case name stored in checkpoints and events: `manual`, `auto`, `clear` or
    /// `unknown`.
    pub fn key(self) -> &'static str {
        match self {
            CompactionTrigger::Manual => "manual",
            CompactionTrigger::Auto => "auto",
            CompactionTrigger::Clear => "clear",
            CompactionTrigger::Unknown => "unknown",
        }
    }
}

/// Where the session was when it was checkpointed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SessionInfo {
    /// The agent's session id.
    pub session_id: Option<String>,
    /// The project folder the hook ran for.
    pub project_dir: Option<String>,
    /// The agent's working folder, as the hook input gave it (`cwd`).
    pub cwd: Option<String>,
    /// The transcript the fill was measured from.
    pub transcript_path: Option<String>,
    /// The git branch at the time, when the project is a repository.
    pub git_branch: Option<String>,
    /// The commit checked out at the time (full hash).
    pub git_head: Option<String>,
}

/// `.ctxmon/checkpoints/cx-NNN-checkpoint.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckpointData {
    /// The file format's version; [`CheckpointData::SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The checkpoint's id, unique in the project.
    pub checkpoint_id: CheckpointId,
    /// RFC 3339, for people; `created_at_ms` is what code compares.
    pub timestamp: String,
    /// When it was written, in milliseconds since the Unix epoch.
    pub created_at_ms: Timestamp,
    /// 1 for the session's first compaction, 2 for its second, …
    pub compaction_sequence: u32,
    /// Who started the compaction.
    pub trigger: CompactionTrigger,
    /// The instructions the user gave `/compact`, if any.
    pub custom_instructions: Option<String>,
    /// The fill just before the compaction.
    pub context_state: ContextState,
    /// What the agent was doing, for `<resumption-context>`; `None` when nothing was found.
    pub resumption_state: Option<ResumptionState>,
    /// Where the session was.
    pub session_info: SessionInfo,
}

impl CheckpointData {
    /// The version this build writes.
    pub const SCHEMA_VERSION: u32 = 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn people_may_type_ids_short() {
        for typed in [
            "4",
            "004",
            "cx-4",
            "cx-04",
            "cx-004",
            "CX-004",
            " cx-4 ",
            "cx-000000004",
        ] {
            assert_eq!(
                CheckpointId::parse_short(typed),
                CheckpointId::new(4),
                "{typed:?}"
            );
        }
        assert_eq!(
            CheckpointId::parse_short("1234").map(|c| c.to_string()),
            Some("cx-1234".into())
        );
        for bad in [
            "",
            "0",
            "cx-0",
            "cx-",
            "cx4",
            "-4",
            "+4",
            "4.0",
            "cx-1234567890",
            "../4",
            "cx-4x",
            "٤",
        ] {
            assert_eq!(CheckpointId::parse_short(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ids_parse_strictly() {
        assert_eq!(CheckpointId::parse("cx-001"), CheckpointId::new(1));
        assert_eq!(
            CheckpointId::parse("cx-1234").map(|c| c.to_string()),
            Some("cx-1234".into())
        );
        for bad in [
            "cx-1",
            "cx-000",
            "../../etc/passwd",
            "cx-1;rm",
            "cx-001/..",
            "CX-001",
            "cx-0012345678",
            " cx-001",
            "cx-٣٣٣",
        ] {
            assert_eq!(CheckpointId::parse(bad), None, "{bad}");
        }
        assert_eq!(
            CheckpointId::new(4).unwrap().file_name(),
            "cx-004-checkpoint.json"
        );
        assert_eq!(
            CheckpointId::new(4).unwrap().marker_name(),
            "cx-004.acknowledged"
        );
    }

    #[test]
    fn ids_serialise_as_strings() {
        let id = CheckpointId::new(12).unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"cx-012\"");
        assert!(serde_json::from_str::<CheckpointId>("\"cx-1;rm\"").is_err());
    }

    proptest! {
        #[test]
        fn display_parse_round_trip(n in 1u32..1_000_000_000) {
            let id = CheckpointId::new(n).unwrap();
            prop_assert_eq!(CheckpointId::parse(&id.to_string()), Some(id));
        }

        #[test]
        fn parsed_ids_are_file_name_safe(s in any::<String>()) {
            if let Some(id) = CheckpointId::parse(&s) {
                prop_assert!(id.file_name().bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'));
            }
        }
    }
}
