//! Where the configuration files live, resolved from an environment snapshot.
//!
//! Layer order, lowest first: built-in defaults < user file < project file < local project file
//! < the `--config FILE` file < `CTXMON_*` environment variables < command-line flags. The
//! explicit `--config` file sits just above the local file: it is a file like the others (so
//! environment and flags still win over it), and the caller named it on this very command line
//! (so it beats every file found by convention).

use std::fmt;
use std::path::{Path, PathBuf};

use super::env::EnvVars;

/// The file layers, in precedence order (lowest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileLayer {
    /// `$XDG_CONFIG_HOME/ctxmon/config.toml`, else `$HOME/.config/ctxmon/config.toml`.
    User,
    /// `<project>/.ctxmon/config.toml`, the project's shared settings (`.ctxmon/.gitignore`
    /// ignores everything until `!config.toml` is added to it).
    Project,
    /// `<project>/.ctxmon/config.local.toml`, meant to stay out of version control.
    Local,
    /// The file given with `--config FILE`.
    Explicit,
}

impl FileLayer {
    pub fn name(self) -> &'static str {
        match self {
            FileLayer::User => "user",
            FileLayer::Project => "project",
            FileLayer::Local => "local",
            FileLayer::Explicit => "explicit",
        }
    }
}

impl fmt::Display for FileLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A file `ctxmon config set` may edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    User,
    Project,
    Local,
}

impl Scope {
    /// Parses `project`, `local` or `user` (the `--scope` values).
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "user" => Some(Scope::User),
            "project" => Some(Scope::Project),
            "local" => Some(Scope::Local),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.layer().name()
    }

    pub fn layer(self) -> FileLayer {
        match self {
            Scope::User => FileLayer::User,
            Scope::Project => FileLayer::Project,
            Scope::Local => FileLayer::Local,
        }
    }
}

/// The configuration files for one project directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigPaths {
    /// `None` when neither `XDG_CONFIG_HOME` nor `HOME` gives an absolute directory.
    pub user: Option<PathBuf>,
    pub project: PathBuf,
    pub local: PathBuf,
    /// The `--config FILE` file, layered just above `local`.
    pub explicit: Option<PathBuf>,
}

/// One line of `ctxmon config path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathEntry {
    pub layer: FileLayer,
    pub path: Option<PathBuf>,
    pub exists: bool,
}

impl ConfigPaths {
    /// Resolves the paths. Relative `XDG_CONFIG_HOME` values are ignored, as the XDG base
    /// directory specification requires; so is an empty or relative `HOME`.
    pub fn resolve(project_dir: &Path, env: &EnvVars, explicit: Option<&Path>) -> ConfigPaths {
        let absolute = |name: &str| env.get(name).map(PathBuf::from).filter(|p| p.is_absolute());
        let user = absolute("XDG_CONFIG_HOME")
            .or_else(|| absolute("HOME").map(|home| home.join(".config")))
            .map(|dir| dir.join("ctxmon").join("config.toml"));
        let dot = project_dir.join(".ctxmon");
        ConfigPaths {
            user,
            project: dot.join("config.toml"),
            local: dot.join("config.local.toml"),
            explicit: explicit.map(Path::to_path_buf),
        }
    }

    /// The file `config set --scope` edits; `None` for `user` without a home directory.
    pub fn for_scope(&self, scope: Scope) -> Option<&Path> {
        match scope {
            Scope::User => self.user.as_deref(),
            Scope::Project => Some(&self.project),
            Scope::Local => Some(&self.local),
        }
    }

    /// Every file layer in precedence order (lowest first), with its path when it has one.
    pub fn layers(&self) -> Vec<(FileLayer, Option<&Path>)> {
        let mut out = vec![
            (FileLayer::User, self.user.as_deref()),
            (FileLayer::Project, Some(self.project.as_path())),
            (FileLayer::Local, Some(self.local.as_path())),
        ];
        if let Some(explicit) = &self.explicit {
            out.push((FileLayer::Explicit, Some(explicit.as_path())));
        }
        out
    }

    /// The answer to `ctxmon config path`: each file and whether it exists.
    pub fn entries(&self) -> Vec<PathEntry> {
        self.layers()
            .into_iter()
            .map(|(layer, path)| PathEntry {
                layer,
                exists: path.is_some_and(Path::is_file),
                path: path.map(Path::to_path_buf),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(env: &[(&str, &str)]) -> ConfigPaths {
        let env: EnvVars = env.iter().copied().collect();
        ConfigPaths::resolve(Path::new("/p"), &env, None)
    }

    #[test]
    fn xdg_config_home_wins_over_home() {
        let p = paths(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")]);
        assert_eq!(p.user, Some(PathBuf::from("/x/ctxmon/config.toml")));
        assert_eq!(p.project, PathBuf::from("/p/.ctxmon/config.toml"));
        assert_eq!(p.local, PathBuf::from("/p/.ctxmon/config.local.toml"));
    }

    #[test]
    fn relative_or_empty_xdg_falls_back_to_home() {
        for xdg in ["", "rel/dir"] {
            let p = paths(&[("XDG_CONFIG_HOME", xdg), ("HOME", "/h")]);
            assert_eq!(p.user, Some(PathBuf::from("/h/.config/ctxmon/config.toml")));
        }
    }

    #[test]
    fn no_home_means_no_user_file() {
        assert_eq!(paths(&[]).user, None);
        assert_eq!(paths(&[("HOME", "")]).user, None);
    }

    #[test]
    fn scopes_parse() {
        assert_eq!(Scope::parse("local"), Some(Scope::Local));
        assert_eq!(Scope::parse("global"), None);
        assert_eq!(Scope::User.as_str(), "user");
    }
}
