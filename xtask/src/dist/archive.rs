//! Reproducible `.tar.gz` archives and SHA-256 sums.
//!
//! The tar stream is written here (ustar: one folder, regular files, fixed owner, mode and
//! time), so the same inputs give the same bytes on any machine, whatever `tar` is installed
//! (GNU and BSD tar disagree on the flags that would pin these). Compression and hashing use
//! the system's `gzip -n` and `sha256sum` (or `shasum -a 256` on macOS), which every release
//! machine has; the installer verifies with the same tools.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// One file of an archive: its name inside the archive's top folder, its bytes and whether it
/// is executable.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

const BLOCK: usize = 512;

/// The uncompressed tar stream: `folder/` and then each entry as `folder/<name>`.
pub fn tar(folder: &str, entries: &[Entry], mtime: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.extend(header(&format!("{folder}/"), 0o755, 0, mtime, b'5')?);
    let mut folders = std::collections::BTreeSet::new();
    for entry in entries {
        // A file in a subfolder (`docs/x.md`) follows its folder's own entry, so the folder
        // gets the archive's fixed mode and time rather than whatever `tar` would make.
        if let Some((parent, _)) = entry.name.rsplit_once('/')
            && folders.insert(parent.to_string())
        {
            out.extend(header(
                &format!("{folder}/{parent}/"),
                0o755,
                0,
                mtime,
                b'5',
            )?);
        }
        let mode = if entry.executable { 0o755 } else { 0o644 };
        let name = format!("{folder}/{}", entry.name);
        out.extend(header(&name, mode, entry.bytes.len() as u64, mtime, b'0')?);
        out.extend_from_slice(&entry.bytes);
        let pad = (BLOCK - entry.bytes.len() % BLOCK) % BLOCK;
        out.extend(std::iter::repeat_n(0u8, pad));
    }
    // The end of the archive: two zero blocks.
    out.extend(std::iter::repeat_n(0u8, 2 * BLOCK));
    Ok(out)
}

/// A ustar header block; names up to 100 bytes are all a release needs.
fn header(name: &str, mode: u32, size: u64, mtime: u64, kind: u8) -> Result<[u8; BLOCK]> {
    let mut h = [0u8; BLOCK];
    if name.len() > 100 || !name.is_ascii() {
        bail!("archive entry name {name:?} is not ASCII of at most 100 bytes");
    }
    h[..name.len()].copy_from_slice(name.as_bytes());
    octal(&mut h[100..108], u64::from(mode));
    octal(&mut h[108..116], 0); // uid
    octal(&mut h[116..124], 0); // gid
    octal(&mut h[124..136], size);
    octal(&mut h[136..148], mtime);
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[265..269].copy_from_slice(b"root");
    h[297..301].copy_from_slice(b"root");
    // The checksum is computed with its own field read as eight spaces.
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let text = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(text.as_bytes());
    Ok(h)
}

/// `value` as zero-padded octal filling `field` but its last byte, which stays NUL.
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    field[..width].copy_from_slice(&text.as_bytes()[text.len() - width..]);
}

/// `gzip -n -6` of `bytes` (`-n`: no name or time in the header, so the bytes are
/// reproducible). Level 6, gzip's default: `-9` made the release archive 0.6% smaller in three
/// times the time.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut child = Command::new("gzip")
        .args(["-n", "-6", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("running gzip (is it installed?)")?;
    let mut stdin = child.stdin.take().context("gzip's stdin")?;
    let input = bytes.to_vec();
    // Written from a thread: gzip's output pipe would fill while we are still writing.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().context("waiting for gzip")?;
    match writer.join() {
        Ok(result) => result.context("writing to gzip")?,
        Err(_) => bail!("the thread writing to gzip panicked"),
    }
    if !output.status.success() {
        bail!("gzip failed ({})", output.status);
    }
    Ok(output.stdout)
}

/// The SHA-256 of a file in lower-case hex, by `sha256sum` or else `shasum -a 256`.
pub fn sha256(path: &Path) -> Result<String> {
    let attempts: [(&str, &[&str]); 2] = [("sha256sum", &[]), ("shasum", &["-a", "256"])];
    for (program, args) in attempts {
        let Ok(output) = Command::new(program).args(args).arg(path).output() else {
            continue;
        };
        if !output.status.success() {
            bail!("{program} {} failed ({})", path.display(), output.status);
        }
        let text = String::from_utf8_lossy(&output.stdout);
        let hex = text.split_whitespace().next().unwrap_or_default();
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("{program} printed {text:?} for {}", path.display());
        }
        return Ok(hex.to_ascii_lowercase());
    }
    bail!("neither sha256sum nor shasum is installed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<Entry> {
        vec![
            Entry {
                name: "tool".into(),
                bytes: b"#!/bin/sh\necho hi\n".to_vec(),
                executable: true,
            },
            Entry {
                name: "README.md".into(),
                bytes: vec![b'x'; 1500],
                executable: false,
            },
        ]
    }

    /// The system's tar reads what we write, with the names, modes and contents we meant.
    #[test]
    fn system_tar_unpacks_the_archive_with_modes_and_contents() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.tar.gz");
        let bytes = gzip(&tar("pkg-1.0", &entries(), 1_700_000_000).unwrap()).unwrap();
        std::fs::write(&archive, &bytes).unwrap();
        let status = Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let tool = dir.path().join("pkg-1.0/tool");
        assert_eq!(std::fs::read(&tool).unwrap(), b"#!/bin/sh\necho hi\n");
        assert_eq!(
            std::fs::metadata(&tool).unwrap().permissions().mode() & 0o777,
            0o755
        );
        let readme = dir.path().join("pkg-1.0/README.md");
        assert_eq!(std::fs::read(&readme).unwrap().len(), 1500);
        assert_eq!(
            std::fs::metadata(&readme).unwrap().permissions().mode() & 0o777,
            0o644
        );
        // Same inputs, same bytes.
        let again = gzip(&tar("pkg-1.0", &entries(), 1_700_000_000).unwrap()).unwrap();
        assert_eq!(bytes, again);
    }

    #[test]
    fn long_or_non_ascii_names_are_refused() {
        let mut e = entries();
        e[0].name = "x".repeat(120);
        assert!(tar("pkg", &e, 0).is_err());
        e[0].name = "é".into();
        assert!(tar("pkg", &e, 0).is_err());
    }

    #[test]
    fn sha256_matches_the_known_digest() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("abc");
        std::fs::write(&file, b"abc").unwrap();
        assert_eq!(
            sha256(&file).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
