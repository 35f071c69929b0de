//! The policy around the use cases ([`super::answer`]) over in-memory ports: what the CLI's
//! hook command decided before it moved here, now testable without a process.

use std::cell::{Cell, RefCell};
use std::path::Path;

use ctxmon_domain::{SessionKey, SessionState};

use super::test_world::World;
use super::{Hook, HookAnswer, HookCall, HookFields, HookHost, answer};
use crate::config::InjectPolicy;
use crate::fakes::FakeStates;
use crate::monitor::fill::FillSettings;
use crate::ports::{AgentKind, PortError, PortErrorKind, SessionStateStore};
use crate::run::{HookPorts, Warning};

/// The hook log, and how often the agent's settings files were read.
#[derive(Default)]
struct Host {
    warnings: RefCell<Vec<String>>,
    infos: RefCell<Vec<String>>,
    settings_read: Cell<u32>,
    /// What the agent's settings files hold that is ignored.
    ignored: Vec<String>,
}

impl HookHost for Host {
    fn warn(&self, warning: &Warning) {
        self.warnings.borrow_mut().push(warning.to_string());
    }
    fn info(&self, message: &str) {
        self.infos.borrow_mut().push(message.to_string());
    }
    fn agent_settings(&self, _settings: &mut FillSettings) -> Vec<String> {
        self.settings_read.set(self.settings_read.get() + 1);
        self.ignored.clone()
    }
}

/// The world's state store, whose lock another process holds.
struct Held<'a>(&'a FakeStates);

impl SessionStateStore for Held<'_> {
    fn load(&self, session: &SessionKey) -> Result<Option<SessionState>, PortError> {
        self.0.load(session)
    }
    fn save(&self, session: &SessionKey, state: &SessionState) -> Result<(), PortError> {
        self.0.save(session, state)
    }
    fn with_lock(&self, _: &SessionKey, _: &mut dyn FnMut()) -> Result<(), PortError> {
        Err(PortError::new(
            PortErrorKind::Busy,
            "state/s1.lock is held by another process for over 1s",
        ))
    }
}

fn call<'a>(w: &'a World, hook: Hook, fields: HookFields<'a>) -> HookCall<'a> {
    HookCall {
        hook,
        command: "the-hook",
        input: Ok(fields),
        config: &w.config,
        config_error: w.config_error.as_deref(),
        project_dir: Path::new("/proj"),
        stores_state: true,
        agent: AgentKind::ClaudeCode,
        transcript_path: Some(Path::new("/proj/t.jsonl")),
        transcript_problem: None,
    }
}

fn fields<'a>(w: &'a World, event: &'static str) -> HookFields<'a> {
    HookFields {
        hook_event_name: Some(event),
        session_id: Some(&w.session),
        cwd: Some("/proj"),
        ..HookFields::default()
    }
}

fn ask(w: &World, call: &HookCall<'_>, host: &Host) -> HookAnswer {
    answer(call, &w.ports(), &w.logs, host)
}

#[test]
fn a_broken_configuration_is_reported_per_key_and_the_hooks_run_on_the_defaults() {
    let mut w = World::new(InjectPolicy::Always);
    w.config_error = Some("context_monitor.low_threshold: bad\nhooks.deadline_ms: worse".into());
    w.script.usage(170_000);
    let host = Host::default();
    let out = ask(
        &w,
        &call(&w, Hook::PromptSubmit, fields(&w, "UserPromptSubmit")),
        &host,
    );
    assert_eq!(
        out,
        HookAnswer::default(),
        "no tier on the stand-in defaults"
    );
    let warnings = host.warnings.take();
    // Prompt-submit's own warning says what it leaves out.
    assert_eq!(
        warnings[..2],
        [
            "context_monitor.low_threshold: bad",
            "hooks.deadline_ms: worse"
        ]
    );
    assert!(
        warnings[2].starts_with("fill not measured: the configuration is invalid"),
        "{warnings:?}"
    );
    ask(
        &w,
        &call(&w, Hook::SessionEnd, fields(&w, "SessionEnd")),
        &host,
    );
    assert_eq!(
        host.warnings.borrow()[..2],
        [
            "context_monitor.low_threshold: bad; using built-in defaults",
            "hooks.deadline_ms: worse; using built-in defaults"
        ]
    );
}

#[test]
fn an_unreadable_input_or_another_hooks_event_gets_no_answer() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage(170_000);
    let host = Host::default();
    let unreadable = HookCall {
        input: Err("hook input is not JSON: expected value at line 1 column 1"),
        ..call(&w, Hook::PromptSubmit, HookFields::default())
    };
    assert_eq!(ask(&w, &unreadable, &host), HookAnswer::default());
    assert_eq!(
        host.warnings.take(),
        ["hook input is not JSON: expected value at line 1 column 1"]
    );
    let stop = call(&w, Hook::PromptSubmit, fields(&w, "Stop"));
    assert_eq!(ask(&w, &stop, &host), HookAnswer::default());
    assert_eq!(
        host.warnings.take(),
        [
            "received a Stop event on `hooks the-hook` (expected UserPromptSubmit); check the hook registration"
        ]
    );
    assert!(w.states.states.borrow().is_empty(), "nothing ran");
    assert!(w.events.records.borrow().is_empty());
    // No event name at all: a warning, and the hook answers as itself.
    let unnamed = HookFields {
        hook_event_name: None,
        ..fields(&w, "")
    };
    let out = ask(&w, &call(&w, Hook::PromptSubmit, unnamed), &host);
    assert!(out.additional_context.is_some());
    assert_eq!(
        host.warnings.take(),
        ["hook input has no hook_event_name; treating it as this hook's event"]
    );
}

#[test]
fn a_session_lock_that_cannot_be_taken_costs_a_warning_not_the_answer() {
    let w = World::new(InjectPolicy::Always);
    w.script.usage(170_000);
    let held = Held(&w.states);
    let ports = HookPorts {
        states: &held,
        ..w.ports()
    };
    let host = Host::default();
    let out = answer(
        &call(&w, Hook::PromptSubmit, fields(&w, "UserPromptSubmit")),
        &ports,
        &w.logs,
        &host,
    );
    assert!(
        out.additional_context
            .unwrap()
            .starts_with("<context-monitor")
    );
    assert!(
        host.warnings.borrow().contains(
            &"session lock not taken (state/s1.lock is held by another process for over 1s); running unlocked".to_string()
        ),
        "{:?}",
        host.warnings
    );
    assert!(w.state().last_tier.is_some(), "it ran, unlocked, and saved");
    // Without stored state there is no lock to take.
    let host = Host::default();
    let nowhere = HookCall {
        stores_state: false,
        ..call(&w, Hook::PromptSubmit, fields(&w, "UserPromptSubmit"))
    };
    answer(&nowhere, &ports, &w.logs, &host);
    assert!(!host.warnings.borrow().iter().any(|m| m.contains("lock")));
}

#[test]
fn post_tool_use_looks_first_and_reads_the_agents_settings_only_to_go_on() {
    let w = World::new(InjectPolicy::Always);
    let host = Host {
        ignored: vec!["CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=abc is not a number; ignored".into()],
        ..Host::default()
    };
    let lost = HookCall {
        transcript_problem: Some("no rollout of Codex session s1"),
        ..call(&w, Hook::PostToolUse, fields(&w, "PostToolUse"))
    };
    w.script.usage(41_000);
    assert_eq!(ask(&w, &lost, &host), HookAnswer::default());
    assert_eq!(
        host.settings_read.get(),
        0,
        "the common case reads no settings file"
    );
    assert!(w.states.states.borrow().is_empty(), "and writes nothing");
    // A rise goes on: the settings are read, the tag injected.
    w.script.usage(170_000);
    assert!(ask(&w, &lost, &host).additional_context.is_some());
    assert_eq!(host.settings_read.get(), 1);
    // After every tool call the lost transcript would repeat; the next prompt reports it.
    assert!(!host.warnings.borrow().iter().any(|m| m.contains("rollout")));
    let prompt = HookCall {
        hook: Hook::PromptSubmit,
        ..call(&w, Hook::PromptSubmit, fields(&w, "UserPromptSubmit"))
    };
    let prompt = HookCall {
        transcript_problem: lost.transcript_problem,
        ..prompt
    };
    ask(&w, &prompt, &host);
    assert!(host.warnings.borrow().iter().any(|m| m.contains("rollout")));
    assert!(
        host.warnings
            .borrow()
            .iter()
            .any(|m| m.contains("is not a number; ignored")),
        "ignored settings are reported"
    );
    // Without stored state post-tool-use says nothing, however high the fill.
    let nowhere = HookCall {
        stores_state: false,
        ..call(&w, Hook::PostToolUse, fields(&w, "PostToolUse"))
    };
    w.script.usage(195_000);
    assert_eq!(ask(&w, &nowhere, &host), HookAnswer::default());
    // Pre-tool-use measures no fill: no settings file is read for it.
    let reads = host.settings_read.get();
    ask(
        &w,
        &call(&w, Hook::PreToolUse, fields(&w, "PreToolUse")),
        &host,
    );
    assert_eq!(host.settings_read.get(), reads);
}

#[test]
fn codex_gets_no_pre_compact_message_and_pruning_is_a_note() {
    let mut w = World::new(InjectPolicy::Always);
    w.config.checkpoints.keep = 1;
    w.script.usage(170_000);
    let host = Host::default();
    let claude = call(&w, Hook::PreCompact, fields(&w, "PreCompact"));
    let out = ask(&w, &claude, &host);
    assert_eq!(
        out.system_message.as_deref(),
        Some("Checkpoint cx-001 saved at 85% context fill")
    );
    let codex = HookCall {
        agent: AgentKind::Codex,
        ..claude
    };
    assert_eq!(ask(&w, &codex, &host), HookAnswer::default());
    // The first checkpoint, superseded by the second of its session, is pruned by it.
    assert_eq!(
        host.infos.take(),
        ["pruned 1 old checkpoint(s) beyond checkpoints.keep = 1: cx-001"]
    );
}
