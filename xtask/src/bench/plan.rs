//! What `cargo xtask bench` measures: the transcripts to generate, the rows, the ratios between
//! rows, and the external benchmarks folded in. Adding a row starts here.

use std::path::PathBuf;

use anyhow::Result;

use super::cases::{self, BenchCase, MAX_SIZE_RATIO};
use super::cases_more;
use super::external::ExternalBench;
use super::rows::{RatioLine, Row};
use super::transcript_gen::{GIB, Generated, KIB, MIB, TranscriptSpec};

const fn spec(name: &'static str, target_bytes: u64, no_usage_tail_bytes: u64) -> TranscriptSpec {
    TranscriptSpec {
        name,
        target_bytes,
        no_usage_tail_bytes,
        gemini: false,
    }
}

/// A Gemini CLI chat of about `target_bytes`.
const fn gemini(name: &'static str, target_bytes: u64) -> TranscriptSpec {
    TranscriptSpec {
        name,
        target_bytes,
        no_usage_tail_bytes: 0,
        gemini: true,
    }
}

/// The cases and the ratios between them, for the generated transcripts.
#[derive(Debug)]
pub struct Plan {
    pub cases: Vec<BenchCase>,
    /// `(label, numerator row, denominator row, target)`.
    pub ratios: Vec<(String, String, String, Option<f64>)>,
}

pub fn plan(quick: bool, get: &dyn Fn(&str) -> Result<Generated>) -> Result<Plan> {
    let hook = |label: &str| format!("`hooks prompt-submit`, {label}");
    let status = |label: &str| format!("`status --transcript`, {label}");
    let (big, big_label) = if quick {
        ("100MiB", "100 MiB")
    } else {
        ("1GiB", "1 GiB")
    };
    let worst = format!("{big}-worst");
    let worst_label = format!("{big_label}, worst case (last 2 MiB without usage)");
    let floor = "`ctxmon --version` (process floor)".to_owned();

    let mut cases = vec![
        cases::bare_process(),
        cases::process_floor(&floor),
        cases::prompt_submit_without_transcript(&hook("no transcript")),
        cases::prompt_submit(&hook("1 KiB"), &get("1KiB")?),
        cases::prompt_submit(&hook("10 MiB"), &get("10MiB")?),
        cases::prompt_submit(&hook("100 MiB"), &get("100MiB")?),
    ];
    if !quick {
        cases.push(cases::prompt_submit(&hook("1 GiB"), &get("1GiB")?));
    }
    cases.push(cases::prompt_submit(&hook(&worst_label), &get(&worst)?));
    // Gemini CLI's BeforeAgent on its own chats: the same flat cost is promised.
    let before =
        |label: &str| format!("`hooks prompt-submit` (Gemini CLI BeforeAgent), {label} chat");
    cases.push(cases_more::gemini_before_agent(
        &before("1 KiB"),
        &get("gemini-1KiB")?,
    ));
    cases.push(cases_more::gemini_before_agent(
        &before(big_label),
        &get(&format!("gemini-{big}"))?,
    ));
    // After every tool call; the row is the unchanged path a tool loop pays.
    let tool = |label: &str| format!("`hooks post-tool-use`, {label}, tier unchanged (no answer)");
    let tool_big_output = tool(&format!("{big_label}, 256 KiB tool output"));
    cases.push(cases::post_tool_use(&tool("1 KiB"), &get("1KiB")?, 1024));
    cases.push(cases::post_tool_use(&tool(big_label), &get(big)?, 1024));
    cases.push(cases::post_tool_use(
        &tool_big_output,
        &get(big)?,
        256 * 1024,
    ));
    cases.push(cases::status(&status("1 KiB"), &get("1KiB")?));
    cases.push(cases::status(&status(big_label), &get(big)?));
    let line = |label: &str| format!("`statusline`, {label}");
    cases.push(cases_more::statusline_from_payload(
        &line("payload usage"),
        &get("1KiB")?,
    ));
    cases.push(cases_more::statusline_from_transcript(
        &line("null usage, 1 KiB transcript"),
        &get("1KiB")?,
    ));
    let line_big = line(&format!("null usage, {big_label} transcript"));
    cases.push(cases_more::statusline_from_transcript(
        &line_big,
        &get(big)?,
    ));
    let peer = "peer: `ccusage@20.0.24 statusline`, same stdin, 100 MiB transcript".to_owned();
    let ours = line("null usage, 100 MiB transcript (same stdin as the peer)");
    let workspace = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let with_peer = match cases_more::peer_statusline(&peer, &get("100MiB")?, &workspace) {
        Some(case) => {
            cases.push(cases_more::statusline_from_transcript(
                &ours,
                &get("100MiB")?,
            ));
            cases.push(case);
            true
        }
        None => false,
    };
    cases.push(cases_more::session_start(
        "`hooks session-start` (compact, rendering a checkpoint)",
        &get("1KiB")?,
    ));
    cases.push(cases_more::pre_compact(
        "`hooks pre-compact`, 100 MiB transcript (8 MiB tail derived)",
        &get("100MiB")?,
    ));
    if !quick {
        // The hand-back's derivation must not cost the checkpoint on the largest transcripts.
        cases.push(cases_more::pre_compact(
            "`hooks pre-compact`, 1 GiB transcript (8 MiB tail derived)",
            &get("1GiB")?,
        ));
    }

    let mut ratios = Vec::new();
    if with_peer {
        ratios.push((
            "peer `ccusage statusline` / `ctxmon statusline` median (same stdin, 100 MiB)"
                .to_owned(),
            peer.clone(),
            ours.clone(),
            None,
        ));
    }
    ratios.extend(vec![
        (
            format!("`hooks prompt-submit` median, {big_label} / 1 KiB"),
            hook(big_label),
            hook("1 KiB"),
            Some(MAX_SIZE_RATIO),
        ),
        (
            format!("`hooks prompt-submit` median, {big_label} worst case / 1 KiB"),
            hook(&worst_label),
            hook("1 KiB"),
            None,
        ),
        (
            format!("`hooks post-tool-use` median, {big_label} / 1 KiB"),
            tool(big_label),
            tool("1 KiB"),
            Some(MAX_SIZE_RATIO),
        ),
        (
            format!(
                "`hooks post-tool-use` (tier unchanged) / `hooks prompt-submit` median, {big_label} (its cost per call is at most the prompt's)"
            ),
            tool(big_label),
            hook(big_label),
            Some(1.0),
        ),
        (
            format!("`status --transcript` median, {big_label} / 1 KiB"),
            status(big_label),
            status("1 KiB"),
            Some(MAX_SIZE_RATIO),
        ),
        (
            format!("`statusline` median, {big_label} / 1 KiB (null usage)"),
            line_big.clone(),
            line("null usage, 1 KiB transcript"),
            Some(MAX_SIZE_RATIO),
        ),
        (
            "process floor / `hooks prompt-submit` 1 KiB (share of the hook that is process start)"
                .to_owned(),
            floor,
            hook("1 KiB"),
            None,
        ),
    ]);
    Ok(Plan { cases, ratios })
}

pub fn transcript_specs(quick: bool) -> Vec<TranscriptSpec> {
    let mut specs = vec![
        spec("1KiB", KIB, 0),
        spec("10MiB", 10 * MIB, 0),
        spec("100MiB", 100 * MIB, 0),
    ];
    specs.push(gemini("gemini-1KiB", KIB));
    if quick {
        specs.push(spec("100MiB-worst", 100 * MIB, 2 * MIB));
        specs.push(gemini("gemini-100MiB", 100 * MIB));
    } else {
        specs.push(spec("1GiB", GIB, 0));
        specs.push(spec("1GiB-worst", GIB, 2 * MIB));
        specs.push(gemini("gemini-1GiB", GIB));
    }
    specs
}

/// In-process benchmarks of other crates, folded in when their source exists.
pub fn externals() -> Vec<ExternalBench> {
    vec![
        ExternalBench {
            label: "context assembly (`ctxmon-application` example `assembly_bench`)".to_owned(),
            program: PathBuf::from(crate::cargo()),
            args: [
                "run",
                "--release",
                "--locked",
                "--quiet",
                "-p",
                "ctxmon-application",
                "--example",
                "assembly_bench",
            ]
            .map(str::to_owned)
            .to_vec(),
            requires: vec![
                PathBuf::from("crates/ctxmon-application/examples/assembly_bench.rs"),
                PathBuf::from("crates/ctxmon-application/examples/assembly_bench/main.rs"),
            ],
        },
        ExternalBench {
            label: "resume-log generate + save (`ctxmon-infra-fs` example `resume_log_bench`)"
                .to_owned(),
            program: PathBuf::from(crate::cargo()),
            args: [
                "run",
                "--release",
                "--locked",
                "--quiet",
                "-p",
                "ctxmon-infra-fs",
                "--example",
                "resume_log_bench",
            ]
            .map(str::to_owned)
            .to_vec(),
            requires: vec![PathBuf::from(
                "crates/ctxmon-infra-fs/examples/resume_log_bench.rs",
            )],
        },
    ]
}

pub fn ratio_lines(plan: &Plan, rows: &[Row]) -> Vec<RatioLine> {
    let median = |name: &str| rows.iter().find(|r| r.name == name).map(|r| r.median_ms);
    plan.ratios
        .iter()
        .filter_map(|(label, num, den, max)| {
            let value = median(num)? / median(den)?;
            Some(RatioLine {
                label: label.clone(),
                value,
                max: *max,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn every_planned_transcript_is_generated_and_every_ratio_names_a_case() {
        for quick in [false, true] {
            let specs = transcript_specs(quick);
            let get = |name: &str| {
                specs
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| Generated {
                        path: PathBuf::from(s.name),
                        bytes: s.target_bytes,
                        expected_tokens: 1,
                        reused: true,
                    })
                    .with_context(|| format!("{name} not planned"))
            };
            let plan = plan(quick, &get).unwrap();
            let names: Vec<&str> = plan.cases.iter().map(|c| c.name.as_str()).collect();
            for (label, num, den, _) in &plan.ratios {
                assert!(
                    names.contains(&num.as_str()) && names.contains(&den.as_str()),
                    "{label}"
                );
            }
            assert_eq!(quick, !names.iter().any(|n| n.contains("1 GiB")));
        }
    }
}
