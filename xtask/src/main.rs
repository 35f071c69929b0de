//! `cargo xtask <verb>`: the entry point; parsing the verb is all it does.

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  check-arch   layer rules: crate dependencies (cargo metadata), a source scan of the core,
               no module cycles in the core and no sibling modules importing each other
  tidy         file rules: `//!` headers, at most 600 lines outside tests, workspace lints,
               no #[path] out of a crate, every application/infra-fs module in ARCHITECTURE.md,
               citations only of sections docs/contract.md has (no issue numbers, bug ids or
               design documents), links that lead somewhere, application functions of at most
               120 lines
  budgets      token-budget checks of injected text
  embed        the embedder's program (examples/embed: ctxmon-application alone, at most 25
               crates) against `ctxmon status` on every transcript at hand
  package      `cargo package` of ctxmon-domain and ctxmon-application (offline, nothing
               published), after clearing copies an earlier run left in cargo's source cache
  bench        benchmarks of the release binary; writes docs/benchmarks.md
               [--quick] [--runs N] [--warmups N] [--out FILE]
  fuzz         every fuzz target for N seconds (default 10); prints executions and time per target
               [--seconds N] [--jobs N]
  inject-cost  tokens each context_monitor.inject policy costs on the real sessions in ../shared
               [--write: put the table into docs/inject-policy.md]
  dist         release archives, SHA256SUMS, install.sh and npm tarballs in target/dist,
               then installs and runs them [--target T]... [--binary FILE] [--out DIR]
               [--assemble] [--no-check]
  ci           everything CI runs: fmt, clippy, tests, check-arch, tidy, budgets, embed, cargo-deny,
               bench --quick (answers checked, timings not gated), fuzz";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = xtask::workspace_root();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["check-arch"] => xtask::arch::run(&root),
        ["tidy"] => xtask::tidy::run(&root),
        ["budgets"] => xtask::budgets::run_all(),
        ["ci"] => xtask::ci::run(&root),
        ["embed"] => xtask::embed::run(&root),
        ["package"] => xtask::package::run(&root, xtask::ci::PACKAGE_COMMAND),
        ["dist", rest @ ..] => xtask::dist::run(&root, &xtask::dist::Options::parse(rest)?),
        ["fuzz", rest @ ..] => xtask::fuzz::run(&root, &xtask::fuzz::Options::parse(rest)?),
        ["inject-cost", rest @ ..] => xtask::inject_cost::run(&root, rest),
        [xtask::bench::runner::VERB] => xtask::bench::runner::serve(),
        ["bench", rest @ ..] => xtask::bench::run(&root, &xtask::bench::Options::parse(rest)?),
        [] | ["help" | "-h" | "--help"] => {
            println!("{USAGE}");
            Ok(())
        }
        other => anyhow::bail!("unknown arguments {other:?}\n\n{USAGE}"),
    }
}
