//! Tests of the command tree: it is consistent, every hook is listed, every command documents
//! itself, and a refused command line is still read for the `hooks` word.

use super::*;
use clap::CommandFactory;

#[test]
fn the_command_tree_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn every_hook_subcommand_is_in_all() {
    let root = Cli::command();
    let hooks = root.find_subcommand("hooks").unwrap();
    let mut names: Vec<&str> = hooks
        .get_subcommands()
        .map(clap::Command::get_name)
        .collect();
    names.sort_unstable();
    let mut all: Vec<&str> = Hook::ALL.iter().map(|h| h.name()).collect();
    all.sort_unstable();
    assert_eq!(names, all);
}

#[test]
fn raw_invocations_find_the_hooks_word_past_global_flags() {
    let scan = |args: &[&str]| {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        RawInvocation::scan(&args)
    };
    let raw = scan(&["--project-dir", "/p", "--json", "hooks", "pre-compact", "x"]);
    assert!(raw.hook);
    assert_eq!(raw.hook_command, Some(Hook::PreCompact));
    assert_eq!(raw.project_dir, Some(PathBuf::from("/p")));
    let raw = scan(&["--project-dir=", "hooks", "nope"]);
    assert!(raw.hook);
    assert_eq!((raw.hook_command, raw.project_dir), (None, None));
    assert!(!scan(&["--config", "hooks", "bogus"]).hook);
    assert!(!scan(&["status", "hooks"]).hook);
    assert!(!scan(&[]).hook);
    assert!(scan(&["--", "hooks"]).hook);
    let raw = scan(&["--project-dir", "/p", "statusline", "--fromat", "x"]);
    assert!(raw.statusline && !raw.hook);
    assert_eq!(raw.project_dir, Some(PathBuf::from("/p")));
    assert!(!scan(&["status", "statusline"]).statusline);
    assert!(scan(&["status", "--json", "--bogus"]).json);
    assert!(!scan(&["status", "--", "--json"]).json);
    assert!(!scan(&["--config", "--json", "status"]).json);
}

/// `--help` reads like a man page on every command and on every leaf under `checkpoint`,
/// `resume-log` and `config`: a long description, examples and exit codes; and every
/// argument says what it is. The `hooks` leaves are for Claude Code, not people: their
/// parent's page holds the example and exit code they share.
#[test]
fn every_command_documents_itself() {
    let root = Cli::command();
    let mut pages: Vec<(String, &clap::Command)> = Vec::new();
    for cmd in root.get_subcommands() {
        pages.push((cmd.get_name().to_string(), cmd));
        if cmd.get_name() != "hooks" {
            for leaf in cmd.get_subcommands() {
                pages.push((format!("{} {}", cmd.get_name(), leaf.get_name()), leaf));
            }
        }
    }
    // 12 commands and the 15 leaves of checkpoint, resume-log and config.
    assert!(pages.len() >= 27, "{}", pages.len());
    for (name, cmd) in &pages {
        assert!(
            cmd.get_long_about().is_some(),
            "{name}: no long description"
        );
        let after = cmd
            .get_after_long_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        assert!(after.contains("Exit codes"), "{name}: no exit codes");
        assert!(after.contains("Example"), "{name}: no examples");
    }
    for cmd in root.get_subcommands() {
        let mut stack = vec![cmd];
        while let Some(c) = stack.pop() {
            assert!(c.get_about().is_some(), "{}: no description", c.get_name());
            for arg in c.get_arguments() {
                assert!(
                    arg.get_help().is_some() || arg.is_global_set(),
                    "{} {}: undocumented argument",
                    c.get_name(),
                    arg.get_id()
                );
            }
            stack.extend(c.get_subcommands());
        }
    }
}
