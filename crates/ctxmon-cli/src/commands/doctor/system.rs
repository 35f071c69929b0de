//! Doctor's checks outside Claude Code's settings: the binary on PATH, the configuration,
//! `.ctxmon` writable, recent hook problems, and the newest transcript measurable.

use std::path::Path;

use ctxmon_application::config::Config;
use ctxmon_application::monitor::fill::{ContextFillEstimator, EstimateRequest, FillSettings};
use ctxmon_application::ports::Clock;
use ctxmon_domain::human::thousands;
use ctxmon_domain::{FillSource, Timestamp};
use ctxmon_infra_fs::claude_paths::{project_slugs, projects_dirs};
use ctxmon_infra_fs::config::{ConfigError, ConfigErrorKind, LoadedConfig};
use ctxmon_infra_fs::fsutil::{self, probe_writable};
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;
use ctxmon_infra_fs::{HookLog, ProjectLayout, SystemClock};

use super::check::{Check, Status};
use crate::origin::Origin;
use crate::paths::{Resolved, resolve_program, same_file, which};

/// What an interrupted `ctxmon install` or `uninstall` left in the agents' folders (the
/// project's `.claude` and `.codex`, the user's): `None` when nothing is there, so the check
/// shows only when it has something to say.
pub fn install_leftovers(project_dir: &Path, env: &[(String, String)]) -> Option<Check> {
    use crate::commands::install::leftovers;
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| std::path::PathBuf::from(v))
    };
    let home = var("HOME");
    let dirs = [
        Some(project_dir.join(".claude")),
        Some(project_dir.join(".codex")),
        Some(project_dir.join(".gemini")),
        var("CLAUDE_CONFIG_DIR").or_else(|| home.as_ref().map(|h| h.join(".claude"))),
        var("CODEX_HOME").or_else(|| home.as_ref().map(|h| h.join(".codex"))),
        home.as_ref().map(|h| h.join(".gemini")),
    ];
    let now = std::time::SystemTime::now();
    let (mut found, mut maybe): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for dir in dirs.iter().flatten() {
        for (list, paths) in [
            (&mut found, leftovers::stale(dir, now)),
            (&mut maybe, leftovers::unattributed(dir, now)),
        ] {
            for shown in paths.iter().map(|p| p.display().to_string()) {
                if !list.contains(&shown) {
                    list.push(shown);
                }
            }
        }
    }
    if found.is_empty() && maybe.is_empty() {
        return None;
    }
    let mut message = Vec::new();
    if !found.is_empty() {
        message.push(format!(
            "{} file(s) left by an interrupted ctxmon install or uninstall: {}",
            found.len(),
            found.join(", ")
        ));
    }
    if !maybe.is_empty() {
        message.push(format!(
            "{} file(s) named as an older ctxmon named its temp copies, though nothing in them \
             shows they are ctxmon's, so install leaves them: {}",
            maybe.len(),
            maybe.join(", ")
        ));
    }
    let fix = if found.is_empty() {
        "delete them if nothing else of yours made them"
    } else {
        "run `ctxmon install` again (it removes ctxmon's), or delete them"
    };
    Some(Check::new("install leftovers", Status::Warn, message.join("; ")).with_fix(fix))
}

/// Whether a shell finds this binary as `ctxmon`, and how the hooks call it (`calls`: the
/// programs ctxmon's hooks and status line run, as written). The fix follows how the binary
/// was installed, so a release or npm user is not sent to cargo.
pub fn binary(env: &[(String, String)], project_dir: &Path, calls: &[String]) -> Check {
    let this = std::env::current_exe().ok();
    let shown = this
        .as_ref()
        .map_or_else(|| "unknown".to_string(), |p| p.display().to_string());
    let origin = Origin::current(env);
    let hooks = hooks_call(calls, project_dir, env, this.as_deref());
    match (which("ctxmon", env), &this) {
        (Some(found), Some(this)) if same_file(&found, this) => Check::ok(
            "binary",
            format!("{} is on PATH and is this binary; {hooks}", found.display()),
        ),
        (Some(found), _) => Check::new(
            "binary",
            Status::Warn,
            format!(
                "{} is on PATH, but this is {shown}: a shell and the hooks may run different versions; {hooks}",
                found.display()
            ),
        )
        .with_fix(format!(
            "keep one binary: remove the other or put this one's folder first on PATH, then run \
             `ctxmon install` to point the hooks at it ({})",
            origin.path_fix()
        )),
        (None, _) => {
            // A project's npm dependency is off PATH by design: `npx ctxmon` runs it.
            let status = match origin {
                Origin::NpmProject { .. } => Status::Ok,
                _ => Status::Warn,
            };
            Check::new(
                "binary",
                status,
                format!("ctxmon is not on PATH (this is {shown}), so a shell cannot run it; {hooks}"),
            )
            .with_fix(origin.path_fix())
        }
    }
}

/// "the hooks call …": each program as written, and whether it is this binary.
fn hooks_call(
    calls: &[String],
    project_dir: &Path,
    env: &[(String, String)],
    this: Option<&Path>,
) -> String {
    if calls.is_empty() {
        return "no hook calls it yet".to_string();
    }
    let shown: Vec<String> = calls
        .iter()
        .map(|program| {
            let resolved = match resolve_program(program, project_dir, env) {
                Resolved::Executable(path) => Some(path),
                Resolved::Missing(_) | Resolved::Unknown(_) => None,
            };
            let is_this = resolved
                .as_ref()
                .zip(this)
                .is_some_and(|(found, this)| same_file(found, this));
            let how = if program.contains('/') {
                program.clone()
            } else {
                format!("`{program}` through PATH")
            };
            match (resolved, is_this) {
                (_, true) => how,
                (Some(_), false) => format!("{how} (another binary)"),
                (None, _) => format!("{how} (not found here)"),
            }
        })
        .collect();
    format!("the hooks call {}", shown.join(" and "))
}

/// The configuration check; also returns the configuration the other checks should use (the
/// defaults when it is invalid, as the hooks do).
pub fn config(loaded: Result<LoadedConfig, ConfigError>) -> (Check, Config) {
    let values = "correct the value (`ctxmon config schema` lists every key and range)";
    match loaded {
        Err(e) => {
            let fix = match e.kind {
                ConfigErrorKind::Io => "make the file and its folder readable",
                ConfigErrorKind::Parse => "fix the TOML syntax at the position shown",
                ConfigErrorKind::UnknownKey | ConfigErrorKind::InvalidValue => values,
            };
            // Several problems print on several lines; a check is one line.
            let message = e.to_string().lines().collect::<Vec<_>>().join("; ");
            (
                Check::new(
                    "config",
                    Status::Fail,
                    format!(
                        "{message}; until it is fixed, hooks run on the defaults and no fill tier is injected or shown"
                    ),
                )
                .with_fix(fix),
                Config::default(),
            )
        }
        Ok(loaded) => match FillSettings::from_config(&loaded.config) {
            Err(e) => (
                Check::new("config", Status::Fail, format!("invalid thresholds: {e}"))
                    .with_fix(values),
                Config::default(),
            ),
            Ok(_) => {
                let files: Vec<String> = loaded
                    .paths
                    .entries()
                    .into_iter()
                    .filter(|e| e.exists)
                    .filter_map(|e| e.path.map(|p| p.display().to_string()))
                    .collect();
                let from = if files.is_empty() {
                    "built-in defaults only".to_string()
                } else {
                    files.join(", ")
                };
                (
                    Check::ok("config", format!("valid ({from})")),
                    loaded.config,
                )
            }
        },
    }
}

pub fn storage(layout: &ProjectLayout) -> Check {
    let root = layout.root();
    if !root.exists() {
        return match probe_writable(layout.project_dir()) {
            Ok(()) => Check::ok(
                "storage",
                ".ctxmon does not exist yet; the project folder is writable, so the first hook creates it",
            ),
            Err(e) => Check::new(
                "storage",
                Status::Fail,
                format!(
                    "cannot create .ctxmon in {}: {e}",
                    layout.project_dir().display()
                ),
            )
            .with_fix("make the project folder writable for your user"),
        };
    }
    if !root.is_dir() {
        return Check::new(
            "storage",
            Status::Fail,
            format!(
                "{} is not a folder; ctxmon keeps its state there",
                root.display()
            ),
        )
        .with_fix("move the file away; the next hook creates the folder");
    }
    if let Err(e) = probe_writable(root) {
        return Check::new(
            "storage",
            Status::Fail,
            format!("cannot create files in {}: {e}", root.display()),
        )
        .with_fix("give your user write access to .ctxmon (chmod u+rwx .ctxmon)");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(root) {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Check::new(
                    "storage",
                    Status::Warn,
                    format!(".ctxmon is writable but open to other users (mode {mode:o}); it holds session state and transcript excerpts"),
                )
                .with_fix("chmod 700 .ctxmon");
            }
        }
    }
    Check::ok("storage", ".ctxmon is writable")
}

/// Problems in the last day count; older ones are history, or doctor would fail for days after
/// every fixed mistake.
const RECENT_MS: i64 = 24 * 60 * 60 * 1000;

pub fn hook_log(layout: &ProjectLayout, config: &Config) -> Check {
    hook_log_at(layout, config, SystemClock.now())
}

fn hook_log_at(layout: &ProjectLayout, config: &Config, now: Timestamp) -> Check {
    let log = HookLog::new(layout, config.hooks.log_max_bytes);
    if let Ok(meta) = std::fs::metadata(log.path())
        && !meta.is_file()
    {
        return Check::new(
            "hook log",
            Status::Warn,
            format!(
                "{} is {}, not a file: hooks cannot record their problems",
                log.path().display(),
                fsutil::kind_of(&meta)
            ),
        )
        .with_fix("remove it; the next hook problem recreates the log");
    }
    let problems = log.recent_problems(usize::MAX);
    let time_of = |line: &str| {
        line.split_whitespace()
            .next()
            .and_then(Timestamp::parse_rfc3339)
    };
    let recent: Vec<&String> = problems
        .iter()
        .filter(|l| time_of(l).is_some_and(|t| now.millis() - t.millis() < RECENT_MS))
        .collect();
    let Some(newest) = recent.last() else {
        return match problems.last().and_then(|l| time_of(l)) {
            Some(t) => Check::ok(
                "hook log",
                format!(
                    "no hook problems in the last 24 hours (the newest logged is from {})",
                    crate::render::local_time(t)
                ),
            ),
            None => Check::ok("hook log", "no hook problems logged"),
        };
    };
    let details: Vec<String> = recent
        .iter()
        .rev()
        .take(10)
        .rev()
        .map(|l| l.to_string())
        .collect();
    Check::new(
        "hook log",
        Status::Warn,
        format!(
            "{} hook problem{} in the last 24 hours; newest: {newest}",
            recent.len(),
            if recent.len() == 1 { "" } else { "s" }
        ),
    )
    .with_fix(format!(
        "read {} (hooks failed open: the prompts went on)",
        log.path().display()
    ))
    .with_details(details)
}

/// Every agent ctxmon serves, by name: "Claude Code, Codex CLI or Gemini CLI".
fn agent_names() -> String {
    let names: Vec<&str> = ctxmon_application::agents::AGENTS
        .iter()
        .map(|a| a.name)
        .collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

pub fn transcript(project_dir: &Path, env: &[(String, String)], config: &Config) -> Check {
    // The newest of the project's sessions of every agent, as `status` takes.
    let Some(path) = crate::agent::project_transcript(project_dir) else {
        let canonical =
            std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_path_buf());
        let slug = project_slugs(&canonical)
            .into_iter()
            .next()
            .unwrap_or_default();
        let places: Vec<String> = projects_dirs(env)
            .iter()
            .map(|d| d.join(&slug).display().to_string())
            .collect();
        return Check::new(
            "transcript",
            Status::Skip,
            format!(
                "no {} session for this project yet (looked in {}{}{})",
                agent_names(),
                places.join(", "),
                ctxmon_infra_fs::codex::codex_home(env)
                    .map(|h| format!(", {}", h.join("sessions").display()))
                    .unwrap_or_default(),
                ctxmon_infra_fs::gemini::gemini_home(env)
                    .map(|h| format!(", {}", h.join("tmp").display()))
                    .unwrap_or_default()
            ),
        );
    };
    let settings = FillSettings::from_config(config)
        .or_else(|_| FillSettings::from_config(&Config::default()));
    let Ok(mut settings) = settings else {
        return Check::new("transcript", Status::Fail, "no usable thresholds");
    };
    // Problems in the agent's own settings are not this check's; the figure uses what counts.
    crate::agent::apply_auto_compact(
        &mut settings,
        crate::agent::of_transcript(&path),
        project_dir,
        |_| {},
    );
    let shown = path.display();
    // Claude Code creates the file when a session starts and writes its first line later.
    if std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0) {
        return Check::new(
            "transcript",
            Status::Skip,
            format!("{shown} is empty: the session has had no response yet"),
        );
    }
    let reader = JsonlTranscriptReader::default();
    let measurement = ContextFillEstimator::new(&reader, &settings).measure(EstimateRequest {
        transcript_path: Some(&path),
        ..Default::default()
    });
    if let Some(error) = measurement.error {
        return Check::new("transcript", Status::Fail, error.to_string()).with_fix(
            "hooks answer NOMINAL until it can be read; check the file's owner and mode",
        );
    }
    let e = measurement.estimate;
    if e.source == FillSource::Unavailable {
        let scanned = measurement
            .reading
            .as_ref()
            .is_some_and(|r| r.hit_scan_limit);
        return if scanned {
            Check::new(
                "transcript",
                Status::Warn,
                format!(
                    "{shown}: {}",
                    e.note.as_deref().unwrap_or("nothing to measure")
                ),
            )
            .with_fix("raise context_monitor.max_scan_bytes so the reader reaches a response")
        } else {
            Check::new(
                "transcript",
                Status::Skip,
                format!("{shown} has no response with usage yet"),
            )
        };
    }
    Check::ok(
        "transcript",
        format!(
            "{shown} measures {}% ({} of {} tokens, {}{})",
            e.percent(),
            thousands(e.input_tokens.get()),
            thousands(e.context_window_size.get()),
            e.threshold_tier.name(),
            e.model
                .as_deref()
                .map(|m| format!(", {m}"))
                .unwrap_or_default()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_recent_hook_problems_count() {
        let dir = tempfile::tempdir().expect("temp dir");
        let layout = ProjectLayout::new(dir.path());
        let config = Config::default();
        let log = HookLog::new(&layout, config.hooks.log_max_bytes);
        let day = RECENT_MS;
        let now = Timestamp(10 * day);
        assert_eq!(hook_log_at(&layout, &config, now).status, Status::Ok);
        assert!(log.write(Timestamp(8 * day), "prompt-submit", "warn", "old trouble"));
        let old = hook_log_at(&layout, &config, now);
        assert_eq!(old.status, Status::Ok);
        assert!(
            old.message.contains("newest logged is from"),
            "{}",
            old.message
        );
        assert!(log.write(
            Timestamp(10 * day - 1_000),
            "pre-compact",
            "warn",
            "disk full"
        ));
        let recent = hook_log_at(&layout, &config, now);
        assert_eq!(recent.status, Status::Warn);
        assert!(
            recent
                .message
                .starts_with("1 hook problem in the last 24 hours")
        );
        assert!(
            recent.message.contains("pre-compact: disk full"),
            "{}",
            recent.message
        );
        assert_eq!(recent.details.len(), 1);
    }
}
