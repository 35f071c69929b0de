//! Proof that what `cargo xtask dist` wrote installs and runs the way a user would do it:
//! `install.sh --archive` into a temporary prefix, and the npm tarballs installed with the
//! registry unreachable, each then asked for `--version` and a status line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use anyhow::{Context, Result, bail};

use super::Meta;
use super::npm::npm_available;
use super::platforms::Platform;

/// A status-line payload from Claude Code (the README's example): 150,000 of 200,000 tokens.
pub const PAYLOAD: &str = r#"{"session_id":"dist-check","model":{"id":"claude-sonnet-4-5","display_name":"Sonnet"},"context_window":{"context_window_size":200000,"current_usage":{"input_tokens":150000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":10}}}"#;
/// What the status line for [`PAYLOAD`] starts with (`NO_COLOR` set).
pub const STATUSLINE: &str = "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING";

/// Both checks; one line of findings each. npm's is skipped, with a notice, without npm.
pub fn all(out: &Path, meta: &Meta, platform: &Platform) -> Result<Vec<String>> {
    let mut lines = vec![install_from_archive(out, meta, platform)?];
    match npm_install_offline(out, meta, platform)? {
        Some(line) => lines.push(line),
        None => lines.push("notice: npm is not installed; npm packages not checked".into()),
    }
    Ok(lines)
}

/// Runs `sh <installer> <args>` with a clean environment but PATH, and `HOME` = `home`.
pub fn run_installer(installer: &Path, args: &[&std::ffi::OsStr], home: &Path) -> Result<Output> {
    Command::new("sh")
        .arg(installer)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TMPDIR", home)
        .stdin(Stdio::null())
        .output()
        .context("running install.sh")
}

/// `install.sh --prefix <tmp> --archive <archive>`, then the installed binary is run.
pub fn install_from_archive(out: &Path, meta: &Meta, platform: &Platform) -> Result<String> {
    let temp = tempfile::tempdir()?;
    let prefix = temp.path().join("prefix");
    let archive = out.join(platform.archive(&meta.version));
    let run = run_installer(
        &out.join("install.sh"),
        &[
            "--prefix".as_ref(),
            prefix.as_os_str(),
            "--archive".as_ref(),
            archive.as_os_str(),
        ],
        temp.path(),
    )?;
    if !run.status.success() {
        bail!(
            "install.sh --archive failed ({}): {}{}",
            run.status,
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let binary = prefix.join("bin/ctxmon");
    expect_runs(&binary, meta, temp.path())?;
    Ok(format!(
        "install.sh --archive {}: {} runs (--version, statusline)",
        file_name(&archive),
        binary.display()
    ))
}

/// `npm install --offline` of the launcher and platform tarballs into an empty folder, with
/// the registry unreachable and an empty cache, then `npx ctxmon` as the user would run it.
/// `None` without npm.
pub fn npm_install_offline(out: &Path, meta: &Meta, platform: &Platform) -> Result<Option<String>> {
    if !npm_available() {
        return Ok(None);
    }
    let temp = tempfile::tempdir()?;
    let project = temp.path().join("project");
    std::fs::create_dir_all(&project)?;
    let launcher = out.join("npm").join(format!("ctxmon-{}.tgz", meta.version));
    let native = out.join("npm").join(platform.tarball(&meta.version));
    let npm = |args: &[&std::ffi::OsStr], stdin: &str, extra: &[(&str, &str)]| {
        npm_command(temp.path(), &project, args, stdin, extra)
    };
    // `npx --offline ctxmon <args>`, as `npm exec`, which is what npx runs.
    let npx = |args: &[&str], stdin: &str, extra: &[(&str, &str)]| {
        let mut all: Vec<&std::ffi::OsStr> = ["exec", "--offline", "--", "ctxmon"]
            .iter()
            .map(std::ffi::OsStr::new)
            .collect();
        all.extend(args.iter().map(std::ffi::OsStr::new));
        npm_command(temp.path(), &project, &all, stdin, extra)
    };
    let install = npm(
        &[
            "install".as_ref(),
            "--offline".as_ref(),
            "--ignore-scripts".as_ref(),
            launcher.as_os_str(),
            native.as_os_str(),
        ],
        "",
        &[],
    )?;
    require(&install, "npm install --offline")?;

    // Through node first (the launcher kept), then once more letting it link itself.
    let keep = [("NPM_CTXMON_KEEP_LAUNCHER", "1")];
    let version = npx(&["--version"], "", &keep)?;
    require(&version, "npx ctxmon --version")?;
    let want = format!("ctxmon {}", meta.version);
    if String::from_utf8_lossy(&version.stdout).trim() != want {
        bail!(
            "npx ctxmon --version printed {:?}, not {want:?}",
            String::from_utf8_lossy(&version.stdout)
        );
    }
    let line = npx(&["statusline"], PAYLOAD, &keep)?;
    require(&line, "npx ctxmon statusline")?;
    expect_statusline(&line.stdout, "npx ctxmon statusline")?;

    let launcher_file = project.join("node_modules/ctxmon/bin/ctxmon");
    // Run by name with node, as pnpm's shims do: it must stay a script those shims can run.
    let mut node = Command::new("node");
    node.arg(&launcher_file)
        .arg("--version")
        .current_dir(&project);
    let by_name = without_ctxmon_config(&mut node)
        .output()
        .context("running node")?;
    require(&by_name, "node node_modules/ctxmon/bin/ctxmon --version")?;
    if std::fs::symlink_metadata(&launcher_file)?
        .file_type()
        .is_symlink()
    {
        bail!("the launcher replaced itself when run by name with node (pnpm's shims do that)");
    }
    let native_file = project
        .join("node_modules")
        .join(platform.package_name())
        .join("bin/ctxmon");
    let linked = npx(&["statusline"], PAYLOAD, &[])?;
    require(&linked, "npx ctxmon statusline (linking)")?;
    expect_statusline(&linked.stdout, "npx ctxmon statusline (linking)")?;
    let is_link =
        std::fs::symlink_metadata(&launcher_file).is_ok_and(|m| m.file_type().is_symlink());
    let target = std::fs::canonicalize(&launcher_file)?;
    if !is_link || target != std::fs::canonicalize(&native_file)? {
        bail!(
            "the launcher did not replace itself with a link to {}",
            native_file.display()
        );
    }
    let direct = npx(&["statusline"], PAYLOAD, &[])?;
    require(&direct, "npx ctxmon statusline (linked)")?;
    expect_statusline(&direct.stdout, "npx ctxmon statusline (linked)")?;

    // `npx ctxmon install` in a project that depends on ctxmon must register a command every
    // checkout runs (the project's own node_modules/.bin/ctxmon, through the project folder),
    // not this machine's path, the JS launcher or npx; and that command must run the binary
    // where a hook runs it.
    let install_hooks = npx(&["install"], "", &[])?;
    require(&install_hooks, "npx ctxmon install")?;
    let settings = std::fs::read_to_string(project.join(".claude/settings.json"))
        .context("npx ctxmon install wrote no .claude/settings.json")?;
    let value: serde_json::Value =
        serde_json::from_str(&settings).context(".claude/settings.json is not JSON")?;
    let command = value
        .pointer("/hooks/UserPromptSubmit/0/hooks/0/command")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let expected = "\"${CLAUDE_PROJECT_DIR:-.}\"/node_modules/.bin/ctxmon hooks prompt-submit";
    if command != expected {
        bail!("npx ctxmon install registered something else than {expected:?}:\n{settings}");
    }
    let program = command.trim_end_matches(" hooks prompt-submit");
    let ran = Command::new("sh")
        .arg("-c")
        .arg(format!("{program} --version"))
        .current_dir("/")
        .env("CLAUDE_PROJECT_DIR", project)
        .output()
        .context("cannot run sh")?;
    let said = String::from_utf8_lossy(&ran.stdout);
    if !ran.status.success() || !said.starts_with("ctxmon ") {
        bail!("the registered hook command `{program}` does not run ctxmon: {ran:?}");
    }
    let native_path = std::fs::canonicalize(&native_file)?;
    Ok(Some(format!(
        "npm install --offline {} {}: npx ctxmon runs through node, then links itself to {}; \
         `npx ctxmon install` registers the project's node_modules/.bin/ctxmon, which runs it",
        file_name(&launcher),
        file_name(&native),
        native_path.display()
    )))
}

/// npm with the registry unreachable, an empty cache, no user configuration.
fn npm_command(
    temp: &Path,
    project: &Path,
    args: &[&std::ffi::OsStr],
    stdin: &str,
    extra: &[(&str, &str)],
) -> Result<Output> {
    let home = temp.join("home");
    std::fs::create_dir_all(&home)?;
    let mut npm = Command::new("npm");
    let mut child = without_ctxmon_config(&mut npm)
        .args(args)
        .current_dir(project)
        .env("HOME", &home)
        .env("CLAUDE_PROJECT_DIR", project)
        .env("NO_COLOR", "1")
        // Port 9 (discard) on loopback: nothing listens, so any registry request fails fast.
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_cache", temp.join("npm-cache"))
        .env("npm_config_userconfig", temp.join("no-npmrc"))
        .env("npm_config_update_notifier", "false")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_yes", "true")
        .envs(extra.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running npm")?;
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin.as_bytes())?;
    }
    Ok(child.wait_with_output()?)
}

/// `command` without this process's `CTXMON_*` variables: ctxmon reads every one as
/// configuration, and one set for the run (a user's, a test's) would change what the packaged
/// binary does. npm needs the rest of the environment (PATH, node's location).
fn without_ctxmon_config(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let upper = name.to_string_lossy().to_ascii_uppercase();
        if upper.starts_with("CTXMON_") {
            command.env_remove(&name);
        }
    }
    command
}

fn require(output: &Output, what: &str) -> Result<()> {
    if output.status.success() {
        return Ok(());
    }
    bail!(
        "{what} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `binary --version` prints `ctxmon <version>` and `binary statusline` reads [`PAYLOAD`].
pub fn expect_runs(binary: &Path, meta: &Meta, home: &Path) -> Result<()> {
    let version = Command::new(binary)
        .arg("--version")
        .output()
        .with_context(|| format!("running {}", binary.display()))?;
    let want = format!("ctxmon {}", meta.version);
    if String::from_utf8_lossy(&version.stdout).trim() != want {
        bail!(
            "{} --version printed {:?}, not {want:?}",
            binary.display(),
            String::from_utf8_lossy(&version.stdout)
        );
    }
    let mut child = Command::new(binary)
        .arg("statusline")
        .current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    if let Some(mut input) = child.stdin.take() {
        input.write_all(PAYLOAD.as_bytes())?;
    }
    let line = child.wait_with_output()?;
    expect_statusline(&line.stdout, &format!("{} statusline", binary.display()))
}

fn expect_statusline(stdout: &[u8], what: &str) -> Result<()> {
    let text = String::from_utf8_lossy(stdout);
    if !text.starts_with(STATUSLINE) {
        bail!("{what} printed {text:?}, expected it to start with {STATUSLINE:?}");
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Where `cargo test` put the workspace's `ctxmon` binary, judged from the running test
/// executable (`<target>/<profile>/deps/<test>`): `<target>/<profile>/ctxmon`.
pub fn sibling_ctxmon() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?;
    let binary = profile_dir.join("ctxmon");
    binary.is_file().then_some(binary)
}
