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
  `ctxmon hooks ...` always exits 0: a hook never blocks or breaks the agent's session.

Project: --project-dir, else $CLAUDE_PROJECT_DIR, else the nearest folder at or above the
current directory that holds .ctxmon, .claude or .git (as git finds its repository), so any
command works from a subfolder. The search stops below your home folder, /, and the folders of
GIT_CEILING_DIRECTORIES; with no such folder the current directory is the project. Hooks and
the status line use the folder the agent names (Claude Code, Codex CLI or Gemini CLI).

JSON (--json): every command either honours it or refuses it (completions: exit 2). Under
--json a failure prints {\"error\": \"...\", \"exit_code\": N} on stdout as well as the message on
stderr. JSON is indented when stdout is a terminal and one line otherwise (a pipe, a file), for
--json output, assemble's bundle and config schema alike; hook answers are always one line.

Files: .ctxmon/ in the project (state, checkpoints, events, logs); configuration in
~/.config/ctxmon/config.toml, .ctxmon/config.toml and .ctxmon/config.local.toml.";

pub const STATUS: &str = "\
Examples:
  ctxmon status
  ctxmon status --transcript ~/.claude/projects/-home-me-shop/0b1c….jsonl
  ctxmon status --model 'claude-opus-4-6[1m]'       a 1M window the transcript cannot show
  ctxmon --json status | jq .fill_percentage
  ctxmon status --watch                             redraw as the session goes on (Codex, Gemini)

After the figure: the turns left at the recent pace, and the largest items in the context since
the last compaction (Claude Code; --json: turns_left, pace, largest).

--watch looks at the transcript every second and draws the status again when it changed (with
--json, one JSON line per change); Ctrl-C, the end of input or a closed output end it with 0.

A session that has had no answer yet (its transcript empty or holding only the first request)
shows 0% with the note \"no response yet\" and exits 0; its JSON has
\"awaiting_first_response\": true.

Exit codes: 0 measured, or no response yet; 1 no transcript, not a transcript, unreadable, or
no usage record within the scan limit; 2 bad flag or configuration.";

pub const HOOKS: &str = "\
The agent runs these (Claude Code, Codex CLI or Gemini CLI, under its own event names); you
rarely need to. Each reads one hook JSON object on stdin (read to
its end, at most 1 MiB kept: a longer one has its long strings shortened; unknown fields
ignored), answers with at most one JSON object on stdout and never writes diagnostics there
(they go to stderr and .ctxmon/logs/hooks.log). Each answers with what it has within its own
deadline, stdin read included: 1,500 ms for prompt-submit, pre-tool-use and post-tool-use,
2,000 for post-compact and session-end, 7,000 for pre-compact and session-start
(hooks.<hook>_deadline_ms; hooks.deadline_ms, when set, for every hook without its own key).

Project: --project-dir, else $CLAUDE_PROJECT_DIR, else the input's cwd (when absolute); for
a hook input without cwd: the current directory, never a folder above it. Unlike the other
commands, a hook does not walk up to a .git or .claude: its agent names the project.

Examples:
  echo '{\"hook_event_name\":\"UserPromptSubmit\",\"transcript_path\":\"t.jsonl\"}' \\
    | ctxmon hooks prompt-submit
  # post-tool-use answers only when the tier rose since the last tag
  echo '{\"hook_event_name\":\"PostToolUse\",\"transcript_path\":\"t.jsonl\"}' \\
    | ctxmon hooks post-tool-use
  # registers all seven in .claude/settings.json
  ctxmon install

Exit codes: always 0, even on bad input, a broken configuration, a missing transcript or a
wrong command line (an unknown hook or flag, an empty --project-dir): a hook fails open (NOMINAL
or no answer) and never blocks or breaks the session.";

pub const STATUSLINE: &str = "\
Reads Claude Code's status-line JSON on stdin and prints one line such as
  ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact
Uses context_window.current_usage when present, else the transcript (never the cumulative
total_input_tokens). Coloured by tier unless NO_COLOR is set; shortened to fit COLUMNS. Past the
auto-compact point it says `compacting soon`. Without a figure it prints `ctx --`: --json says
why (`reason`, `detail`), and so does `ctxmon doctor`.

Format (--format, else statusline.format): text with fields in braces. The default is
  ctx {percent} {bar} {tokens}/{window} {tier} · {until-compact}
Fields: percent (75%), bar, tokens (150k), window (200k), tier (WARNING), until-compact (17k to
compact, compacting soon, auto-compact off), turns-left (~6 turns: responses left at the
recent pace, Claude Code only), model (the model id), branch (the project's git branch); `{{`
and `}}` are braces. A field with nothing to show goes with the text before it; a narrow line
drops branch, model, until-compact and turns-left, tokens and window, bar, tier, in that order.
An unknown field or flag is named on stderr and the line printed as without it.

Settings (or `ctxmon install --statusline`):
  {\"statusLine\": {\"type\": \"command\", \"command\": \"/abs/path/ctxmon statusline\", \"padding\": 0}}
As a widget of another status line (ccstatusline's Custom Command): the command
  ctxmon statusline --format '{percent} {bar} {until-compact}'

Examples:
  echo '{\"transcript_path\":\"/tmp/s1.jsonl\",\"model\":{\"id\":\"claude-sonnet-4-5\"}}' | ctxmon statusline
  ... | ctxmon statusline --format '{percent} {until-compact}'
  ... | ctxmon --json statusline | jq '.reason'

Exit codes: always 0 (Claude Code would hide a failing status line).";

pub const CHECKPOINT: &str = "\
Examples:
  ctxmon checkpoint list                 a table, newest first (--json: an array)
  ctxmon checkpoint show 4               one checkpoint (4, cx-4 and cx-004 are the same id)
  ctxmon checkpoint ack 4                the next prompt will not hand it back
  ctxmon checkpoint prune --keep 10      keep the newest ten (ids are never reused)

Exit codes: 0 done; 1 not found, a checkpoint file ctxmon cannot read (show, ack) or a
storage error; 2 malformed id (not a number, cx-N or cx-NNN).";

pub const RESUME_LOG: &str = "\
Examples:
  ctxmon resume-log generate                        this session's log, from the transcript
  ctxmon resume-log generate --from handoff.json    with the agent's own notes
  ctxmon resume-log latest
  ctxmon resume-log cleanup                         keep the newest resume_logs.keep (10)
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
  ctxmon install --agent codex                   .codex/hooks.json of this project
  ctxmon install --agent codex --scope user      $CODEX_HOME/hooks.json (default ~/.codex)
  ctxmon install --agent gemini                  .gemini/settings.json of this project
  ctxmon install --agent gemini --scope user     ~/.gemini/settings.json
  ctxmon doctor                                  check the result

In the project's file the hooks run `ctxmon hooks …` when the ctxmon on PATH is this binary, so
the committed file works for the whole team; otherwise this binary's absolute path, with a note
(`--scope local` keeps machine paths out of shared files).

Exit codes: 0 installed (or nothing to change); 1 the settings file is not strict JSON or has an
unexpected shape, another status line is in the way, or the file cannot be written (nothing is
changed); 2 bad flag (an unknown --agent; --statusline or --scope local with --agent codex or
gemini), or
neither CLAUDE_CONFIG_DIR (CODEX_HOME for Codex) nor HOME is set for --scope user.";

pub const UNINSTALL: &str = "\
Examples:
  ctxmon uninstall --dry-run
  ctxmon uninstall --scope user
  ctxmon uninstall --statusline                  only the status line; the hooks stay
  ctxmon uninstall --agent codex
  ctxmon uninstall --agent gemini

Exit codes: 0 removed (or nothing to remove); 1 the settings file cannot be read or written,
or ctxmon's status line replaced yours and <file>.ctxmon-statusline, which keeps yours, cannot
be read (nothing is changed); 2 bad flag (--statusline with --agent codex or gemini).";

pub const REPORT: &str = "\
Output (fixtures/transcripts/session-compactions.jsonl):
  session-compactions.jsonl · claude-sonnet-4-5-20250929 · window 200,000
    ▁▁▂▂▂▂▂▃▃▃▃▃▄▄▄▄▄▅▅▅▅▆▆▆▇▇▇▂▂▃▃▃▃▄▄▄▅▅▅▆▂▂▂▂▂▃
                               ^            ^ compactions
    46 responses · one column per response · height 0–100% of the window
    min 18,000 (9%) · max 165,010 (82%, response 27) · last 50,148 (25%, NOMINAL)
  compactions (2)
    2026-11-20 13:28:18 +00:00  after response 27  auto  165,972 → 31,870 tokens
    2026-11-20 13:43:21 +00:00  after response 40  manual  130,863 → 24,410 tokens
  tier crossings (6)
    2026-11-20 13:20:30 +00:00  response 20  NOMINAL → LOW  115,398 tokens (57%)
    ...

Examples:
  ctxmon report                                   the project's newest session
  ctxmon report --transcript session.jsonl --svg session.svg
  ctxmon --json report --transcript session.jsonl | jq '.points[] | [.response, .tokens]'

A ^ under the sparkline marks the column holding the first response after each compaction.
Its width is COLUMNS, else the terminal's (stdout's, then stderr's), else 80. `last` is where
the session ends, as `status` measures it: after a compaction that followed the last response,
what the compaction left (\"after the compaction\", with a note). Responses are numbered from 1
in the text and the JSON alike.

JSON: {transcript, scope, model, window, window_note, thresholds, auto_compact_fill, responses,
min, max, last, points: [{response (from 1), timestamp, message_id, tokens, fill, tier,
window}], compactions: [{after_response (responses before it), timestamp, trigger,
pre_tokens, post_tokens}], crossings: [{response, timestamp, from, to, tokens, fill}]};
last: {source (transcript | compaction), tokens, fill, percent, tier, window, timestamp, note,
response | after_response}.

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

A completion script is shell code: with --json, completions refuses (exit 2) rather than
print something else.

Exit codes: 0 printed; 2 unknown shell, or --json.";

// Leaf commands of `checkpoint`, `resume-log` and `config`: each has its own manual page.

pub const CHECKPOINT_LIST: &str = "\
Output (one row per checkpoint, newest first; times local, with their offset):
  ID      CREATED                     SESSION  TRIGGER  FILL  TIER      ACK
  cx-002  2026-11-22 07:12:40 +01:00  0b1c…    manual    71%  warning   no
  cx-001  2026-11-22 05:59:04 +01:00  0b1c…    auto      85%  critical  yes

With --json: an array of the checkpoints as `--json checkpoint show` prints them, each with
`acknowledged`, newest first (times in UTC). A file in the folder that is corrupt, foreign or from a newer ctxmon is named on
stderr and skipped; the others are still listed.

Examples:
  ctxmon checkpoint list
  ctxmon --json checkpoint list | jq -r '.[] | select(.acknowledged | not) | .checkpoint_id'

Exit codes: 0 listed (also when there are none); 1 the checkpoint folder cannot be read;
2 bad flag.";

pub const CHECKPOINT_SHOW: &str = "\
Arguments:
  ID  the checkpoint id as `ctxmon checkpoint list` shows it, or just its number: 4, cx-4 and
      cx-004 are the same checkpoint

Prints a page for people: when and why it was taken, the fill (tokens, percentage, tier), the
session, git and transcript, and what the session was doing (last request, goal, failure, next
steps, tasks, files; the newest five of each list). With --json, the whole checkpoint on one
line: schema_version, checkpoint_id, timestamp, created_at_ms, compaction_sequence, trigger,
custom_instructions, context_state (the fill at compaction), resumption_state (what the
session was doing), session_info (session, project, transcript, git branch and head) and
acknowledged.

Examples:
  ctxmon checkpoint show 4
  ctxmon --json checkpoint show cx-004 | jq .resumption_state.next_steps

Exit codes: 0 shown; 1 no checkpoint with that id, or it cannot be read; 2 malformed id (it never
reaches a path).";

pub const CHECKPOINT_ACK: &str = "\
Arguments:
  ID  the checkpoint id or its number (4, cx-4, cx-004)

Writes the marker cx-NNN.acknowledged beside the checkpoint. The next prompt's compaction alert
and later SessionStarts look only at unacknowledged checkpoints, so this one is not handed back
again; the checkpoint itself stays until pruned. The acknowledgement is recorded as a
CheckpointAcknowledged line in .ctxmon/events.jsonl. A checkpoint file ctxmon cannot read
(corrupt, or from a newer ctxmon) is refused and no marker is written. Acknowledging twice is
not an error (--json: {id, acknowledged, already_acknowledged}).

Examples:
  ctxmon checkpoint ack 4

Exit codes: 0 acknowledged, or already was; 1 no checkpoint with that id, an unreadable
checkpoint, or the marker cannot be written; 2 malformed id.";

pub const CHECKPOINT_PRUNE: &str = "\
Keeps the N readable checkpoints with the highest ids and deletes the other readable ones with
their markers. A checkpoint file ctxmon cannot read (corrupt, or from a newer ctxmon) neither
counts toward N nor is deleted: it is named on stderr and left for you to look at. Ids are never
reused: the next checkpoint after pruning everything still gets the next number, and each
session's compaction_sequence carries on from where it was.

Examples:
  ctxmon checkpoint prune --keep 10
  ctxmon checkpoint prune --keep 0             delete every readable one
  ctxmon --json checkpoint prune --keep 3      {pruned: [ids], keep, unreadable: [files]}

Exit codes: 0 pruned (or nothing to prune); 1 the folder cannot be read or a file cannot be
deleted; 2 --keep missing or not a number.";

pub const RESUME_LOG_GENERATE: &str = "\
Which session: --session ID, else $CLAUDE_CODE_SESSION_ID (set inside a Claude Code session),
else the --from document's session_id, else the project's newest transcript (its file name is
the session id). Without a transcript the log holds only what --from, the checkpoints and git
say, and a warning says so.

What goes in, highest priority first: the --from document, the session's newest checkpoint, the
transcript's tail (the request at hand as mission, the first request apart when it differs,
completed and open todos, files touched, commands
run, errors) and git (branch, head, uncommitted files). A section belongs to the first source that has
it; the metadata lists are merged. The log is written as session-<id>.md and session-<id>.json in
.ctxmon/resume-logs/ (mode 0600), replacing that session's earlier log, within 10,000 tokens:
each section has its budget, and room one leaves unused goes to sections that need more. A
section that still does not fit is cut at a sentence with `… [truncated: N tokens omitted]`; a
metadata list keeps its newest entries and says how many older ones it left out.

The --from document (UTF-8 JSON, at most 2 MiB; every key optional), in the resume log's own
JSON format:
  {
    \"session_id\":       string,                     the session, if not named otherwise
    \"context_metrics\":  {\"total_budget\", \"used_tokens\", \"percentage_used\",
                          \"remaining_tokens\", \"stop_reason\", \"model\", \"timestamp\"},
                                                    your own figures, shown beside ctxmon's
                                                    measurement (never instead of it)
    \"mission_summary\":  string,                     what the session is for
    \"accomplishments\":  [string],                   what is done
    \"key_findings\":     [string],                   what was learnt
    \"decisions\":        [{\"decision\": string,        a choice made
                          \"rationale\": string}],     and why (optional)
    \"next_steps\":       [string],                   what to do next, in order
    \"critical_context\": {name: any JSON},           paths, ids, commands to keep verbatim;
                                                    nested objects and lists are kept,
                                                    numbers as written (1.50, 1e400)
    \"metadata\": {
      \"files_modified\": [string], \"commands_run\": [string], \"errors\": [string],
      \"agents_used\": [string], \"notes\": {name: string},
      \"session_duration_minutes\": integer
    }
  }
A misspelt key (next_step) or a value of the wrong type is refused with its JSON path, and
nothing is written, so no section is silently lost:
  stdin: decisions[0].rationale: invalid type: integer `7`, expected a string

Examples:
  ctxmon resume-log generate
  ctxmon resume-log generate --session 0b1c2d3e-… --from handoff.json
  ctxmon resume-log generate --from - <<'JSON'
  {\"mission_summary\": \"Add tax support to billing\", \"next_steps\": [\"Write the migration\"],
   \"decisions\": [{\"decision\": \"Round per line\", \"rationale\": \"Matches the ledger\"}]}
  JSON

Exit codes: 0 written (warnings on stderr); 1 the folder cannot be written (earlier logs stay as
they were); 2 a bad --from document (its JSON path named), an empty or invalid --session (a
session id is letters, digits, `-` and `_`, at most 128), no session to write for, or a bad
configuration.";

pub const RESUME_LOG_LIST: &str = "\
Output (newest first; times local, with their offset):
  SESSION  GENERATED                   TRIGGER      BYTES
  s2       2026-11-22 07:30:12 +01:00  manual       1,223
  s1       2026-11-22 05:59:04 +01:00  pre_compact  2,055

TRIGGER is what wrote the log: pre_compact, session_end, tier:<tier> or manual (`generate`).
With --json: an array of {session_id, key, generated_at, trigger, markdown_path, json_path,
bytes}. A log whose JSON cannot be read is named on stderr and skipped.

Examples:
  ctxmon resume-log list
  ctxmon --json resume-log list | jq -r '.[0].markdown_path'

Exit codes: 0 listed (also when there are none); 1 the folder cannot be read; 2 bad flag.";

pub const RESUME_LOG_SHOW: &str = "\
Arguments:
  [ID]  the session id, or any beginning of it that only one log's id has (default: the
        newest log)

Prints the log's markdown as stored (rendered again from the JSON when the markdown is missing);
with --json, the log's JSON document. When the JSON is corrupt the stored markdown is still
shown, with a warning.

Examples:
  ctxmon resume-log show
  ctxmon resume-log show 0b1c                       the one log whose session id begins 0b1c
  ctxmon --json resume-log show s1 | jq .next_steps

Exit codes: 0 shown; 1 no log for that session (or none at all yet), or it cannot be read;
2 bad flag, or an id that begins several logs' session ids (they are named).";

pub const RESUME_LOG_LATEST: &str = "\
The same as `ctxmon resume-log show` without an id: the newest log's markdown (--json: its
JSON document), for a new session that wants to pick up where the last one stopped.

Examples:
  ctxmon resume-log latest
  ctxmon resume-log latest > HANDOFF.md

Exit codes: 0 shown; 1 no resume log yet, or it cannot be read; 2 bad flag.";

pub const RESUME_LOG_CLEANUP: &str = "\
Keeps the N newest logs (by generation time) and deletes the markdown and JSON of the others.
N defaults to resume_logs.keep (10 unless configured) and must be at least 1; to delete every
log, remove .ctxmon/resume-logs. Files ctxmon cannot read are left alone: what it cannot
identify, it does not delete.

Examples:
  ctxmon resume-log cleanup                    keep resume_logs.keep logs
  ctxmon resume-log cleanup --keep 20
  ctxmon --json resume-log cleanup --keep 5    {removed: [sessions], keep}

Exit codes: 0 cleaned up (or nothing to remove); 1 the folder cannot be read or a file cannot be
deleted; 2 --keep 0 or not a number, or a bad configuration.";

pub const RESUME_LOG_STATS: &str = "\
Output:
  2 resume logs in /home/me/shop/.ctxmon/resume-logs
  3,278 bytes
  oldest 2026-11-22 05:59:04 +01:00
  newest 2026-11-22 07:30:12 +01:00

With --json: {dir, count, bytes, oldest, newest (UTC), problems}. Unreadable files are counted as
problems, named on stderr, and left out of the figures.

Examples:
  ctxmon resume-log stats
  ctxmon --json resume-log stats | jq .count

Exit codes: 0 reported; 1 the folder cannot be read; 2 bad flag.";

pub const CONFIG_SHOW: &str = "\
Prints every key as TOML, each with a comment naming where its value came from (the built-in
default, a file, a CTXMON_* variable), and the keys that are not set as comments. The model
rules ([context_monitor.models]) are always shown, with how the window is chosen. With --json:
the values and the source of each.

Examples:
  ctxmon config show
  ctxmon --json config show
  CTXMON_CONTEXT_MONITOR__INJECT=on-change ctxmon config show    see a variable win

Exit codes: 0 shown; 2 a configuration file or variable is invalid (the key and where it came
from are named).";

pub const CONFIG_GET: &str = "\
Arguments:
  KEY  a dotted key, e.g. context_monitor.warning_threshold (`ctxmon config schema` lists them),
       or a section, e.g. hooks

Prints the merged value alone (a string without quotes), ready for a script; with --json:
{key, value, source}. A section prints as TOML that can be pasted into a config file (with
--json: {key, value, sources}).

Examples:
  ctxmon config get context_monitor.warning_threshold          0.7
  ctxmon --json config get resume_logs.triggers
  ctxmon config get hooks

Exit codes: 0 printed; 2 unknown key (with a suggestion when one is close) or an invalid
configuration.";

pub const CONFIG_SET: &str = "\
Arguments:
  KEY    a dotted key, e.g. context_monitor.inject (`ctxmon config schema` lists them)
  VALUE  the new value, typed by the key: a number (0.72), a word (on-change), true or false, a
         list (a,b or '[\"pre_compact\", \"session_end\"]'), a table ('{ claude-opus-5 = 1000000 }');
         `none` or an empty value removes an optional key

Writes one key into the file of --scope (created if absent, mode 0600), and only when the files
it is layered with are still valid afterwards (thresholds ordered, values in range); a refused
change leaves the file exactly as it was. Only that key changes: the file's comments, blank
lines, key order and inline tables stay as written. A note says when a higher layer (a later
file or a CTXMON_* variable) still overrides the value. With --json: {key, value, path, created,
shadowed_by}.

Examples:
  ctxmon config set context_monitor.inject on-change
  ctxmon config set context_monitor.warning_threshold 0.72 --scope local
  ctxmon config set resume_logs.triggers pre_compact,session_end --scope user
  ctxmon config set context_monitor.context_window none

Exit codes: 0 written; 1 the file cannot be written (read-only folder, full disk); 2 unknown
key, invalid value or a configuration that would become invalid (nothing is written).";

pub const CONFIG_UNSET: &str = "\
Arguments:
  KEY  a dotted key, e.g. context_monitor.inject, or one model rule,
       context_monitor.models.<prefix> (`ctxmon config schema` lists the keys)

Removes the key from the file of --scope, else from the highest of .ctxmon/config.local.toml,
.ctxmon/config.toml and the user's file that sets it, so the next layer down (another file, else
the built-in default) applies again; then prints the key's value now and where it comes from. A
key no file sets is not an error: it says so and changes nothing (a CTXMON_* variable is unset
in the shell, not here). The change is checked like `config set` checks one: when the files
without the key are no longer valid together (a warning_threshold left below the default
low_threshold), nothing is written. Like `config set`, only that key changes (with the comments
right above it); a table left empty is removed unless a comment sits on its header. With
--json: {key, removed, path, looked_in, value, source}.

Output:
  unset context_monitor.inject in /home/me/shop/.ctxmon/config.toml; it is now \"tiered\",
  from the built-in default

Examples:
  ctxmon config unset context_monitor.inject
  ctxmon config unset context_monitor.models.claude-opus-4 --scope user

Exit codes: 0 removed, or no file sets it; 1 the file cannot be written; 2 unknown key, or a
configuration that would become invalid (nothing is written).";

pub const CONFIG_PATH: &str = "\
Output (lowest precedence first; absent files are marked):
  user     /home/me/.config/ctxmon/config.toml  (absent)
  project  /home/me/shop/.ctxmon/config.toml
  local    /home/me/shop/.ctxmon/config.local.toml  (absent)

--config FILE adds its file above local; CTXMON_* variables and flags override every file.
With --json: an array of {layer, path, exists}.

Examples:
  ctxmon config path
  ctxmon --config ci.toml config path

Exit codes: 0 printed; 2 bad flag.";

pub const CONFIG_SCHEMA: &str = "\
Prints a JSON Schema (draft 2020-12) of the whole configuration: every key with its type,
default, allowed range or values and a description; unknown keys are not allowed. Editors
that read JSON Schema can check a config.toml against it (e.g. Taplo, or a
`#:schema ./ctxmon.schema.json` line at the top of the file).

Examples:
  ctxmon config schema > ctxmon.schema.json
  ctxmon config schema | jq '.properties.context_monitor.properties | keys'

Exit codes: 0 printed.";
