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

/// The process environment as `(name, value)` pairs (non-UTF-8 entries dropped).
pub fn env_pairs() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Spec §12: `--project-dir`, else `CLAUDE_PROJECT_DIR`, else the hook input's `cwd`, else the
/// current directory.
pub fn project_dir(global: &GlobalArgs, hook_cwd: Option<&str>) -> PathBuf {
    if let Some(dir) = &global.project_dir {
        return dir.clone();
    }
    if let Some(dir) = env_var("CLAUDE_PROJECT_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(cwd) = hook_cwd {
        return PathBuf::from(cwd);
    }
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
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
    let dir = project_dir(global, None);
    let Some(problem) = missing_project(&dir) else {
        return Ok(dir);
    };
    let from = if global.project_dir.is_some() {
        "--project-dir"
    } else if env_var("CLAUDE_PROJECT_DIR").is_some() {
        "CLAUDE_PROJECT_DIR"
    } else {
        "the current directory"
    };
    Err(Failure::usage(anyhow!(
        "{problem} (from {from}); pass an existing project folder with --project-dir"
    )))
}

/// Everything a command needs about its project.
#[derive(Debug, Clone)]
pub struct Project {
    pub layout: ProjectLayout,
    pub config: Config,
}

/// Loads the layered configuration (spec §11). `flags` are dotted-key overrides from the
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
    let dir = existing_project_dir(global)?;
    let config = load_config(global, &dir, flags).map_err(Failure::usage)?;
    Ok(Project {
        layout: ProjectLayout::new(dir),
        config,
    })
}
