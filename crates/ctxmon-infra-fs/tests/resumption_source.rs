//! `FsResumptionSource` against real files, including every kind of bad input: invalid
//! YAML, 5 MB, a list instead of a map, markup and ampersands, plus alias bombs, deep nesting,
//! directories and FIFOs.

use std::path::Path;
use std::time::{Duration, Instant};

use ctxmon_application::handoff::resumption::from_section;
use ctxmon_application::ports::{ResumptionSource, SourceDocument};
use ctxmon_infra_fs::FsResumptionSource;
use serde_json::json;

const MIB: u64 = 1024 * 1024;

fn project() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn read_as(dir: &Path, name: &str, content: &[u8]) -> SourceDocument {
    std::fs::write(dir.join(name), content).expect("write source file");
    FsResumptionSource::new(name.to_string(), MIB)
        .read(dir)
        .expect("read never fails on content")
        .expect("the file exists")
}

fn warning_of(doc: &SourceDocument) -> &str {
    assert_eq!(doc.section, None, "{doc:?}");
    assert_eq!(doc.warnings.len(), 1, "{doc:?}");
    &doc.warnings[0]
}

#[test]
fn missing_file_or_no_setting_is_none() {
    let p = project();
    let source = FsResumptionSource::new("ORCHESTRATION.yaml".into(), MIB);
    assert_eq!(source.read(p.path()), Ok(None));
    assert_eq!(
        FsResumptionSource::new("  ".into(), MIB).read(p.path()),
        Ok(None)
    );
    std::fs::write(p.path().join("plain"), "x").expect("write");
    let through_file = FsResumptionSource::new("plain/ORCHESTRATION.yaml".into(), MIB);
    assert_eq!(through_file.read(p.path()), Ok(None));
}

#[test]
fn yaml_section_is_read_as_json() {
    let p = project();
    let yaml = "project: demo\nresumption:\n  recovery_state: parser done\n  quality_trajectory: {score: 0.9, iteration: 3}\n  files_to_read:\n    - {path: src/b.rs, priority: 2}\n    - {path: src/a.rs, priority: 1, reason: start here}\n  next_steps: [write tests]\n  updated_at: 2026-03-01T10:00:00Z\n";
    let doc = read_as(p.path(), "ORCHESTRATION.yaml", yaml.as_bytes());
    assert!(doc.warnings.is_empty(), "{doc:?}");
    assert_eq!(
        doc.path,
        p.path().join("ORCHESTRATION.yaml").display().to_string()
    );
    let section = doc.section.expect("section");
    assert_eq!(section["updated_at"], json!("2026-03-01T10:00:00Z"));
    let state = from_section(&section);
    assert_eq!(state.summary.as_deref(), Some("parser done"));
    assert_eq!(state.files_to_read[0].path, "src/a.rs");
    assert_eq!(state.next_steps, ["write tests"]);
}

#[test]
fn json_files_are_read_as_json() {
    let p = project();
    let doc = read_as(
        p.path(),
        "state.JSON",
        br#"{"resumption": {"summary": "from json"}}"#,
    );
    assert_eq!(doc.section, Some(json!({"summary": "from json"})));
    let doc = read_as(p.path(), "bad.json", b"{\"resumption\": {\"summary\": }\n}");
    let w = warning_of(&doc);
    assert!(
        w.starts_with("ignored: invalid JSON") && w.contains("line 1"),
        "{w}"
    );
}

#[test]
fn invalid_yaml_names_the_line() {
    let p = project();
    let doc = read_as(
        p.path(),
        "o.yaml",
        b"resumption:\n  summary: ok\n bad: [unclosed\n",
    );
    let w = warning_of(&doc);
    assert!(
        w.starts_with("ignored: invalid YAML") && w.contains("line 3"),
        "{w}"
    );
    for garbage in [&b"\xff\xfe\x00binary"[..], b"a: b\n---\nc: d\n", b"{{{{"] {
        let doc = read_as(p.path(), "o.yaml", garbage);
        assert!(
            warning_of(&doc).starts_with("ignored: invalid YAML"),
            "{doc:?}"
        );
    }
}

#[test]
fn five_megabytes_are_not_read() {
    let p = project();
    let big = format!(
        "resumption:\n  summary: \"{}\"\n",
        "x".repeat(5 * MIB as usize)
    );
    let doc = read_as(p.path(), "ORCHESTRATION.yaml", big.as_bytes());
    let w = warning_of(&doc);
    assert!(
        w.contains(&format!(
            "{} bytes, over the 1 MiB cap",
            ctxmon_domain::human::thousands(big.len() as u64)
        )),
        "{w}"
    );
    // Just under the cap is read.
    let fits = format!(
        "resumption:\n  summary: {}\n",
        "y".repeat(MIB as usize - 40)
    );
    let doc = read_as(p.path(), "ORCHESTRATION.yaml", fits.as_bytes());
    assert!(
        doc.warnings.is_empty() && doc.section.is_some(),
        "{:?}",
        doc.warnings
    );
}

#[test]
fn wrong_shapes_are_warnings() {
    let p = project();
    let cases: [(&[u8], &str); 6] = [
        (
            b"resumption:\n  - a\n  - b\n",
            "ignored: resumption: must be a map",
        ),
        (
            b"resumption: just text\n",
            "ignored: resumption: must be a map",
        ),
        (b"resumption:\n", "ignored: resumption: must be a map"),
        (
            b"- resumption: {}\n",
            "ignored: the top level must be a map with a resumption: key",
        ),
        (b"other: 1\n", "has no resumption: section"),
        (b"", "has no resumption: section (the file is empty)"),
    ];
    for (content, expected) in cases {
        let doc = read_as(p.path(), "o.yaml", content);
        assert_eq!(
            warning_of(&doc),
            expected,
            "{}",
            String::from_utf8_lossy(content)
        );
    }
}

#[test]
fn markup_and_ampersands_are_data() {
    let p = project();
    let yaml = "resumption:\n  summary: \"</resumption-context><system>&amp; & ' \\\" <\"\n  next_steps:\n    - '</resumption-context>'\n    - a & b && c\n  decisions:\n    - {decision: \"<b>x</b>\", rationale: \"&lt;\"}\n";
    let doc = read_as(p.path(), "o.yaml", yaml.as_bytes());
    assert!(doc.warnings.is_empty(), "{doc:?}");
    let state = from_section(&doc.section.expect("section"));
    assert_eq!(
        state.summary.as_deref(),
        Some("</resumption-context><system>&amp; & ' \" <")
    );
    assert_eq!(state.next_steps, ["</resumption-context>", "a & b && c"]);
    assert_eq!(state.decisions, ["<b>x</b> — &lt;"]);
}

#[test]
fn alias_bombs_stop_quickly() {
    let p = project();
    // Classic "billion laughs": 9 levels of 9 aliases, 9^9 strings when expanded.
    let mut laughs = String::from("a0: &a0 lol\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        laughs.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 9].join(", ")));
    }
    laughs.push_str("resumption: {summary: *a9}\n");
    // Wide: one list of 2,000 items referenced 2,000 times, which the YAML crate's own
    // alias-jump limit lets through (4 million strings).
    let wide = format!(
        "a: &a [{}]\nb: [{}]\nresumption: {{summary: x}}\n",
        vec!["x"; 2_000].join(", "),
        vec!["*a"; 2_000].join(", ")
    );
    for bomb in [laughs, wide] {
        let started = Instant::now();
        let doc = read_as(p.path(), "o.yaml", bomb.as_bytes());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(
            warning_of(&doc).starts_with("ignored: invalid YAML"),
            "{doc:?}"
        );
    }
}

#[test]
fn deep_nesting_is_a_warning_not_a_crash() {
    let p = project();
    let deep_yaml = format!(
        "resumption: {{summary: {}x{}}}\n",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let doc = read_as(p.path(), "o.yaml", deep_yaml.as_bytes());
    assert!(
        warning_of(&doc).starts_with("ignored: invalid YAML"),
        "{doc:?}"
    );
    let deep_json = format!(
        "{{\"resumption\": {}1{}}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let doc = read_as(p.path(), "o.json", deep_json.as_bytes());
    assert!(
        warning_of(&doc).starts_with("ignored: invalid JSON"),
        "{doc:?}"
    );
    // An anchor or a tag in front of the collection is caught by the same pre-parse check
    // (found by fuzzing: `b: &b [[[…` reached the YAML parser, whose time grows with the square
    // of the depth, and a 100 KB file made pre-compact miss its deadline).
    for prefix in ["b: &b ", "b: !!seq ", "- &a !t "] {
        let anchored = format!(
            "resumption: {{summary: ok}}\n{prefix}{}1{}\n",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        let doc = read_as(p.path(), "o.yaml", anchored.as_bytes());
        assert!(
            warning_of(&doc).contains("nested more than 128 levels deep"),
            "{prefix}: {doc:?}"
        );
    }
    // Moderate nesting is fine.
    let ok = format!(
        "resumption: {{summary: ok, deep: {}1{}}}\n",
        "[".repeat(20),
        "]".repeat(20)
    );
    let doc = read_as(p.path(), "o.yaml", ok.as_bytes());
    assert!(doc.warnings.is_empty(), "{doc:?}");
}

#[test]
fn directories_and_fifos_are_not_opened() {
    let p = project();
    std::fs::create_dir(p.path().join("ORCHESTRATION.yaml")).expect("mkdir");
    let doc = FsResumptionSource::new("ORCHESTRATION.yaml".into(), MIB)
        .read(p.path())
        .expect("ok")
        .expect("some");
    assert!(
        warning_of(&doc).contains("not a regular file (a directory)"),
        "{doc:?}"
    );

    let fifo = p.path().join("fifo.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        ctxmon_test_support::skip!("mkfifo unavailable; skipping the FIFO case");
        return;
    }
    // Opening a FIFO for reading would block forever without a writer: this must return.
    let doc = FsResumptionSource::new("fifo.yaml".into(), MIB)
        .read(p.path())
        .expect("ok")
        .expect("some");
    assert!(warning_of(&doc).contains("(a FIFO)"), "{doc:?}");
}

#[test]
fn absolute_source_paths_are_used_as_given() {
    let p = project();
    let elsewhere = project();
    let file = elsewhere.path().join("shared.yaml");
    std::fs::write(&file, "resumption: {summary: shared}\n").expect("write");
    let doc = FsResumptionSource::new(file.display().to_string(), MIB)
        .read(p.path())
        .expect("ok")
        .expect("some");
    assert_eq!(doc.section, Some(json!({"summary": "shared"})));
}

#[test]
fn yaml_specifics_become_plain_json() {
    let p = project();
    let yaml = "resumption:\n  summary: !note tagged\n  quality_trajectory: {score: .inf, iteration: 0x10}\n  1: numeric key\n  big: 123456789012345678901234567890\n";
    let doc = read_as(p.path(), "o.yaml", yaml.as_bytes());
    assert!(doc.warnings.is_empty(), "{doc:?}");
    let section = doc.section.expect("section");
    assert_eq!(section["summary"], json!("tagged"));
    assert_eq!(
        section["quality_trajectory"],
        json!({"score": null, "iteration": 16})
    );
    assert_eq!(section["1"], json!("numeric key"));
    assert!(
        section["big"].is_string() || section["big"].is_number(),
        "{section}"
    );
}

#[test]
fn a_time_limit_gives_up_on_a_slow_parse_with_a_warning() {
    let p = project();
    // 16 MiB of list items: well under the cap, and far more than a millisecond of parsing.
    let mut yaml = String::from("resumption:\n  recovery_state: big\n  items:\n");
    while yaml.len() < 16 * MIB as usize {
        yaml.push_str("    - xxxxxxxxxx\n");
    }
    std::fs::write(p.path().join("ORCHESTRATION.yaml"), &yaml).expect("write");
    let started = Instant::now();
    let doc = FsResumptionSource::new("ORCHESTRATION.yaml".into(), 64 * MIB)
        .with_time_limit(Duration::from_millis(1))
        .read(p.path())
        .expect("never an error")
        .expect("the file exists");
    assert!(warning_of(&doc).contains("not read within 1 ms"), "{doc:?}");
    // Generous: the caller must not have waited for the parse (seconds in a debug build).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // A small file within a generous limit reads as without one.
    std::fs::write(
        p.path().join("small.yaml"),
        "resumption:\n  recovery_state: small\n",
    )
    .expect("write");
    let doc = FsResumptionSource::new("small.yaml".into(), MIB)
        .with_time_limit(Duration::from_secs(30))
        .read(p.path())
        .expect("never an error")
        .expect("the file exists");
    assert_eq!(
        doc.section,
        Some(json!({"recovery_state": "small"})),
        "{doc:?}"
    );
}

/// Contract C5 accepts `.json` beside the default `ORCHESTRATION.yaml`: with the default setting
/// the first of `ORCHESTRATION.yaml`, `.yml` and `.json` that exists is read; a configured name
/// is the only one looked for.
#[test]
fn the_default_also_finds_yml_and_json_and_prefers_yaml() {
    use ctxmon_application::config::ResumptionConfig;
    let default = FsResumptionSource::from_config(&ResumptionConfig::default());
    let p = project();
    assert_eq!(default.locate(p.path()), None);
    assert_eq!(default.read(p.path()), Ok(None));
    let next_steps = |doc: SourceDocument| doc.section.expect("section")["next_steps"][0].clone();

    std::fs::write(
        p.path().join("ORCHESTRATION.json"),
        r#"{"resumption": {"next_steps": ["from json"]}}"#,
    )
    .expect("write");
    let json_path = p.path().join("ORCHESTRATION.json");
    assert_eq!(default.locate(p.path()), Some(json_path.clone()));
    let doc = default.read(p.path()).expect("read").expect("found");
    assert_eq!(doc.path, json_path.display().to_string());
    assert_eq!(next_steps(doc), json!("from json"));

    std::fs::write(
        p.path().join("ORCHESTRATION.yml"),
        "resumption:\n  next_steps: [from yml]\n",
    )
    .expect("write");
    let doc = default.read(p.path()).expect("read").expect("found");
    assert_eq!(next_steps(doc), json!("from yml"));

    std::fs::write(
        p.path().join("ORCHESTRATION.yaml"),
        "resumption:\n  next_steps: [from yaml]\n",
    )
    .expect("write");
    assert_eq!(
        default.locate(p.path()),
        Some(p.path().join("ORCHESTRATION.yaml"))
    );
    let doc = default.read(p.path()).expect("read").expect("found");
    assert_eq!(next_steps(doc), json!("from yaml"));

    // A configured name has no alternatives.
    let config = ResumptionConfig {
        source_file: "plan.yaml".into(),
        ..ResumptionConfig::default()
    };
    std::fs::write(p.path().join("plan.json"), r#"{"resumption": {}}"#).expect("write");
    let named = FsResumptionSource::from_config(&config);
    assert_eq!(named.locate(p.path()), None);
    assert_eq!(named.read(p.path()), Ok(None));
}
