//! The examples and exit codes shown at the end of each command's `--help` (clap's
//! `after_long_help`), kept out of `cli.rs` so the command tree stays readable.
//!
//! `-h` stays short (one line per command and flag); `--help` reads like a man page: what the
//! command does, its flags, examples and exit codes.

pub const ROOT: &str = "\
Examples:
  ctxmon status                          how full is this project's newest session?
  ctxmon report --svg fill.svg           how did it fill up? (sparkline, and a chart)
  ctxmon install --statusline            register the hooks and the status line
  ctxmon doctor                          check the installation
  ctxmon config show                     the merged configuration

Exit codes:
  0  success
  1  failure (unreadable transcript, unhealthy installation, ...)
  2  usage or configuration error (bad flag, invalid value, unknown key, a project directory
     that does not exist)
  `ctxmon hooks ...` always exits 0: a hook never blocks or breaks Claude Code.

Files: .ctxmon/ in the project (state, checkpoints, events, logs); configuration in
~/.config/ctxmon/config.toml, .ctxmon/config.toml and .ctxmon/config.local.toml.";

pub const STATUS: &str = "\
Examples:
  ctxmon status
  ctxmon status --transcript ~/.claude/projects/-home-me-shop/0b1c….jsonl
  ctxmon status --model 'claude-opus-4-6[1m]'       a 1M window the transcript cannot show
  ctxmon --json status | jq .fill_percentage

Exit codes: 0 measured; 1 no transcript, unreadable, or nothing to measure yet; 2 bad flag or
configuration.";

pub const HOOKS: &str = "\
Claude Code runs these; you rarely need to. Each reads one hook JSON object on stdin (at most
1 MiB; unknown fields ignored), answers with at most one JSON object on stdout and never writes
diagnostics there (they go to stderr and .ctxmon/logs/hooks.log). Each answers within
hooks.deadline_ms (1,500 ms by default) with what it has.

Examples:
  echo '{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"s1\",\"transcript_path\":\"/tmp/s1.jsonl\",\"prompt\":\"hi\"}' \\
    | ctxmon hooks prompt-submit
  ctxmon install                        registers all six in .claude/settings.json

Exit codes: always 0, even on bad input, a broken configuration, a missing transcript or a
wrong command line (an unknown hook or flag, an empty --project-dir): a hook fails open (NOMINAL
or no answer) and never blocks or breaks the session.";

pub const STATUSLINE: &str = "\
Reads Claude Code's status-line JSON on stdin and prints one line such as
  ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact
Uses context_window.current_usage when present, else the transcript (never the cumulative
total_input_tokens). Coloured by tier unless NO_COLOR is set; shortened to fit COLUMNS.
Unreadable input prints `ctx --`.

Settings (or `ctxmon install --statusline`):
  {\"statusLine\": {\"type\": \"command\", \"command\": \"/abs/path/ctxmon statusline\", \"padding\": 0}}

Examples:
  echo '{\"transcript_path\":\"/tmp/s1.jsonl\",\"model\":{\"id\":\"claude-sonnet-4-5\"}}' | ctxmon statusline

Exit codes: always 0 (Claude Code would hide a failing status line).";

pub const CHECKPOINT: &str = "\
Examples:
  ctxmon checkpoint list                 a table, oldest first (--json: an array)
  ctxmon checkpoint show cx-004          one checkpoint as JSON
  ctxmon checkpoint ack cx-004           the next prompt will not hand it back
  ctxmon checkpoint prune --keep 10      keep the newest ten (ids are never reused)

Exit codes: 0 done; 1 not found or storage error; 2 malformed id (cx- and 3 to 9 digits).";

pub const RESUME_LOG: &str = "\
Examples:
  ctxmon resume-log generate                        this session's log, from the transcript
  ctxmon resume-log generate --from handoff.json    with the agent's own notes
  ctxmon resume-log latest
  ctxmon resume-log cleanup --keep 20

Exit codes: 0 done; 1 not found or the folder cannot be written; 2 bad flag, id or --from
document (named by its JSON path).";

pub const CONFIG: &str = "\
Layers, lowest first: built-in defaults < ~/.config/ctxmon/config.toml (or
$XDG_CONFIG_HOME/ctxmon/config.toml) < .ctxmon/config.toml < .ctxmon/config.local.toml <
--config FILE < CTXMON_* variables (`__` nests: CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD=0.72).

Examples:
  ctxmon config show                                 the merged TOML
  ctxmon --json config show                          values with where each came from
  ctxmon config get context_monitor.warning_threshold
  ctxmon config get hooks                            one whole section
  ctxmon config set context_monitor.inject on-change --scope local
  ctxmon config schema > ctxmon.schema.json

Exit codes: 0 done; 1 a file cannot be written; 2 unknown key or invalid value (named with its
file or variable; nothing is written).";

pub const ASSEMBLE: &str = "\
Examples:
  ctxmon assemble --input snapshot.json --max-tokens 8000 > bundle.json
  cat snapshot.json | ctxmon assemble --strategy conservative

Exit codes: 0 bundle written; 1 internal or output error; 2 bad input (its JSON path is named)
or a budget below the system prompt and tools.";

pub const INSTALL: &str = "\
Examples:
  ctxmon install --dry-run                       show the diff, write nothing
  ctxmon install                                 .claude/settings.json of this project
  ctxmon install --scope user --statusline       every project, with the status line
  ctxmon doctor                                  check the result

Exit codes: 0 installed (or nothing to change); 1 the settings file is not strict JSON or has an
unexpected shape, another status line is in the way, or the file cannot be written (nothing is
changed); 2 bad flag, or neither CLAUDE_CONFIG_DIR nor HOME is set for --scope user.";

pub const UNINSTALL: &str = "\
Examples:
  ctxmon uninstall --dry-run
  ctxmon uninstall --scope user

Exit codes: 0 removed (or nothing to remove); 1 the settings file cannot be read or written,
or ctxmon's status line replaced yours and <file>.ctxmon-statusline, which keeps yours, cannot
be read (nothing is changed); 2 bad flag.";

pub const REPORT: &str = "\
Output (fixtures/transcripts/session-compactions.jsonl):
  session-compactions.jsonl · claude-sonnet-4-5-20250929 · window 200,000
    ▁▁▂▂▂▂▂▃▃▃▃▃▄▄▄▄▄▅▅▅▅▆▆▆▇▇▇▂▂▃▃▃▃▄▄▄▅▅▅▆▂▂▂▂▂▃
    46 responses · one column per response · height 0–100% of the window
    min 18,000 (9%) · max 165,010 (82%, response 27) · last 50,148 (25%, NOMINAL)
  compactions (2)
    2026-11-20T13:28:18.000Z  before response 28  auto  165,972 → 31,870 tokens
    2026-11-20T13:43:21.000Z  before response 41  manual  130,863 → 24,410 tokens
  tier crossings (6)
    2026-11-20T13:20:30.000Z  response 20  NOMINAL → LOW  115,398 tokens (57%)
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

Exit codes: 0 every check is ok (or skipped: nothing to check yet); 1 a check warned or failed;
2 the project directory does not exist.";

pub const COMPLETIONS: &str = "\
Examples:
  bash:  ctxmon completions bash > ~/.local/share/bash-completion/completions/ctxmon
  zsh:   ctxmon completions zsh > ~/.zfunc/_ctxmon    (with fpath+=(~/.zfunc) before compinit)
  fish:  ctxmon completions fish > ~/.config/fish/completions/ctxmon.fish
  once:  source <(ctxmon completions bash)

Exit codes: 0 printed; 2 unknown shell.";
