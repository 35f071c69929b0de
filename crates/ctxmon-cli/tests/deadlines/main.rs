//! Time-bounded behaviour: every hook and the status line within its deadline whatever blocks
//! its inputs, each hook's own deadline on a busy machine, and the plugin's wrapper fencing the
//! binary with `timeout`. Together in one binary, apart from the other tests, so their timing
//! margins are shared only with each other.

#[path = "../common/mod.rs"]
mod common;

mod blocked_inputs;
mod hook_deadlines;
mod plugin_wrappers;
