//! `config set|get|show|path|schema`: edits are typed, validated against every file, atomic and
//! private, keep the rest of the file as written, and refused edits leave the file untouched.

use std::fs;
use std::path::{Path, PathBuf};

use ctxmon_application::config::Config;
use ctxmon_infra_fs::ProjectLayout;
use ctxmon_infra_fs::config::{
    ConfigError, ConfigErrorKind, EnvVars, FileLayer, Scope, SetOutcome, ValueSource, load_config,
    schema_text, set_value, unset_value_in,
};

struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    env: EnvVars,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().to_path_buf();
        fs::create_dir_all(root.join("proj")).expect("project dir");
        let env = EnvVars::new().with("HOME", root.join("home"));
        Fx {
            _tmp: tmp,
            root,
            env,
        }
    }
    fn project_dir(&self) -> PathBuf {
        self.root.join("proj")
    }
    fn project(&self) -> PathBuf {
        self.root.join("proj/.ctxmon/config.toml")
    }
    fn local(&self) -> PathBuf {
        self.root.join("proj/.ctxmon/config.local.toml")
    }
    fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }
    fn set(&self, scope: Scope, key: &str, value: &str) -> Result<SetOutcome, ConfigError> {
        set_value(&self.project_dir(), &self.env, None, scope, key, value)
    }
    fn set_err(&self, scope: Scope, key: &str, value: &str) -> ConfigError {
        match self.set(scope, key, value) {
            Ok(o) => panic!("expected {key}={value} to be refused, got {o:?}"),
            Err(e) => e,
        }
    }
    fn get(&self, key: &str) -> String {
        load_config(&self.project_dir(), &self.env, None, &[])
            .and_then(|l| l.get(key))
            .map(|v| v.toml_text())
            .unwrap_or_else(|e| panic!("get {key}: {e}"))
    }
}

#[test]
fn set_then_get_round_trips_with_the_file_as_source() {
    let fx = Fx::new();
    let out = fx
        .set(Scope::Project, "context_monitor.warning_threshold", "0.72")
        .expect("set");
    assert_eq!(out.path, fx.project());
    assert!(out.created);
    assert_eq!(out.value, serde_json::json!(0.72));
    assert_eq!(out.shadowed_by, None);
    assert_eq!(fx.get("context_monitor.warning_threshold"), "0.72");
    let loaded = load_config(&fx.project_dir(), &fx.env, None, &[]).expect("load");
    let got = loaded
        .get("context_monitor.warning_threshold")
        .expect("get");
    assert_eq!(got.value, serde_json::json!(0.72));
    assert_eq!(
        got.source,
        ValueSource::File {
            layer: FileLayer::Project,
            path: fx.project()
        }
    );
}

#[test]
fn set_types_values_by_key() {
    let fx = Fx::new();
    fx.set(
        Scope::Local,
        "resume_logs.triggers",
        "manual, tier:critical",
    )
    .expect("list");
    fx.set(Scope::Local, "context_monitor.models.gpt-4.1", "400000")
        .expect("model");
    fx.set(Scope::Local, "context_monitor.inject", "warning-and-above")
        .expect("enum");
    fx.set(Scope::Local, "context_monitor.enabled", "false")
        .expect("bool");
    fx.set(Scope::Local, "context_monitor.context_window", "200000")
        .expect("window");
    assert_eq!(
        fx.get("resume_logs.triggers"),
        r#"["manual", "tier:critical"]"#
    );
    assert_eq!(fx.get("context_monitor.models.gpt-4.1"), "400000");
    assert_eq!(fx.get("context_monitor.enabled"), "false");
    let text = fs::read_to_string(fx.local()).expect("read");
    assert!(text.contains("\"gpt-4.1\" = 400000"), "{text}");

    let out = fx
        .set(Scope::Local, "context_monitor.context_window", "none")
        .expect("unset");
    assert_eq!(out.value, serde_json::Value::Null);
    assert_eq!(fx.get("context_monitor.context_window"), "");
}

#[test]
fn set_preserves_unrelated_keys_and_their_order() {
    let fx = Fx::new();
    fx.write(
        &fx.project(),
        "[resume_logs]\nkeep = 3\n\n[hooks]\ndeadline_ms = 900\n\n[context_monitor.models]\nopus = 1000000\n",
    );
    fx.set(Scope::Project, "context_monitor.inject", "on-change")
        .expect("set");
    fx.set(Scope::Project, "hooks.log_max_bytes", "2048")
        .expect("set");
    let table: toml::Table =
        toml::from_str(&fs::read_to_string(fx.project()).expect("read")).expect("still toml");
    let sections: Vec<&str> = table.keys().map(String::as_str).collect();
    assert_eq!(sections, vec!["resume_logs", "hooks", "context_monitor"]);
    assert_eq!(table["resume_logs"]["keep"].as_integer(), Some(3));
    assert_eq!(table["hooks"]["deadline_ms"].as_integer(), Some(900));
    assert_eq!(table["hooks"]["log_max_bytes"].as_integer(), Some(2048));
    assert_eq!(
        table["context_monitor"]["models"]["opus"].as_integer(),
        Some(1_000_000)
    );
    assert_eq!(
        table["context_monitor"]["inject"].as_str(),
        Some("on-change")
    );
}

#[test]
fn set_and_unset_keep_comments_blank_lines_order_and_inline_tables() {
    let fx = Fx::new();
    let file = "\
# Shared settings (see README).
resumption.tail_bytes = 65536

[hooks]
deadline_ms = 900   # milliseconds

# Earlier warnings for this repository.
[context_monitor]
warning_threshold = 0.7
models = { \"claude-opus-4\" = 1000000 }
";
    fx.write(&fx.project(), file);
    let text = || fs::read_to_string(fx.project()).expect("read");

    fx.set(Scope::Project, "hooks.deadline_ms", "1200")
        .expect("set");
    let after_set = file.replace("= 900   #", "= 1200   #");
    assert_eq!(text(), after_set);

    fx.set(Scope::Project, "context_monitor.models.gpt-4.1", "1047576")
        .expect("set a model");
    let with_model = after_set.replace("1000000 }", "1000000, \"gpt-4.1\" = 1047576 }");
    assert_eq!(text(), with_model);

    let layout = ProjectLayout::new(fx.project_dir());
    let out = unset_value_in(
        &layout,
        &fx.env,
        None,
        None,
        "context_monitor.warning_threshold",
    )
    .expect("unset");
    assert_eq!(out.removed_from, Some(fx.project()));
    assert_eq!(text(), with_model.replace("warning_threshold = 0.7\n", ""));
}

#[test]
fn unknown_key_is_refused_with_a_suggestion() {
    let fx = Fx::new();
    let e = fx.set_err(Scope::Project, "context_monitor.warning_treshold", "0.7");
    assert_eq!(e.kind, ConfigErrorKind::UnknownKey);
    assert_eq!(
        e.to_string(),
        "invalid configuration: unknown key context_monitor.warning_treshold from `ctxmon config set`: did you mean context_monitor.warning_threshold?"
    );
    assert!(!fx.project().exists());
    let e = fx.set_err(Scope::Project, "deadline_ms", "100");
    assert!(
        e.to_string().contains("did you mean hooks.deadline_ms?"),
        "{e}"
    );
}

#[test]
fn invalid_value_is_refused_without_touching_the_file() {
    let fx = Fx::new();
    let before = "[hooks]\ndeadline_ms = 900\n";
    fx.write(&fx.project(), before);
    let e = fx.set_err(
        Scope::Project,
        "context_monitor.post_compaction_percent",
        "5",
    );
    assert_eq!(
        e.to_string(),
        "invalid configuration: context_monitor.post_compaction_percent = 5 from `ctxmon config set`: must be an integer from 10 to 60"
    );
    let e = fx.set_err(Scope::Project, "context_monitor.enabled", "yes");
    assert_eq!(e.kind, ConfigErrorKind::InvalidValue);
    assert_eq!(fs::read_to_string(fx.project()).expect("read"), before);
}

#[test]
fn a_change_that_breaks_a_rule_with_another_file_is_refused() {
    let fx = Fx::new();
    fx.write(
        &fx.project(),
        "[context_monitor]\ncritical_threshold = 0.8\n",
    );
    let e = fx.set_err(Scope::Local, "context_monitor.warning_threshold", "0.85");
    assert_eq!(e.kind, ConfigErrorKind::InvalidValue);
    assert_eq!(
        e.key.as_deref(),
        Some("context_monitor.warning_threshold, context_monitor.critical_threshold")
    );
    let text = e.to_string();
    assert!(text.contains("thresholds must increase"), "{text}");
    assert!(text.contains(&fx.project().display().to_string()), "{text}");
    assert!(text.ends_with("nothing was written"), "{text}");
    assert!(!fx.local().exists());
}

#[test]
fn a_corrupt_file_is_not_edited() {
    let fx = Fx::new();
    let corrupt = "[hooks\ndeadline_ms = 900\n";
    fx.write(&fx.project(), corrupt);
    let e = fx.set_err(Scope::Project, "hooks.deadline_ms", "100");
    assert_eq!(e.kind, ConfigErrorKind::Parse);
    assert!(e.to_string().contains("line 1"), "{e}");
    assert_eq!(fs::read_to_string(fx.project()).expect("read"), corrupt);
}

#[cfg(unix)]
#[test]
fn written_files_are_private_and_new_folders_are_0700() {
    use std::os::unix::fs::PermissionsExt;
    let mut fx = Fx::new();
    let xdg = fx.root.join("xdg");
    fx.env = fx.env.clone().with("XDG_CONFIG_HOME", &xdg);
    let out = fx.set(Scope::User, "resume_logs.keep", "4").expect("set");
    assert_eq!(out.path, xdg.join("ctxmon/config.toml"));
    let mode = |p: &Path| fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&out.path), 0o600);
    assert_eq!(mode(&xdg.join("ctxmon")), 0o700);
    // Replacing an existing, more open file leaves it private too.
    fs::set_permissions(&out.path, fs::Permissions::from_mode(0o644)).expect("chmod");
    fx.set(Scope::User, "resume_logs.keep", "5")
        .expect("set again");
    assert_eq!(mode(&out.path), 0o600);
    assert_eq!(fx.get("resume_logs.keep"), "5");
}

#[test]
fn the_user_scope_needs_a_home() {
    let mut fx = Fx::new();
    fx.env = EnvVars::new();
    let e = fx.set_err(Scope::User, "resume_logs.keep", "4");
    assert_eq!(e.kind, ConfigErrorKind::Io);
    assert!(
        e.to_string().contains("HOME and XDG_CONFIG_HOME are unset"),
        "{e}"
    );
}

#[test]
fn a_value_still_overridden_by_a_variable_is_reported_as_shadowed() {
    let mut fx = Fx::new();
    fx.env = fx.env.clone().with("CTXMON_HOOKS__DEADLINE_MS", "700");
    let out = fx
        .set(Scope::Project, "hooks.deadline_ms", "100")
        .expect("set");
    assert_eq!(
        out.shadowed_by,
        Some(ValueSource::Env {
            var: "CTXMON_HOOKS__DEADLINE_MS".into()
        })
    );
}

#[test]
fn get_unknown_keys_and_missing_model_rules_are_errors() {
    let fx = Fx::new();
    let loaded = load_config(&fx.project_dir(), &fx.env, None, &[]).expect("load");
    let e = loaded.get("hooks.deadline").expect_err("unknown");
    assert_eq!(e.kind, ConfigErrorKind::UnknownKey);
    assert!(
        e.to_string().contains("did you mean hooks.deadline_ms?"),
        "{e}"
    );
    let e = loaded
        .get("context_monitor.models.opus")
        .expect_err("no rule");
    assert!(
        e.to_string()
            .contains("ctxmon config set context_monitor.models.opus"),
        "{e}"
    );
    let source = loaded.get("resumption.source_file").expect("get");
    assert_eq!(source.plain_text(), "ORCHESTRATION.yaml");
    assert_eq!(source.toml_text(), "\"ORCHESTRATION.yaml\"");
}

#[test]
fn show_toml_parses_back_and_annotates_sources() {
    let fx = Fx::new();
    fx.write(
        &fx.project(),
        "[context_monitor.models]\n\"gpt-4.1\" = 400000\n",
    );
    let env = fx
        .env
        .clone()
        .with("CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD", "0.72");
    let loaded = load_config(&fx.project_dir(), &env, None, &[]).expect("load");
    let plain = loaded.to_toml(false);
    let back: Config = toml::from_str(&plain).expect("show output is valid configuration");
    assert_eq!(back, loaded.config);

    let annotated = loaded.to_toml(true);
    assert!(annotated.contains(
        "warning_threshold = 0.72  # environment variable CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD"
    ), "{annotated}");
    assert!(
        annotated.contains("enabled = true  # default"),
        "{annotated}"
    );
    assert!(
        annotated.contains("# context_window is not set"),
        "{annotated}"
    );
    assert!(
        annotated.contains(&format!(
            "\"gpt-4.1\" = 400000  # {}",
            fx.project().display()
        )),
        "{annotated}"
    );

    let json = loaded.to_json();
    assert_eq!(json["config"]["context_monitor"]["warning_threshold"], 0.72);
    assert_eq!(
        json["sources"]["context_monitor.warning_threshold"]["layer"],
        "env"
    );
    assert_eq!(json["sources"]["hooks.deadline_ms"]["layer"], "default");
    assert_eq!(
        json["sources"]["context_monitor.models.gpt-4.1"]["from"],
        fx.project().display().to_string()
    );
}

#[test]
fn path_lists_every_file_and_whether_it_exists() {
    let fx = Fx::new();
    fx.write(&fx.local(), "");
    let explicit = fx.root.join("extra.toml");
    let paths =
        ctxmon_infra_fs::config::ConfigPaths::resolve(&fx.project_dir(), &fx.env, Some(&explicit));
    let entries: Vec<(FileLayer, Option<PathBuf>, bool)> = paths
        .entries()
        .into_iter()
        .map(|e| (e.layer, e.path, e.exists))
        .collect();
    assert_eq!(
        entries,
        vec![
            (
                FileLayer::User,
                Some(fx.root.join("home/.config/ctxmon/config.toml")),
                false
            ),
            (FileLayer::Project, Some(fx.project()), false),
            (FileLayer::Local, Some(fx.local()), true),
            (FileLayer::Explicit, Some(explicit), false),
        ]
    );
}

#[test]
fn schema_is_pretty_json_schema() {
    let text = schema_text();
    let schema: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(text.contains("\n  \"properties\""));
}

/// `config set` creating `.ctxmon` gives it the `.gitignore` every creator writes;
/// one that exists keeps what it has.
#[test]
fn creating_the_project_folder_writes_its_gitignore() {
    let fx = Fx::new();
    fx.set(Scope::Local, "context_monitor.warning_threshold", "0.72")
        .expect("set");
    let gitignore = fx.root.join("proj/.ctxmon/.gitignore");
    assert_eq!(fs::read_to_string(&gitignore).expect("gitignore"), "*\n");
    fs::write(&gitignore, "*\n!config.toml\n").expect("edit");
    fx.set(Scope::Project, "context_monitor.warning_threshold", "0.71")
        .expect("set");
    assert_eq!(
        fs::read_to_string(&gitignore).expect("gitignore"),
        "*\n!config.toml\n"
    );
}

/// Contract C12: nothing inside `.ctxmon` is followed through a link when written; a project file
/// that is a link (a cloned repository's) is refused, its target untouched. The user's own file
/// is still written through (dotfile managers).
#[cfg(unix)]
#[test]
fn a_linked_project_file_is_refused() {
    let fx = Fx::new();
    let outside = fx.root.join("outside.toml");
    fx.write(&outside, "");
    fs::create_dir_all(fx.root.join("proj/.ctxmon")).expect("mkdir");
    std::os::unix::fs::symlink(&outside, fx.project()).expect("symlink");
    let e = fx.set_err(Scope::Project, "context_monitor.warning_threshold", "0.72");
    assert_eq!(e.kind, ConfigErrorKind::Io, "{e}");
    assert!(e.to_string().contains("is a symbolic link"), "{e}");
    assert_eq!(fs::read(&outside).expect("outside"), b"");
    assert!(
        fs::symlink_metadata(fx.project())
            .expect("link")
            .file_type()
            .is_symlink()
    );
}
