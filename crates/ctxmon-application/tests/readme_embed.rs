//! The crate README's first example is the embed example's program, word for word: the
//! program CI builds and compares with `ctxmon status` is the one a reader copies. (The README
//! itself compiles as a doc test, `lib.rs`.)

use std::path::Path;

#[test]
fn the_readmes_first_example_is_the_embed_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let program = std::fs::read_to_string(root.join("../../examples/embed/src/main.rs")).unwrap();
    let start = readme.find("```rust").expect("a Rust example");
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let example = &body[..body.find("```").unwrap()];
    assert_eq!(example, program);
}

/// Links that work where the README is shown on its own (a registry page): no path out of
/// the package.
#[test]
fn the_readme_links_nothing_outside_the_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["README.md", "../ctxmon-domain/README.md"] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        for (at, _) in text.match_indices("](") {
            let target = &text[at + 2..];
            let target = &target[..target.find(')').unwrap_or(target.len())];
            assert!(
                target.starts_with("https://") || target.starts_with('#'),
                "{name} links {target}, which a registry page cannot follow"
            );
        }
    }
}
