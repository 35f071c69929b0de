//! The examples and exit codes shown at the end of each command's `--help` (clap's
//! `after_long_help`), kept out of `cli.rs` so the command tree stays readable.
//!
//! `-h` stays short (one line per command and flag); `--help` reads like a man page: what the
//! command does, its flags, examples and exit codes.

pub const REPORT: &str = "\
Output (fixtures/transcripts/session-compactions.jsonl):
  session-compactions.jsonl · claude-sonnet-4-5-20250929 · window 200,000
    ▁▁▂▂▂▂▂▃▃▃▃▃▄▄▄▄▄▅▅▅▅▆▆▆▇▇▇▂▂▃▃▃▃▄▄▄▅▅▅▆▂▂▂▂▂▃
    46 responses · one column per response · height 0–100% of the window
    min 18,000 (9%) · max 165,010 (83%, response 27) · last 50,148 (25%, NOMINAL)
  compactions (2)
    2026-11-20T13:28:18.000Z  before response 28  auto  165,972 → 31,870 tokens
    2026-11-20T13:43:21.000Z  before response 41  manual  130,863 → 24,410 tokens
  tier crossings (6)
    2026-11-20T13:20:30.000Z  response 20  NOMINAL → LOW  115,398 tokens (58%)
    ...

Examples:
  ctxmon report                                   the project's newest session
  ctxmon report --transcript session.jsonl --svg session.svg
  ctxmon --json report --transcript session.jsonl | jq '.points[] | [.index, .tokens]'

JSON: {transcript, scope, model, window, thresholds, auto_compact_fill, responses, min, max,
last, points: [{index (0-based), timestamp, message_id, tokens, fill, tier, window}],
compactions: [{index (first response after it), timestamp, trigger, pre_tokens, post_tokens}],
crossings: [{index, timestamp, from, to, tokens, fill}]}.

Exit codes: 0 reported; 1 missing, empty or non-JSON transcript, no response with usage, or
the SVG could not be written; 2 bad flag or configuration.";

pub const DOCTOR: &str = "\
Output (example):
  ctxmon doctor · project /home/me/shop
  ok    binary                 /home/me/.cargo/bin/ctxmon is on PATH and is this binary
  ok    hook UserPromptSubmit  .claude/settings.json runs /home/me/.cargo/bin/ctxmon hooks …
  fail  hook SessionStart      .claude/settings.json registers SessionStart with matcher
                               `compact`: … · fix: remove the matcher; …
  ok    config                 valid (/home/me/shop/.ctxmon/config.toml)
  …
  1 problem (1 failed, 0 warned) in 12 checks

Examples:
  ctxmon doctor
  ctxmon --json doctor | jq '.[] | select(.status != \"ok\")'
  ctxmon doctor --project-dir ~/src/shop

Exit codes: 0 every check is ok (or skipped: nothing to check yet); 1 a check warned or failed.";
