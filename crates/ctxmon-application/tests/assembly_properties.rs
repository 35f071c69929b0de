//! Properties of assembly over random inputs (contract C10): the budget is never exceeded, the
//! breakdown sums to the estimate, output is deterministic and order-independent, results
//! travel with their calls, pinned memory is dropped last, unused budget reaches the next
//! source, and shortened content says so.

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

mod assembly_support;

use std::collections::HashSet;

use assembly_support::*;
use ctxmon_application::assembly::{
    AssemblyErrorKind, MESSAGE_OVERHEAD, file_parts, memory_prefix,
};
use ctxmon_domain::assembly::{
    AssemblyStrategyType, CharsPerFour, ContextBuildInput, ContextBundle, MemoryChunk, TokenCounter,
};
use proptest::prelude::*;

/// Builds, and checks everything that must hold for any input.
fn check_invariants(input: &ContextBuildInput) -> Result<Option<ContextBundle>, TestCaseError> {
    let max = input.constraints.max_tokens;
    let bundle = match builder().build(input) {
        Ok(bundle) => bundle,
        Err(err) => {
            match err.kind {
                AssemblyErrorKind::InvalidBudget => prop_assert_eq!(max, 0),
                AssemblyErrorKind::BudgetTooSmall => {
                    // Only when the fixed part really does not fit.
                    let mut roomy = input.clone();
                    roomy.constraints.max_tokens = u64::MAX / 2;
                    let b = builder()
                        .build(&roomy)
                        .unwrap()
                        .debug
                        .unwrap()
                        .token_breakdown;
                    prop_assert!(max < b.system + b.tools, "{max} vs {}", b.system + b.tools);
                }
                AssemblyErrorKind::Internal => prop_assert!(false, "internal error: {err}"),
            }
            return Ok(None);
        }
    };
    prop_assert!(
        bundle.token_estimate <= max,
        "{} > {max}",
        bundle.token_estimate
    );
    prop_assert_eq!(recount(&bundle), bundle.token_estimate);
    let debug = bundle.debug.as_ref().unwrap();
    let b = &debug.token_breakdown;
    prop_assert_eq!(b.system + b.messages + b.tools + b.overhead, b.total);
    prop_assert_eq!(b.total, bundle.token_estimate);
    prop_assert_eq!(
        b.system + b.tools + b.by_source.values().sum::<u64>(),
        b.total
    );
    prop_assert_eq!(b.overhead, bundle.messages.len() as u64 * MESSAGE_OVERHEAD);
    prop_assert_eq!(b.remaining, max - b.total);
    prop_assert!(b.reserved <= b.remaining);
    prop_assert_eq!(
        debug.sources.values().map(|s| s.tokens).sum::<u64>(),
        b.messages + b.overhead
    );
    assert_results_follow_calls(&bundle.messages);
    for m in &bundle.messages {
        if m.metadata.as_ref().is_some_and(|meta| meta.truncated) {
            prop_assert!(m.content.contains("[truncated"), "{}", m.content);
        }
    }
    // Every file shown is shown whole or says it is not.
    if let Some(repo) = &input.repo {
        for m in &bundle.messages {
            // Symbols name their file as source too; only file messages start with this.
            if !m.content.starts_with("--- File: ") {
                continue;
            }
            let Some(source) = m.metadata.as_ref().and_then(|meta| meta.source.as_deref()) else {
                continue;
            };
            if let Some(file) = repo.files.iter().find(|f| f.path == source) {
                let content = file.content.as_deref().unwrap_or("");
                prop_assert!(
                    m.content.contains(content)
                        || m.content.contains("[truncated: showing the first"),
                    "{source} neither whole nor marked"
                );
            }
        }
    }
    // Deterministic to the byte.
    let again = builder().build(input).unwrap();
    prop_assert_eq!(
        serde_json::to_string(&bundle).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
    Ok(Some(bundle))
}

fn memory_cost(chunk: &MemoryChunk) -> u64 {
    let prefix = memory_prefix(chunk, effective_importance(chunk.importance));
    CharsPerFour.count_parts(&[&prefix, &chunk.content]) + MESSAGE_OVERHEAD
}

/// Memory chunks as assembly sees them: duplicates (pinned, recent, summaries; first wins)
/// removed. Returns `(is_pinned, chunk)`.
fn unique_memories(input: &ContextBuildInput) -> Vec<(bool, &MemoryChunk)> {
    let mut seen = HashSet::new();
    let Some(memory) = &input.memory else {
        return Vec::new();
    };
    let pinned = memory.pinned.iter().map(|c| (true, c));
    let rest = memory
        .recent
        .iter()
        .chain(&memory.summaries)
        .map(|c| (false, c));
    pinned
        .chain(rest)
        .filter(|(_, c)| seen.insert(c.id.as_str()))
        .collect()
}

fn kept_whole(bundle: &ContextBundle, source: &str) -> Option<u64> {
    bundle.messages.iter().find_map(|m| {
        let meta = m.metadata.as_ref()?;
        (meta.source.as_deref() == Some(source) && !meta.truncated)
            .then(|| CharsPerFour.count(&m.content) + MESSAGE_OVERHEAD)
    })
}

fn shown(bundle: &ContextBundle, source: &str) -> Option<u64> {
    bundle.messages.iter().find_map(|m| {
        let meta = m.metadata.as_ref()?;
        (meta.source.as_deref() == Some(source))
            .then(|| CharsPerFour.count(&m.content) + MESSAGE_OVERHEAD)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn budget_breakdown_determinism_pairing_and_markers(input in arb_input()) {
        check_invariants(&input)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A pinned chunk is left out or shortened only if it could not fit whole even with every
    /// non-pinned message removed.
    #[test]
    fn pinned_memory_is_dropped_last(input in arb_input()) {
        let Some(bundle) = check_invariants(&input)? else { return Ok(()) };
        let b = &bundle.debug.as_ref().unwrap().token_breakdown;
        // Pinned memory comes before the buffer, so only the fixed costs stand before it.
        let limit = b.max_tokens - b.system - b.tools;
        let pinned: Vec<&MemoryChunk> = unique_memories(&input)
            .into_iter()
            .filter_map(|(p, c)| p.then_some(c))
            .collect();
        for chunk in &pinned {
            let source = format!("memory:{}", chunk.id);
            if kept_whole(&bundle, &source).is_some() {
                continue;
            }
            let others: u64 = pinned
                .iter()
                .filter(|c| c.id != chunk.id)
                .filter_map(|c| shown(&bundle, &format!("memory:{}", c.id)))
                .sum();
            prop_assert!(
                memory_cost(chunk) > limit.saturating_sub(others),
                "pinned {} ({} tokens) dropped with {} of {limit} used by other pinned chunks",
                chunk.id, memory_cost(chunk), others
            );
        }
    }

    /// Greedy and balanced leave no file or memory out that would still fit whole: what one
    /// source could not use was offered on.
    #[test]
    fn unused_budget_is_offered_on(input in arb_input()) {
        let strategy = input.constraints.strategy.unwrap_or(AssemblyStrategyType::Balanced);
        prop_assume!(strategy != AssemblyStrategyType::Conservative);
        let Some(bundle) = check_invariants(&input)? else { return Ok(()) };
        let debug = bundle.debug.as_ref().unwrap();
        let b = &debug.token_breakdown;
        let left = b.remaining - b.reserved;
        let max_files = input.constraints.max_files.unwrap_or(u64::MAX);
        if let Some(repo) = &input.repo {
            let mut seen = HashSet::new();
            for file in &repo.files {
                if !seen.insert(file.path.as_str()) || debug.included_files.contains(&file.path) {
                    continue;
                }
                let Some(content) = file.content.as_deref() else { continue };
                if debug.included_files.len() as u64 >= max_files {
                    continue;
                }
                let (prefix, suffix) = file_parts(file);
                let pieces: Vec<&str> = prefix.into_iter().chain([content, suffix]).collect();
                let cost = CharsPerFour.count_parts(&pieces) + MESSAGE_OVERHEAD;
                prop_assert!(cost > left, "{} ({cost} tokens) left out with {left} free", file.path);
            }
        }
        for (_, chunk) in unique_memories(&input) {
            if shown(&bundle, &format!("memory:{}", chunk.id)).is_none() {
                prop_assert!(memory_cost(chunk) > left, "memory {} left out with {left} free", chunk.id);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Input order does not matter when paths and ids are unique: ties are broken by them.
    #[test]
    fn output_does_not_depend_on_input_order(input in arb_input(), seed in any::<u64>()) {
        let mut input = input;
        let repo = input.repo.as_mut().unwrap();
        let mut seen = HashSet::new();
        repo.files.retain(|f| seen.insert(f.path.clone()));
        let memory = input.memory.as_mut().unwrap();
        let mut ids = HashSet::new();
        for list in [&mut memory.pinned, &mut memory.recent, &mut memory.summaries] {
            list.retain(|c| ids.insert(c.id.clone()));
        }
        let mut shuffled = input.clone();
        shuffle(&mut shuffled.repo.as_mut().unwrap().files, seed);
        let memory = shuffled.memory.as_mut().unwrap();
        shuffle(&mut memory.pinned, seed ^ 1);
        shuffle(&mut memory.recent, seed ^ 2);
        shuffle(&mut memory.summaries, seed ^ 3);
        // Notes name input positions, which a shuffle changes by design; the rest must not move.
        let without_notes = |mut b: ctxmon_domain::assembly::ContextBundle| {
            b.debug.as_mut().unwrap().notes.clear();
            serde_json::to_string(&b).unwrap()
        };
        let a = builder().build(&input).map(without_notes);
        let b = builder().build(&shuffled).map(without_notes);
        if let (Ok(a), Ok(b)) = (&a, &b) {
            prop_assert!(a == b, "{}", first_difference(a, b));
        }
        prop_assert_eq!(a.is_ok(), b.is_ok());
    }

    /// A bundle built from the input's JSON equals one built from the input (the CLI's path).
    #[test]
    fn json_round_trip_changes_nothing(input in arb_input()) {
        // JSON cannot carry NaN or infinity (those reach assembly only through Rust), and
        // serde_json's default float parsing may be one ulp off; two decimals parse exactly.
        let mut input = input;
        let round = |v: f64| {
            if v.is_finite() { (v.clamp(-10.0, 10.0) * 100.0).round() / 100.0 } else { 0.5 }
        };
        for f in &mut input.repo.as_mut().unwrap().files {
            f.relevance_score = f.relevance_score.map(round);
        }
        let memory = input.memory.as_mut().unwrap();
        for c in memory.pinned.iter_mut().chain(&mut memory.recent).chain(&mut memory.summaries) {
            c.importance = round(c.importance);
        }
        input.constraints.buffer_percentage = input.constraints.buffer_percentage.map(round);
        let json = serde_json::to_string(&input).unwrap();
        let parsed: ContextBuildInput = serde_json::from_str(&json).unwrap();
        let a = builder().build(&input).map(|b| serde_json::to_string(&b).unwrap());
        let b = builder().build(&parsed).map(|b| serde_json::to_string(&b).unwrap());
        if let (Ok(a), Ok(b)) = (&a, &b) {
            prop_assert!(a == b, "{}", first_difference(a, b));
        }
        prop_assert_eq!(a.is_ok(), b.is_ok());
    }
}

/// A deterministic Fisher–Yates shuffle (xorshift), so failures replay from the seed.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed | 1;
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
}
