//! Layered configuration (contract C11): built-in defaults < user file < project file < local
//! project file < `--config FILE` < `CTXMON_*` environment variables < command-line flags.
//!
//! Every value is checked where it is written, so an error names the key and the file, variable
//! or flag it came from; the merged [`Config`](ctxmon_application::config::Config) is then
//! validated as a whole, and a broken rule names each key with its own source. Nothing here
//! reads the process environment: callers pass an [`EnvVars`] snapshot.
//!
//! figment is only the merge: each layer is a provider of our own (`load.rs`), and figment's tags
//! say which layer set each value. Its `Toml` and `Env` providers are not used (their features
//! are off): `Toml::file` reads with `fs::read_to_string`, which would block on a FIFO, has no
//! size bound and reports syntax errors without our line, column and hint (`layers.rs`); `Env`
//! reads `std::env` itself, so tests could not pass a snapshot, and guesses each value's type
//! from its text (`a,b` is a string), where ours parses it by its key (`a,b` is a list, `none`
//! unsets) and refuses a value that is not UTF-8 where `Env` would read it lossily.
//!
//! The CLI's `config show|get|set|unset|path|schema` map to [`LoadedConfig::to_toml`] /
//! [`LoadedConfig::to_json`], [`LoadedConfig::get`], [`set_value`], [`unset_value_in`],
//! [`ConfigPaths::entries`] and [`schema_text`].

mod edit;
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
