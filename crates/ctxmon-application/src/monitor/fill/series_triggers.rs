//! Who started each compaction of a series, where the transcript does not say.
//!
//! Claude Code writes `trigger` into its compaction boundary; a Codex rollout and a Gemini CLI
//! chat record only that a compaction happened. The pre-compaction hook was told (`auto` or
//! `manual`) and kept it in the session's checkpoint, so a report can name it for every agent.
//! A checkpoint belongs to the compaction whose hook wrote it: after the response before the
//! compaction and before the first response after it.

use ctxmon_domain::{CheckpointData, CompactionTrigger, Timestamp};

use super::series::FillSeries;

impl FillSeries {
    /// Fills in the trigger of every compaction whose transcript named none from `checkpoints`
    /// (one session's, in any order). Each checkpoint serves one compaction at most; where
    /// several fall in one compaction's span (Gemini CLI runs its hook on every attempt, also
    /// one that then compresses nothing) the newest, the attempt that compacted, counts. A
    /// checkpoint that names no trigger, or a `/clear`'s, says nothing about a compaction.
    pub fn take_triggers_from(&mut self, checkpoints: &[CheckpointData]) {
        let mut known: Vec<(Timestamp, CompactionTrigger)> = checkpoints
            .iter()
            .filter(|c| {
                !matches!(
                    c.trigger,
                    CompactionTrigger::Unknown | CompactionTrigger::Clear
                )
            })
            .map(|c| (c.created_at_ms, c.trigger))
            .collect();
        known.sort_by_key(|(at, _)| *at);
        let at = |index: usize| {
            self.points
                .get(index)
                .and_then(|p| p.timestamp.as_deref())
                .and_then(Timestamp::parse_rfc3339)
        };
        // Checkpoints at or before this time were written for an earlier compaction.
        let mut used_until: Option<Timestamp> = None;
        let spans: Vec<(Option<Timestamp>, Option<Timestamp>)> = self
            .compactions
            .iter()
            .map(|c| (c.index.checked_sub(1).and_then(at), at(c.index)))
            .collect();
        for (mark, (after, before)) in self.compactions.iter_mut().zip(spans) {
            let found = known.iter().rev().find(|(t, _)| {
                after.is_none_or(|a| *t >= a)
                    && before.is_none_or(|b| *t < b)
                    && used_until.is_none_or(|u| *t > u)
            });
            let Some(&(t, trigger)) = found else {
                continue;
            };
            used_until = Some(t);
            if mark.trigger.is_none() {
                mark.trigger = Some(trigger.key().to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ctxmon_domain::{CheckpointId, ContextWindow, SessionInfo, TokenCount};

    use super::*;
    use crate::monitor::fill::{FillSeriesBuilder, FillSettings};
    use crate::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};

    fn response(tokens: u64, at: &str) -> TranscriptEvent {
        TranscriptEvent::Usage {
            sidechain: false,
            record: UsageRecord {
                version: None,
                tokens: TokenCount(tokens),
                model: Some("gpt-5.4".into()),
                message_id: None,
                timestamp: Some(format!("2026-12-01T10:{at}.000Z")),
                context_window: None,
            },
        }
    }

    /// A compaction as a rollout or a chat records it: no trigger.
    fn compaction() -> TranscriptEvent {
        TranscriptEvent::Boundary {
            sidechain: false,
            boundary: CompactionBoundary {
                version: None,
                uuid: None,
                timestamp: None,
                trigger: None,
                pre_tokens: None,
                post_tokens: None,
            },
        }
    }

    fn checkpoint(at: &str, trigger: CompactionTrigger) -> CheckpointData {
        let ms = Timestamp::parse_rfc3339(&format!("2026-12-01T10:{at}.000Z")).unwrap_or_default();
        CheckpointData {
            schema_version: CheckpointData::SCHEMA_VERSION,
            checkpoint_id: CheckpointId::FIRST,
            timestamp: String::new(),
            created_at_ms: ms,
            compaction_sequence: 1,
            trigger,
            custom_instructions: None,
            context_state: ctxmon_domain::FillEstimate::unavailable(
                ContextWindow::DEFAULT,
                TokenCount::ZERO,
                "test",
            ),
            resumption_state: None,
            session_info: SessionInfo::default(),
        }
    }

    fn series(events: Vec<TranscriptEvent>) -> FillSeries {
        let mut builder = FillSeriesBuilder::new();
        for e in events {
            builder.push(e);
        }
        builder.finish(&FillSettings::default(), None)
    }

    fn triggers(s: &FillSeries) -> Vec<Option<&str>> {
        s.compactions.iter().map(|c| c.trigger.as_deref()).collect()
    }

    #[test]
    fn each_compaction_takes_the_checkpoint_written_in_its_span() {
        let mut s = series(vec![
            response(100_000, "00:00"),
            compaction(),
            response(30_000, "10:00"),
            compaction(),
            response(20_000, "20:00"),
            compaction(),
        ]);
        s.take_triggers_from(&[
            // Gemini CLI's hook on an attempt that compressed nothing, then the real one.
            checkpoint("15:00", CompactionTrigger::Manual),
            checkpoint("16:00", CompactionTrigger::Auto),
            checkpoint("05:00", CompactionTrigger::Manual),
            // The third compaction's hook failed: nothing to say, so nothing is said.
        ]);
        assert_eq!(triggers(&s), [Some("manual"), Some("auto"), None]);
        let mut last = series(vec![response(100_000, "00:00"), compaction()]);
        last.take_triggers_from(&[checkpoint("01:00", CompactionTrigger::Auto)]);
        assert_eq!(triggers(&last), [Some("auto")]);
    }

    #[test]
    fn a_recorded_trigger_stays_and_a_clear_or_unknown_checkpoint_says_nothing() {
        let mut s = series(vec![
            response(100_000, "00:00"),
            compaction(),
            response(30_000, "10:00"),
        ]);
        s.take_triggers_from(&[
            checkpoint("04:00", CompactionTrigger::Clear),
            checkpoint("05:00", CompactionTrigger::Unknown),
        ]);
        assert_eq!(triggers(&s), [None]);
        s.compactions[0].trigger = Some("manual".into());
        s.take_triggers_from(&[checkpoint("05:00", CompactionTrigger::Auto)]);
        assert_eq!(triggers(&s), [Some("manual")]);
        // Before the session's first response, or after the response that followed it.
        let mut early = series(vec![
            response(100_000, "00:00"),
            compaction(),
            response(30_000, "10:00"),
        ]);
        early.take_triggers_from(&[checkpoint("11:00", CompactionTrigger::Auto)]);
        assert_eq!(triggers(&early), [None]);
    }
}
