//! Where Gemini CLI keeps its chats on disk. What a chat says is the library's
//! (`ctxmon_application::readers::gemini`, read through the transcript adapter like every
//! agent's file), and its compression setting is read by `readers::settings::gemini`; this
//! module finds a project's chats and a chat's session id.
//!
//! Where chats live (gemini-cli at commit 5411f113, `packages/core/src/config/storage.ts`):
//! `~/.gemini/tmp/<project>/chats/session-<time>-<first 8 of the session id>.jsonl` (legacy:
//! `.json`), where `<project>` is the sha256 of the project's path in older releases and a short
//! id from `~/.gemini/projects.json` since 2026-02. Rather than follow either naming, a
//! project's newest chat is found by what the chats say: the folder whose `.project_root` file
//! (written beside `chats/`) names the project, else the sha256 folder, else any folder whose
//! newest chat's metadata has the project's hash.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ctxmon_application::readers::detect::SNIFF_BYTES;
use ctxmon_application::readers::gemini;

use crate::fsutil;
use crate::transcript::open_regular;

/// The session id a chat's first object names (`readers::gemini::session_id_of`).
pub fn session_id(path: &Path) -> Option<String> {
    let (file, _) = open_regular(path).ok()?;
    let mut head = Vec::new();
    file.take(SNIFF_BYTES).read_to_end(&mut head).ok()?;
    gemini::session_id_of(&head)
}

/// `~/.gemini`, from `HOME` in `env`.
pub fn gemini_home(env: &[(String, String)]) -> Option<PathBuf> {
    env.iter()
        .find(|(k, v)| k == "HOME" && !v.is_empty())
        .map(|(_, v)| PathBuf::from(v).join(".gemini"))
}

/// The chat files of one project folder under `~/.gemini/tmp`, with their modification times.
fn chats_of(project_folder: &Path) -> Vec<(SystemTime, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(project_folder.join("chats")) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("session-") && (name.ends_with(".jsonl") || name.ends_with(".json"))
        })
        .filter_map(|p| {
            let meta = std::fs::metadata(&p).ok()?;
            meta.is_file()
                .then(|| (meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), p))
        })
        .collect()
}

/// The project's folders under `<home>/tmp`: the one whose `.project_root` names it, and the
/// sha256 one.
fn project_folders(home: &Path, project_dir: &Path) -> Vec<PathBuf> {
    let tmp = home.join("tmp");
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.filter_map(Result::ok) {
            let root = entry.path().join(".project_root");
            let mut ignored = Vec::new();
            let absent = [std::io::ErrorKind::NotFound];
            if let Some(bytes) =
                fsutil::read_consulted_bytes(&root, 64 * 1024, &absent, &mut ignored)
                && Path::new(String::from_utf8_lossy(&bytes).trim()) == project_dir
            {
                out.push(entry.path());
            }
        }
    }
    let hash = sha256_hex(project_dir.to_string_lossy().as_bytes());
    out.push(tmp.join(hash));
    out
}

/// The project's newest Gemini chat and its modification time.
pub fn latest_project_chat(home: &Path, project_dir: &Path) -> Option<(SystemTime, PathBuf)> {
    project_folders(home, project_dir)
        .iter()
        .flat_map(|f| chats_of(f))
        .max()
}

/// The chat of session `id` among the project's chats (the name holds the id's first 8).
pub fn find_session_chat(home: &Path, project_dir: &Path, id: &str) -> Option<PathBuf> {
    let short: String = id.chars().take(8).collect();
    let mut found: Vec<(SystemTime, PathBuf)> = project_folders(home, project_dir)
        .iter()
        .flat_map(|f| chats_of(f))
        .filter(|(_, p)| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| s.ends_with(&short))
        })
        .filter(|(_, p)| session_id(p).as_deref() == Some(id))
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p)
}

/// The lowercase hex sha256 of `bytes`: gemini-cli's older project folder names.
fn sha256_hex(bytes: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = bytes.to_vec();
    let bit_len = (bytes.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in chunk.chunks_exact(4).enumerate().take(16) {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (slot, add) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *slot = slot.wrapping_add(add);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_known_digests() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
