//! How the hooks install writes name the binary.
//!
//! A project's settings file (`.claude/settings.json`, `.codex/hooks.json`) is committed and
//! shared: `/home/you/.cargo/bin/ctxmon hooks …` in it fails on every teammate's machine where
//! that path does not exist. So at project scope, when the binary running is the `ctxmon` that
//! PATH finds (the same file once links are resolved), install writes the bare `ctxmon hooks
//! …`, which runs wherever ctxmon is installed; otherwise it writes the absolute path and says
//! that `--scope local` keeps machine paths out of shared files.
//!
//! User and local scope keep the absolute path: those files are one person's, and an absolute
//! path runs whatever PATH the agent was started with (a desktop app or an IDE may start it
//! without `~/.cargo/bin`).
//!
//! A project's own npm dependency (`npx ctxmon install` with ctxmon in the project's
//! `package.json`) is named `"${CLAUDE_PROJECT_DIR:-.}"/node_modules/.bin/ctxmon` in the
//! project file of an agent that names the project folder to its hooks (Claude Code, Gemini
//! CLI): every teammate's checkout has that name after `npm install`, and
//! install first runs it to see that it answers as this version.
//!
//! PATH folders inside `node_modules` do not count: `npx ctxmon install` and npm scripts put the
//! project's `node_modules/.bin` on PATH for that one command, and Claude Code's hooks run
//! without it. npm's global bin link counts: once npm's launcher has replaced itself with a link
//! to the native binary (its first run), that link is this binary; where it stays a script
//! (pnpm, yarn 2+), it is another file, and the native binary's path is written.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::anyhow;

use crate::bootstrap;
use crate::cli::{Agent, SettingsScope};
use crate::exit::Failure;
use crate::install::command_line::shell_word;
use crate::origin::Origin;
use crate::paths::{same_file, which};

/// The environment with PATH's `node_modules` folders left out (see the module docs).
fn lasting_path(mut env: Vec<(String, String)>) -> Vec<(String, String)> {
    for (_, value) in env.iter_mut().filter(|(k, _)| k == "PATH") {
        let kept: Vec<PathBuf> = std::env::split_paths(value.as_str())
            .filter(|dir| !dir.components().any(|c| c.as_os_str() == "node_modules"))
            .collect();
        *value = std::env::join_paths(kept)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    env
}

/// The binary as the hooks will name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Program {
    /// One shell word: `ctxmon`, or the absolute path (quoted if need be).
    pub word: String,
    /// What to tell the user about it, when the word is a machine's path in a shared file.
    pub note: Option<String>,
}

/// The running binary, its links resolved.
fn this_binary() -> Result<PathBuf, Failure> {
    std::env::current_exe()
        .and_then(fs::canonicalize)
        .map_err(|e| anyhow!("cannot find the path of this ctxmon binary: {e}").into())
}

/// How a hook names the project's own npm dependency: through the project folder, which the
/// agent gives every hook as `var` (`CLAUDE_PROJECT_DIR`), else the working folder (the
/// project, where Claude Code runs its status line), so every teammate's checkout runs its own.
pub(super) fn npm_project_word(var: &str) -> String {
    format!("\"${{{var}:-.}}\"/node_modules/.bin/ctxmon")
}

/// True when `project`'s `node_modules/.bin/ctxmon` runs as this ctxmon does: it answers
/// `--version` with this version within a few seconds (npm's launcher, not yet linked to the
/// binary, starts node first).
fn npm_bin_runs(project: &Path) -> bool {
    let bin = project.join("node_modules/.bin/ctxmon");
    let Ok(mut child) = std::process::Command::new(&bin)
        .arg("--version")
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
    else {
        return false;
    };
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if started.elapsed() < std::time::Duration::from_secs(5) => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            _ => {
                // Killing a child that already ended fails harmlessly.
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    }
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.take(256).read_to_string(&mut out);
    }
    out.trim() == concat!("ctxmon ", env!("CARGO_PKG_VERSION"))
}

/// The project folder `settings` belongs to: `<project>/.claude/settings.json` or
/// `<project>/.codex/hooks.json`.
fn project_of(settings: &Path) -> Option<&Path> {
    settings.parent()?.parent()
}

pub(super) fn program(
    agent: Agent,
    scope: SettingsScope,
    settings: &Path,
) -> Result<Program, Failure> {
    let shared_file = settings.display().to_string();
    let exe = this_binary()?;
    let path = exe.to_str().ok_or_else(|| {
        anyhow!(
            "the binary's path {} is not UTF-8; move ctxmon to a plain path and run again",
            exe.display()
        )
    })?;
    let absolute = shell_word(path);
    if scope != SettingsScope::Project {
        return Ok(Program {
            word: absolute,
            note: None,
        });
    }
    let on_path = which("ctxmon", &lasting_path(bootstrap::env_pairs()));
    let resolved = on_path.as_ref().and_then(|p| fs::canonicalize(p).ok());
    if resolved.as_ref() == Some(&exe) {
        return Ok(Program {
            word: "ctxmon".into(),
            note: None,
        });
    }
    // The project's own npm dependency (`npx ctxmon install`): named through the project
    // folder, once that name is seen to run this version. An agent that gives its hooks no
    // such variable (Codex) keeps the absolute path and the note.
    if let Some(var) = agent.description().install.project_dir_env
        && let Origin::NpmProject { project } = Origin::of(&exe, &bootstrap::env_pairs())
        && project_of(settings).is_some_and(|dir| same_file(dir, &project))
        && npm_bin_runs(&project)
    {
        return Ok(Program {
            word: npm_project_word(var),
            note: None,
        });
    }
    let why = match &on_path {
        Some(other) => format!(
            "the `ctxmon` on PATH is another binary ({})",
            other.display()
        ),
        None => "ctxmon is not on PATH".to_string(),
    };
    // An agent without a local scope keeps personal settings in the user's file.
    let personal = if agent.description().settings.local_file.is_some() {
        "`--scope local`"
    } else {
        "`--scope user`"
    };
    Ok(Program {
        note: Some(format!(
            "{shared_file} is shared, but it now names this machine's binary ({absolute}) because \
             {why}: a teammate without that path gets a failing hook. {personal} keeps \
             machine paths out of shared files; or put this binary on PATH as `ctxmon` ({}) \
             and install again to write the bare `ctxmon`",
            Origin::of(&exe, &bootstrap::env_pairs()).path_fix()
        )),
        word: absolute,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_modules_folders_are_not_a_lasting_path() {
        let env = vec![
            ("HOME".to_string(), "/h".to_string()),
            (
                "PATH".to_string(),
                "/p/node_modules/.bin:/usr/local/bin:/h/.npm/_npx/1/node_modules/.bin:/bin"
                    .to_string(),
            ),
        ];
        let kept = lasting_path(env);
        assert_eq!(kept[0], ("HOME".to_string(), "/h".to_string()));
        assert_eq!(kept[1].1, "/usr/local/bin:/bin");
    }
}
