//! Tests of the tidy rules: each rule is fed a bad example and must fail it, a good one and
//! must pass it; the last test runs every rule on this very workspace.

use std::fs;
use std::path::Path;

use super::*;

#[test]
fn a_file_without_a_header_fails() {
    assert!(header("a.rs", "use std::fs;\n").is_some());
    assert!(header("a.rs", "// a plain comment\nfn f() {}\n").is_some());
    assert!(header("a.rs", "").is_some());
    assert_eq!(header("a.rs", "//! What this holds.\nfn f() {}\n"), None);
    assert_eq!(
        header("a.rs", "#![cfg(unix)]\n\n//! Unix only.\n"),
        None,
        "inner attributes may come first"
    );
}

#[test]
fn a_long_file_fails() {
    let long = "x\n".repeat(MAX_LINES + 1);
    let message = length("src/big.rs", &long).expect("601 lines fail");
    assert!(message.contains("601 lines"), "{message}");
    assert_eq!(length("src/ok.rs", &"x\n".repeat(MAX_LINES)), None);
}

#[test]
fn long_test_code_passes_and_long_code_fails_in_a_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let long = format!("//! Long.\n{}", "x\n".repeat(MAX_LINES));
    write(root, "crates/c/Cargo.toml", "[lints]\nworkspace = true\n");
    write(
        root,
        "crates/c/src/lib.rs",
        "//! Lib.\n#[cfg(test)]\nmod helpers;\nmod big;\n#[cfg(test)]\nmod deep;\n",
    );
    write(root, "crates/c/src/helpers.rs", &long);
    write(root, "crates/c/src/deep/mod.rs", "//! Deep.\nmod inner;\n");
    write(root, "crates/c/src/deep/inner.rs", &long);
    write(root, "crates/c/src/big_tests.rs", &long);
    write(root, "crates/c/tests/t.rs", &long);
    write(
        root,
        "crates/c-test-support/Cargo.toml",
        "[lints]\nworkspace = true\n",
    );
    write(root, "crates/c-test-support/src/lib.rs", &long);
    write(root, "crates/c/src/big.rs", &long);
    let violations = check_without_map(root);
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert!(violations[0].starts_with("crates/c/src/big.rs: 601 lines"));
}

#[test]
fn a_crate_without_workspace_lints_fails() {
    assert!(lints("x/Cargo.toml", "[package]\nname = \"x\"\n").is_some());
    assert!(lints("x/Cargo.toml", "[lints.rust]\nunsafe_code = \"deny\"\n").is_some());
    assert!(lints("x/Cargo.toml", "[lints]\nworkspace = false\n").is_some());
    assert_eq!(
        lints(
            "x/Cargo.toml",
            "[package]\n\n[lints]\n# the workspace's\nworkspace = true\n"
        ),
        None
    );
}

#[test]
fn allowing_unsafe_code_fails_outside_its_one_file() {
    let found = unsafe_allowed("src/a.rs", "//! A.\n#[allow(unsafe_code)]\nfn f() {}\n");
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("src/a.rs:2:"), "{found:?}");
    assert!(unsafe_allowed("src/a.rs", "#![expect(unsafe_code)]\n").len() == 1);
    assert!(unsafe_allowed("src/a.rs", "// unsafe_code is denied\n").is_empty());
}

#[test]
fn a_path_attribute_out_of_the_crate_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "crates/a/Cargo.toml", "");
    write(root, "crates/b/Cargo.toml", "");
    let file = root.join("crates/a/tests/t.rs");
    let text = "//! T.\n#[path = \"common/x.rs\"]\nmod x;\n#[path = \"../../b/tests/support.rs\"]\nmod s;\n";
    let found = path_attributes(root, &file, "crates/a/tests/t.rs", text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("crates/a/tests/t.rs:4:"), "{found:?}");
    // Up and back into its own crate is fine.
    let nested = root.join("crates/a/tests/group/main.rs");
    let inside = "#[path = \"../common/mod.rs\"]\nmod common;\n";
    assert!(path_attributes(root, &nested, "m.rs", inside).is_empty());
}

#[test]
fn a_module_the_map_does_not_name_fails() {
    let map = "# Architecture\n\n### `crates/ctxmon-application`\n`fill/` estimates; `hooks::run` runs.\n\n### `crates/ctxmon-infra-fs`\n`memory` is here.\n";
    let lib =
        "//! App.\npub mod fill;\npub mod hooks;\npub mod memory;\n#[cfg(test)]\nmod test_world;\n";
    let found = unnamed_modules("ctxmon-application", "lib.rs", lib, map);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("lib.rs:4: module `memory`"),
        "named in another crate's section only: {found:?}"
    );
    let none = unnamed_modules("ctxmon-cli", "lib.rs", lib, map);
    assert!(none[0].contains("no section for ctxmon-cli"), "{none:?}");
}

#[test]
fn a_map_past_one_page_fails() {
    let page = "- `m`: a line.\n".repeat(MAP_MAX_LINES);
    assert_eq!(map_length(&page), None);
    let atlas = format!("{page}- `n`: one more.\n");
    let found = map_length(&atlas).unwrap_or_default();
    assert!(found.contains("161 lines, more than 160"), "{found}");
}

#[test]
fn cfg_test_modules_are_found() {
    let text = "mod a;\n#[cfg(test)]\nmod b;\n#[cfg(test)]\n#[path = \"x.rs\"]\npub(crate) mod c;\n#[cfg(test)]\nmod d {\n}\n";
    assert_eq!(cfg_test_mods(text), ["b", "c"]);
}

/// A section sign and number, and the spec's citation, built here so that this file does not
/// hold what the rule forbids.
fn section(n: u32) -> String {
    format!("{}{n}", '\u{a7}')
}

fn spec_citation(n: u32) -> String {
    format!("spec {}", section(n))
}

/// A contract citation of section `n`, built for the same reason (a bad number here would be
/// a violation of this very file).
fn contract_citation(n: u32) -> String {
    format!("contract C{n}")
}

const SMALL_CONTRACT: &str = "# The contract\n\n[C2](#c2-fill-measurement)\n\n## C1. Layers\n\n## C2. Fill measurement\n\n```\n## C9. Not a heading inside a fence\n```\n";

#[test]
fn the_contract_s_sections_and_anchors_are_read_from_its_headings() {
    let contract = citations::Contract::parse(SMALL_CONTRACT);
    assert_eq!(
        contract.sections.iter().copied().collect::<Vec<_>>(),
        [1, 2]
    );
    assert!(contract.anchors.contains("c2-fill-measurement"));
    assert!(contract.anchors.contains("the-contract"));
    assert_eq!(
        citations::anchor("C3. Tiers and the context-monitor tag"),
        "c3-tiers-and-the-context-monitor-tag"
    );
}

#[test]
fn a_citation_of_the_spec_fails_also_when_wrapped() {
    let contract = citations::Contract::parse(SMALL_CONTRACT);
    let text = format!(
        "//! Fill ({}).\n/// Spec {}: x.\n/// state per context (spec\n/// {}). more\n/// the spec says so\n",
        spec_citation(2),
        section(14),
        section(9),
    );
    let found = citations::citations("a.rs", &text, Some(&contract));
    let lines: Vec<&str> = found
        .iter()
        .map(|m| m.split(": ").next().unwrap())
        .collect();
    assert_eq!(lines, ["a.rs:1", "a.rs:2", "a.rs:3"], "{found:#?}");
    assert!(found[0].contains("docs/contract.md"), "{found:?}");
}

#[test]
fn a_citation_of_a_missing_section_fails() {
    let contract = citations::Contract::parse(SMALL_CONTRACT);
    let good = format!(
        "//! Window ({}). {} and C1; {}, C2.\n",
        contract_citation(2),
        contract_citation(1),
        contract_citation(1).replace('c', "C")
    );
    assert!(citations::citations("a.rs", &good, Some(&contract)).is_empty());
    let bad = format!(
        "//! ({}, C17). Nor {} and C99.\n//! subcontract C7 and contract Codex are not citations.\n",
        contract_citation(2),
        contract_citation(16)
    );
    let found = citations::citations("a.rs", &bad, Some(&contract));
    assert_eq!(found.len(), 3, "{found:#?}");
    for (message, n) in found.iter().zip([17, 16, 99]) {
        assert!(message.starts_with("a.rs:1: cites contract C"), "{message}");
        assert!(message.contains(&format!("C{n},")), "{message}");
    }
    let without = citations::citations("a.rs", &good, None);
    assert!(without[0].contains("is missing"), "{without:?}");
}

#[test]
fn a_link_to_an_anchor_the_contract_lacks_fails() {
    let contract = citations::Contract::parse(SMALL_CONTRACT);
    let good = "[fill](docs/contract.md#c2-fill-measurement)\n";
    assert!(citations::citations("README.md", good, Some(&contract)).is_empty());
    let bad = format!("[fill](docs/contract.md{}c2-fill)\n", '#');
    let found = citations::citations("README.md", &bad, Some(&contract));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("#c2-fill,"), "{found:?}");
    // Inside the contract, a bare `#anchor` is checked too.
    let own = "[layers](#c1-layers) [gone](#c4-state)\n";
    let found = citations::citations("docs/contract.md", own, Some(&contract));
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn a_tree_citing_the_spec_or_a_missing_section_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "docs/contract.md", SMALL_CONTRACT);
    write(
        root,
        "crates/c/src/lib.rs",
        &format!("//! Lib ({}).\n", contract_citation(2)),
    );
    write(
        root,
        "crates/c/src/bad.rs",
        &format!("//! Bad ({}).\n", contract_citation(5)),
    );
    write(root, "README.md", &format!("See {}.\n", spec_citation(3)));
    write(
        root,
        "target/skipped.rs",
        &format!("//! {}\n", spec_citation(3)),
    );
    let mut found = citations::check_tree(root).unwrap();
    found.sort();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].starts_with("README.md:1: cites the spec"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("crates/c/src/bad.rs:1: cites contract C5"),
        "{found:?}"
    );
}

/// The rules hold for this very workspace, so `cargo test --workspace` keeps it tidy.
#[test]
fn workspace_is_tidy() {
    let violations = check(&crate::workspace_root()).unwrap();
    assert!(violations.is_empty(), "tidy:\n{}", violations.join("\n"));
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// `check` on a tree whose mapped crates are empty and mapped.
fn check_without_map(root: &Path) -> Vec<String> {
    let mut map = String::from("# Map\n");
    for (name, lib) in MAPPED_CRATES {
        map.push_str(&format!("\n## {name}\n"));
        write(root, lib, "//! Empty.\n");
        write(
            root,
            &format!("crates/{name}/Cargo.toml"),
            "[lints]\nworkspace = true\n",
        );
    }
    write(root, "ARCHITECTURE.md", &map);
    check(root).unwrap()
}
