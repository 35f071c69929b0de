//! The npm packages, laid out the way ccusage and esbuild ship native binaries: a launcher
//! package `ctxmon` (the `ctxmon` command, `optionalDependencies` on every platform package of
//! the release) and one package per platform holding the binary, `@ctxmon/<os>-<cpu>[-<libc>]`,
//! whose `os`/`cpu`/`libc` fields make npm install only the one that fits the machine.
//! Both become `npm pack` tarballs in `target/dist/npm/`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::Meta;
use super::platforms::Platform;

/// Writes the platform package's folder `<npm_dir>/<platform.npm>/` and returns it.
pub fn platform_package(
    root: &Path,
    meta: &Meta,
    platform: &Platform,
    binary: &Path,
    npm_dir: &Path,
) -> Result<PathBuf> {
    let dir = fresh_dir(&npm_dir.join(platform.npm))?;
    let mut fields = vec![
        ("name", json!(platform.package_name())),
        ("version", json!(meta.version)),
        (
            "description",
            json!(format!(
                "The ctxmon binary for {}; install `ctxmon`, which picks this package",
                platform.label
            )),
        ),
        ("license", json!(meta.license)),
        ("repository", json!(meta.repository)),
        ("os", json!([platform.os])),
        ("cpu", json!([platform.cpu])),
    ];
    if let Some(libc) = platform.libc {
        fields.push(("libc", json!([libc])));
    }
    fields.extend([
        (
            "files",
            json!(["bin/ctxmon", "LICENSE-MIT", "LICENSE-APACHE", "README.md"]),
        ),
        // Yarn's Plug'n'Play must unpack the package for the binary to be executable.
        ("preferUnplugged", json!(true)),
        ("publishConfig", json!({"access": "public"})),
    ]);
    std::fs::write(dir.join("package.json"), object(&fields))?;
    std::fs::write(
        dir.join("README.md"),
        format!(
            "# {}\n\nThe `ctxmon` binary for {}. Install the `ctxmon` package instead; it \
             depends on this one.\n",
            platform.package_name(),
            platform.label
        ),
    )?;
    copy_licenses(root, &dir)?;
    std::fs::create_dir_all(dir.join("bin"))?;
    copy_executable(binary, &dir.join("bin/ctxmon"))?;
    Ok(dir)
}

/// Writes the launcher package's folder `<npm_dir>/ctxmon/`, depending on `platforms`.
pub fn launcher_package(
    root: &Path,
    meta: &Meta,
    platforms: &[&Platform],
    npm_dir: &Path,
) -> Result<PathBuf> {
    let dir = fresh_dir(&npm_dir.join("ctxmon"))?;
    let optional: serde_json::Map<String, Value> = platforms
        .iter()
        .map(|p| (p.package_name(), json!(meta.version)))
        .collect();
    let fields = [
        ("name", json!("ctxmon")),
        ("version", json!(meta.version)),
        ("description", json!(meta.description)),
        ("license", json!(meta.license)),
        ("repository", json!(meta.repository)),
        (
            "keywords",
            json!([
                "claude-code",
                "context",
                "compaction",
                "hooks",
                "statusline"
            ]),
        ),
        ("bin", json!({"ctxmon": "bin/ctxmon"})),
        (
            "files",
            json!(["bin/ctxmon", "LICENSE-MIT", "LICENSE-APACHE", "README.md"]),
        ),
        ("engines", json!({"node": ">=14"})),
        ("optionalDependencies", Value::Object(optional)),
    ];
    std::fs::write(dir.join("package.json"), object(&fields))?;
    std::fs::copy(root.join("README.md"), dir.join("README.md")).context("copying README.md")?;
    copy_licenses(root, &dir)?;
    std::fs::create_dir_all(dir.join("bin"))?;
    copy_executable(
        &root.join("packaging/npm/ctxmon.js"),
        &dir.join("bin/ctxmon"),
    )?;
    Ok(dir)
}

/// `npm pack` of `package` into `dest`; the tarball's path. `None` when npm is not installed.
pub fn pack(package: &Path, dest: &Path) -> Result<Option<PathBuf>> {
    if !npm_available() {
        return Ok(None);
    }
    let output = Command::new("npm")
        .args(["pack", "--json", "--pack-destination"])
        .arg(dest)
        .current_dir(package)
        .env("npm_config_update_notifier", "false")
        .env("npm_config_fund", "false")
        .output()
        .context("running npm pack")?;
    if !output.status.success() {
        bail!(
            "npm pack in {} failed ({}): {}",
            package.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let report: Value = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("npm pack printed no JSON in {}", package.display()))?;
    let file = report[0]["filename"]
        .as_str()
        .context("npm pack's report names no file")?;
    // npm 7+ names scoped tarballs `scope-name-version.tgz`; older ones kept the `@`.
    let file = file.trim_start_matches('@').replace('/', "-");
    Ok(Some(dest.join(file)))
}

/// True when `npm --version` runs.
pub fn npm_available() -> bool {
    Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn fresh_dir(dir: &Path) -> Result<PathBuf> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("emptying {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.to_path_buf())
}

fn copy_licenses(root: &Path, dir: &Path) -> Result<()> {
    for name in ["LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(root.join(name), dir.join(name))
            .with_context(|| format!("copying {name}"))?;
    }
    Ok(())
}

fn copy_executable(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// A JSON object with its keys in the order given (package.json reads best that way, and
/// serde_json sorts keys without its `preserve_order` feature). A `null` field is left out: a
/// repository a local build does not know is absent, not `null`.
fn object(fields: &[(&str, Value)]) -> String {
    let fields: Vec<&(&str, Value)> = fields.iter().filter(|(_, v)| !v.is_null()).collect();
    let mut out = String::from("{\n");
    for (index, (key, value)) in fields.iter().enumerate() {
        let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
        let pretty = pretty.replace('\n', "\n  ");
        let comma = if index + 1 < fields.len() { "," } else { "" };
        out.push_str(&format!("  {}: {pretty}{comma}\n", json!(key)));
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_keep_key_order_and_parse_back() {
        let text = object(&[
            ("b", json!(1)),
            ("a", json!({"z": [1, 2], "y": "x"})),
            ("repository", Value::Null),
        ]);
        assert!(text.find("\"b\"").unwrap() < text.find("\"a\"").unwrap());
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, json!({"b": 1, "a": {"z": [1, 2], "y": "x"}}));
    }
}
