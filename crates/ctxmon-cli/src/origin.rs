//! How this ctxmon binary was installed, read from where it lies, so that advice names the
//! tool the user actually used (install.sh, npm, cargo) instead of assuming Rust.
//!
//! The places are the ones each way of installing uses: install.sh copies the binary to
//! `<prefix>/bin` (default `~/.local/bin`); npm puts it in a platform package,
//! `node_modules/@ctxmon/<platform>/bin/ctxmon`, either in a project (beside its
//! `package.json`), in npm's global folder, or in npx's cache (`_npx`); `cargo install` in
//! `~/.cargo/bin` (or `$CARGO_HOME/bin`); a build from a checkout stays in `target/<profile>`.

use std::path::{Path, PathBuf};

/// Where the running binary came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// npm's platform package in a project's `node_modules`: a dependency of `project`.
    NpmProject { project: PathBuf },
    /// npm's platform package installed globally (`npm install -g`).
    NpmGlobal,
    /// npm's platform package in npx's cache: gone whenever npm clears it.
    NpxCache,
    /// `cargo install`: the binary in `bin`.
    Cargo { bin: PathBuf },
    /// A build in a checkout's `target/` folder.
    Build,
    /// Anything else: a release binary put in `bin` by install.sh, or by hand.
    Release { bin: PathBuf },
}

impl Origin {
    /// The origin of the binary at `exe` (links resolved); `env` gives `HOME` and `CARGO_HOME`.
    pub fn of(exe: &Path, env: &[(String, String)]) -> Origin {
        let var = |name: &str| {
            env.iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| PathBuf::from(v))
        };
        let bin = exe.parent().map(Path::to_path_buf).unwrap_or_default();
        // The nearest `node_modules/@ctxmon` above the binary, and the folder holding it.
        let npm = exe.ancestors().find_map(|a| {
            let modules = a.parent()?;
            (a.file_name()? == "@ctxmon" && modules.file_name()? == "node_modules")
                .then(|| modules.parent().map(Path::to_path_buf).unwrap_or_default())
        });
        if let Some(holder) = npm {
            if exe.components().any(|c| c.as_os_str() == "_npx") {
                return Origin::NpxCache;
            }
            // A project has its package.json beside `node_modules`; npm's global prefix
            // (`<prefix>/lib`) has none.
            return if holder.join("package.json").is_file() {
                Origin::NpmProject { project: holder }
            } else {
                Origin::NpmGlobal
            };
        }
        let cargo_bin = var("CARGO_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".cargo")))
            .map(|c| c.join("bin"));
        if cargo_bin.as_deref() == Some(bin.as_path())
            || bin.ends_with(Path::new(".cargo").join("bin"))
        {
            return Origin::Cargo { bin };
        }
        if bin.parent().and_then(Path::file_name) == Some(std::ffi::OsStr::new("target")) {
            return Origin::Build;
        }
        Origin::Release { bin }
    }

    /// The origin of the running binary; an unknown place reads as a release binary whose
    /// folder is not known.
    pub fn current(env: &[(String, String)]) -> Origin {
        let exe = std::env::current_exe().and_then(std::fs::canonicalize);
        exe.map_or(
            Origin::Release {
                bin: PathBuf::new(),
            },
            |exe| Origin::of(&exe, env),
        )
    }

    /// How to put this binary on PATH, for a shell that does not find it.
    pub fn path_fix(&self) -> String {
        let export = |bin: &Path| {
            if bin.as_os_str().is_empty() {
                return "add the folder that holds ctxmon to PATH in your shell's profile"
                    .to_string();
            }
            format!(
                "add its folder to PATH in your shell's profile: export PATH=\"{}:$PATH\"",
                bin.display()
            )
        };
        match self {
            Origin::Release { bin } => {
                format!("{} (install.sh printed this line)", export(bin))
            }
            Origin::Cargo { bin } => format!(
                "{} (rustup's installer adds it: `. \"$HOME/.cargo/env\"`)",
                export(bin)
            ),
            Origin::NpmGlobal => "add npm's global bin folder to PATH (`npm prefix -g` names the \
                                  folder that holds it), or reinstall with `npm install -g ctxmon`"
                .to_string(),
            Origin::NpmProject { .. } => "it is this project's npm dependency: a shell runs it \
                                          as `npx ctxmon`; `npm install -g ctxmon` puts one on \
                                          PATH"
                .to_string(),
            Origin::NpxCache => "npx runs it from its cache, which npm may clear: install it \
                                 with `npm install -g ctxmon` (or as a project dependency)"
                .to_string(),
            Origin::Build => "install the build: `cargo install --locked --path \
                              crates/ctxmon-cli` puts it in ~/.cargo/bin"
                .to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_way_of_installing_is_recognised_by_its_place() {
        let env = vec![("HOME".to_string(), "/h".to_string())];
        let of = |p: &str| Origin::of(Path::new(p), &env);
        assert_eq!(
            of("/h/.local/bin/ctxmon"),
            Origin::Release {
                bin: "/h/.local/bin".into()
            }
        );
        assert_eq!(
            of("/h/.cargo/bin/ctxmon"),
            Origin::Cargo {
                bin: "/h/.cargo/bin".into()
            }
        );
        assert_eq!(of("/src/ctxmon/target/release/ctxmon"), Origin::Build);
        assert_eq!(
            of("/usr/lib/node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon"),
            Origin::NpmGlobal
        );
        assert_eq!(
            of("/h/.npm/_npx/3f2c/node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon"),
            Origin::NpxCache
        );
        for origin in [of("/h/.local/bin/ctxmon"), Origin::NpmGlobal] {
            assert!(!origin.path_fix().contains("cargo"), "{origin:?}");
        }
    }

    #[test]
    fn a_project_dependency_is_told_from_a_global_install_by_its_package_json() {
        let dir = tempfile::tempdir().expect("temp dir");
        let exe = dir
            .path()
            .join("node_modules/@ctxmon/linux-x64-gnu/bin/ctxmon");
        assert_eq!(Origin::of(&exe, &[]), Origin::NpmGlobal);
        std::fs::write(dir.path().join("package.json"), "{}").expect("package.json");
        assert_eq!(
            Origin::of(&exe, &[]),
            Origin::NpmProject {
                project: dir.path().to_path_buf()
            }
        );
    }
}
