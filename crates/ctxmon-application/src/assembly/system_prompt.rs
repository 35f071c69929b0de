//! The system prompt: who the agent is, what it can do, where it is, what it must achieve, and
//! the standing rules. Built from the input alone, so it is paid for before any source.

use ctxmon_domain::assembly::{AgentCapability, AgentDescriptor, ContextBuildInput};

/// Writes the system prompt: the agent's identity and capabilities, the repository, the goal,
/// and the standing constraints.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemPromptBuilder;

impl SystemPromptBuilder {
    /// The system prompt for `input`, sections separated by blank lines.
    pub fn build(&self, input: &ContextBuildInput) -> String {
        let sections = [
            identity(&input.agent),
            capabilities(&input.agent),
            current_context(input),
            goal(input),
            constraints(),
        ];
        sections
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// The role as declared and its specializations. No persona ("You are a senior software
/// engineer…"): the caller's own prompt says who the agent is, and words nobody asked for
/// cost budget and steer the model.
fn identity(agent: &AgentDescriptor) -> String {
    let mut section = format!("# Agent\n\nRole: {}", agent.role);
    if !agent.specializations.is_empty() {
        section.push_str(&format!(
            "\n\nSpecializations: {}",
            agent.specializations.join(", ")
        ));
    }
    section
}

/// One line per distinct capability, in the order given.
fn capabilities(agent: &AgentDescriptor) -> String {
    let mut seen: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for capability in &agent.capabilities {
        if seen.contains(&capability.as_str()) {
            continue;
        }
        seen.push(capability.as_str());
        let description = match AgentCapability::parse(capability.as_str()) {
            AgentCapability::ReadFiles => "Read and analyze file contents",
            AgentCapability::WriteFiles => "Create and modify files",
            AgentCapability::Git => "Execute git commands and manage version control",
            AgentCapability::RunTests => "Run test suites and analyze results",
            AgentCapability::Search => "Search codebase and find relevant code",
            AgentCapability::ExecuteCode => "Execute code and commands",
            AgentCapability::Other(_) => capability.as_str(),
        };
        lines.push(format!("- {capability}: {description}"));
    }
    if lines.is_empty() {
        return String::new();
    }
    format!("# Available Capabilities\n\n{}", lines.join("\n"))
}

/// Repository, branch, short commit, and how many events and memories the input holds (input
/// counts, not what the budget kept, so the prompt does not depend on packing).
fn current_context(input: &ContextBuildInput) -> String {
    let mut parts = Vec::new();
    if let Some(repo) = &input.repo {
        if !repo.root.is_empty() {
            parts.push(format!("Repository: {}", repo.root));
        }
        if let Some(meta) = &repo.metadata {
            if let Some(branch) = &meta.branch {
                parts.push(format!("Branch: {branch}"));
            }
            if let Some(commit) = &meta.commit {
                let short: String = commit.chars().take(7).collect();
                parts.push(format!("Commit: {short}"));
            }
        }
    }
    if !input.recent_events.is_empty() {
        parts.push(format!("Recent Events: {}", input.recent_events.len()));
    }
    let memories = input.memory.as_ref().map_or(0, |m| m.len());
    if memories > 0 {
        parts.push(format!("Memory Items: {memories}"));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!("# Current Context\n\n{}", parts.join("\n"))
}

fn goal(input: &ContextBuildInput) -> String {
    let goal = &input.goal;
    let text = goal.normalized.as_deref().unwrap_or(&goal.raw);
    let mut section = format!("# Current Goal\n\n{text}");
    if let Some(intent) = &goal.intent_type {
        section.push_str(&format!("\n\nIntent: {intent}"));
    }
    section
}

fn constraints() -> String {
    "# Constraints\n\n\
     - Always follow security best practices\n\
     - Never expose secrets or sensitive information\n\
     - Provide concise, actionable responses\n\
     - When uncertain, ask for clarification"
        .to_owned()
}
