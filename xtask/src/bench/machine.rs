//! What the benchmark ran on: date, commit, CPUs, memory, kernel, compiler and load. Anything
//! that cannot be found reads "unknown": a report header is no reason to fail a benchmark.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use ctxmon_domain::Timestamp;

/// The report header's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub date: String,
    pub commit: String,
    pub cpus: String,
    pub cpu_model: String,
    pub memory: String,
    pub kernel: String,
    pub rustc: String,
    pub load_before: String,
}

const UNKNOWN: &str = "unknown";

impl Machine {
    pub fn probe(root: &Path) -> Machine {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .ok()
            .and_then(|d| i64::try_from(d.as_millis()).ok())
            .unwrap_or(0);
        let date = Timestamp::from_millis(millis).to_rfc3339();
        let cpus = std::thread::available_parallelism()
            .map_or_else(|_| UNKNOWN.to_owned(), |n| n.to_string());
        let cpu_model = read("/proc/cpuinfo")
            .and_then(|t| field(&t, "model name"))
            .unwrap_or_else(|| UNKNOWN.to_owned());
        let memory = read("/proc/meminfo")
            .and_then(|t| field(&t, "MemTotal"))
            .and_then(|v| v.trim_end_matches(" kB").trim().parse::<u64>().ok())
            .map_or_else(
                || UNKNOWN.to_owned(),
                |kib| format!("{:.1} GiB", kib as f64 / 1024.0 / 1024.0),
            );
        let kernel = read("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|| UNKNOWN.to_owned());
        let rustc = output("rustc", &["--version"], root).unwrap_or_else(|| UNKNOWN.to_owned());
        Machine {
            date,
            commit: commit(root),
            cpus,
            cpu_model,
            memory,
            kernel,
            rustc,
            load_before: load_average(),
        }
    }
}

/// The 1, 5 and 15 minute load averages from `/proc/loadavg`.
pub fn load_average() -> String {
    read("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|| UNKNOWN.to_owned())
}

fn commit(root: &Path) -> String {
    let Some(hash) = output("git", &["rev-parse", "--short=12", "HEAD"], root) else {
        return UNKNOWN.to_owned();
    };
    let dirty = output(
        "git",
        &["status", "--porcelain", "--untracked-files=no"],
        root,
    )
    .is_some_and(|s| !s.is_empty());
    if dirty {
        format!("`{hash}` + uncommitted changes")
    } else {
        format!("`{hash}`")
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The value of the first `key : value` line of a `/proc` file.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_owned())
}

fn output(program: &str, args: &[&str], dir: &Path) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_fields_are_found_by_key() {
        let text =
            "processor\t: 0\nmodel name\t: Example CPU @ 3.0GHz\nMemTotal:       24576000 kB\n";
        assert_eq!(
            field(text, "model name").as_deref(),
            Some("Example CPU @ 3.0GHz")
        );
        assert_eq!(field(text, "MemTotal").as_deref(), Some("24576000 kB"));
        assert_eq!(field(text, "missing"), None);
    }
}
