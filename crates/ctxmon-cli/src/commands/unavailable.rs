//! Commands whose issue has not landed yet: they say so and fail, never silently succeed.

use anyhow::anyhow;

use crate::exit::{CmdResult, Failure};

pub fn command(name: &str, issue: u32) -> CmdResult {
    Err(Failure::Other(anyhow!(
        "`ctxmon {name}` is not yet available in this build (tracked in issue #{issue})"
    )))
}
