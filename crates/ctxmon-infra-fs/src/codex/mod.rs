//! Where Codex CLI keeps its rollouts on disk: the `sessions` folder. What a rollout's lines
//! mean is the library's (`ctxmon_application::readers::codex`); the transcript reader hands a
//! rollout to it by its first line, and Codex's `config.toml` is read by `agent_settings`.

mod sessions;

pub use ctxmon_application::readers::settings::codex::codex_home;
pub use sessions::{
    MAX_ROLLOUTS_EXAMINED, SESSION_LOOKBACK_DAYS, find_session_rollout, latest_project_rollout,
    session_cwd, session_id,
};
