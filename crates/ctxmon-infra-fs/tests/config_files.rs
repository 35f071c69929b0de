//! Configuration files that are broken as files: bad TOML, wrong types, odd file kinds.

use std::fs;
use std::path::{Path, PathBuf};

use ctxmon_infra_fs::config::{ConfigError, ConfigErrorKind, EnvVars, load_config};

fn setup() -> (tempfile::TempDir, PathBuf, EnvVars) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let project = tmp.path().join("proj");
    fs::create_dir_all(project.join(".ctxmon")).expect("mkdir");
    let env = EnvVars::new().with("HOME", tmp.path().join("home"));
    (tmp, project, env)
}

fn load_err(project: &Path, env: &EnvVars, explicit: Option<&Path>) -> ConfigError {
    match load_config(project, env, explicit, &[]) {
        Ok(_) => panic!("expected a configuration error"),
        Err(e) => e,
    }
}

#[test]
fn invalid_toml_names_the_file_and_line() {
    let (_tmp, project, env) = setup();
    let file = project.join(".ctxmon/config.toml");
    fs::write(
        &file,
        "[context_monitor]\nenabled = true\nwarning_threshold = \n",
    )
    .expect("write");
    let e = load_err(&project, &env, None);
    assert_eq!(e.kind, ConfigErrorKind::Parse);
    assert_eq!(e.source, file.display().to_string());
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "invalid configuration: cannot parse {}: line 3, column 21:",
            file.display()
        )),
        "{text}"
    );
    assert!(text.ends_with("fix the TOML syntax"), "{text}");
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn wrong_type_names_key_value_and_file() {
    let (_tmp, project, env) = setup();
    let file = project.join(".ctxmon/config.local.toml");
    fs::write(&file, "[context_monitor]\nwarning_threshold = \"high\"\n").expect("write");
    let e = load_err(&project, &env, None);
    assert_eq!(e.kind, ConfigErrorKind::InvalidValue);
    assert_eq!(e.key.as_deref(), Some("context_monitor.warning_threshold"));
    assert_eq!(
        e.to_string(),
        format!(
            "invalid configuration: context_monitor.warning_threshold = \"high\" from {}: must be a number greater than 0 and at most 1",
            file.display()
        )
    );
}

#[test]
fn a_section_that_is_not_a_table_is_an_invalid_value() {
    let (_tmp, project, env) = setup();
    fs::write(project.join(".ctxmon/config.toml"), "hooks = 3\n").expect("write");
    let e = load_err(&project, &env, None);
    assert_eq!(
        (e.kind, e.key.as_deref()),
        (ConfigErrorKind::InvalidValue, Some("hooks"))
    );
}

#[test]
fn empty_files_are_fine() {
    let (tmp, project, env) = setup();
    let user = tmp.path().join("home/.config/ctxmon/config.toml");
    fs::create_dir_all(user.parent().expect("parent")).expect("mkdir");
    fs::write(&user, "").expect("write");
    fs::write(project.join(".ctxmon/config.toml"), "\n# only a comment\n").expect("write");
    fs::write(project.join(".ctxmon/config.local.toml"), "[hooks]\n").expect("write");
    let loaded = load_config(&project, &env, None, &[]).expect("load");
    assert_eq!(loaded.config, Default::default());
}

#[test]
fn a_config_file_that_is_a_directory_is_a_clear_io_error() {
    let (_tmp, project, env) = setup();
    let file = project.join(".ctxmon/config.toml");
    fs::create_dir_all(&file).expect("mkdir");
    let e = load_err(&project, &env, None);
    assert_eq!(e.kind, ConfigErrorKind::Io);
    assert_eq!(
        e.to_string(),
        format!(
            "cannot use configuration file {}: it is a directory, not a file; remove it or point at a TOML file",
            file.display()
        )
    );
}

#[cfg(unix)]
#[test]
fn a_config_file_that_is_a_fifo_is_a_clear_io_error_not_a_hang() {
    let (_tmp, project, env) = setup();
    let file = project.join(".ctxmon/config.toml");
    let made = std::process::Command::new("mkfifo").arg(&file).status();
    if !made.is_ok_and(|s| s.success()) {
        ctxmon_test_support::skip!("mkfifo unavailable; skipping");
        return;
    }
    // Opening a FIFO without a writer blocks: load on a thread so a regression fails, not hangs.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load_config(&project, &env, None, &[]).err());
    });
    let e = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("loading a FIFO configuration must not block")
        .expect("a FIFO is an error");
    assert_eq!(e.kind, ConfigErrorKind::Io);
    assert_eq!(
        e.to_string(),
        format!(
            "cannot use configuration file {}: it is a FIFO, not a regular file; replace it with a TOML file",
            file.display()
        )
    );
}

#[test]
fn a_missing_explicit_file_is_an_error_but_missing_conventional_files_are_not() {
    let (tmp, project, env) = setup();
    let missing = tmp.path().join("nope.toml");
    let e = load_err(&project, &env, Some(&missing));
    assert_eq!(e.kind, ConfigErrorKind::Io);
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert!(load_config(&project, &env, None, &[]).is_ok());
}

/// A file named `.ctxmon` where the folder should be holds no configuration files: the project
/// layers are absent (as for a missing folder), not an error that would cost the hooks their
/// configuration; `--config` through a regular file does not exist either.
#[test]
fn a_path_through_a_regular_file_is_an_absent_file() {
    let (tmp, project, env) = setup();
    fs::remove_dir(project.join(".ctxmon")).expect("rmdir");
    fs::write(project.join(".ctxmon"), "a file where the folder should be").expect("write");
    assert!(load_config(&project, &env, None, &[]).is_ok());
    let through = tmp.path().join("proj/.ctxmon/extra.toml");
    let e = load_err(&project, &env, Some(&through));
    assert!(e.to_string().contains("does not exist"), "{e}");
}

#[test]
fn non_utf8_huge_and_deeply_nested_files_are_parse_errors() {
    let (_tmp, project, env) = setup();
    let file = project.join(".ctxmon/config.toml");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            b"[hooks]\ndeadline_ms = \xff\xfe\n".to_vec(),
            "not valid UTF-8",
        ),
        (vec![b'#'; 2 * 1024 * 1024], "larger than"),
        (
            format!("x = {}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            "line 1",
        ),
    ];
    for (bytes, needle) in cases {
        fs::write(&file, bytes).expect("write");
        let e = load_err(&project, &env, None);
        assert_eq!(e.kind, ConfigErrorKind::Parse, "{e}");
        assert!(e.to_string().contains(needle), "{needle}: {e}");
    }
}

#[test]
fn a_non_utf8_env_value_is_named() {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        let (_tmp, project, env) = setup();
        let env = env.with(
            "CTXMON_HOOKS__DEADLINE_MS",
            std::ffi::OsString::from_vec(vec![0xff]),
        );
        let e = load_err(&project, &env, None);
        assert_eq!(e.source, "environment variable CTXMON_HOOKS__DEADLINE_MS");
    }
}
