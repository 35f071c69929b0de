//! `cargo xtask dist` end to end on the workspace's debug `ctxmon` (a release build would cost
//! minutes): the archive, SHA256SUMS, install.sh and npm tarballs are written, then installed
//! the way a user would (`install.sh --archive` into a temporary prefix, a local release
//! folder, npm offline) and run; a corrupted archive installs nothing.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use xtask::dist::{self, Meta, check, platforms};

struct Dist {
    _dir: tempfile::TempDir,
    out: PathBuf,
    meta: Meta,
    platform: &'static platforms::Platform,
}

/// One dist folder for every test of this file: packaging is the slow part.
fn dist() -> Option<&'static Dist> {
    static DIST: OnceLock<Option<Dist>> = OnceLock::new();
    DIST.get_or_init(|| {
        let Some(binary) = check::sibling_ctxmon() else {
            eprintln!(
                "notice: no ctxmon binary beside this test (run `cargo test --workspace`); skipping"
            );
            return None;
        };
        let root = xtask::workspace_root();
        let meta = Meta::load(&root).unwrap();
        let host = dist::host_target().unwrap();
        let Some(platform) = platforms::for_target(&host) else {
            eprintln!("notice: ctxmon ships no {host} build; skipping");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let binary = without_debug_info(&binary, dir.path());
        let out = dir.path().join("dist");
        std::fs::create_dir_all(out.join("npm")).unwrap();
        dist::package_target(&root, &meta, platform, &binary, &out).unwrap();
        dist::assemble(&root, &meta, &out).unwrap();
        Some(Dist {
            _dir: dir,
            out,
            meta,
            platform,
        })
    })
    .as_ref()
}

/// A copy of the debug binary without its debug info (79 MB to 19 MB here), which makes
/// compressing and unpacking it several times faster; the binary itself when `objcopy`
/// (binutils, there wherever Rust links on Linux) is missing.
fn without_debug_info(binary: &Path, dir: &Path) -> PathBuf {
    let copy = dir.join("ctxmon");
    let stripped = Command::new("objcopy")
        .arg("--strip-debug")
        .arg(binary)
        .arg(&copy)
        .status()
        .is_ok_and(|s| s.success());
    if stripped {
        copy
    } else {
        eprintln!("notice: objcopy unavailable; packaging the debug binary as it is");
        binary.to_path_buf()
    }
}

fn archive(d: &Dist) -> PathBuf {
    d.out.join(d.platform.archive(&d.meta.version))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_archive_holds_binary_readme_docs_and_licenses_and_sums_match() {
    let Some(d) = dist() else { return };
    let listing = Command::new("tar")
        .arg("-tzvf")
        .arg(archive(d))
        .output()
        .unwrap();
    assert!(listing.status.success());
    let listing = text(&listing.stdout);
    let folder = format!("ctxmon-{}-{}", d.meta.version, d.platform.target);
    for (file, mode) in [
        ("ctxmon", "-rwxr-xr-x"),
        ("README.md", "-rw-r--r--"),
        ("LICENSE-MIT", "-rw-r--r--"),
        ("LICENSE-APACHE", "-rw-r--r--"),
        // README's links lead into docs/, which travels with it.
        ("docs/", "drwxr-xr-x"),
        ("docs/hooks.md", "-rw-r--r--"),
        ("docs/contract.md", "-rw-r--r--"),
    ] {
        let line = listing
            .lines()
            .find(|l| l.ends_with(&format!(" {folder}/{file}")))
            .unwrap_or_else(|| panic!("{file} missing:\n{listing}"));
        assert!(line.starts_with(mode), "{line}");
    }
    let sums = std::fs::read_to_string(d.out.join("SHA256SUMS")).unwrap();
    let name = d.platform.archive(&d.meta.version);
    let digest = xtask::dist::archive::sha256(&archive(d)).unwrap();
    let installer = xtask::dist::archive::sha256(&d.out.join("install.sh")).unwrap();
    assert_eq!(sums, format!("{digest}  {name}\n{installer}  install.sh\n"));
    // `sha256sum -c` accepts the file as written.
    if Command::new("sha256sum").arg("--version").output().is_ok() {
        let verify = Command::new("sha256sum")
            .args(["-c", "SHA256SUMS"])
            .current_dir(&d.out)
            .output()
            .unwrap();
        assert!(verify.status.success(), "{}", text(&verify.stdout));
    }
}

#[test]
fn install_sh_installs_from_the_archive_and_the_binary_runs() {
    let Some(d) = dist() else { return };
    let line = check::install_from_archive(&d.out, &d.meta, d.platform).unwrap();
    assert!(line.contains("runs"), "{line}");
}

#[test]
fn install_sh_installs_from_a_release_folder_and_explains_path() {
    let Some(d) = dist() else { return };
    let temp = tempfile::tempdir().unwrap();
    let prefix = temp.path().join("p");
    let run = check::run_installer(
        &d.out.join("install.sh"),
        &[
            OsStr::new("--prefix"),
            prefix.as_os_str(),
            OsStr::new("--target"),
            OsStr::new(d.platform.target),
            d.out.as_os_str(),
        ],
        temp.path(),
    )
    .unwrap();
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", text(&run.stderr));
    let bin = prefix.join("bin");
    check::expect_runs(&bin.join("ctxmon"), &d.meta, temp.path()).unwrap();
    assert!(stdout.contains("checksum ok"), "{stdout}");
    assert!(
        stdout.contains(&format!("{} is not on your PATH", bin.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("export PATH=\"{}:$PATH\"", bin.display())),
        "{stdout}"
    );
    assert!(stdout.contains("ctxmon install"), "{stdout}");
}

/// Runs install.sh with `args` into a fresh prefix; the prefix must stay empty.
fn refused(args: &[&OsStr], home: &Path) -> String {
    let prefix = home.join("prefix");
    let mut all: Vec<&OsStr> = vec![OsStr::new("--prefix"), prefix.as_os_str()];
    all.extend_from_slice(args);
    let d = dist().unwrap();
    let run = check::run_installer(&d.out.join("install.sh"), &all, home).unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    assert!(!prefix.exists(), "something was installed");
    let stderr = text(&run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("install.sh: error: "), "{stderr}");
    stderr
}

#[test]
fn a_corrupted_archive_installs_nothing_and_says_why() {
    let Some(d) = dist() else { return };
    let temp = tempfile::tempdir().unwrap();
    let copy = temp.path().join(d.platform.archive(&d.meta.version));
    let mut bytes = std::fs::read(archive(d)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(&copy, &bytes).unwrap();
    let sums = d.out.join("SHA256SUMS");
    let stderr = refused(
        &[
            OsStr::new("--archive"),
            copy.as_os_str(),
            OsStr::new("--sums"),
            sums.as_os_str(),
        ],
        temp.path(),
    );
    assert!(stderr.contains("checksum mismatch for"), "{stderr}");
    assert!(stderr.contains("nothing was installed"), "{stderr}");

    // Without SHA256SUMS beside it, an archive is not installed unverified.
    let stderr = refused(&[OsStr::new("--archive"), copy.as_os_str()], temp.path());
    assert!(stderr.contains("no SHA256SUMS beside"), "{stderr}");

    // A release without an archive for the requested target.
    let stderr = refused(
        &[
            OsStr::new("--target"),
            OsStr::new("sparc-sun-solaris"),
            d.out.as_os_str(),
        ],
        temp.path(),
    );
    assert!(
        stderr.contains("no archive for sparc-sun-solaris"),
        "{stderr}"
    );
}

#[test]
fn the_npm_tarballs_install_offline_and_run() {
    let Some(d) = dist() else { return };
    match check::npm_install_offline(&d.out, &d.meta, d.platform).unwrap() {
        Some(line) => assert!(line.contains("links itself"), "{line}"),
        None => eprintln!("notice: npm is not installed; npm packages not checked"),
    }
}

#[test]
fn npm_packages_carry_the_licenses_and_the_right_fields() {
    let Some(d) = dist() else { return };
    let npm = d.out.join("npm");
    let launcher: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(npm.join("ctxmon/package.json")).unwrap())
            .unwrap();
    assert_eq!(launcher["bin"]["ctxmon"], "bin/ctxmon");
    assert_eq!(
        launcher["optionalDependencies"][d.platform.package_name()],
        d.meta.version
    );
    assert!(launcher.get("scripts").is_none(), "no install scripts");
    let native_dir = npm.join(d.platform.npm);
    let native: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(native_dir.join("package.json")).unwrap())
            .unwrap();
    assert_eq!(native["name"], d.platform.package_name());
    assert_eq!(native["os"][0], d.platform.os);
    assert_eq!(native["cpu"][0], d.platform.cpu);
    assert!(
        native.get("bin").is_none(),
        "only the launcher provides the command"
    );
    for dir in [npm.join("ctxmon"), native_dir] {
        for file in ["LICENSE-MIT", "LICENSE-APACHE", "README.md", "bin/ctxmon"] {
            assert!(dir.join(file).is_file(), "{} lacks {file}", dir.display());
        }
    }
    let Ok(list) = Command::new("tar")
        .arg("-tzf")
        .arg(npm.join(d.platform.tarball(&d.meta.version)))
        .output()
    else {
        return;
    };
    let list = text(&list.stdout);
    if list.is_empty() {
        eprintln!("notice: npm is not installed; no tarballs to list");
        return;
    }
    for file in [
        "package/LICENSE-MIT",
        "package/LICENSE-APACHE",
        "package/bin/ctxmon",
    ] {
        assert!(list.lines().any(|l| l == file), "{file} not in:\n{list}");
    }
}

/// The installer is POSIX sh: dash parses it, and shellcheck (when installed) finds nothing.
#[test]
fn install_sh_is_posix_sh() {
    let script = xtask::workspace_root().join("packaging/install.sh");
    for shell in ["sh", "dash"] {
        match Command::new(shell).arg("-n").arg(&script).output() {
            Ok(out) => assert!(out.status.success(), "{shell}: {}", text(&out.stderr)),
            Err(_) => eprintln!("notice: {shell} is not installed; not parsed with it"),
        }
    }
    match Command::new("shellcheck")
        .args(["-s", "sh"])
        .arg(&script)
        .output()
    {
        Ok(out) => assert!(out.status.success(), "{}", text(&out.stdout)),
        Err(_) => eprintln!("notice: shellcheck is not installed; install.sh not linted"),
    }
}
