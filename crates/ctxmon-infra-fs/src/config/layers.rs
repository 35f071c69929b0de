//! Building the layers: reading each file, turning `CTXMON_*` variables and flags into one-key
//! tables, and checking every value where it was written, so an error names its own file or
//! variable even when a higher layer would have hidden it.

use std::fmt;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use super::env::{ENV_PREFIX, EnvVars};
use super::error::{ConfigError, ConfigErrorKind, Setting};
use super::kinds::{self, KeyRef, MODELS_KEY, Parsed};
use super::paths::{ConfigPaths, FileLayer};
use crate::fsutil::{self, OpenRegularError};

/// A configuration file larger than this is refused unread: it cannot be a hand-written
/// configuration, and hooks read the configuration on every prompt.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueSource {
    /// The built-in default.
    Default,
    File {
        layer: FileLayer,
        path: PathBuf,
    },
    /// A `CTXMON_*` environment variable, by name.
    Env {
        var: String,
    },
    /// A command-line flag.
    Flag,
}

impl ValueSource {
    /// Precedence: a higher rank overrides a lower one.
    pub fn rank(&self) -> u8 {
        match self {
            ValueSource::Default => 0,
            ValueSource::File { layer, .. } => match layer {
                FileLayer::User => 1,
                FileLayer::Project => 2,
                FileLayer::Local => 3,
                FileLayer::Explicit => 4,
            },
            ValueSource::Env { .. } => 5,
            ValueSource::Flag => 6,
        }
    }

    /// A short name for the layer: `default`, `user`, `project`, `local`, `explicit`, `env`,
    /// `flag` (for `--json` output).
    pub fn layer_name(&self) -> &'static str {
        match self {
            ValueSource::Default => "default",
            ValueSource::File { layer, .. } => layer.name(),
            ValueSource::Env { .. } => "env",
            ValueSource::Flag => "flag",
        }
    }
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSource::Default => f.write_str("the built-in default"),
            ValueSource::File { path, .. } => write!(f, "{}", path.display()),
            ValueSource::Env { var } => write!(f, "environment variable {var}"),
            ValueSource::Flag => f.write_str("command line"),
        }
    }
}

/// One layer: a TOML table and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    pub source: ValueSource,
    pub table: toml::Table,
}

fn is_absent(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

/// Reads a configuration file. A missing file is `None` unless `required` (an explicit
/// `--config FILE` must exist); so is a path through a regular file (a file named `.ctxmon`
/// holds no `.ctxmon/config.toml`). An empty file is an empty table.
pub(crate) fn read_file(path: &Path, required: bool) -> Result<Option<toml::Table>, ConfigError> {
    match read_text(path, required)? {
        Some(text) => parse_table(path, &text).map(Some),
        None => Ok(None),
    }
}

/// A file's text as TOML, or a parse error naming the file, line and column.
pub(crate) fn parse_table(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    toml::from_str::<toml::Table>(text).map_err(|e| {
        ConfigError::new(
            ConfigErrorKind::Parse,
            None,
            path.display().to_string(),
            describe_toml_error(text, &e),
        )
    })
}

/// A configuration file's text, read the way [`read_file`] reads it (only a regular file, at
/// most [`MAX_FILE_BYTES`], UTF-8); `config set` and `unset` edit this text in place.
pub(crate) fn read_text(path: &Path, required: bool) -> Result<Option<String>, ConfigError> {
    let shown = path.display().to_string();
    let io = |message: String| ConfigError::new(ConfigErrorKind::Io, None, shown.clone(), message);
    let parse =
        |message: String| ConfigError::new(ConfigErrorKind::Parse, None, shown.clone(), message);
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if is_absent(&e) && !required => return Ok(None),
        Err(e) if is_absent(&e) => {
            return Err(io("it does not exist; check the --config path".into()));
        }
        Err(e) => return Err(io(format!("{e}; check the file's permissions"))),
    };
    if meta.is_dir() {
        return Err(io(
            "it is a directory, not a file; remove it or point at a TOML file".into(),
        ));
    }
    // Opening a FIFO would block every command (and every hook until its deadline) until a
    // writer appears: only a regular file is opened.
    let file = match fsutil::open_regular(path) {
        Ok((file, _)) => file,
        Err(OpenRegularError::NotAFile(what)) => {
            return Err(io(format!(
                "it is {what}, not a regular file; replace it with a TOML file"
            )));
        }
        Err(OpenRegularError::Io(e)) => {
            return Err(io(format!("{e}; check the file's permissions")));
        }
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes) {
        return Err(io(format!("{e}; check the file's permissions")));
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(parse(format!(
            "it is larger than {MAX_FILE_BYTES} bytes; a configuration file is a few lines of TOML"
        )));
    }
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, column) = line_column(&String::from_utf8_lossy(e.as_bytes()), at);
        parse(format!(
            "line {line}, column {column}: not valid UTF-8; save the file as UTF-8 TOML"
        ))
    })
}

/// `line 3, column 7: expected `=`; fix the TOML syntax` from toml's multi-line report.
fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
    let what = e.message().trim().replace('\n', ", ");
    match e.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            format!("line {line}, column {column}: {what}; fix the TOML syntax")
        }
        None => format!("{what}; fix the TOML syntax"),
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Reads every file layer. `replace` substitutes the table of one layer (what `config set`
/// would write) without touching the disk.
pub(crate) fn file_layers(
    paths: &ConfigPaths,
    replace: Option<(FileLayer, &toml::Table)>,
) -> (Vec<Layer>, Vec<ConfigError>) {
    let mut layers = Vec::new();
    let mut errors = Vec::new();
    for (layer, path) in paths.layers() {
        let Some(path) = path else { continue };
        let table = match replace {
            Some((which, table)) if which == layer => Ok(Some(table.clone())),
            _ => read_file(path, layer == FileLayer::Explicit),
        };
        match table {
            Ok(Some(table)) => {
                let layer = Layer {
                    source: ValueSource::File {
                        layer,
                        path: path.to_path_buf(),
                    },
                    table,
                };
                errors.extend(check_layer(&layer));
                layers.push(layer);
            }
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (layers, errors)
}

/// One layer per `CTXMON_*` variable, so an error names exactly one variable.
/// `CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD` is `context_monitor.warning_threshold`.
pub(crate) fn env_layers(env: &EnvVars) -> (Vec<Layer>, Vec<ConfigError>) {
    let mut layers = Vec::new();
    let mut errors = Vec::new();
    for (name, value) in env.iter() {
        let Some(rest) = name
            .get(..ENV_PREFIX.len())
            .filter(|p| p.eq_ignore_ascii_case(ENV_PREFIX))
            .and_then(|_| name.get(ENV_PREFIX.len()..))
        else {
            continue;
        };
        let key = rest
            .to_ascii_lowercase()
            .split("__")
            .collect::<Vec<_>>()
            .join(".");
        let source = ValueSource::Env {
            var: name.to_string(),
        };
        let Some(raw) = value.to_str() else {
            errors.push(ConfigError::new(
                ConfigErrorKind::InvalidValue,
                Some(key),
                source.to_string(),
                "the value is not valid UTF-8; set it to plain text",
            ));
            continue;
        };
        match one_key_layer(&key, raw, source, true) {
            Ok(Some(layer)) => layers.push(layer),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (layers, errors)
}

/// One layer per `(dotted key, value)` flag, above everything else.
pub(crate) fn flag_layers(flags: &[(String, String)]) -> (Vec<Layer>, Vec<ConfigError>) {
    let mut layers = Vec::new();
    let mut errors = Vec::new();
    for (key, raw) in flags {
        match one_key_layer(key, raw, ValueSource::Flag, false) {
            Ok(Some(layer)) => layers.push(layer),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (layers, errors)
}

/// Parses `raw` for `key` into a one-key layer; `None` when the value unsets an optional key.
fn one_key_layer(
    key: &str,
    raw: &str,
    source: ValueSource,
    env_style: bool,
) -> Result<Option<Layer>, ConfigError> {
    let Some(key_ref) = KeyRef::resolve(key) else {
        return Err(ConfigError::unknown_key(key, source.to_string(), env_style));
    };
    match kinds::parse(&key_ref, raw) {
        Ok(Parsed::Set(value)) => {
            let table = one_key_table(&key_ref, value);
            Ok(Some(Layer { source, table }))
        }
        Ok(Parsed::Unset) => Ok(None),
        Err(message) => Err(ConfigError::invalid(
            Setting {
                key: key.to_string(),
                value: kinds::render(&toml::Value::String(raw.to_string())),
                source: source.to_string(),
            },
            message,
        )),
    }
}

/// The path of tables leading to a key.
pub(crate) fn segments(key: &KeyRef) -> Vec<String> {
    match key {
        KeyRef::Field(spec) => spec.key.split('.').map(str::to_string).collect(),
        KeyRef::ModelEntry(prefix) => MODELS_KEY
            .split('.')
            .map(str::to_string)
            .chain([prefix.clone()])
            .collect(),
    }
}

/// A table holding only `key = value`, with its parents as tables (`[context_monitor.models]`
/// for a model rule): one variable's or flag's layer.
pub(crate) fn one_key_table(key: &KeyRef, value: toml::Value) -> toml::Table {
    let mut item = value;
    for seg in segments(key).into_iter().rev() {
        let mut table = toml::Table::new();
        table.insert(seg, item);
        item = toml::Value::Table(table);
    }
    match item {
        toml::Value::Table(table) => table,
        // Only for a key without segments, which `KeyRef` cannot be.
        _ => toml::Table::new(),
    }
}

/// Checks every key and value of a file layer against the key table.
pub(crate) fn check_layer(layer: &Layer) -> Vec<ConfigError> {
    let source = layer.source.to_string();
    let mut errors = Vec::new();
    let mut bad = |key: String, value: &toml::Value, message: String| {
        let setting = Setting {
            key,
            value: kinds::render(value),
            source: source.clone(),
        };
        errors.push(ConfigError::invalid(setting, message));
    };
    let mut unknown = Vec::new();
    for (section, body) in &layer.table {
        if !kinds::is_section(section) {
            unknown.push(section.clone());
            continue;
        }
        let Some(body) = body.as_table() else {
            bad(section.clone(), body, "must be a table of settings".into());
            continue;
        };
        for (name, value) in body {
            let key = format!("{section}.{name}");
            match KeyRef::resolve(&key) {
                None => unknown.push(key),
                Some(KeyRef::Field(spec)) if spec.key == MODELS_KEY && value.is_table() => {
                    for (prefix, window) in value.as_table().into_iter().flatten() {
                        let entry = KeyRef::ModelEntry(prefix.clone());
                        if prefix.is_empty() {
                            bad(
                                format!("{key}.\"\""),
                                window,
                                "model prefixes must not be empty".into(),
                            );
                        } else if let Err(message) = kinds::check(&entry, window) {
                            bad(format!("{key}.{prefix}"), window, message);
                        }
                    }
                }
                Some(key_ref) => {
                    if let Err(message) = kinds::check(&key_ref, value) {
                        bad(key, value, message);
                    }
                }
            }
        }
    }
    let mut all: Vec<ConfigError> = unknown
        .iter()
        .map(|key| ConfigError::unknown_key(key, source.clone(), false))
        .collect();
    all.extend(errors);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_columns_are_one_based() {
        assert_eq!(line_column("a = 1\nb = ", 10), (2, 5));
        assert_eq!(line_column("", 0), (1, 1));
        assert_eq!(line_column("é = x", 99), (1, 6));
    }

    #[test]
    fn env_names_map_to_dotted_keys() {
        let env: EnvVars = [
            ("CTXMON_CONTEXT_MONITOR__WARNING_THRESHOLD", "0.72"),
            ("ctxmon_hooks__deadline_ms", "900"),
            ("PATH", "/bin"),
        ]
        .into_iter()
        .collect();
        let (layers, errors) = env_layers(&env);
        assert!(errors.is_empty(), "{errors:?}");
        let tables: Vec<String> = layers.iter().map(|l| l.table.to_string()).collect();
        assert_eq!(
            tables,
            vec![
                "[context_monitor]\nwarning_threshold = 0.72\n",
                "[hooks]\ndeadline_ms = 900\n"
            ]
        );
    }

    #[test]
    fn one_key_tables_nest_the_key() {
        let model = KeyRef::ModelEntry("gpt-4.1".into());
        let t = one_key_table(&model, toml::Value::Integer(5));
        assert_eq!(t.to_string(), "[context_monitor.models]\n\"gpt-4.1\" = 5\n");
        let keep = KeyRef::resolve("resume_logs.keep").expect("a known key");
        let t = one_key_table(&keep, toml::Value::Integer(20));
        assert_eq!(t.to_string(), "[resume_logs]\nkeep = 20\n");
    }
}
