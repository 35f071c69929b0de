//! Golden bundles, one per strategy, over the sample repository plus a few larger files so the
//! budget binds and the strategies visibly differ (reviewed like code; CI never writes them).

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

mod assembly_support;

use assembly_support::*;
use ctxmon_domain::assembly::{AssemblyStrategyType, ContextBuildInput, FileDescriptor};

/// A file of `lines` numbered lines, deterministic.
fn source_file(path: &str, lines: usize, relevance: f64, age_ms: i64) -> FileDescriptor {
    let content: String = (1..=lines)
        .map(|i| {
            format!(
                "export const {}{i} = {i}; // line {i}\n",
                path.replace(['/', '.'], "_")
            )
        })
        .collect();
    FileDescriptor {
        path: path.into(),
        size: content.len() as u64,
        language: Some("typescript".into()),
        last_modified: Some(NOW - age_ms),
        content: Some(content),
        relevance_score: Some(relevance),
    }
}

fn golden_input(strategy: AssemblyStrategyType) -> ContextBuildInput {
    let mut input = sample_input(strategy, 2600);
    let repo = input.repo.as_mut().unwrap();
    repo.files.extend([
        source_file("src/auth/login.ts", 40, 0.95, 60_000),
        // Too large to fit whole: shortened where the strategy has room left.
        source_file("src/auth/token.ts", 150, 0.85, 5_000),
        source_file("src/auth/session.ts", 25, 0.8, 120_000),
        source_file("src/db/users.ts", 12, 0.6, 30_000),
        source_file("test/login.test.ts", 8, 0.4, 10_000),
    ]);
    input
}

#[test]
fn one_bundle_per_strategy() {
    for strategy in AssemblyStrategyType::ALL {
        let bundle = builder().build(&golden_input(strategy)).unwrap();
        assert!(bundle.token_estimate <= 2600);
        insta::assert_json_snapshot!(format!("bundle_{strategy}"), bundle);
    }
}
