//! Unit tests of the sibling rule: small trees of files and the circles they hold.

use super::*;

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

fn shown(edges: &[SiblingEdge]) -> Vec<String> {
    edges
        .iter()
        .map(|e| format!("{}:{}>{}@{}", e.parent.join("::"), e.from, e.to, e.at))
        .collect()
}

#[test]
fn two_files_that_import_each_other_are_a_circle() {
    let tree = files(&[
        ("lib.rs", "mod log;"),
        ("log/mod.rs", "mod carry;\nmod providers;"),
        ("log/carry.rs", "use super::providers::Provider;"),
        ("log/providers.rs", "\nfn f() { super::carry::carry(); }"),
    ]);
    let e = edges(&tree);
    assert_eq!(
        shown(&e),
        [
            "log:carry>providers@log/carry.rs:1",
            "log:providers>carry@log/providers.rs:2"
        ]
    );
    assert_eq!(
        circles(&e),
        [(
            "crate::log::carry".to_owned(),
            "crate::log::providers".to_owned(),
            "carry -> providers at log/carry.rs:1; providers -> carry at log/providers.rs:2"
                .to_owned()
        )]
    );
}

#[test]
fn a_use_one_way_is_no_circle_and_parents_and_children_are_not_siblings() {
    let tree = files(&[
        ("lib.rs", "mod a; mod b; use crate::a::X;"),
        (
            "a/mod.rs",
            "mod inner; use self::inner::Y; use crate::b::Z;",
        ),
        ("a/inner.rs", "use super::super::a::W; use crate::a::V;"),
        ("b.rs", "fn f() {}"),
    ]);
    let e = edges(&tree);
    assert_eq!(shown(&e), [":a>b@a/mod.rs:1"]);
    assert!(circles(&e).is_empty());
}

#[test]
fn a_descendant_s_use_counts_for_its_ancestor_below_the_common_parent() {
    let tree = files(&[
        ("a/deep/x.rs", "use crate::b::thing::Y;"),
        ("a/deep/mod.rs", "mod x;"),
        ("a/mod.rs", "mod deep;"),
        ("b/thing.rs", "use crate::a::deep::x::Z;"),
        ("b/mod.rs", "mod thing;"),
    ]);
    let c = circles(&edges(&tree));
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!((c[0].0.as_str(), c[0].1.as_str()), ("crate::a", "crate::b"));
}

#[test]
fn inline_modules_and_path_files_resolve_super_where_rust_does() {
    // In `a.rs`, `mod tests { use super::b; }` names `a::b`, a child of `a`, not the sibling
    // `b`; a `#[path]` test file is a child of the module declaring it.
    let tree = files(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "mod b {}\nuse crate::b::Real;\n#[cfg(test)]\nmod tests {\n    use super::b::Inner;\n}\n#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod file_tests;",
        ),
        ("a_tests.rs", "use super::b::AlsoInner;"),
        ("b.rs", "fn f() {}"),
    ]);
    let e = edges(&tree);
    assert_eq!(
        shown(&e),
        [":a>b@a.rs:2"],
        "only the real use of the sibling"
    );
    // And the other way round, a true circle through an inline test module is found.
    let tree = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "use crate::b::X;"),
        (
            "b.rs",
            "#[cfg(test)]\nmod tests {\n    use super::super::a::Y;\n}",
        ),
    ]);
    assert_eq!(circles(&edges(&tree)).len(), 1);
}

#[test]
fn comments_literals_and_paths_from_elsewhere_are_no_edges() {
    let tree = files(&[
        ("lib.rs", "mod a; mod b;"),
        (
            "a.rs",
            "// crate::b::X in a comment\nconst S: &str = \"super::b::Y\";\nuse other_crate::b::Z;\nuse super::*;",
        ),
        ("b.rs", "use crate::a::Q;"),
    ]);
    let e = edges(&tree);
    assert_eq!(shown(&e), [":b>a@b.rs:1"]);
    assert!(circles(&e).is_empty());
}

#[test]
fn a_circle_in_a_tree_on_disk_is_reported_unless_it_is_known() {
    let dir = std::env::temp_dir().join(format!("xtask-siblings-{}", std::process::id()));
    let write = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("crates/c/src/lib.rs", "mod a; mod b;");
    write("crates/c/src/a.rs", "use super::b::X;");
    write("crates/c/src/b.rs", "use super::a::Y;");
    write("xtask/src/lib.rs", "mod fine;");
    write("xtask/src/fine.rs", "");
    let found = check(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("crates/c/src: modules crate::a and crate::b import each other: a -> b at a.rs:1; b -> a at b.rs:1"),
        "{}",
        found[0]
    );
}

/// The workspace holds no such pair, bar the known ones, so `cargo test --workspace` keeps it so.
#[test]
fn workspace_has_no_sibling_circles() {
    let found = check(&crate::workspace_root()).unwrap();
    assert!(found.is_empty(), "sibling circles:\n{}", found.join("\n"));
}
