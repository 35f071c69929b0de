//! Property: for any sequence of transcript lines, the backward block reader gives the answer of
//! a naive forward reference (read everything, keep the meaning of each line, take the last).
//!
//! The reference works from the generator's model of each line, not from parsing, so it checks
//! the reader's parsing as well as its block walking.

use ctxmon_application::ports::{ChainScope, ScanLimits, TranscriptReader};
use ctxmon_domain::TokenCount;
use ctxmon_infra_fs::JsonlTranscriptReader;
use proptest::prelude::*;

/// A line as the generator means it.
#[derive(Debug, Clone)]
enum Kind {
    /// An assistant line with usage; `side` marks a sidechain line.
    Usage { tokens: u32, side: bool, pad: usize },
    /// A compaction boundary.
    Boundary { post: u32, side: bool },
    /// An assistant line that must never qualify (API error, synthetic, zero usage).
    Placeholder(u8),
    /// A user line, possibly long.
    User { pad: usize },
    /// Bytes that are not a JSON object (may be non-UTF-8, may mention token keys).
    Garbage(Vec<u8>),
}

/// What the reference expects: usage tokens or boundary post tokens, and the scope.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    Nothing,
    Usage(u64, ChainScope),
    Boundary(u64, ChainScope),
}

fn render(kind: &Kind) -> Vec<u8> {
    match kind {
        Kind::Usage { tokens, side, pad } => format!(
            r#"{{"type":"assistant","isSidechain":{side},"message":{{"model":"m","content":"{}","usage":{{"input_tokens":{},"cache_creation_input_tokens":0,"cache_read_input_tokens":{},"cache_creation":{{"ephemeral_5m_input_tokens":1}}}}}}}}"#,
            "p".repeat(*pad),
            tokens / 2,
            tokens - tokens / 2 - 1,
        )
        .into_bytes(),
        Kind::Boundary { post, side } => format!(
            r#"{{"type":"system","subtype":"compact_boundary","isSidechain":{side},"compactMetadata":{{"postTokens":{post}}}}}"#
        )
        .into_bytes(),
        Kind::Placeholder(which) => match which % 3 {
            0 => r#"{"type":"assistant","isApiErrorMessage":true,"message":{"model":"m","usage":{"input_tokens":50}}}"#,
            1 => r#"{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":50}}}"#,
            _ => r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":0,"output_tokens":9}}}"#,
        }
        .as_bytes()
        .to_vec(),
        Kind::User { pad } => format!(
            r#"{{"type":"user","message":{{"content":"{}","usage":{{"input_tokens":5}}}}}}"#,
            "u".repeat(*pad)
        )
        .into_bytes(),
        Kind::Garbage(bytes) => bytes.clone(),
    }
}

/// The forward reference: the last main-chain result, else the last sidechain one.
fn reference(kinds: &[Kind]) -> Answer {
    let mut main = Answer::Nothing;
    let mut side = Answer::Nothing;
    for kind in kinds {
        match kind {
            Kind::Usage {
                tokens,
                side: false,
                ..
            } => main = Answer::Usage(u64::from(*tokens), ChainScope::Main),
            Kind::Usage {
                tokens, side: true, ..
            } => side = Answer::Usage(u64::from(*tokens), ChainScope::Sidechain),
            Kind::Boundary { post, side: false } => {
                main = Answer::Boundary(u64::from(*post), ChainScope::Main)
            }
            Kind::Boundary { post, side: true } => {
                side = Answer::Boundary(u64::from(*post), ChainScope::Sidechain)
            }
            Kind::Placeholder(_) | Kind::User { .. } | Kind::Garbage(_) => {}
        }
    }
    if main == Answer::Nothing { side } else { main }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        4 => (2u32..1_000_000, any::<bool>(), 0usize..300)
            .prop_map(|(tokens, side, pad)| Kind::Usage { tokens, side, pad }),
        1 => (0u32..1_000_000, any::<bool>())
            .prop_map(|(post, side)| Kind::Boundary { post, side }),
        1 => any::<u8>().prop_map(Kind::Placeholder),
        2 => (0usize..500).prop_map(|pad| Kind::User { pad }),
        2 => prop::collection::vec(
                prop_oneof![
                    any::<u8>().prop_filter("no line breaks", |b| *b != b'\n'),
                    Just(b'{'),
                    Just(b'"'),
                ],
                0..80,
            )
            .prop_map(|mut bytes| {
                // Make some garbage look like a candidate so it passes the cheap pre-filter.
                bytes.extend_from_slice(br#""input_tokens":"#);
                Kind::Garbage(bytes)
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn backward_reader_matches_forward_reference(
        kinds in prop::collection::vec(kind(), 0..40),
        block in prop_oneof![1usize..64, Just(4096usize), Just(64 * 1024)],
        crlf in any::<bool>(),
        trailing_partial in prop::option::of(0usize..40),
    ) {
        let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let mut data = Vec::new();
        for kind in &kinds {
            data.extend_from_slice(&render(kind));
            data.extend_from_slice(eol);
        }
        // A line still being written: a prefix of a qualifying line, which must not count.
        if let Some(cut) = trailing_partial {
            let line = render(&Kind::Usage { tokens: 77, side: false, pad: 0 });
            data.extend_from_slice(&line[..cut.min(line.len() - 1)]);
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, &data).expect("write");

        let result = JsonlTranscriptReader::default()
            .with_block_size(block)
            .read_latest(&path, ScanLimits::default());
        let expected = reference(&kinds);
        match result {
            Err(e) => {
                prop_assert!(data.is_empty(), "unexpected error {e}");
            }
            Ok(reading) => {
                prop_assert!(!reading.hit_scan_limit);
                let actual = match (&reading.usage, &reading.boundary) {
                    (Some(u), None) => Answer::Usage(u.tokens.get(), reading.scope),
                    (None, Some(b)) => Answer::Boundary(
                        b.post_tokens.unwrap_or(TokenCount(u64::MAX)).get(),
                        reading.scope,
                    ),
                    (None, None) => Answer::Nothing,
                    (Some(_), Some(_)) => panic!("usage and boundary both set"),
                };
                prop_assert_eq!(actual, expected);
            }
        }
    }
}
