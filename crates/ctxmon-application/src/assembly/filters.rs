//! Tool filters: which of the registered tools an agent is offered.

use ctxmon_domain::assembly::{
    AgentCapability, AgentDescriptor, AgentRole, ToolCategory, ToolDescriptor,
};

/// Decides which tools an agent is offered: [`RoleBasedFilter`] by role (the standard one),
/// [`CapabilityBasedFilter`] by capabilities.
pub trait ToolFilter: std::fmt::Debug + Send + Sync {
    /// The tools `agent` may use, in registry order.
    fn filter(&self, tools: &[ToolDescriptor], agent: &AgentDescriptor) -> Vec<ToolDescriptor>;
}

/// A tool passes if the agent's role lists it by name and the agent has every capability the
/// tool requires. Unknown roles get the generic list.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoleBasedFilter;

impl RoleBasedFilter {
    /// Which tools each role may use.
    pub fn allowed_tools(role: &AgentRole) -> &'static [&'static str] {
        match role {
            AgentRole::Planner => &["read_files", "search", "view_directory"],
            AgentRole::Coder => &[
                "read_files",
                "write_files",
                "search",
                "run_tests",
                "execute_code",
            ],
            AgentRole::Reviewer => &["read_files", "search"],
            AgentRole::Executor => &[
                "read_files",
                "write_files",
                "git",
                "run_tests",
                "execute_code",
            ],
            AgentRole::Generic | AgentRole::Other(_) => &["read_files", "search"],
        }
    }
}

impl ToolFilter for RoleBasedFilter {
    fn filter(&self, tools: &[ToolDescriptor], agent: &AgentDescriptor) -> Vec<ToolDescriptor> {
        let allowed = Self::allowed_tools(&AgentRole::parse(agent.role.as_str()));
        tools
            .iter()
            .filter(|tool| allowed.contains(&tool.name.as_str()))
            .filter(|tool| has_all(agent, &tool.required_capabilities))
            .cloned()
            .collect()
    }
}

/// A tool passes if the agent has every capability it requires; a tool that requires none is
/// judged by its category (any one of the category's capabilities); a tool with neither passes.
#[derive(Debug, Clone, Copy, Default)]
pub struct CapabilityBasedFilter;

impl CapabilityBasedFilter {
    /// The capabilities each category of tool requires; `None` for categories without
    /// requirements.
    pub fn category_capabilities(category: &ToolCategory) -> Option<&'static [AgentCapability]> {
        match category {
            ToolCategory::Filesystem => {
                Some(&[AgentCapability::ReadFiles, AgentCapability::WriteFiles])
            }
            ToolCategory::Git => Some(&[AgentCapability::Git]),
            ToolCategory::Execution => {
                Some(&[AgentCapability::ExecuteCode, AgentCapability::RunTests])
            }
            ToolCategory::Search => Some(&[AgentCapability::Search]),
            ToolCategory::Utility | ToolCategory::Other(_) => None,
        }
    }
}

impl ToolFilter for CapabilityBasedFilter {
    fn filter(&self, tools: &[ToolDescriptor], agent: &AgentDescriptor) -> Vec<ToolDescriptor> {
        tools
            .iter()
            .filter(|tool| {
                if !tool.required_capabilities.is_empty() {
                    return has_all(agent, &tool.required_capabilities);
                }
                match tool.category.as_ref().and_then(Self::category_capabilities) {
                    Some(any_of) => any_of.iter().any(|c| agent.has_capability(c)),
                    None => true,
                }
            })
            .cloned()
            .collect()
    }
}

fn has_all(agent: &AgentDescriptor, required: &[AgentCapability]) -> bool {
    required.iter().all(|c| agent.has_capability(c))
}
