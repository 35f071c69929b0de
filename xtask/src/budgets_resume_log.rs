//! Budget check for resume logs (contract C9): rendered from oversized sections — every section
//! at once, each one alone, long single words, multi-byte text, line-break storms — the document
//! must stay within 10,000 tokens, every section that did not fit must say so with a visible
//! marker and hold at least its own budget (500/1,000/2,000/2,500/1,500/1,500/1,000) less one
//! item, and a section alone over its budget must get the room the others leave: the document
//! is then full to within one item.

use std::collections::BTreeMap;

use ctxmon_domain::resume_log::RenderedLog;
use ctxmon_domain::{
    ContextMetrics, ContextValue, Decision, ResumeLog, ResumeLogSection, Timestamp, estimate_tokens,
};

/// How an oversized text is made.
#[derive(Debug, Clone, Copy)]
enum Filler {
    Sentences,
    OneWord,
    MultiByte,
    LineBreaks,
}

fn text(filler: Filler, seed: usize, chars: usize) -> String {
    let unit = match filler {
        Filler::Sentences => format!("Finding {seed} holds and is a full sentence. "),
        Filler::OneWord => "x".to_string(),
        Filler::MultiByte => "résumé ✅ 継続 ".to_string(),
        Filler::LineBreaks => "a\n\n- b\r\n".to_string(),
    };
    unit.chars().cycle().take(chars).collect()
}

fn list(filler: Filler, items: usize, chars: usize) -> Vec<String> {
    (0..items).map(|i| text(filler, i, chars)).collect()
}

fn map(filler: Filler, items: usize, chars: usize) -> BTreeMap<String, String> {
    (0..items)
        .map(|i| (format!("key {i:03}"), text(filler, i, chars)))
        .collect()
}

/// A log whose `only` section (or every section, for `None`) is far over budget.
fn oversized(filler: Filler, only: Option<ResumeLogSection>) -> ResumeLog {
    let big = |s: ResumeLogSection| only.is_none_or(|o| o == s);
    let (items, chars) = (400, 2_000);
    let mut log = ResumeLog::new(
        text(
            filler,
            0,
            if big(ResumeLogSection::ContextMetrics) {
                20_000
            } else {
                8
            },
        ),
        ContextMetrics::new(
            u64::MAX,
            u64::MAX / 3,
            text(
                filler,
                1,
                if big(ResumeLogSection::ContextMetrics) {
                    20_000
                } else {
                    8
                },
            ),
            text(
                filler,
                2,
                if big(ResumeLogSection::ContextMetrics) {
                    20_000
                } else {
                    8
                },
            ),
            Timestamp(i64::MAX / 2),
        ),
    );
    if big(ResumeLogSection::MissionSummary) {
        log.mission_summary = text(filler, 3, 50_000);
    }
    if big(ResumeLogSection::Accomplishments) {
        log.accomplishments = list(filler, items, chars);
    }
    if big(ResumeLogSection::KeyFindings) {
        log.key_findings = list(filler, items, chars);
    }
    if big(ResumeLogSection::Decisions) {
        log.decisions = (0..items)
            .map(|i| Decision {
                decision: text(filler, i, chars),
                rationale: text(filler, i + 1, chars),
            })
            .collect();
    }
    if big(ResumeLogSection::NextSteps) {
        log.next_steps = list(filler, items, chars);
    }
    if big(ResumeLogSection::CriticalContext) {
        log.critical_context = map(filler, items, chars)
            .into_iter()
            .map(|(k, v)| (k, ContextValue::Text(v)))
            .collect();
        let m = &mut log.metadata;
        m.files_modified = list(filler, items, 300);
        m.commands_run = list(filler, items, chars);
        m.errors = list(filler, items, 500);
        m.git_dirty_files = list(filler, items, 300);
        m.notes = map(filler, items, chars);
        m.trigger = text(filler, 9, chars);
    }
    log
}

/// The most a section may fall short of its own budget, or a full document of 10,000 tokens,
/// when something was cut: the largest oversized item (a decision and its rationale, 2 × 2,000
/// characters, which the 80% rule drops whole once the section is 80% full) and its marker.
const ONE_ITEM: u64 = 1_100;

fn problems_of(
    label: &str,
    rendered: &RenderedLog,
    expect_cut: &[ResumeLogSection],
    alone: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for s in &rendered.sections {
        let measured = estimate_tokens(&s.text);
        if expect_cut.contains(&s.section) {
            if !(s.omitted_tokens > 0 && s.text.contains("tokens omitted]")) {
                problems.push(format!(
                    "  {label}: {} was oversized but shows no truncation marker",
                    s.section.key()
                ));
            }
            if measured.get() + ONE_ITEM < s.section.budget().get() {
                problems.push(format!(
                    "  {label}: {} was cut at {measured} tokens, short of its budget {}",
                    s.section.key(),
                    s.section.budget()
                ));
            }
        }
    }
    let total = estimate_tokens(&rendered.markdown());
    if total > ResumeLogSection::TOTAL_BUDGET {
        problems.push(format!(
            "  {label}: document is {total} tokens, budget {}",
            ResumeLogSection::TOTAL_BUDGET
        ));
    }
    if alone
        && rendered.omitted_tokens() > 0
        && total.get() + ONE_ITEM < ResumeLogSection::TOTAL_BUDGET.get()
    {
        problems.push(format!(
            "  {label}: something was cut while the document holds only {total} tokens"
        ));
    }
    problems
}

pub fn resume_log() -> Result<String, String> {
    let fillers = [
        Filler::Sentences,
        Filler::OneWord,
        Filler::MultiByte,
        Filler::LineBreaks,
    ];
    let mut problems = Vec::new();
    let mut renders = 0;
    let mut largest = 0;
    // The context-metrics block holds only short, capped lines: it cannot be pushed over, so
    // it is checked for its budget but not expected to show a marker.
    let cut_sections: Vec<ResumeLogSection> = ResumeLogSection::ALL
        .into_iter()
        .filter(|s| *s != ResumeLogSection::ContextMetrics)
        .collect();
    for filler in fillers {
        let rendered = oversized(filler, None).render();
        problems.extend(problems_of(
            &format!("{filler:?}, all sections"),
            &rendered,
            &cut_sections,
            false,
        ));
        largest = largest.max(estimate_tokens(&rendered.markdown()).get());
        renders += 1;
        for section in ResumeLogSection::ALL {
            let expect: &[ResumeLogSection] = if cut_sections.contains(&section) {
                std::slice::from_ref(&section)
            } else {
                &[]
            };
            let rendered = oversized(filler, Some(section)).render();
            problems.extend(problems_of(
                &format!("{filler:?}, {} alone", section.key()),
                &rendered,
                expect,
                true,
            ));
            renders += 1;
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(format!(
        "{renders} renders of oversized sections; each cut section holds its budget (500/1,000/2,000/2,500/1,500/1,500/1,000) and a section alone the room the others leave, largest document {largest} of {} tokens",
        ResumeLogSection::TOTAL_BUDGET
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn resume_logs_stay_within_budget() {
        let summary = super::resume_log().unwrap_or_else(|e| panic!("{e}"));
        assert!(summary.contains("renders"), "{summary}");
    }
}
