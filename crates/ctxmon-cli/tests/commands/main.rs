//! End-to-end tests of ctxmon's commands for people and scripts (`assemble`, `checkpoint`,
//! `completions`, `doctor`, `install`/`uninstall`, `report`, `resume-log`, `status`, the
//! command-line contract) and of what README.md and `docs/` show. One test binary, linked once
//! instead of once per file; each module is named for what it tests, so a test reads as
//! `doctor::…` (`cargo test -p ctxmon-cli --test commands doctor::`).

#[path = "../common/mod.rs"]
mod common;

mod assemble;
mod checkpoint;
mod completions;
mod config_unset;
mod contract;
mod deadline_rule;
mod doctor;
mod doctor_agents;
mod doctor_binary;
mod embed_example;
mod human_text;
mod install;
mod install_bad_input;
mod install_codex;
mod install_gemini;
mod install_npm_project;
mod install_portable;
mod install_scopes;
mod json_everywhere;
mod project_discovery;
mod readme_agents;
mod readme_commands;
mod readme_config;
mod readme_examples;
mod readme_install;
mod report;
mod report_agreement;
mod resume_log;
mod resume_log_content;
mod resume_log_handoff;
mod short_ids;
mod status;
mod status_answers;
mod status_context;
mod status_watch;
mod stdout;
mod text_answers;
mod uninstall;
mod uninstall_leftovers;
