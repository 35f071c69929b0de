//! Every agent ctxmon serves is named where a reader meets the list of them: the README's
//! opening paragraph and its command table, `docs/commands.md`'s install line, `ctxmon --help`
//! and `ctxmon install --help`, and the library crates' own docs. The list is the
//! application's `AGENTS`, so an agent added there and left out of a page fails here.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use ctxmon_application::agents::AGENTS;

use crate::common::Sandbox;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with line breaks as spaces, so a name wrapped across two lines still reads whole.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The line of `text` that holds `needle` (a table row).
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line holds {needle:?}"))
}

#[test]
fn every_agent_is_named_wherever_the_agents_are_listed() {
    let readme = read("README.md");
    let intro = flat(readme.split("\n\n").nth(1).unwrap());
    let table_row = line_with(&readme, "| `ctxmon install`, `ctxmon uninstall` |");
    let commands = read("docs/commands.md");
    let install_row = line_with(&commands, "| `ctxmon install [--agent ");
    let sb = Sandbox::new();
    let help = flat(&sb.run(&["--help"], "").stdout);
    let install_help = flat(&sb.run(&["install", "--help"], "").stdout);
    let library = [
        flat(&read("crates/ctxmon-application/README.md")),
        flat(&read("crates/ctxmon-application/src/lib.rs").replace("//!", "")),
        flat(&read("crates/ctxmon-domain/README.md")),
        flat(&read("crates/ctxmon-domain/src/lib.rs").replace("//!", "")),
    ];
    for agent in AGENTS {
        let (name, flag) = (agent.name, agent.flag);
        assert!(intro.contains(name), "README's intro lacks {name}: {intro}");
        assert!(table_row.contains(name), "{table_row}");
        let listed = install_row
            .split_once("[--agent ")
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(flags, _)| flags.split("\\|").any(|f| f == flag));
        assert_eq!(listed, Some(true), "{flag} not in {install_row}");
        assert!(install_row.contains(name), "{install_row}");
        assert!(help.contains(name), "`ctxmon --help` lacks {name}: {help}");
        assert!(
            install_help.contains(name) && install_help.contains(&format!("- {flag}: ")),
            "`ctxmon install --help` lacks {name}: {install_help}"
        );
        for doc in &library {
            assert!(doc.contains(name), "a library doc lacks {name}: {doc:.200}");
        }
    }
}
