//! Where Claude Code keeps a project's transcripts, for commands run outside a hook (a hook is
//! always told its transcript path).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Candidate `projects/` folders: `$CLAUDE_CONFIG_DIR/projects`, `~/.claude/projects`,
/// `~/.config/claude/projects`, in that order.
pub fn projects_dirs(env: &[(String, String)]) -> Vec<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| PathBuf::from(v))
    };
    let mut dirs = Vec::new();
    if let Some(dir) = var("CLAUDE_CONFIG_DIR") {
        dirs.push(dir.join("projects"));
    }
    if let Some(home) = var("HOME") {
        dirs.push(home.join(".claude").join("projects"));
        dirs.push(home.join(".config").join("claude").join("projects"));
    }
    dirs
}

/// Claude Code names a project's folder after its path with separators turned into `-`. Versions
/// differ on other punctuation, so both spellings are tried.
pub fn project_slugs(project_dir: &Path) -> Vec<String> {
    let path = project_dir.to_string_lossy();
    let all = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>();
    let separators = path
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c == '.' || c == ':' {
                '-'
            } else {
                c
            }
        })
        .collect::<String>();
    if all == separators {
        vec![all]
    } else {
        vec![all, separators]
    }
}

/// The most recently modified session transcript of the project (subagent files excluded).
pub fn latest_transcript(project_dir: &Path, env: &[(String, String)]) -> Option<PathBuf> {
    transcripts_newest_first(project_dir, env)
        .into_iter()
        .next()
        .map(|(_, path)| path)
}

/// Every main transcript of the project (subagents' `agent-*.jsonl` left out) with its time of
/// change, newest first (ties by path, the greater first).
pub fn transcripts_newest_first(
    project_dir: &Path,
    env: &[(String, String)],
) -> Vec<(SystemTime, PathBuf)> {
    let project_dir = fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_path_buf());
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for base in projects_dirs(env) {
        for slug in project_slugs(&project_dir) {
            let Ok(entries) = fs::read_dir(base.join(&slug)) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if !name.ends_with(".jsonl") || name.starts_with("agent-") {
                    continue;
                }
                let Ok(meta) = entry.metadata() else { continue };
                if !meta.is_file() {
                    continue;
                }
                let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((modified, path));
            }
        }
    }
    found.sort_by(|a, b| b.cmp(a));
    found.dedup_by(|a, b| a.1 == b.1);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_claude_codes_naming() {
        assert_eq!(
            project_slugs(Path::new("/home/u/proj")),
            vec!["-home-u-proj".to_string()]
        );
        assert_eq!(
            project_slugs(Path::new("/src/experiments/claude_p")),
            vec![
                "-src-experiments-claude-p".to_string(),
                "-src-experiments-claude_p".to_string()
            ]
        );
    }

    #[test]
    fn finds_the_newest_session_file() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let canonical = fs::canonicalize(project.path()).unwrap();
        let folder = home
            .path()
            .join(".claude/projects")
            .join(&project_slugs(&canonical)[0]);
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join("old.jsonl"), "{}\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(folder.join("new.jsonl"), "{}\n").unwrap();
        fs::write(folder.join("agent-1.jsonl"), "{}\n").unwrap();
        let env = vec![("HOME".to_string(), home.path().display().to_string())];
        assert_eq!(
            latest_transcript(project.path(), &env),
            Some(folder.join("new.jsonl"))
        );
        assert_eq!(latest_transcript(Path::new("/nowhere"), &env), None);
    }
}
