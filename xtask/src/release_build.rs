//! How the shipped `ctxmon` is built: the one `cargo xtask dist` packages and `cargo xtask
//! bench` measures, so that the figures are those of what users install.
//!
//! It is the release profile (fat LTO, one codegen unit) with three flags for the final crate
//! alone, given through `cargo rustc` (the dependencies and the proc-macros are built as for
//! `cargo build --release`):
//! - `-C target-feature=+crt-static` on Linux glibc targets: a static-pie executable. A hook or
//!   the status line runs on every prompt, and with C library and libgcc in the binary the
//!   dynamic loader has nothing to load, relocate or bind: 0.4–0.5 ms less per call here, a
//!   third of a call. ctxmon calls nothing that needs glibc's run-time loading (no user or host
//!   lookups, no iconv), and the binary no longer depends on the glibc of the machine it runs
//!   on.
//! - `-C opt-level=s` for the link-time optimisation of the whole program: glibc adds about
//!   0.9 MiB, and this takes back more than that (5.6 MiB instead of 6.5 MiB) at no measured
//!   cost (PreCompact's tail parsing ran as fast, the calls as fast).
//! - `-C strip=symbols`: no symbol table either (0.7 MiB). A panic still names its file and
//!   line; for function names in a backtrace, build with `--profile profiling`.
//!
//! `cargo build --release` (and `cargo install`) build the same code without these flags: a
//! dynamically linked binary, slower to start, that behaves the same.

use std::path::Path;
use std::process::{Command, Stdio};

/// The flags given to the final crate for `target`.
pub fn final_crate_flags(target: &str) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if target.ends_with("-linux-gnu") {
        flags.extend(["-C", "target-feature=+crt-static"]);
    }
    flags.extend(["-C", "opt-level=s", "-C", "strip=symbols"]);
    flags
}

/// `cargo rustc --release --locked -p ctxmon-cli --bin ctxmon [--target T] <cargo_args> --
/// <flags>` in `root`: `--target` only when `target` is not the host's, whose build stays in
/// `target/release`; `cargo_args` are cargo's (`--message-format`), before the flags for rustc.
pub fn command(root: &Path, target: &str, host: &str, cargo_args: &[&str]) -> Command {
    let mut command = Command::new(crate::cargo());
    command
        .args([
            "rustc",
            "--release",
            "--locked",
            "-p",
            "ctxmon-cli",
            "--bin",
            "ctxmon",
        ])
        .current_dir(root)
        .stdin(Stdio::null());
    if target != host {
        command.args(["--target", target]);
    }
    command
        .args(cargo_args)
        .arg("--")
        .args(final_crate_flags(target));
    command
}

/// The command line, for the messages that say what runs.
pub fn describe(target: &str, host: &str) -> String {
    let target_arg = if target == host {
        String::new()
    } else {
        format!(" --target {target}")
    };
    format!(
        "cargo rustc --release -p ctxmon-cli --bin ctxmon{target_arg} -- {}",
        final_crate_flags(target).join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_glibc_builds_are_static_and_every_build_is_small() {
        let linux = final_crate_flags("x86_64-unknown-linux-gnu");
        assert!(linux.contains(&"target-feature=+crt-static"), "{linux:?}");
        let mac = final_crate_flags("aarch64-apple-darwin");
        assert!(!mac.contains(&"target-feature=+crt-static"), "{mac:?}");
        for flags in [linux, mac] {
            assert!(flags.contains(&"opt-level=s") && flags.contains(&"strip=symbols"));
        }
    }

    #[test]
    fn only_a_cross_build_names_its_target() {
        let host = "x86_64-unknown-linux-gnu";
        let own: Vec<String> = command(Path::new("."), host, host, &["--message-format=json"])
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!own.iter().any(|a| a == "--target"), "{own:?}");
        assert_eq!(own[0], "rustc");
        let separator = own.iter().position(|a| a == "--").unwrap();
        assert_eq!(own[separator + 1..], final_crate_flags(host));
        assert_eq!(
            own[separator - 1],
            "--message-format=json",
            "cargo's own, before `--`"
        );
        let cross = describe("aarch64-unknown-linux-gnu", host);
        assert!(
            cross.contains("--target aarch64-unknown-linux-gnu -- -C target-feature=+crt-static")
        );
    }
}
