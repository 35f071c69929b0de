//! `cargo xtask dist`: release archives, checksums, the installer and the npm packages, all in
//! `target/dist/`. Nothing is uploaded; `.github/workflows/release.yml` runs this same verb on
//! a tag and publishes the result (docs/release.md).
//!
//! Per target: `ctxmon-<version>-<target>.tar.gz` (binary, README, licenses; `archive`) and
//! the npm platform package (`npm`). Then, over everything in the folder (so a release job can
//! gather the archives of several machines first and run `--assemble`): `SHA256SUMS`,
//! `install.sh` (`packaging/install.sh`) and the npm launcher package listing every platform
//! package present. Last, unless `--no-check`, the host's archive is installed with
//! `install.sh --archive` and its npm tarballs offline, and both are run (`check`).

pub mod archive;
pub mod check;
pub mod npm;
pub mod platforms;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use platforms::Platform;

pub const USAGE: &str =
    "cargo xtask dist [--target TRIPLE]... [--binary FILE] [--out DIR] [--assemble] [--no-check]";

/// Command-line options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Targets to build; empty means the host and every other installed target that builds.
    pub targets: Vec<String>,
    /// Package this binary instead of building one (one target: `--target` or the host).
    pub binary: Option<PathBuf>,
    /// Where to write; `target/dist` by default.
    pub out: Option<PathBuf>,
    /// Build nothing: only checksums, installer and launcher over what `out` already holds.
    pub assemble: bool,
    /// Skip installing and running the host's archive and npm packages at the end.
    pub no_check: bool,
}

impl Options {
    pub fn parse(args: &[&str]) -> Result<Options> {
        let mut options = Options::default();
        let mut it = args.iter();
        while let Some(&arg) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .copied()
                    .with_context(|| format!("{name} needs a value\nusage: {USAGE}"))
            };
            match arg {
                "--target" => options.targets.push(value("--target")?.to_owned()),
                "--binary" => options.binary = Some(PathBuf::from(value("--binary")?)),
                "--out" => options.out = Some(PathBuf::from(value("--out")?)),
                "--assemble" => options.assemble = true,
                "--no-check" => options.no_check = true,
                other => bail!("unknown dist argument {other:?}\nusage: {USAGE}"),
            }
        }
        if options.binary.is_some() && options.targets.len() > 1 {
            bail!("--binary packages one target; give at most one --target");
        }
        Ok(options)
    }
}

/// What the packages say about ctxmon, from `cargo metadata` (one source: Cargo.toml).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub version: String,
    pub license: String,
    /// Cargo.toml's `repository`, else the GitHub repository a release workflow runs in
    /// ([`release_repository`]); `None` leaves the npm packages without one (a local build).
    pub repository: Option<String>,
    pub description: String,
}

impl Meta {
    pub fn load(root: &Path) -> Result<Meta> {
        #[derive(Deserialize)]
        struct Package {
            name: String,
            version: String,
            license: Option<String>,
            repository: Option<String>,
        }
        #[derive(Deserialize)]
        struct Metadata {
            packages: Vec<Package>,
        }
        let output = Command::new(crate::cargo())
            .args(["metadata", "--no-deps", "--format-version", "1", "--locked"])
            .current_dir(root)
            .stderr(Stdio::inherit())
            .output()
            .context("running cargo metadata")?;
        if !output.status.success() {
            bail!("cargo metadata failed ({})", output.status);
        }
        let metadata: Metadata =
            serde_json::from_slice(&output.stdout).context("reading cargo metadata")?;
        let cli = metadata
            .packages
            .into_iter()
            .find(|p| p.name == crate::arch::CLI)
            .context("cargo metadata lists no ctxmon-cli")?;
        Ok(Meta {
            version: cli.version,
            license: cli.license.unwrap_or_else(|| "MIT OR Apache-2.0".into()),
            repository: cli.repository.or_else(|| {
                release_repository(
                    std::env::var("GITHUB_SERVER_URL").ok(),
                    std::env::var("GITHUB_REPOSITORY").ok(),
                )
            }),
            description: "Keeps a coding agent's work alive across context-window limits: \
                          context-fill warnings, checkpoints before compaction, the essentials \
                          handed back after it (Claude Code hooks and status line)"
                .into(),
        })
    }
}

/// The repository a GitHub Actions run builds (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY`), when
/// both are set. Cargo.toml names no repository while the project has no public address, but a
/// release runs in one, and npm's provenance check wants `repository` to name it.
pub fn release_repository(server: Option<String>, repository: Option<String>) -> Option<String> {
    let server = server.filter(|s| !s.trim().is_empty())?;
    let repository = repository.filter(|r| !r.trim().is_empty())?;
    Some(format!(
        "{}/{}",
        server.trim_end_matches('/'),
        repository.trim()
    ))
}

pub fn run(root: &Path, options: &Options) -> Result<()> {
    let meta = Meta::load(root)?;
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| root.join("target").join("dist"));
    std::fs::create_dir_all(out.join("npm"))
        .with_context(|| format!("creating {}", out.display()))?;
    let host = host_target()?;
    if !options.assemble {
        let targets = if options.targets.is_empty() {
            default_targets(&host)
        } else {
            options.targets.clone()
        };
        for target in &targets {
            let platform = platforms::for_target(target).with_context(|| {
                format!("ctxmon ships no {target} build (dist/platforms.rs lists the targets)")
            })?;
            let binary = match &options.binary {
                Some(binary) => binary.clone(),
                None => match build(root, target, &host) {
                    Ok(binary) => binary,
                    Err(error) if *target != host && options.targets.is_empty() => {
                        println!("notice: skipping {target}: {error:#}");
                        continue;
                    }
                    Err(error) => return Err(error),
                },
            };
            package_target(root, &meta, platform, &binary, &out)?;
        }
    }
    let summary = assemble(root, &meta, &out)?;
    for line in &summary {
        println!("    {line}");
    }
    if options.no_check {
        return Ok(());
    }
    let platform = platforms::for_target(&host)
        .with_context(|| format!("ctxmon ships no build for this host ({host})"))?;
    println!("==> checking the {host} archive and npm packages");
    for line in check::all(&out, &meta, platform)? {
        println!("    {line}");
    }
    Ok(())
}

/// The archive and npm platform package of one built binary.
pub fn package_target(
    root: &Path,
    meta: &Meta,
    platform: &Platform,
    binary: &Path,
    out: &Path,
) -> Result<()> {
    let folder = format!("ctxmon-{}-{}", meta.version, platform.target);
    let read =
        |path: &Path| std::fs::read(path).with_context(|| format!("reading {}", path.display()));
    let mut entries = vec![
        archive::Entry {
            name: "ctxmon".into(),
            bytes: read(binary)?,
            executable: true,
        },
        archive::Entry {
            name: "README.md".into(),
            bytes: read(&root.join("README.md"))?,
            executable: false,
        },
        archive::Entry {
            name: "LICENSE-MIT".into(),
            bytes: read(&root.join("LICENSE-MIT"))?,
            executable: false,
        },
        archive::Entry {
            name: "LICENSE-APACHE".into(),
            bytes: read(&root.join("LICENSE-APACHE"))?,
            executable: false,
        },
    ];
    // README links into docs/: the pages travel with it, so the links work offline too.
    let mut pages: Vec<_> = std::fs::read_dir(root.join("docs"))
        .context("reading docs/")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let Some(name) = page.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        entries.push(archive::Entry {
            name: format!("docs/{name}"),
            bytes: read(&page)?,
            executable: false,
        });
    }
    let tar = archive::tar(&folder, &entries, source_date(root))?;
    let path = out.join(platform.archive(&meta.version));
    std::fs::write(&path, archive::gzip(&tar)?)
        .with_context(|| format!("writing {}", path.display()))?;
    println!("==> {}", path.display());
    let npm_dir = out.join("npm");
    let package = npm::platform_package(root, meta, platform, binary, &npm_dir)?;
    match npm::pack(&package, &npm_dir)? {
        Some(tarball) => println!("==> {}", tarball.display()),
        None => println!(
            "notice: npm is not installed; {} holds the package unpacked",
            package.display()
        ),
    }
    Ok(())
}

/// `SHA256SUMS`, `install.sh` and the npm launcher over what `out` holds; one line per file.
pub fn assemble(root: &Path, meta: &Meta, out: &Path) -> Result<Vec<String>> {
    let mut archives: Vec<String> = platforms::PLATFORMS
        .iter()
        .map(|p| p.archive(&meta.version))
        .filter(|name| out.join(name).is_file())
        .collect();
    archives.sort();
    if archives.is_empty() {
        bail!(
            "{} holds no ctxmon-{}-<target>.tar.gz to assemble",
            out.display(),
            meta.version
        );
    }
    let mut summary = Vec::new();
    std::fs::copy(root.join("packaging/install.sh"), out.join("install.sh"))
        .context("copying packaging/install.sh")?;
    // install.sh is listed too, so `sha256sum -c --ignore-missing SHA256SUMS` checks a
    // downloaded installer before it runs.
    let mut sums = String::new();
    for name in archives.iter().map(String::as_str).chain(["install.sh"]) {
        let path = out.join(name);
        sums.push_str(&format!("{}  {name}\n", archive::sha256(&path)?));
        summary.push(format!("{name} ({})", size(&path)));
    }
    std::fs::write(out.join("SHA256SUMS"), sums)?;
    summary.push("SHA256SUMS".into());

    let npm_dir = out.join("npm");
    let mut present: Vec<&Platform> = Vec::new();
    for entry in std::fs::read_dir(&npm_dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(p) = platforms::for_tarball(&name, &meta.version) {
            present.push(p);
            summary.push(format!("npm/{name} ({})", size(&npm_dir.join(&name))));
        }
    }
    // Without npm there are no tarballs; the launcher then lists the unpacked packages.
    if present.is_empty() {
        present = platforms::PLATFORMS
            .iter()
            .filter(|p| npm_dir.join(p.npm).join("package.json").is_file())
            .collect();
    }
    present.sort_by_key(|p| p.npm);
    let launcher = npm::launcher_package(root, meta, &present, &npm_dir)?;
    match npm::pack(&launcher, &npm_dir)? {
        Some(tarball) => summary.push(format!("npm/{} ({})", file_name(&tarball), size(&tarball))),
        None => summary.push(format!(
            "{} (unpacked: npm is not installed)",
            launcher.display()
        )),
    }
    Ok(summary)
}

/// The shipped build for `target` (`crate::release_build`; the host's in target/release,
/// shared with the benchmark; others in target/<target>/release) and the binary's path.
fn build(root: &Path, target: &str, host: &str) -> Result<PathBuf> {
    println!("==> {}", crate::release_build::describe(target, host));
    let status = crate::release_build::command(root, target, host, &[])
        .status()
        .context("running cargo rustc")?;
    if !status.success() {
        bail!("the release build for {target} failed ({status})");
    }
    let target_dir = crate::target_dir(root);
    let dir = if target == host {
        target_dir.join("release")
    } else {
        target_dir.join(target).join("release")
    };
    Ok(dir.join("ctxmon"))
}

/// The host's target triple, from `rustc -vV`.
pub fn host_target() -> Result<String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV names no host")
}

/// The host first, then every other installed target ctxmon ships a build for.
fn default_targets(host: &str) -> Vec<String> {
    let mut targets = vec![host.to_owned()];
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    for target in installed.lines().map(str::trim) {
        if target != host && platforms::for_target(target).is_some() {
            targets.push(target.to_owned());
        }
    }
    targets
}

/// The archive's file times: `SOURCE_DATE_EPOCH`, else the commit's time, else 0, so an
/// archive built twice from one commit has the same bytes.
fn source_date(root: &Path) -> u64 {
    if let Some(epoch) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return epoch;
    }
    Command::new("git")
        .args(["log", "-1", "--format=%ct"])
        .current_dir(root)
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(0)
}

fn size(path: &Path) -> String {
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    format!("{:.2} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_names_the_repository_it_runs_in() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            release_repository(some("https://github.com/"), some("acme/ctxmon")).as_deref(),
            Some("https://github.com/acme/ctxmon")
        );
        // Outside GitHub Actions (or half set) nothing is made up.
        assert_eq!(release_repository(None, some("acme/ctxmon")), None);
        assert_eq!(release_repository(some("https://github.com"), None), None);
        assert_eq!(release_repository(some(" "), some("acme/ctxmon")), None);
    }

    #[test]
    fn options_parse_and_refuse_what_cannot_work() {
        let o = Options::parse(&["--target", "x", "--binary", "b", "--out", "d"]).unwrap();
        assert_eq!(o.targets, ["x"]);
        assert_eq!(o.binary, Some(PathBuf::from("b")));
        assert_eq!(o.out, Some(PathBuf::from("d")));
        assert!(!o.assemble && !o.no_check);
        let o = Options::parse(&["--assemble", "--no-check"]).unwrap();
        assert!(o.assemble && o.no_check);
        assert!(Options::parse(&["--binary", "b", "--target", "x", "--target", "y"]).is_err());
        assert!(Options::parse(&["--out"]).is_err());
        assert!(Options::parse(&["--upload"]).is_err());
    }
}
