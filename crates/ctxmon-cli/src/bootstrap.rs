//! The composition root: resolves the project, loads configuration and builds the adapters.
//! This is the only place that reads the process environment and picks concrete adapters.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use ctxmon_application::config::{Config, HooksConfig};
use ctxmon_infra_fs::ProjectLayout;
use ctxmon_infra_fs::config::{
    ConfigError, EnvVars, LoadedConfig, load_config as load_config_layers,
};

use crate::cli::GlobalArgs;
use crate::exit::Failure;
use crate::project_root;

/// The process environment as `(name, value)` pairs (non-UTF-8 entries dropped): a copy of
/// [`env_snapshot`] for callers that change it.
pub fn env_pairs() -> Vec<(String, String)> {
    env_snapshot().to_vec()
}

/// The process environment as `(name, value)` pairs, taken once. An agent runs hooks with a
/// hundred or more variables, and a hook read them up to four times (the agent, its settings,
/// its sessions), converting every one each time. Nothing in ctxmon changes its own
/// environment, so one snapshot serves the whole run.
pub fn env_snapshot() -> &'static [(String, String)] {
    static PAIRS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    PAIRS.get_or_init(|| {
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect()
    })
}

pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The local time zone for times shown to people: `TZ` as the C library reads it (an empty
/// `TZ` is UTC, so it is not [`env_var`]'s "unset"), else `/etc/localtime`. Read once.
pub fn local_zone() -> &'static ctxmon_infra_fs::local_time::LocalZone {
    static ZONE: std::sync::OnceLock<ctxmon_infra_fs::local_time::LocalZone> =
        std::sync::OnceLock::new();
    ZONE.get_or_init(|| {
        // Unit tests run in this process: UTC, so they read the same on every machine (the
        // CLI tests run the binary with `TZ` set).
        if cfg!(test) {
            return ctxmon_infra_fs::local_time::LocalZone::UTC;
        }
        let tz = std::env::var("TZ").ok();
        ctxmon_infra_fs::local_time::LocalZone::from_tz(tz.as_deref())
    })
}

/// The layout of `.ctxmon` in `dir`, told the home folder: a `.ctxmon` linked to it is refused
/// (`ProjectLayout::with_home`). Every layout the binary writes through is made here or by
/// [`ProjectDir::layout`].
pub fn layout_of(dir: &Path) -> ProjectLayout {
    ProjectLayout::new(dir).with_home(env_var("HOME").map(PathBuf::from))
}

/// Where the project directory came from (contract C12, in this order of precedence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirSource {
    Flag,
    /// The variable an agent sets to name the project.
    Env(&'static str),
    InputCwd,
    CurrentDir,
}

impl DirSource {
    fn describe(self) -> &'static str {
        match self {
            DirSource::Flag => "--project-dir",
            DirSource::Env(name) => name,
            DirSource::InputCwd => "the input's cwd",
            DirSource::CurrentDir => "the current directory",
        }
    }
}

/// The project directory and where it came from.
#[derive(Debug, Clone)]
pub struct ProjectDir {
    pub path: PathBuf,
    pub source: DirSource,
    /// The input's `cwd` when it was not absolute, and so not used.
    pub ignored_cwd: Option<String>,
    /// The current directory, when the project was found above it (`project_root`).
    pub found_from: Option<PathBuf>,
}

/// Contract C12: `--project-dir`, else `CLAUDE_PROJECT_DIR`, else the hook input's `cwd` when it is
/// absolute, else the current directory. A relative `cwd` would be resolved against wherever
/// the process happens to run (`"../.."` put `.ctxmon` two folders up), so it is ignored.
pub fn resolve_project_dir(global: &GlobalArgs, hook_cwd: Option<&str>) -> ProjectDir {
    let found = |path: PathBuf, source| ProjectDir {
        path,
        source,
        ignored_cwd: None,
        found_from: None,
    };
    if let Some(dir) = &global.project_dir {
        return found(dir.clone(), DirSource::Flag);
    }
    // Gemini CLI sets both for its hooks (the second for compatibility); Claude Code the first.
    for name in ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"] {
        if let Some(dir) = env_var(name) {
            return found(PathBuf::from(dir), DirSource::Env(name));
        }
    }
    let mut ignored_cwd = None;
    if let Some(cwd) = hook_cwd {
        if Path::new(cwd).is_absolute() {
            return found(PathBuf::from(cwd), DirSource::InputCwd);
        }
        ignored_cwd = Some(cwd.to_string());
    }
    ProjectDir {
        path: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        source: DirSource::CurrentDir,
        ignored_cwd,
        found_from: None,
    }
}

/// The project directory alone (see [`resolve_project_dir`]).
pub fn project_dir(global: &GlobalArgs, hook_cwd: Option<&str>) -> PathBuf {
    resolve_project_dir(global, hook_cwd).path
}

impl ProjectDir {
    /// A command's project (contract C12): from the current directory, the nearest folder at or
    /// above it holding `.ctxmon`, `.claude` or `.git`, below the home folder, the folders of
    /// `GIT_CEILING_DIRECTORIES` and `/` (see `project_root`). A folder named by `--project-dir`
    /// or an agent's project variable is taken as it is.
    pub fn walked_up(mut self) -> ProjectDir {
        if self.source != DirSource::CurrentDir {
            return self;
        }
        let mut stops = project_root::ceilings(env_var("GIT_CEILING_DIRECTORIES").as_deref());
        stops.extend(env_var("HOME").map(PathBuf::from));
        if let Some(root) = project_root::above(&self.path, &stops) {
            self.found_from = Some(std::mem::replace(&mut self.path, root));
        }
        self
    }

    /// The project's layout: it never creates `.ctxmon` in `/` or the home folder unless
    /// `--project-dir` names that folder (one already there is used).
    pub fn layout(&self) -> ProjectLayout {
        let layout = layout_of(&self.path);
        match self.shared_folder() {
            Some(reason) => layout.refusing_to_create(reason),
            None => layout,
        }
    }

    /// Why a hook stores nothing here (`None` when it can): the project does not exist, or it
    /// is `/` or the home folder, not named with `--project-dir`, without a `.ctxmon` of its
    /// own.
    pub fn storage_problem(&self) -> Option<String> {
        missing_project(&self.path).or_else(|| {
            let reason = self.shared_folder()?;
            let exists = std::fs::symlink_metadata(self.path.join(".ctxmon")).is_ok();
            (!exists).then_some(reason)
        })
    }

    /// The warning for an input `cwd` that was not used.
    pub fn ignored_cwd_warning(&self) -> Option<String> {
        self.ignored_cwd.as_ref().map(|cwd| {
            format!(
                "the input's cwd {cwd:?} is not an absolute path; ignored (project: {}, the current directory)",
                self.path.display()
            )
        })
    }

    /// `/` or the home folder, when the user did not name it with `--project-dir`: the reason
    /// `.ctxmon` is not created there. One rule for every source: an agent's variable
    /// (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`) is set for wherever the agent was started,
    /// which may be the home folder as easily as an input's `cwd` may. Compared resolved, so
    /// `/tmp/..` is `/`.
    fn shared_folder(&self) -> Option<String> {
        if self.source == DirSource::Flag {
            return None;
        }
        let resolved = std::fs::canonicalize(&self.path).ok()?;
        let home = env_var("HOME").and_then(|h| std::fs::canonicalize(h).ok());
        let what = if resolved.parent().is_none() {
            "the root folder"
        } else if home.as_ref() == Some(&resolved) {
            "your home folder"
        } else {
            return None;
        };
        Some(format!(
            "{} is {what} (from {}); ctxmon creates no .ctxmon there unless --project-dir names it",
            self.path.display(),
            self.source.describe()
        ))
    }
}

/// The configuration a hook or the status line can find before it reads its stdin: the
/// environment and the files of the project named without the input (`--project-dir`,
/// `CLAUDE_PROJECT_DIR`, the current directory). Its deadline for the hook (or the status line)
/// bounds the read of stdin; once the input is read it is reused when the input names the same
/// project.
#[derive(Debug)]
pub struct EarlyConfig {
    dir: PathBuf,
    config: anyhow::Result<Config>,
}

impl EarlyConfig {
    pub fn load(global: &GlobalArgs) -> EarlyConfig {
        let dir = project_dir(global, None);
        let config = load_config(global, &dir, &[]);
        EarlyConfig { dir, config }
    }

    /// The hooks' configuration (their deadlines), when the configuration is valid.
    pub fn hooks(&self) -> Option<&HooksConfig> {
        self.config.as_ref().ok().map(|c| &c.hooks)
    }

    /// The configuration of `dir`: this one when it is that project's, else loaded now.
    pub fn for_project(self, global: &GlobalArgs, dir: &Path) -> anyhow::Result<Config> {
        if self.dir == dir {
            self.config
        } else {
            load_config(global, dir, &[])
        }
    }
}

/// Why `dir` cannot be a project directory (`None` when it can): ctxmon creates `.ctxmon` inside
/// a project, never the project itself, so a folder that does not exist stays that way.
pub fn missing_project(dir: &Path) -> Option<String> {
    if dir.is_dir() {
        return None;
    }
    let what = if dir.exists() {
        "is not a directory"
    } else {
        "does not exist"
    };
    Some(format!("project directory {} {what}", dir.display()))
}

/// The project directory of a command (hooks resolve theirs from their input): it must exist.
/// The error (exit 2) names where the folder came from.
pub fn existing_project_dir(global: &GlobalArgs) -> Result<PathBuf, Failure> {
    existing_project(global).map(|p| p.path)
}

/// [`existing_project_dir`] with where it came from (for [`ProjectDir::layout`]), walked up
/// from a subfolder to the project ([`ProjectDir::walked_up`]).
pub fn existing_project(global: &GlobalArgs) -> Result<ProjectDir, Failure> {
    let dir = resolve_project_dir(global, None).walked_up();
    let Some(problem) = missing_project(&dir.path) else {
        return Ok(dir);
    };
    Err(Failure::usage(anyhow!(
        "{problem} (from {}); pass an existing project folder with --project-dir",
        dir.source.describe()
    )))
}

/// Everything a command needs about its project.
#[derive(Debug, Clone)]
pub struct Project {
    pub layout: ProjectLayout,
    pub config: Config,
}

/// Loads the layered configuration (contract C11). `flags` are dotted-key overrides from the
/// command line, the highest layer. The error is a configuration error (exit 2).
pub fn load_config(
    global: &GlobalArgs,
    project_dir: &Path,
    flags: &[(String, String)],
) -> anyhow::Result<Config> {
    Ok(load_layers(global, project_dir, flags)?.config)
}

/// The layered configuration with the source of every value (for `config show|get`).
pub fn load_layers(
    global: &GlobalArgs,
    project_dir: &Path,
    flags: &[(String, String)],
) -> anyhow::Result<LoadedConfig> {
    load_layers_checked(global, project_dir, flags).map_err(|e| anyhow!("{e}"))
}

/// The same, keeping the configuration error's kind (for `doctor`, whose advice depends on it).
pub fn load_layers_checked(
    global: &GlobalArgs,
    project_dir: &Path,
    flags: &[(String, String)],
) -> Result<LoadedConfig, ConfigError> {
    let env = EnvVars::from_process();
    load_config_layers(project_dir, &env, global.config.as_deref(), flags)
}

/// A command's existing project and its configuration; a missing project or a configuration
/// error is a usage error (exit 2).
pub fn project(global: &GlobalArgs, flags: &[(String, String)]) -> Result<Project, Failure> {
    let dir = existing_project(global)?;
    let config = load_config(global, &dir.path, flags).map_err(Failure::usage)?;
    Ok(Project {
        layout: dir.layout(),
        config,
    })
}

/// Moves `settings`' auto-compact point to where the user's Claude Code settings put it
/// (environment and settings files, read by the library's settings reader); every ignored
/// value is passed to `warn`.
pub fn apply_claude_auto_compact(
    settings: &mut ctxmon_application::monitor::fill::FillSettings,
    project_dir: &Path,
    mut warn: impl FnMut(&str),
) {
    let agent = ctxmon_application::ports::AgentKind::ClaudeCode;
    let files = &mut ctxmon_infra_fs::AgentSettingsFiles;
    for w in settings.apply_agent_settings(agent, project_dir, env_snapshot(), files) {
        warn(&w);
    }
}
