//! Generates the benchmark transcripts at run time: realistic Claude Code JSONL of a target size
//! whose newest qualifying main-chain usage is known ([`lines::EXPECTED_TOKENS`]).
//!
//! Files go to `target/bench-data/` (never committed) and are reused when a file of the same
//! generator version, name and plausible size is already there. A file is written under a
//! `.partial` name and renamed when complete, so an interrupted run never leaves a file that
//! looks reusable. The body repeats a block of [`CYCLE_TURNS`] distinct turns, so writing 1 GiB
//! costs little more than the disk writes; only the last turns of a file are unique.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::gemini_gen::{GEMINI_EXPECTED_TOKENS, write_chat};
use super::lines::{EXPECTED_TOKENS, LineMaker};

/// Bump when the generated content changes, so stale files in `target/bench-data/` are not reused.
pub const GENERATOR_VERSION: u32 = 2;

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;
pub const GIB: u64 = 1024 * MIB;

/// Below this target only the minimal final turn is written (a 1 KiB file holds two lines).
const MINIMAL_BELOW: u64 = 64 * KIB;
/// Distinct turns in the repeating body (about 2.9 MiB). Uuids, message ids and timestamps repeat
/// every cycle; a backward reader never compares them, and line lengths and the mix of line
/// kinds are what its cost depends on.
pub const CYCLE_TURNS: u64 = 64;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranscriptSpec {
    /// File name stem, e.g. `1GiB` or `1GiB-worst`.
    pub name: &'static str,
    /// Approximate size of the file; the result is within one turn (about 45 KiB) of it.
    pub target_bytes: u64,
    /// Bytes of usage-free lines (tool results, progress, snapshots) after the final usage
    /// line: the worst case for a backward reader. 0 for the ordinary transcripts.
    pub no_usage_tail_bytes: u64,
    /// A Gemini CLI chat (`gemini_gen`) instead of a Claude Code transcript.
    pub gemini: bool,
}

/// A transcript on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    pub path: PathBuf,
    pub bytes: u64,
    /// The context tokens a correct reader reports for this file.
    pub expected_tokens: u64,
    pub reused: bool,
}

/// Returns the transcript for `spec` in `dir`, generating it unless a complete one is there.
pub fn ensure(dir: &Path, spec: &TranscriptSpec) -> Result<Generated> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(format!("{}-g{GENERATOR_VERSION}.jsonl", spec.name));
    let expected_tokens = if spec.gemini {
        GEMINI_EXPECTED_TOKENS
    } else {
        EXPECTED_TOKENS
    };
    if let Ok(meta) = fs::metadata(&path) {
        let plausible = spec.target_bytes.saturating_sub(64 * KIB)
            ..=spec.target_bytes + spec.no_usage_tail_bytes + 4 * MIB;
        if meta.is_file() && plausible.contains(&meta.len()) {
            return Ok(Generated {
                path,
                bytes: meta.len(),
                expected_tokens,
                reused: true,
            });
        }
    }
    let partial = path.with_extension("jsonl.partial");
    let mut file =
        File::create(&partial).with_context(|| format!("creating {}", partial.display()))?;
    // No fsync: the data is disposable, and a file cut short by a crash fails the size check.
    let bytes = if spec.gemini {
        write_chat(&mut file, spec.target_bytes)
    } else {
        write_transcript(&mut file, spec)
    }
    .with_context(|| format!("writing {}", partial.display()))?;
    drop(file);
    fs::rename(&partial, &path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(Generated {
        path,
        bytes,
        expected_tokens,
        reused: false,
    })
}

/// Writes the transcript for `spec` to `out` and returns the bytes written.
pub fn write_transcript(out: &mut impl Write, spec: &TranscriptSpec) -> Result<u64> {
    let minimal = spec.target_bytes < MINIMAL_BELOW;
    // The final turn and the usage-free tail are rendered once on a scratch maker to learn their
    // size, so the turns before them can fill the rest of the target.
    let mut scratch = Vec::new();
    let mut probe = LineMaker::new();
    probe.final_turn(&mut scratch, minimal)?;
    write_no_usage_tail(&mut probe, &mut scratch, spec.no_usage_tail_bytes)?;
    let budget = spec.target_bytes.saturating_sub(scratch.len() as u64);

    // Up to CYCLE_TURNS distinct turns are rendered once, then written again and again: the
    // body is memcpy-fast even in xtask's unoptimised build (1 GiB in seconds).
    let mut maker = LineMaker::new();
    let mut cycle = Vec::new();
    let mut turn_ends = Vec::new();
    for turn in 0..CYCLE_TURNS {
        if cycle.len() as u64 >= budget {
            break;
        }
        maker.turn(&mut cycle, turn)?;
        turn_ends.push(cycle.len() as u64);
    }
    let cycle_len = cycle.len() as u64;
    let mut written = 0u64;
    while cycle_len > 0 && written + cycle_len <= budget {
        out.write_all(&cycle)?;
        written += cycle_len;
    }
    // Then as many whole turns of the cycle as still fit.
    if let Some(&end) = turn_ends.iter().rev().find(|&&end| written + end <= budget) {
        let end = usize::try_from(end).context("turn offset beyond usize")?;
        out.write_all(&cycle[..end])?;
        written += end as u64;
    }
    let mut chunk = Vec::new();
    maker.final_turn(&mut chunk, minimal)?;
    write_no_usage_tail(&mut maker, &mut chunk, spec.no_usage_tail_bytes)?;
    out.write_all(&chunk)?;
    written += chunk.len() as u64;
    out.flush()?;
    Ok(written)
}

fn write_no_usage_tail(maker: &mut LineMaker, out: &mut Vec<u8>, bytes: u64) -> Result<()> {
    let start = out.len() as u64;
    let mut k = 0;
    while (out.len() as u64) - start < bytes {
        maker.no_usage_block(out, k)?;
        k += 1;
    }
    Ok(())
}

#[cfg(test)]
#[path = "transcript_gen_tests.rs"]
mod tests;
