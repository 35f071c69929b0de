//! The README's configuration block is the whole configuration (contract C11): every key
//! `ctxmon config schema` knows appears in it (set, or as a `# key = …` comment when it is not
//! set by default), it names no key the schema does not know, every value it sets is the
//! built-in default (the model rules too: an example rule is a comment, since none is built
//! in), and the block is a valid configuration file. A key added to the schema fails this test
//! until the README shows it.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common::Sandbox;

/// The first ```` ```toml ```` block after the README's `## Configuration` heading.
fn readme_block() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = &readme[readme.find("\n## Configuration\n").unwrap()..];
    let start = section.find("```toml\n").unwrap() + "```toml\n".len();
    let end = start + section[start..].find("\n```").unwrap();
    section[start..end].to_string()
}

/// The dotted keys the block shows: `key = …` lines and `# key = …` comments under their
/// `[section]`, and a `[section.map]` header as the map's own key.
fn keys_shown(block: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut section = String::new();
    for line in block.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let name = header.split(']').next().unwrap().trim();
            if name.contains('.') {
                keys.insert(name.to_string());
            }
            section = name.to_string();
            continue;
        }
        let assignment = line.strip_prefix('#').unwrap_or(line).trim();
        let Some((name, _)) = assignment.split_once('=') else {
            continue;
        };
        let name = name.trim();
        let bare = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        // Entries of a map (`"claude-sonnet-5" = …`) are examples, not keys.
        if bare && !section.contains('.') {
            keys.insert(format!("{section}.{name}"));
        }
    }
    keys
}

/// Every key of the schema with its default, from the binary itself.
fn schema(sb: &Sandbox) -> Vec<(String, Value)> {
    let run = sb.run(&["config", "schema"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let schema: Value = serde_json::from_str(&run.stdout).unwrap();
    let mut keys = Vec::new();
    for (section, body) in schema["properties"].as_object().unwrap() {
        for (name, spec) in body["properties"].as_object().unwrap() {
            keys.push((
                format!("{section}.{name}"),
                spec.get("default").cloned().unwrap_or(Value::Null),
            ));
        }
    }
    keys
}

#[test]
fn the_readme_configuration_block_lists_every_key_with_its_default() {
    let sb = Sandbox::new();
    let block = readme_block();
    let shown = keys_shown(&block);
    let schema = schema(&sb);
    let known: BTreeSet<String> = schema.iter().map(|(k, _)| k.clone()).collect();
    let missing: Vec<&String> = known.difference(&shown).collect();
    let unknown: Vec<&String> = shown.difference(&known).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "README.md's configuration block and `ctxmon config schema` disagree:\n  \
         missing from the README: {missing:?}\n  not in the schema: {unknown:?}"
    );

    // The block is a valid configuration, and what it sets is the built-in default.
    sb.write(".ctxmon/config.toml", &block);
    let show = sb.run(&["--json", "config", "show"], "");
    assert_eq!(
        show.code, 0,
        "the README's block is refused: {}",
        show.stderr
    );
    let shown: Value = serde_json::from_str(&show.stdout).unwrap();
    let set_in_block: Vec<&String> = shown["sources"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, source)| source["layer"] == "project")
        .map(|(key, _)| key)
        .collect();
    assert!(set_in_block.len() > 20, "{set_in_block:?}");
    for (key, default) in &schema {
        if !set_in_block.contains(&key) {
            continue;
        }
        let (section, name) = key.split_once('.').unwrap();
        let value = &shown["config"][section][name];
        let same = match (value.as_f64(), default.as_f64()) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-12,
            _ => value == default,
        };
        assert!(
            same,
            "README.md sets {key} = {value}, the default is {default}"
        );
    }
}

#[test]
fn the_key_reader_reads_sections_comments_and_maps() {
    let block = "[a]\nx = 1  # c\n# y = 2\n[a.m]\n\"k-1\" = 3\nz = 4\n[b]\nw = [\"p\", \"q\"]\n";
    let keys: Vec<String> = keys_shown(block).into_iter().collect();
    assert_eq!(keys, ["a.m", "a.x", "a.y", "b.w"]);
}
