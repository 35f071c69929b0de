//! Gemini CLI's `model.compressionThreshold`: the share of the window at which it compresses
//! the chat, from the project's `.gemini/settings.json`, else the user's `~/.gemini/
//! settings.json` (the first file that sets it decides). A value outside [0.1, 1] or a file
//! that is not JSON is a warning and is ignored.

/// The least `model.compressionThreshold` taken as meant. Gemini CLI takes any share, but below a
/// tenth of the window it would compress on nearly every prompt (what it keeps after a
/// compression is already about that much), and the tiers that count towards the point would
/// all be EMERGENCY, or, towards a point rounding to no tokens, say nothing consistent.
pub const MIN_COMPRESSION_SHARE: f64 = 0.1;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{SettingsSource, env_var, read_file};
use crate::readers::json::comments::blank_comments;
use crate::readers::json::repair;

/// What Gemini CLI's settings say about compression, and what could not be used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadCompression {
    /// `model.compressionThreshold`, within (0, 1], when a file sets it.
    pub share: Option<f64>,
    /// One line per file or value that was ignored.
    pub warnings: Vec<String>,
}

/// `~/.gemini`, from `HOME` in `env`.
pub fn gemini_home(env: &[(String, String)]) -> Option<PathBuf> {
    env_var(env, "HOME").map(|home| PathBuf::from(home).join(".gemini"))
}

/// The settings files Gemini CLI reads for a session in `project_dir`, most specific first.
pub fn settings_files(project_dir: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    let mut files = vec![project_dir.join(".gemini/settings.json")];
    files.extend(gemini_home(env).map(|h| h.join("settings.json")));
    files
}

/// Reads `model.compressionThreshold` for a session in `project_dir` under `env`, the files
/// through `source`.
pub fn read_compression(
    project_dir: &Path,
    env: &[(String, String)],
    source: &mut dyn SettingsSource,
) -> ReadCompression {
    let mut out = ReadCompression::default();
    for path in settings_files(project_dir, env) {
        let Some(bytes) = read_file(source, &path, &mut out.warnings) else {
            continue;
        };
        // Gemini CLI strips comments from its settings before it parses them.
        let text = String::from_utf8_lossy(&bytes);
        let Ok(value) = repair::from_str_lenient::<Value>(&blank_comments(&text)) else {
            out.warnings
                .push(format!("{} is not JSON; ignored", path.display()));
            continue;
        };
        let Some(raw) = value
            .get("model")
            .and_then(|m| m.get("compressionThreshold"))
        else {
            continue;
        };
        match raw.as_f64() {
            Some(share) if (MIN_COMPRESSION_SHARE..=1.0).contains(&share) => {
                out.share = Some(share);
                break;
            }
            Some(share) if share > 0.0 && share < MIN_COMPRESSION_SHARE => out.warnings.push(format!(
                "{}: model.compressionThreshold is {raw}, below {MIN_COMPRESSION_SHARE}, where Gemini CLI would compress on nearly every prompt; ignored as a slip (set 0.1 or more to count towards it)",
                path.display()
            )),
            _ => out.warnings.push(format!(
                "{}: model.compressionThreshold is {raw}, not a number above 0 and at most 1; ignored",
                path.display()
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn read(files: &[(&str, &[u8])]) -> ReadCompression {
        let files: BTreeMap<PathBuf, Vec<u8>> = files
            .iter()
            .map(|(p, b)| (PathBuf::from(p), b.to_vec()))
            .collect();
        let mut source = move |path: &Path| Ok(files.get(path).cloned());
        let env = [("HOME".to_string(), "/h".to_string())];
        read_compression(Path::new("/p"), &env, &mut source)
    }

    #[test]
    fn a_file_with_comments_is_read_as_gemini_cli_reads_it() {
        let commented: &[u8] =
            b"{\n  // compress later\n  \"model\": {\"compressionThreshold\": 0.7 /* of 1 */}\n}";
        let read = read(&[("/p/.gemini/settings.json", commented)]);
        assert_eq!((read.share, read.warnings.len()), (Some(0.7), 0));
    }

    #[test]
    fn the_project_beats_the_user_and_bad_values_are_ignored() {
        let project: &[u8] = br#"{"model":{"compressionThreshold":0.6}}"#;
        let user: &[u8] = br#"{"model":{"compressionThreshold":0.8}}"#;
        let both = read(&[
            ("/p/.gemini/settings.json", project),
            ("/h/.gemini/settings.json", user),
        ]);
        assert_eq!((both.share, both.warnings.len()), (Some(0.6), 0));
        // Absurdly small shares are refused with a note, as Gemini CLI would compress at once.
        for tiny in ["0.0000001", "0.07"] {
            let text = format!(r#"{{"model":{{"compressionThreshold":{tiny}}}}}"#);
            let r = read(&[
                ("/p/.gemini/settings.json", text.as_bytes()),
                ("/h/.gemini/settings.json", user),
            ]);
            assert_eq!(r.share, Some(0.8), "{tiny}");
            assert!(
                r.warnings.len() == 1 && r.warnings[0].contains("below 0.1"),
                "{:?}",
                r.warnings
            );
        }
        let least: &[u8] = br#"{"model":{"compressionThreshold":0.1}}"#;
        assert_eq!(
            read(&[("/p/.gemini/settings.json", least)]).share,
            Some(0.1)
        );
        let bad: &[u8] = br#"{"model":{"compressionThreshold":7}}"#;
        let fallback = read(&[
            ("/p/.gemini/settings.json", bad),
            ("/h/.gemini/settings.json", user),
        ]);
        assert_eq!(fallback.share, Some(0.8));
        assert_eq!(fallback.warnings.len(), 1, "{:?}", fallback.warnings);
        for broken in [
            &b"{oops"[..],
            b"\xff\xfe",
            br#"{"model":{"compressionThreshold":"half"}}"#,
        ] {
            let r = read(&[("/p/.gemini/settings.json", broken)]);
            assert_eq!((r.share, r.warnings.len()), (None, 1), "{broken:?}");
        }
        assert_eq!(read(&[]), ReadCompression::default());
    }
}
