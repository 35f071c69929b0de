//! Layered configuration (contract C11): built-in defaults < user file < project file < local
//! project file < `--config FILE` < `CTXMON_*` environment variables < command-line flags.
//!
//! Every value is checked where it is written, so an error names the key and the file, variable
//! or flag it came from; the merged [`Config`](ctxmon_application::config::Config) is then
//! validated as a whole, and a broken rule names each key with its own source. Nothing here
//! reads the process environment: callers pass an [`EnvVars`] snapshot.
//!
//! The CLI's `config show|get|set|unset|path|schema` map to [`LoadedConfig::to_toml`] /
//! [`LoadedConfig::to_json`], [`LoadedConfig::get`], [`set_value`], [`unset_value_in`],
//! [`ConfigPaths::entries`] and [`schema_text`].

mod env;
mod error;
mod kinds;
mod layers;
mod load;
mod paths;
mod set;
mod show;
mod unset;

pub use env::EnvVars;
pub use error::{ConfigError, ConfigErrorKind, Setting, suggest_key};
pub use layers::ValueSource;
pub use load::{LoadedConfig, load_config};
pub use paths::{ConfigPaths, FileLayer, PathEntry, Scope};
pub use set::{SetOutcome, set_value, set_value_in};
pub use show::{KeyValue, schema_text};
pub use unset::{UnsetOutcome, unset_value_in};
