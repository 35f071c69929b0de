//! The release targets ctxmon knows how to package: target triple, archive name and the npm
//! platform package that carries the binary.
//!
//! The npm launcher (`packaging/npm/ctxmon.js`) keeps the same table by Node's
//! `process.platform`-`process.arch`; a test below keeps the two equal.

/// One release target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform {
    /// The Rust target triple, as in the archive name `ctxmon-<version>-<target>.tar.gz`.
    pub target: &'static str,
    /// The npm platform package's name below the `@ctxmon` scope.
    pub npm: &'static str,
    /// Node's `process.platform` (npm's `os` field).
    pub os: &'static str,
    /// Node's `process.arch` (npm's `cpu` field).
    pub cpu: &'static str,
    /// npm's `libc` field: Linux builds link one C library and cannot run on the other.
    pub libc: Option<&'static str>,
    /// How the package description names the machine.
    pub label: &'static str,
}

impl Platform {
    /// `@ctxmon/<npm>`. A scope we own means nobody else can publish a package the launcher
    /// would pick up, which unscoped `ctxmon-linux-x64` names cannot promise.
    pub fn package_name(&self) -> String {
        format!("@ctxmon/{}", self.npm)
    }

    /// The file `npm pack` makes of the platform package (the scope becomes a prefix).
    pub fn tarball(&self, version: &str) -> String {
        format!("ctxmon-{}-{version}.tgz", self.npm)
    }

    /// The archive `cargo xtask dist` makes for this target.
    pub fn archive(&self, version: &str) -> String {
        format!("ctxmon-{version}-{}.tar.gz", self.target)
    }
}

pub const PLATFORMS: &[Platform] = &[
    Platform {
        target: "x86_64-unknown-linux-gnu",
        npm: "linux-x64-gnu",
        os: "linux",
        cpu: "x64",
        libc: Some("glibc"),
        label: "Linux x64 (glibc)",
    },
    Platform {
        target: "x86_64-unknown-linux-musl",
        npm: "linux-x64-musl",
        os: "linux",
        cpu: "x64",
        libc: Some("musl"),
        label: "Linux x64 (musl)",
    },
    Platform {
        target: "aarch64-unknown-linux-gnu",
        npm: "linux-arm64-gnu",
        os: "linux",
        cpu: "arm64",
        libc: Some("glibc"),
        label: "Linux arm64 (glibc)",
    },
    Platform {
        target: "aarch64-unknown-linux-musl",
        npm: "linux-arm64-musl",
        os: "linux",
        cpu: "arm64",
        libc: Some("musl"),
        label: "Linux arm64 (musl)",
    },
    Platform {
        target: "x86_64-apple-darwin",
        npm: "darwin-x64",
        os: "darwin",
        cpu: "x64",
        libc: None,
        label: "macOS x64",
    },
    Platform {
        target: "aarch64-apple-darwin",
        npm: "darwin-arm64",
        os: "darwin",
        cpu: "arm64",
        libc: None,
        label: "macOS arm64",
    },
];

/// The platform of a target triple, if ctxmon ships one for it.
pub fn for_target(target: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|p| p.target == target)
}

/// The platform whose npm tarball is `file_name` at `version`.
pub fn for_tarball(file_name: &str, version: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|p| p.tarball(version) == file_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launcher_knows_every_platform_package_in_the_same_order() {
        let launcher =
            std::fs::read_to_string(crate::workspace_root().join("packaging/npm/ctxmon.js"))
                .unwrap();
        let mut keys: Vec<String> = Vec::new();
        for p in PLATFORMS {
            let key = format!("{}-{}", p.os, p.cpu);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for key in keys {
            let names: Vec<String> = PLATFORMS
                .iter()
                .filter(|p| format!("{}-{}", p.os, p.cpu) == key)
                .map(|p| format!("'{}'", p.package_name()))
                .collect();
            let line = format!("'{key}': [{}],", names.join(", "));
            assert!(launcher.contains(&line), "ctxmon.js lacks `{line}`");
        }
        let entries = launcher
            .lines()
            .filter(|l| l.contains("': ['@ctxmon/"))
            .count();
        assert_eq!(entries, 4, "ctxmon.js lists a platform xtask does not know");
    }

    #[test]
    fn names_follow_npm_pack_and_the_archive_scheme() {
        let p = for_target("x86_64-unknown-linux-gnu").unwrap();
        assert_eq!(p.package_name(), "@ctxmon/linux-x64-gnu");
        assert_eq!(p.tarball("1.2.3"), "ctxmon-linux-x64-gnu-1.2.3.tgz");
        assert_eq!(
            p.archive("1.2.3"),
            "ctxmon-1.2.3-x86_64-unknown-linux-gnu.tar.gz"
        );
        assert_eq!(
            for_tarball("ctxmon-linux-x64-gnu-1.2.3.tgz", "1.2.3"),
            Some(p)
        );
        assert_eq!(for_tarball("ctxmon-1.2.3.tgz", "1.2.3"), None);
        assert!(for_target("x86_64-pc-windows-msvc").is_none());
    }
}
