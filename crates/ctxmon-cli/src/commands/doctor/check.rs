//! One doctor check's result and how it is shown: a status, what was found, how to fix it.

use serde::Serialize;

/// Ordered by severity, so the worst of several findings is their maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Nothing to check yet (no transcript, no status line configured): not a problem.
    Skip,
    Warn,
    Fail,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skip => "skip",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }

    fn color(self) -> &'static str {
        match self {
            Status::Ok => "\x1b[32m",
            Status::Skip => "\x1b[2m",
            Status::Warn => "\x1b[33m",
            Status::Fail => "\x1b[1;31m",
        }
    }

    pub fn is_problem(self) -> bool {
        self >= Status::Warn
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// A stable name: `binary`, `settings`, `hook SessionStart`, `config`, …
    pub check: String,
    pub status: Status,
    pub message: String,
    /// What to do about it; absent when there is nothing to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Supporting lines (the logged hook problems); shown in JSON only, so text stays one line
    /// per check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

impl Check {
    pub fn new(check: impl Into<String>, status: Status, message: impl Into<String>) -> Check {
        Check {
            check: check.into(),
            status,
            message: message.into(),
            fix: None,
            details: Vec::new(),
        }
    }

    pub fn ok(check: impl Into<String>, message: impl Into<String>) -> Check {
        Check::new(check, Status::Ok, message)
    }

    pub fn with_fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }

    pub fn with_details(mut self, details: Vec<String>) -> Check {
        self.details = details;
        self
    }
}

/// One line per check, names aligned: `fail  hook SessionStart  … · fix: …`.
pub fn render(checks: &[Check], color: bool) -> String {
    let width = checks
        .iter()
        .map(|c| c.check.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for c in checks {
        let label = format!("{:<4}", c.status.label());
        let label = if color {
            format!("{}{label}{}", c.status.color(), crate::render::RESET)
        } else {
            label
        };
        out.push_str(&format!("{label}  {:<width$}  {}", c.check, c.message));
        if let Some(fix) = &c.fix {
            // A skipped check has nothing to fix, only something worth knowing.
            let label = if c.status.is_problem() { "fix" } else { "tip" };
            out.push_str(&format!(" · {label}: {fix}"));
        }
        out.push('\n');
    }
    out
}

/// The closing line: how many problems, or that all is well.
pub fn summary(checks: &[Check]) -> String {
    let fails = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warns = checks.iter().filter(|c| c.status == Status::Warn).count();
    match (fails, warns) {
        (0, 0) => format!("all {} checks passed", checks.len()),
        _ => format!(
            "{} problem{} ({fails} failed, {warns} warned) in {} checks",
            fails + warns,
            if fails + warns == 1 { "" } else { "s" },
            checks.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_align_and_carry_the_fix() {
        let checks = [
            Check::ok("binary", "on PATH"),
            Check::new("hook SessionStart", Status::Fail, "matcher `compact`")
                .with_fix("remove the matcher"),
        ];
        let text = render(&checks, false);
        assert_eq!(
            text,
            "ok    binary             on PATH\n\
             fail  hook SessionStart  matcher `compact` · fix: remove the matcher\n"
        );
        assert_eq!(
            summary(&checks),
            "1 problem (1 failed, 0 warned) in 2 checks"
        );
        assert_eq!(summary(&checks[..1]), "all 1 checks passed");
        assert!(Status::Warn.is_problem() && !Status::Skip.is_problem());
    }
}
