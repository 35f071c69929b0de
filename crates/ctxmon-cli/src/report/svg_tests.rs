//! The SVG chart and the text report against hand-built series: well-formed XML, one circle per
//! response, escaped text, markers where the series has them.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use ctxmon_application::config::Config;
use ctxmon_application::monitor::fill::{FillSeries, FillSeriesBuilder, FillSettings};
use ctxmon_application::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};
use ctxmon_domain::TokenCount;

use super::{svg, text};

fn usage(id: &str, tokens: u64, model: &str) -> TranscriptEvent {
    TranscriptEvent::Usage {
        sidechain: false,
        record: UsageRecord {
            version: None,
            tokens: TokenCount(tokens),
            model: Some(model.into()),
            message_id: Some(id.into()),
            timestamp: Some(format!("2026-11-20T10:{:02}:00.000Z", tokens / 10_000)),
            context_window: None,
        },
    }
}

fn series(events: Vec<TranscriptEvent>) -> FillSeries {
    let settings = FillSettings::from_config(&Config::default()).unwrap();
    let mut b = FillSeriesBuilder::new();
    for e in events {
        b.push(e);
    }
    b.finish(&settings, None)
}

fn session() -> FillSeries {
    let mut events: Vec<TranscriptEvent> = (1..=17)
        .map(|i| usage(&format!("m{i}"), i * 10_000, "claude-sonnet-4-5"))
        .collect();
    events.push(TranscriptEvent::Boundary {
        sidechain: false,
        boundary: CompactionBoundary {
            version: None,
            uuid: None,
            timestamp: Some("2026-11-20T11:00:00.000Z".into()),
            trigger: Some("auto".into()),
            pre_tokens: Some(TokenCount(170_000)),
            post_tokens: Some(TokenCount(28_000)),
        },
    });
    events.push(usage("after", 35_000, "claude-sonnet-4-5"));
    series(events)
}

fn circles(doc: &roxmltree::Document<'_>) -> usize {
    doc.descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count()
}

#[test]
fn a_session_renders_as_well_formed_svg_with_one_circle_per_response() {
    let s = session();
    let out = svg::render(&s, "session.jsonl");
    let doc = roxmltree::Document::parse(&out).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    assert_eq!(circles(&doc), 18);
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("compaction"))
            .count(),
        1
    );
    let crossing_rings = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("point crossing"))
        .count();
    assert_eq!(crossing_rings, s.crossings.len());
    assert_eq!(s.crossings.len(), 4, "up to CRITICAL, then down");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .count(),
        1
    );
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .unwrap();
    assert_eq!(title, "Context fill · session.jsonl");
    assert!(
        out.contains("claude-sonnet-4-5"),
        "the model is in the title"
    );
    assert!(out.contains("auto-compact ≈ 83%"));
}

#[test]
fn hostile_text_is_escaped() {
    let model = "</text><script>alert(1)</script>&\"'";
    let s = series(vec![usage("<id>&", 50_000, model)]);
    let out = svg::render(&s, "a<b>&\"c\".jsonl");
    let doc = roxmltree::Document::parse(&out).unwrap();
    assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
    let texts: String = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(texts.contains(model), "the model survives as text");
    assert!(texts.contains("a<b>&\"c\".jsonl"));
    assert_eq!(circles(&doc), 1);
}

#[test]
fn empty_and_over_full_series_still_render() {
    let empty = series(vec![]);
    let doc_text = svg::render(&empty, "e.jsonl");
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    assert_eq!(circles(&doc), 0);
    assert!(doc_text.contains("no API response with usage"));
    // 1.2M on a 1M window: the top of the plot moves above 100%.
    let over = series(vec![usage("a", 1_200_000, "claude-opus-4-6")]);
    let doc_text = svg::render(&over, "o.jsonl");
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    assert_eq!(circles(&doc), 1);
    assert!(
        doc_text.contains(">120%<"),
        "grid reaches the fullest point"
    );
}

#[test]
fn an_absurd_usage_count_keeps_the_grid_small() {
    // Before the top was capped, u64::MAX tokens made `report --svg` draw ~4 billion grid lines.
    let s = series(vec![
        usage("a", 50_000, "claude-sonnet-4-5"),
        usage("b", u64::MAX, "claude-sonnet-4-5"),
    ]);
    let out = svg::render(&s, "absurd.jsonl");
    let doc = roxmltree::Document::parse(&out).unwrap();
    assert_eq!(circles(&doc), 2);
    let grid_lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("line") && n.attribute("stroke") == Some("#cfd8dc"))
        .count();
    assert_eq!(grid_lines, 41, "0% to 400% every 10%");
    assert!(out.len() < 100_000, "{} bytes", out.len());
    assert!(
        out.contains("18,446,744,073,709,551,615"),
        "the real figure is kept"
    );
}

#[test]
fn the_text_report_lists_compactions_and_crossings_with_times() {
    let out = text(&session(), "session.jsonl", 80, false);
    assert!(
        out.starts_with("session.jsonl · claude-sonnet-4-5 · window 200,000\n"),
        "{out}"
    );
    assert!(
        out.contains("18 responses · one column per response"),
        "{out}"
    );
    assert!(out.contains("max 170,000 (85%, response 17)"), "{out}");
    assert!(
        // Times for people are local (UTC in unit tests), with their offset.
        out.contains(
            "2026-11-20 11:00:00 +00:00  after response 17  auto  170,000 → 28,000 tokens"
        ),
        "{out}"
    );
    assert!(
        out.contains("response 11  NOMINAL → LOW  110,000 tokens (55%)"),
        "{out}"
    );
    assert!(out.contains("CRITICAL → NOMINAL"), "{out}");
    assert!(!out.contains('\x1b'));
    let line = out.lines().nth(1).unwrap();
    assert_eq!(line.trim().chars().count(), 18, "{line}");
}
