//! The Gemini chat reader on chats built line by line: the fill and its model, upserts,
//! rewinds, compressions, legacy documents and the bad inputs each must survive.

use std::io::Cursor;
use std::path::Path;

use ctxmon_domain::TokenCount;

use super::*;
use crate::ports::TranscriptEvent;

const META: &str = r#"{"sessionId":"e435870b-a192","projectHash":"d5ee","startTime":"2026-04-25T08:23:24.509Z","lastUpdated":"2026-04-25T08:23:24.509Z","kind":"main"}"#;

fn user(id: &str, text: &str) -> String {
    format!(r#"{{"id":"{id}","timestamp":"t","type":"user","content":[{{"text":"{text}"}}]}}"#)
}

fn gemini(id: &str, input: u64, model: &str) -> String {
    format!(
        r#"{{"id":"{id}","timestamp":"t-{id}","type":"gemini","content":"","tokens":{{"input":{input},"output":9,"cached":{cached},"total":{total}}},"model":"{model}"}}"#,
        cached = input / 2,
        total = input + 9
    )
}

fn chat(lines: &[String]) -> Vec<u8> {
    let mut text = format!("{META}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    text.into_bytes()
}

fn read(bytes: &[u8]) -> TranscriptReading {
    read_with(bytes, ScanLimits::default())
}

fn read_with(bytes: &[u8], limits: ScanLimits) -> TranscriptReading {
    let format = format_of(bytes).expect("a Gemini chat");
    read_latest(
        Cursor::new(bytes),
        bytes.len() as u64,
        format,
        limits,
        Path::new("chat.jsonl"),
    )
    .expect("read")
}

fn tokens(r: &TranscriptReading) -> Option<u64> {
    r.usage.as_ref().map(|u| u.tokens.get())
}

#[test]
fn the_format_is_told_from_the_content() {
    assert_eq!(format_of(META.as_bytes()), Some(ChatFormat::Jsonl));
    let legacy = r#"{
  "sessionId": "s",
  "projectHash": "h",
  "messages": []
}"#;
    assert_eq!(format_of(legacy.as_bytes()), Some(ChatFormat::Legacy));
    let one_line = r#"{"sessionId":"s","projectHash":"h","messages":[]}"#;
    assert_eq!(format_of(one_line.as_bytes()), Some(ChatFormat::Legacy));
    // Keys in another order (a copy written by another program) are the same chat.
    let sorted = r#"{"kind":"main","projectHash":"h","sessionId":"s"}"#;
    assert_eq!(format_of(sorted.as_bytes()), Some(ChatFormat::Jsonl));
    // Claude Code and Codex lines are not chats, nor is a prompt that quotes the key.
    for other in [
        r#"{"parentUuid":null,"sessionId":"s","type":"user"}"#,
        r#"{"type":"user","sessionId":"s","message":"my \"projectHash\" key"}"#,
        r#"{"timestamp":"t","type":"session_meta","payload":{}}"#,
        r#"{"sessionId":"s","type":"user","message":"say \"projectHash\""}"#,
        "",
        "not json",
    ] {
        assert_eq!(format_of(other.as_bytes()), None, "{other}");
    }
}

#[test]
fn the_newest_gemini_message_counts_its_input_and_names_the_model() {
    let bytes = chat(&[
        user("u1", "hi"),
        gemini("g1", 10_651, "gemini-3.1-pro"),
        r#"{"$set":{"lastUpdated":"x"}}"#.into(),
        gemini("g1", 10_651, "gemini-3.1-pro"),
        gemini("g2", 13_116, "gemini-3-flash-preview"),
        r#"{"id":"i","type":"info","content":"Request cancelled."}"#.into(),
    ]);
    let r = read(&bytes);
    assert_eq!(tokens(&r), Some(13_116));
    assert_eq!(
        r.usage.and_then(|u| u.model).as_deref(),
        Some("gemini-3-flash-preview")
    );
    assert_eq!(r.agent, AgentKind::Gemini);
    assert!(r.boundary.is_none());
}

#[test]
fn a_newer_version_of_a_message_without_tokens_supersedes_its_count() {
    let bytes = chat(&[
        gemini("g1", 100, "m"),
        gemini("g2", 200, "m"),
        r#"{"id":"g2","type":"gemini","tokens":null}"#.into(),
    ]);
    assert_eq!(tokens(&read(&bytes)), Some(100));
}

#[test]
fn a_rewind_drops_its_target_and_everything_after() {
    let bytes = chat(&[
        user("u1", "a"),
        gemini("g1", 100, "m"),
        user("u2", "b"),
        gemini("g2", 900, "m"),
        r#"{"$rewindTo":"u2"}"#.into(),
        user("u3", "c"),
    ]);
    assert_eq!(tokens(&read(&bytes)), Some(100));
    // A response after the rewind counts again.
    let mut after = bytes.clone();
    after.extend_from_slice(gemini("g3", 150, "m").as_bytes());
    after.push(b'\n');
    assert_eq!(tokens(&read(&after)), Some(150));
}

#[test]
fn a_rewind_to_an_unknown_id_drops_everything() {
    let bytes = chat(&[
        gemini("g1", 100, "m"),
        r#"{"$rewindTo":"nobody"}"#.into(),
        user("u2", "b"),
    ]);
    let r = read(&bytes);
    assert_eq!(tokens(&r), None);
    assert!(!r.hit_scan_limit, "read to the start: no response since");
}

#[test]
fn a_set_that_shrank_the_list_is_a_compaction_until_the_next_response() {
    let mut lines = vec![user("u1", "a")];
    for k in 0..6 {
        lines.push(gemini(&format!("g{k}"), 500_000 + k, "gemini-2.5-pro"));
    }
    let kept = format!(
        r#"{{"$set":{{"messages":[{},{}]}}}}"#,
        user("summary", "state snapshot"),
        gemini("g5", 500_005, "gemini-2.5-pro")
    );
    lines.push(kept);
    let bytes = chat(&lines);
    let r = read(&bytes);
    assert_eq!(
        tokens(&r),
        None,
        "the kept tail's old count is not the fill"
    );
    let b = r.boundary.expect("a compaction");
    assert_eq!(b.uuid.as_deref(), Some("summary"));
    assert_eq!(b.pre_tokens, Some(TokenCount(500_005)));
    assert_eq!(r.agent_model.as_deref(), Some("gemini-2.5-pro"));
    let mut after = bytes.clone();
    after.extend_from_slice(gemini("g9", 120_000, "gemini-2.5-pro").as_bytes());
    after.push(b'\n');
    let r = read(&after);
    assert_eq!((tokens(&r), r.boundary), (Some(120_000), None));
}

#[test]
fn a_set_that_does_not_shrink_the_list_is_no_compaction() {
    let set = format!(
        r#"{{"$set":{{"messages":[{},{}]}}}}"#,
        user("u1", "a"),
        gemini("g1", 700, "m")
    );
    let bytes = chat(&[user("u1", "a"), gemini("g1", 700, "m"), set]);
    let r = read(&bytes);
    assert_eq!((tokens(&r), r.boundary), (Some(700), None));
}

#[test]
fn bad_input_gives_a_figure_or_nothing_never_a_wrong_one() {
    // Half-written last line.
    let mut bytes = chat(&[gemini("g1", 100, "m")]);
    bytes.extend_from_slice(br#"{"id":"g2","type":"gemini","tokens":{"inp"#);
    assert_eq!(tokens(&read(&bytes)), Some(100));
    // Only $set lines without messages.
    let bytes = chat(&[
        r#"{"$set":{"lastUpdated":"a"}}"#.into(),
        r#"{"$set":{"messages":null}}"#.into(),
    ]);
    let r = read(&bytes);
    assert_eq!((tokens(&r), r.hit_scan_limit), (None, false));
    // Tokens null, negative, fractional; an unknown type with a count.
    let bytes = chat(&[
        gemini("g1", 42, "m"),
        r#"{"id":"g2","type":"gemini","tokens":null}"#.into(),
        r#"{"id":"g3","type":"gemini","tokens":{"input":-1}}"#.into(),
        r#"{"id":"g4","type":"gemini","tokens":{"input":1.5}}"#.into(),
        r#"{"id":"p","type":"plugin","tokens":{"input":999}}"#.into(),
    ]);
    assert_eq!(tokens(&read(&bytes)), Some(42));
}

#[test]
fn the_scan_stops_at_its_limit_without_a_figure() {
    let mut lines = vec![gemini("g1", 100, "m")];
    let filler = r#"{"id":"i","type":"info","content":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#;
    for k in 0..2_000 {
        lines.push(filler.replace("\"i\"", &format!("\"i{k}\"")));
    }
    let bytes = chat(&lines);
    let r = read_with(
        &bytes,
        ScanLimits {
            max_scan_bytes: 64 * 1024,
        },
    );
    assert_eq!(tokens(&r), None);
    assert!(r.hit_scan_limit);
    assert!(r.bytes_scanned <= 64 * 1024);
}

#[test]
fn a_legacy_document_is_read_whole_up_to_its_cap() {
    let doc = format!(
        "{{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {},\n    {},\n    {}\n  ]\n}}\n",
        user("u1", "a"),
        gemini("g1", 13_116, "gemini-3-flash-preview"),
        r#"{"id":"i","type":"info","content":"x"}"#
    );
    let r = read(doc.as_bytes());
    assert_eq!(tokens(&r), Some(13_116));
    let over = read_latest(
        Cursor::new(doc.as_bytes()),
        doc.len() as u64,
        ChatFormat::Legacy,
        ScanLimits { max_scan_bytes: 64 },
        Path::new("chat.json"),
    )
    .expect_err("over the cap");
    assert!(over.message.contains("over the 64-byte cap"), "{over}");
    let cut = &doc.as_bytes()[..doc.len() / 2];
    let half = read_latest(
        Cursor::new(cut),
        cut.len() as u64,
        ChatFormat::Legacy,
        ScanLimits::default(),
        Path::new("chat.json"),
    )
    .expect_err("a half-written document");
    assert!(
        half.message.contains("not a complete JSON document"),
        "{half}"
    );
}

#[test]
fn the_report_sees_each_response_once_per_id_and_the_compaction() {
    let mut lines = vec![
        user("u1", "a"),
        gemini("g1", 100, "m"),
        gemini("g1", 100, "m"),
    ];
    lines.push(gemini("g2", 200, "m"));
    lines.push(format!(
        r#"{{"$set":{{"messages":[{}]}}}}"#,
        user("s", "summary")
    ));
    lines.push(gemini("g3", 50, "m"));
    let bytes = chat(&lines);
    let mut events = Vec::new();
    forward_events(
        Cursor::new(&bytes),
        bytes.len() as u64,
        ChatFormat::Jsonl,
        1 << 20,
        &mut |e| events.push(e),
    )
    .expect("read");
    let shape: Vec<String> = events
        .iter()
        .map(|e| match e {
            TranscriptEvent::Usage { record, .. } => format!("{}", record.tokens.get()),
            TranscriptEvent::Boundary { .. } => "|".into(),
        })
        .collect();
    assert_eq!(shape, ["100", "100", "200", "|", "50"]);
}

/// A response line of many megabytes (gemini-cli keeps tool output in it) is read, its count
/// current; one past the line cap leaves the fill unread rather than reporting the count
/// before it as current.
#[test]
fn a_long_newest_response_is_read_and_one_past_the_cap_is_never_replaced_by_an_older_one() {
    let long = |bytes: usize| {
        format!(
            r#"{{"id":"big","timestamp":"t","type":"gemini","content":"{}","tokens":{{"input":88888}},"model":"gemini-2.5-pro"}}"#,
            "x".repeat(bytes)
        )
    };
    let fits = chat(&[gemini("g1", 77_912, "gemini-2.5-pro"), long(3 << 20)]);
    assert_eq!(tokens(&read(&fits)), Some(88_888));

    let past = chat(&[
        gemini("g1", 77_912, "gemini-2.5-pro"),
        long(MAX_LINE_BYTES + 1),
    ]);
    let format = format_of(&past).expect("a Gemini chat");
    let outcome = read_latest(
        Cursor::new(&past),
        past.len() as u64,
        format,
        ScanLimits::default(),
        Path::new("chat.jsonl"),
    );
    let error = outcome.expect_err("no figure from behind the long line");
    assert!(
        error.message.contains("cannot be read"),
        "{}",
        error.message
    );
}

fn stamped(id: &str, kind: &str, at: &str, input: Option<u64>) -> String {
    let tokens = input.map_or(String::new(), |n| format!(r#","tokens":{{"input":{n}}}"#));
    format!(r#"{{"id":"{id}","timestamp":"{at}","type":"{kind}","content":"c"{tokens}}}"#)
}

fn compacted(bytes: &[u8], since: &str) -> bool {
    let since = ctxmon_domain::Timestamp::parse_rfc3339(since).expect("a time");
    compacted_since(
        Cursor::new(bytes),
        bytes.len() as u64,
        ScanLimits::default(),
        since.millis(),
    )
    .expect("read")
}

/// Only a `$set.messages` that opens with the summary turn and shrank the list, written after
/// the given time, is a compression: a `/rewind` followed by a smaller response is not.
#[test]
fn only_a_shrinking_set_opened_by_the_summary_after_the_time_is_a_compression() {
    let before = [
        stamped("u1", "user", "2026-04-25T08:00:00.000Z", None),
        stamped("g1", "gemini", "2026-04-25T08:00:01.000Z", Some(300_000)),
        stamped("u2", "user", "2026-04-25T08:00:02.000Z", None),
        stamped("g2", "gemini", "2026-04-25T08:00:03.000Z", Some(530_000)),
    ];
    let since = "2026-04-25T08:00:04.000Z";
    let rewound = chat(
        &[
            &before[..],
            &[
                r#"{"$rewindTo":"u2"}"#.to_string(),
                stamped("u3", "user", "2026-04-25T08:00:05.000Z", None),
                stamped("g3", "gemini", "2026-04-25T08:00:06.000Z", Some(310_000)),
            ],
        ]
        .concat(),
    );
    assert!(!compacted(&rewound, since));

    let summary = r#"{"$set":{"messages":[{"id":"sum","timestamp":"x","type":"user","content":"s"},{"id":"g2","timestamp":"2026-04-25T08:00:03.000Z","type":"gemini","content":"c","tokens":{"input":530000}}]}}"#;
    let compressed = chat(
        &[
            &before[..],
            &[
                summary.to_string(),
                stamped("u3", "user", "2026-04-25T08:00:05.000Z", None),
                stamped("g3", "gemini", "2026-04-25T08:00:06.000Z", Some(150_000)),
            ],
        ]
        .concat(),
    );
    assert!(compacted(&compressed, since));
    // The same compression written before the time is an older one.
    let later = "2026-04-25T09:00:00.000Z";
    let mut older = compressed.clone();
    older.extend_from_slice(
        format!(
            "{}\n",
            stamped("u4", "user", "2026-04-25T08:30:00.000Z", None)
        )
        .as_bytes(),
    );
    assert!(!compacted(&older, later));
    // A whole list written again unshrunk (a masked tool output) hides no compression before it.
    let masked = r#"{"$set":{"messages":[{"id":"sum","timestamp":"x","type":"user","content":"s"},{"id":"g2","timestamp":"t","type":"gemini","content":"m"},{"id":"u3","timestamp":"t","type":"user","content":"c"},{"id":"g3","timestamp":"t","type":"gemini","content":"c"}]}}"#;
    let mut then_masked = compressed.clone();
    then_masked.extend_from_slice(format!("{masked}\n").as_bytes());
    assert!(compacted(&then_masked, since));
    // A list that opens with something else, or does not shrink, is no compression.
    let not_summary = summary.replace(r#""type":"user""#, r#""type":"info""#);
    let odd = chat(&[&before[..], &[not_summary]].concat());
    assert!(!compacted(&odd, since));
    assert!(!compacted(&chat(&[masked.to_string()]), since));
}

/// A chat saved with a byte-order mark is still a chat (both formats); message lines without
/// the metadata line are told apart as no chat at all.
#[test]
fn a_byte_order_mark_is_skipped_and_a_chat_without_its_first_line_is_named() {
    let plain = chat(&[user("u1", "hi"), gemini("g1", 1234, "gemini-2.5-pro")]);
    let mut marked = BOM.to_vec();
    marked.extend_from_slice(&plain);
    assert_eq!(tokens(&read(&marked)), Some(1234));
    let legacy = format!(
        "\u{feff}{{\"sessionId\":\"s\",\"projectHash\":\"h\",\"messages\":[{}]}}",
        gemini("g1", 99, "gemini-2.5-pro")
    );
    assert_eq!(format_of(legacy.as_bytes()), Some(ChatFormat::Legacy));
    assert_eq!(tokens(&read(legacy.as_bytes())), Some(99));

    let headless = plain
        .splitn(2, |b| *b == b'\n')
        .nth(1)
        .expect("lines after the metadata");
    assert!(headless_chat(headless));
    assert!(!headless_chat(&plain));
    let claude =
        br#"{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
    assert!(!headless_chat(claude));
}

/// gemini-cli words what a compression left in an `info` message after the new list: both
/// the backward read (`status`, the tag) and the forward one (`report`) take it as the size.
#[test]
fn an_info_message_after_the_compression_gives_its_size() {
    let info = r#"{"id":"c1","type":"info","content":"Chat history compressed from 77912 to 12040 tokens."}"#;
    let lines = vec![
        user("u1", "a"),
        gemini("g1", 60_000, "m"),
        user("u2", "b"),
        gemini("g2", 77_912, "m"),
        format!(
            r#"{{"$set":{{"messages":[{},{}]}}}}"#,
            user("s", "summary"),
            gemini("g2", 77_912, "m")
        ),
        info.to_string(),
    ];
    let bytes = chat(&lines);
    let b = read(&bytes).boundary.expect("a compaction");
    assert_eq!(
        (b.pre_tokens, b.post_tokens),
        (Some(TokenCount(77_912)), Some(TokenCount(12_040)))
    );
    let mut events = Vec::new();
    forward_events(
        Cursor::new(&bytes),
        bytes.len() as u64,
        ChatFormat::Jsonl,
        1 << 20,
        &mut |e| events.push(e),
    )
    .expect("read");
    let posts: Vec<Option<u64>> = events
        .iter()
        .filter_map(|e| match e {
            TranscriptEvent::Boundary { boundary, .. } => {
                Some(boundary.post_tokens.map(|t| t.get()))
            }
            TranscriptEvent::Usage { .. } => None,
        })
        .collect();
    assert_eq!(posts, [Some(12_040)]);
}
