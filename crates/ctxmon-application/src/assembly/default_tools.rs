//! The default tool registry.
//!
//! Every tool requires the capability of the same name, `read_files` and `search` included:
//! a tool without requirements would be offered to an agent that declared no capabilities at
//! all, and such an agent gets no tools.

use ctxmon_domain::assembly::{AgentCapability, JsonValue, ToolCategory, ToolDescriptor};

/// `read_files`, `write_files`, `search`, `git`, `run_tests`, `execute_code`.
pub fn default_tools() -> Vec<ToolDescriptor> {
    vec![
        tool(
            "read_files",
            "Read file contents from the filesystem",
            &[("path", true)],
            ToolCategory::Filesystem,
            AgentCapability::ReadFiles,
            true,
        ),
        tool(
            "write_files",
            "Write content to files",
            &[("path", true), ("content", true)],
            ToolCategory::Filesystem,
            AgentCapability::WriteFiles,
            false,
        ),
        tool(
            "search",
            "Search the codebase",
            &[("query", true)],
            ToolCategory::Search,
            AgentCapability::Search,
            true,
        ),
        tool(
            "git",
            "Execute git commands",
            &[("command", true)],
            ToolCategory::Git,
            AgentCapability::Git,
            false,
        ),
        tool(
            "run_tests",
            "Run the test suite",
            &[("filter", false)],
            ToolCategory::Execution,
            AgentCapability::RunTests,
            false,
        ),
        tool(
            "execute_code",
            "Execute code or commands",
            &[("code", true)],
            ToolCategory::Execution,
            AgentCapability::ExecuteCode,
            false,
        ),
    ]
}

/// A tool whose parameters are all strings; `(name, required)` per parameter.
fn tool(
    name: &str,
    description: &str,
    params: &[(&str, bool)],
    category: ToolCategory,
    capability: AgentCapability,
    read_only: bool,
) -> ToolDescriptor {
    let properties = JsonValue::object(
        params
            .iter()
            .map(|(p, _)| (*p, JsonValue::object([("type", "string".into())]))),
    );
    let required: Vec<JsonValue> = params
        .iter()
        .filter(|(_, req)| *req)
        .map(|(p, _)| (*p).into())
        .collect();
    let mut schema = vec![
        ("type", JsonValue::from("object")),
        ("properties", properties),
    ];
    if !required.is_empty() {
        schema.push(("required", JsonValue::Array(required)));
    }
    ToolDescriptor {
        name: name.to_owned(),
        description: description.to_owned(),
        schema: JsonValue::object(schema),
        required_capabilities: vec![capability],
        category: Some(category),
        read_only: read_only.then_some(true),
    }
}
