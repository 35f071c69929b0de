//! The composition root: resolves the project, loads configuration and builds the adapters.
//! This is the only place that reads the process environment and picks concrete adapters.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use ctxmon_application::config::Config;
use ctxmon_infra_fs::ProjectLayout;
use ctxmon_infra_fs::config::{
    ConfigError, EnvVars, LoadedConfig, load_config as load_config_layers,
};

use crate::cli::GlobalArgs;

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

pub fn project(
    global: &GlobalArgs,
    hook_cwd: Option<&str>,
    flags: &[(String, String)],
) -> anyhow::Result<Project> {
    let dir = project_dir(global, hook_cwd);
    let config = load_config(global, &dir, flags)?;
    Ok(Project {
        layout: ProjectLayout::new(dir),
        config,
    })
}
