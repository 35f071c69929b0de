//! Unit tests of the source scan: each case is a snippet and the findings it must produce.

use super::scan_source;

/// Scans `src` and compares `line:thing` pairs, the data-driven way (one helper, many cases).
fn check(src: &str, expect: &[&str]) {
    let got: Vec<String> = scan_source(src)
        .iter()
        .map(|f| format!("{}:{}", f.line, f.thing))
        .collect();
    assert_eq!(got, expect, "scanning:\n{src}");
}

#[test]
fn plain_paths_are_caught() {
    check("fn f() { std::fs::read(\"x\"); }", &["1:std::fs"]);
    check(
        "use std::env;\nuse std::process::Command;",
        &["1:std::env", "2:std::process"],
    );
    check("let s = std::net::TcpStream::connect(a);", &["1:std::net"]);
    check("let s = ::std :: fs::read(a);", &["1:std::fs"]);
}

#[test]
fn grouped_imports_are_expanded() {
    check("use std::{env, fs};", &["1:std::env", "1:std::fs"]);
    check(
        "use std::{\n    collections::HashMap,\n    io::{self, Read},\n    fs::{File, read},\n};",
        &["4:std::fs"],
    );
    check("use std::{process};", &["1:std::process"]);
}

#[test]
fn clock_reads_are_caught() {
    check(
        "use std::time::{Instant, SystemTime};\nlet a = Instant::now();\nlet b = SystemTime::now();",
        &["2:Instant::now", "3:SystemTime::now"],
    );
    check(
        "let t = std::time::SystemTime::now();",
        &["1:SystemTime::now"],
    );
}

#[test]
fn comments_and_literals_are_ignored() {
    check("// std::fs is forbidden here\nfn f() {}", &[]);
    check(
        "/// uses `std::fs` in the adapter\n//! std::env\nfn f() {}",
        &[],
    );
    check(
        "/* std::fs /* nested std::env */ still comment std::net */ fn f() {}",
        &[],
    );
    check(
        r#"let s = "std::fs::read"; let c = '"'; let u = "a // b";"#,
        &[],
    );
    check(
        "let s = r#\"std::fs \"quoted\" \"#; let t = std::env::var(k);",
        &["1:std::env"],
    );
    check("let url = \"https://x\"; std::fs::read(p);", &["1:std::fs"]);
}

#[test]
fn lookalikes_pass() {
    check(
        "use std::time::Duration; let d = Duration::from_secs(1);",
        &[],
    );
    check("fn f<'a>(x: &'a str) -> char { let c = '\\''; 'x' }", &[]);
    check("let env = config.env; let fs = 3; self.clock.now()", &[]);
    check(
        "use crate::fs_like::{Instant}; let i = Instant::from(x);",
        &[],
    );
}

#[test]
fn lines_are_counted_across_multiline_literals_and_comments() {
    check("/*\n\n*/\nlet s = \"a\nb\";\nuse std::fs;", &["6:std::fs"]);
}

#[test]
fn malformed_input_does_not_panic() {
    for src in [
        "use std::{",
        "std::",
        "'",
        "\"unterminated",
        "r#\"x",
        "/* open",
        "use a::{{{{",
    ] {
        let _ = scan_source(src);
    }
}

#[test]
fn stdin_is_caught() {
    check("let mut s = std::io::stdin();", &["1:io::stdin"]);
    check(
        "use std::io::{self, Read};\nio::stdin().read_to_string(&mut s);",
        &["2:io::stdin"],
    );
    check(
        "use std::io::{stdin, Stdin};",
        &["1:io::Stdin", "1:io::stdin"],
    );
}

#[test]
fn file_system_questions_about_paths_are_caught() {
    check("if path.exists() { }", &["1:.exists()"]);
    check(
        "let m = p.metadata()?;\nfor e in dir.read_dir()? {}",
        &["1:.metadata()", "2:.read_dir()"],
    );
    check(
        "let a = Path::exists(p);\nlet b = std::path::Path::read_dir(p);",
        &["1:Path::exists", "2:Path::read_dir"],
    );
    check(
        "let ok = self.project_dir.join(\"x\").is_file();",
        &["1:.is_file()"],
    );
}

#[test]
fn file_system_lookalikes_pass() {
    // A field or a method of another name, a range, and a word in a string.
    check(
        "let e = self.exists; let m = x.metadata_len(); let r = 0..exists;",
        &[],
    );
    check("let s = \"path.exists()\"; let n = meta.len();", &[]);
    check("metadata: Some(item.meta.metadata(false)),", &[]);
}

#[test]
fn renamed_clock_types_are_caught() {
    check("use std::time::SystemTime as T;", &["1:SystemTime as"]);
    check(
        "use std::time::{Duration, Instant as Now};",
        &["1:Instant as"],
    );
    check(
        "type Wall = std::time::SystemTime;",
        &["1:type … = SystemTime"],
    );
    check("type I = Instant;", &["1:type … = Instant"]);
}

#[test]
fn clock_lookalikes_pass() {
    check("let d: Duration = x; type Millis = u64;", &[]);
    check("if a == Instant { } let ok = t >= SystemTime;", &[]);
}
