//! Loading the layered configuration: precedence, sources, and errors that name key and origin.

use std::fs;
use std::path::{Path, PathBuf};

use ctxmon_infra_fs::config::{
    ConfigError, ConfigErrorKind, EnvVars, FileLayer, LoadedConfig, ValueSource, load_config,
};

/// A temp project with a temp home; nothing from the real environment leaks in.
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
    fn user(&self) -> PathBuf {
        self.root.join("home/.config/ctxmon/config.toml")
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
    fn var(&mut self, name: &str, value: &str) {
        self.env = self.env.clone().with(name, value);
    }
    fn load_with(
        &self,
        explicit: Option<&Path>,
        flags: &[(&str, &str)],
    ) -> Result<LoadedConfig, ConfigError> {
        let flags: Vec<(String, String)> = flags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        load_config(&self.project_dir(), &self.env, explicit, &flags)
    }
    fn load(&self) -> Result<LoadedConfig, ConfigError> {
        self.load_with(None, &[])
    }
    fn err(&self) -> ConfigError {
        match self.load() {
            Ok(_) => panic!("expected a configuration error"),
            Err(e) => e,
        }
    }
}

fn file_source(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn no_files_means_defaults_from_default() {
    let fx = Fx::new();
    let loaded = fx.load().expect("load");
    assert_eq!(loaded.config, Default::default());
    assert_eq!(
        loaded.source_of("context_monitor.warning_threshold"),
        Some(&ValueSource::Default)
    );
    assert_eq!(
        loaded.source_of("context_monitor.context_window"),
        Some(&ValueSource::Default)
    );
}

#[test]
fn each_layer_overrides_the_one_below_and_is_reported() {
    let fx = Fx::new();
    let explicit = fx.root.join("extra.toml");
    fx.write(
        &fx.user(),
        "[hooks]\ndeadline_ms = 100\n[resume_logs]\nkeep = 3\n",
    );
    fx.write(
        &fx.project(),
        "[hooks]\ndeadline_ms = 200\n[resumption]\nmax_age_hours = 5\n",
    );
    fx.write(&fx.local(), "[hooks]\ndeadline_ms = 300\n");
    fx.write(&explicit, "[hooks]\ndeadline_ms = 400\n");
    let plain_env = fx.env.clone();
    let with_var = fx.env.clone().with("CTXMON_HOOKS__DEADLINE_MS", "500");
    let flag = [("hooks.deadline_ms".to_string(), "600".to_string())];
    let file = |layer, path: &Path| ValueSource::File {
        layer,
        path: path.to_path_buf(),
    };

    let cases = [
        (
            &with_var,
            Some(explicit.as_path()),
            &flag[..],
            600,
            ValueSource::Flag,
        ),
        (
            &with_var,
            Some(explicit.as_path()),
            &[][..],
            500,
            ValueSource::Env {
                var: "CTXMON_HOOKS__DEADLINE_MS".into(),
            },
        ),
        (
            &plain_env,
            Some(explicit.as_path()),
            &[][..],
            400,
            file(FileLayer::Explicit, &explicit),
        ),
        (
            &plain_env,
            None,
            &[][..],
            300,
            file(FileLayer::Local, &fx.local()),
        ),
    ];
    for (env, explicit, flags, want, want_source) in cases {
        let loaded = load_config(&fx.project_dir(), env, explicit, flags).expect("load");
        assert_eq!(loaded.config.hooks.deadline_ms, Some(want));
        assert_eq!(loaded.source_of("hooks.deadline_ms"), Some(&want_source));
        // Keys set only lower down keep their own sources.
        assert_eq!(loaded.config.resume_logs.keep, 3);
        assert_eq!(
            loaded
                .source_of("resume_logs.keep")
                .map(ToString::to_string),
            Some(file_source(&fx.user()))
        );
        assert_eq!(
            loaded.source_of("resumption.max_age_hours"),
            Some(&file(FileLayer::Project, &fx.project()))
        );
        assert_eq!(
            loaded.source_of("hooks.log_max_bytes"),
            Some(&ValueSource::Default)
        );
    }

    fs::remove_file(fx.local()).expect("rm local");
    assert_eq!(fx.load().expect("load").config.hooks.deadline_ms, Some(200));
    fs::remove_file(fx.project()).expect("rm project");
    assert_eq!(fx.load().expect("load").config.hooks.deadline_ms, Some(100));
}

#[test]
fn xdg_config_home_locates_the_user_file() {
    let mut fx = Fx::new();
    let xdg = fx.root.join("xdg");
    fx.write(&xdg.join("ctxmon/config.toml"), "[resume_logs]\nkeep = 7\n");
    fx.var("XDG_CONFIG_HOME", &xdg.display().to_string());
    assert_eq!(fx.load().expect("load").config.resume_logs.keep, 7);
}

#[test]
fn env_vars_nest_with_double_underscore_and_are_typed_by_key() {
    let mut fx = Fx::new();
    fx.var("CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD", "0.72");
    fx.var("CTXMON_CONTEXT_MONITOR__ENABLED", "false");
    fx.var("CTXMON_CONTEXT_MONITOR__INJECT", "on-change");
    fx.var("CTXMON_CONTEXT_MONITOR__MODELS__CLAUDE_OPUS", "1000000");
    fx.var("CTXMON_RESUME_LOGS__TRIGGERS", "manual, tier:warning");
    fx.var("CTXMON_RESUMPTION__SOURCE_FILE", "2024.yaml");
    fx.var("NOT_CTXMON_HOOKS__DEADLINE_MS", "1");
    let loaded = fx.load().expect("load");
    let cm = &loaded.config.context_monitor;
    assert_eq!(cm.warning_threshold, 0.72);
    assert!(!cm.enabled);
    assert_eq!(cm.models.get("claude_opus"), Some(&1_000_000));
    assert_eq!(
        loaded.config.resume_logs.triggers,
        vec!["manual", "tier:warning"]
    );
    assert_eq!(loaded.config.resumption.source_file, "2024.yaml");
    assert_eq!(
        loaded.source_of("context_monitor.warning_threshold"),
        Some(&ValueSource::Env {
            var: "CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD".into()
        })
    );
    assert_eq!(
        loaded
            .source_of("context_monitor.models.claude_opus")
            .map(ToString::to_string)
            .as_deref(),
        Some("environment variable CTXMON_CONTEXT_MONITOR__MODELS__CLAUDE_OPUS")
    );
}

#[test]
fn model_maps_merge_across_layers_entry_by_entry() {
    let mut fx = Fx::new();
    fx.write(
        &fx.user(),
        "[context_monitor.models]\nopus = 1000000\n\"gpt-4.1\" = 400000\n",
    );
    fx.write(&fx.project(), "[context_monitor.models]\nopus = 500000\n");
    fx.var("CTXMON_CONTEXT_MONITOR__MODELS__HAIKU", "200000");
    let loaded = fx.load().expect("load");
    let models = &loaded.config.context_monitor.models;
    assert_eq!(models.len(), 3);
    assert_eq!(models.get("opus"), Some(&500_000));
    assert_eq!(
        loaded
            .source_of("context_monitor.models.gpt-4.1")
            .map(ToString::to_string),
        Some(file_source(&fx.user()))
    );
    assert_eq!(
        loaded
            .source_of("context_monitor.models.opus")
            .map(ToString::to_string),
        Some(file_source(&fx.project()))
    );
    assert_eq!(
        loaded
            .source_of("context_monitor.models")
            .map(|s| s.layer_name()),
        Some("env")
    );
}

#[test]
fn unknown_key_in_project_file_names_key_file_and_suggestion() {
    let fx = Fx::new();
    fx.write(&fx.project(), "[context_monitor]\nwarning_treshold = 0.7\n");
    let e = fx.err();
    assert_eq!(e.kind, ConfigErrorKind::UnknownKey);
    assert_eq!(e.key.as_deref(), Some("context_monitor.warning_treshold"));
    assert_eq!(e.source, file_source(&fx.project()));
    assert_eq!(
        e.to_string(),
        format!(
            "invalid configuration: unknown key context_monitor.warning_treshold from {}: did you mean context_monitor.warning_threshold?",
            fx.project().display()
        )
    );
}

#[test]
fn unknown_section_is_an_unknown_key() {
    let fx = Fx::new();
    fx.write(&fx.local(), "[monitor]\nenabled = true\n");
    let e = fx.err();
    assert_eq!(
        (e.kind, e.key.as_deref()),
        (ConfigErrorKind::UnknownKey, Some("monitor"))
    );
    assert_eq!(e.source, file_source(&fx.local()));
}

#[test]
fn unknown_key_via_env_names_the_variable() {
    let mut fx = Fx::new();
    fx.var("CTXMON_CONTEXT_MONITOR__WARNING_TRESHOLD", "0.7");
    let e = fx.err();
    assert_eq!(e.kind, ConfigErrorKind::UnknownKey);
    assert_eq!(
        e.source,
        "environment variable CTXMON_CONTEXT_MONITOR__WARNING_TRESHOLD"
    );
    assert!(
        e.to_string()
            .contains("did you mean CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD?"),
        "{e}"
    );
}

#[test]
fn bad_env_value_names_the_variable_and_value() {
    let mut fx = Fx::new();
    fx.var("CTXMON_HOOKS__DEADLINE_MS", "soon");
    let e = fx.err();
    assert_eq!(
        e.to_string(),
        "invalid configuration: hooks.deadline_ms = \"soon\" from environment variable CTXMON_HOOKS__DEADLINE_MS: must be an integer from 50 to 600000 (milliseconds)"
    );
}

/// Every deadline key has one range: a hook's own key past it is refused like the fallback,
/// naming the key, the file and the range (whether a deadline fits the hook's timeout is
/// doctor's question, asked of the settings files).
#[test]
fn a_hook_deadline_out_of_range_names_key_file_and_limit() {
    let fx = Fx::new();
    fx.write(
        &fx.project(),
        "[hooks]\ndeadline_ms = 60000\npre_compact_deadline_ms = 900000\n",
    );
    let e = fx.err();
    let text = e.to_string();
    assert!(
        text.starts_with(&format!(
            "invalid configuration: hooks.pre_compact_deadline_ms = 900000 from {}: must be an integer from 50 to 600000 (milliseconds)",
            file_source(&fx.project())
        )),
        "{text}"
    );
    assert!(!text.contains("hooks.deadline_ms"), "{text}");
    fx.write(
        &fx.project(),
        "[hooks]\ndeadline_ms = 60000\npre_compact_deadline_ms = 7499\n",
    );
    let hooks = fx.load().expect("load").config.hooks;
    assert_eq!(
        (hooks.deadline_ms, hooks.pre_compact_deadline_ms),
        (Some(60_000), Some(7_499))
    );
}

#[test]
fn out_of_range_value_names_key_and_file() {
    let fx = Fx::new();
    fx.write(
        &fx.project(),
        "[context_monitor]\npost_compaction_percent = 5\n",
    );
    let e = fx.err();
    assert_eq!(e.kind, ConfigErrorKind::InvalidValue);
    assert_eq!(
        e.key.as_deref(),
        Some("context_monitor.post_compaction_percent")
    );
    assert_eq!(
        e.to_string(),
        format!(
            "invalid configuration: context_monitor.post_compaction_percent = 5 from {}: must be an integer from 10 to 60",
            fx.project().display()
        )
    );
}

#[test]
fn thresholds_out_of_order_across_files_name_both_keys_and_files() {
    let fx = Fx::new();
    fx.write(&fx.user(), "[context_monitor]\nlow_threshold = 0.75\n");
    fx.write(
        &fx.project(),
        "[context_monitor]\nwarning_threshold = 0.72\n",
    );
    let e = fx.err();
    assert_eq!(e.kind, ConfigErrorKind::InvalidValue);
    assert_eq!(
        e.key.as_deref(),
        Some("context_monitor.low_threshold, context_monitor.warning_threshold")
    );
    assert_eq!(
        e.source,
        file_source(&fx.project()),
        "the higher layer is blamed"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "invalid configuration: context_monitor.low_threshold = 0.75 from {}, context_monitor.warning_threshold = 0.72 from {}: thresholds must increase: 0.75 is not less than 0.72",
            fx.user().display(),
            fx.project().display()
        )
    );
}

#[test]
fn flags_override_and_are_checked() {
    let fx = Fx::new();
    let loaded = fx
        .load_with(None, &[("context_monitor.context_window", "200000")])
        .expect("load");
    assert_eq!(loaded.config.context_monitor.context_window, Some(200_000));
    assert_eq!(
        loaded.source_of("context_monitor.context_window"),
        Some(&ValueSource::Flag)
    );
    let e = fx
        .load_with(None, &[("context_monitor.context_window", "0")])
        .expect_err("error");
    assert_eq!(e.source, "command line");
    assert_eq!(e.key.as_deref(), Some("context_monitor.context_window"));
}

#[test]
fn every_problem_is_reported_at_once() {
    let mut fx = Fx::new();
    fx.write(&fx.user(), "[hooks]\ndeadline = 5\n");
    fx.write(&fx.project(), "[resume_logs]\nkeep = 0\n");
    fx.var("CTXMON_CONTEXT_MONITOR__ENABLED", "maybe");
    let e = fx.err();
    let keys: Vec<_> = e.all().map(|e| e.key.clone().unwrap_or_default()).collect();
    assert_eq!(
        keys,
        vec![
            "hooks.deadline",
            "resume_logs.keep",
            "context_monitor.enabled"
        ]
    );
    assert_eq!(e.to_string().lines().count(), 3);
}
