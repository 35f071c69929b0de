//! Finding programs the way a shell would (doctor checks what the hooks run; install asks whether
//! the `ctxmon` on PATH is this binary): PATH lookup, `~` and the variables Claude Code sets
//! for hooks, and whether the result is an executable file.

use std::path::{Path, PathBuf};

/// What a hook's program resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    Executable(PathBuf),
    /// Why it cannot run: does not exist, not a file, not executable.
    Missing(String),
    /// It depends on something doctor cannot know (an unset variable, a plugin root).
    Unknown(String),
}

fn var<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter()
        .find(|(k, v)| k == name && !v.is_empty())
        .map(|(_, v)| v.as_str())
}

/// True for a regular file with an execute bit (any file on platforms without one).
pub fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The first executable `name` on `PATH`, as a shell would find it.
pub fn which(name: &str, env: &[(String, String)]) -> Option<PathBuf> {
    let path = var(env, "PATH")?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// Resolves a hook's program: `~/` and `$HOME`, `$CLAUDE_PROJECT_DIR` (Claude Code sets it to
/// the project for every hook), relative paths against the project (the hook's working folder)
/// and bare names on PATH.
pub fn resolve_program(program: &str, project_dir: &Path, env: &[(String, String)]) -> Resolved {
    let home = var(env, "HOME");
    let project = project_dir.to_string_lossy();
    let mut expanded = program.to_string();
    if let Some(rest) = expanded.strip_prefix("~/") {
        match home {
            Some(h) => expanded = format!("{h}/{rest}"),
            None => return Resolved::Unknown("HOME is not set".into()),
        }
    }
    for (name, value) in [
        ("CLAUDE_PROJECT_DIR", Some(project.as_ref())),
        ("HOME", home),
    ] {
        // `${NAME:-default}`: the value when set (doctor knows both), else the default.
        let open = format!("${{{name}:-");
        while let Some(start) = expanded.find(&open) {
            let Some(len) = expanded[start..].find('}') else {
                break;
            };
            let default = expanded[start + open.len()..start + len].to_string();
            let with = value.map_or(default, str::to_string);
            expanded.replace_range(start..=start + len, &with);
        }
        for spelled in [format!("${{{name}}}"), format!("${name}")] {
            if expanded.contains(&spelled) {
                match value {
                    Some(v) => expanded = expanded.replace(&spelled, v),
                    None => return Resolved::Unknown(format!("{name} is not set")),
                }
            }
        }
    }
    if expanded.contains('$') {
        return Resolved::Unknown("it depends on a variable only Claude Code knows".into());
    }
    if !expanded.contains('/') {
        return match which(&expanded, env) {
            Some(found) => Resolved::Executable(found),
            None => Resolved::Missing(format!("`{expanded}` is not on PATH")),
        };
    }
    let path = project_dir.join(&expanded);
    if is_executable(&path) {
        Resolved::Executable(path)
    } else if path.is_file() {
        Resolved::Missing(format!("{} is not executable", path.display()))
    } else if path.exists() {
        Resolved::Missing(format!("{} is not a file", path.display()))
    } else {
        Resolved::Missing(format!("{} does not exist", path.display()))
    }
}

/// Two paths name the same file (symlinks and `..` resolved).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn programs_resolve_like_a_shell_would() {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        let exe = bin.join("tool");
        std::fs::write(&exe, "#!/bin/sh\n").expect("write");
        let plain = bin.join("plain");
        std::fs::write(&plain, "").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644))
                .expect("chmod");
        }
        let home = dir.path().display().to_string();
        let path = bin.display().to_string();
        let e = env(&[("HOME", &home), ("PATH", &path)]);
        let project = dir.path();
        assert_eq!(
            resolve_program("tool", project, &e),
            Resolved::Executable(exe.clone())
        );
        assert_eq!(
            resolve_program("~/bin/tool", project, &e),
            Resolved::Executable(exe.clone())
        );
        assert_eq!(
            resolve_program("${HOME}/bin/tool", project, &e),
            Resolved::Executable(exe.clone())
        );
        assert_eq!(
            resolve_program("$CLAUDE_PROJECT_DIR/bin/tool", project, &e),
            Resolved::Executable(exe.clone())
        );
        assert_eq!(
            resolve_program("${CLAUDE_PROJECT_DIR:-.}/bin/tool", project, &e),
            Resolved::Executable(exe.clone())
        );
        assert_eq!(
            resolve_program("bin/tool", project, &e),
            Resolved::Executable(exe)
        );
        assert!(
            matches!(resolve_program("/nowhere/ctxmon", project, &e), Resolved::Missing(m) if m.contains("does not exist"))
        );
        #[cfg(unix)]
        assert!(
            matches!(resolve_program("bin/plain", project, &e), Resolved::Missing(m) if m.contains("not executable"))
        );
        assert!(
            matches!(resolve_program("missing", project, &e), Resolved::Missing(m) if m.contains("not on PATH"))
        );
        assert!(matches!(
            resolve_program("${CLAUDE_PLUGIN_ROOT}/ctxmon", project, &e),
            Resolved::Unknown(_)
        ));
    }
}
