//! Session identifiers that are safe to use in file names.

use serde::{Deserialize, Serialize};

use crate::hash::fnv1a64;

/// A session id as it may appear in a file name: `[A-Za-z0-9_-]{1,128}` kept verbatim, anything
/// else (a `/`, a 10 KB string, an empty id) replaced by `h-` and a stable 64-bit hash, so hostile
/// ids can never escape `.ctxmon/state/` yet the same raw id always maps to the same file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionKey(String);

impl SessionKey {
    /// The key for a raw session id: the id itself when safe, else `h-` and its FNV-1a hash.
    pub fn from_raw(raw: &str) -> SessionKey {
        if is_safe(raw) {
            SessionKey(raw.to_string())
        } else {
            SessionKey(format!("h-{:016x}", fnv1a64(raw.as_bytes())))
        }
    }

    /// The key as it appears in file names.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// True when `s` may be used verbatim in a file name.
pub fn is_safe(s: &str) -> bool {
    (1..=128).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn safe_ids_are_kept() {
        assert_eq!(
            SessionKey::from_raw("ef958aa1-19fa_41d2").as_str(),
            "ef958aa1-19fa_41d2"
        );
    }

    #[test]
    fn unsafe_ids_are_hashed_stably() {
        let a = SessionKey::from_raw("../../etc/passwd");
        assert!(a.as_str().starts_with("h-"));
        assert_eq!(a, SessionKey::from_raw("../../etc/passwd"));
        assert_ne!(a, SessionKey::from_raw("../../etc/shadow"));
        assert!(SessionKey::from_raw(&"a".repeat(10_000)).as_str().len() <= 18);
        assert!(SessionKey::from_raw("").as_str().starts_with("h-"));
    }

    proptest! {
        #[test]
        fn every_key_is_file_name_safe(raw in any::<String>()) {
            prop_assert!(is_safe(SessionKey::from_raw(&raw).as_str()));
        }
    }
}
