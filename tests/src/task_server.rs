//! A task tracker whose `edit_task` tool takes a structural union its author allowed with
//! `#[tool_schema(allow_union = …)]` (the newcomer's server of issue 49): the live-server tests
//! lint it (the union is allowed through the tool's `_meta`, as `exact_schemas` publishes it),
//! convert it for Gemini (the union is reported where Gemini may flatten it) and proxy it.
//! `live_server --allowed-union` serves it on standard input and output.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::rmcp::Parameters;
use toolschema::{ProviderSafe, ToolParams};

/// A change to a task: a whole new state, or a note appended. Two object shapes in one untagged
/// union: the derive refuses it unless allowed, as here.
#[derive(Debug, Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "old clients send both shapes; splitting it is tracked in #12")]
pub enum Change {
    /// Replace the task's title and state.
    Replace {
        /// The new title.
        title: String,
        /// Whether the task is done.
        done: bool,
    },
    /// Append a note.
    Note {
        /// The note's text.
        note: String,
    },
}

/// Parameters of `edit_task`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct EditTask {
    /// The task's id.
    pub id: u32,
    /// What to change.
    pub change: Change,
}

/// Parameters of `list_tasks`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct ListTasks {
    /// Only tasks whose title contains this text.
    pub query: Option<String>,
}

/// One task: its title, whether it is done, its notes.
#[derive(Default)]
struct Task {
    title: String,
    done: bool,
    notes: Vec<String>,
}

/// The task tracker, in memory.
#[derive(Clone)]
pub struct TaskServer {
    tasks: Arc<Mutex<BTreeMap<u32, Task>>>,
    tool_router: ToolRouter<Self>,
}

impl Default for TaskServer {
    fn default() -> Self {
        TaskServer {
            tasks: Arc::default(),
            tool_router: toolschema::rmcp::exact_schemas(Self::tool_router()),
        }
    }
}

fn ok(message: String) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(message)]))
}

#[tool_router]
impl TaskServer {
    #[tool(description = "Change a task: replace its title and state, or append a note.")]
    fn edit_task(
        &self,
        Parameters(args): Parameters<EditTask>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut tasks = self.tasks.lock().expect("not poisoned");
        let task = tasks.entry(args.id).or_default();
        match args.change {
            Change::Replace { title, done } => {
                task.title = title;
                task.done = done;
            }
            Change::Note { note } => task.notes.push(note),
        }
        ok(format!("task {} updated", args.id))
    }

    #[tool(description = "List the tasks.")]
    fn list_tasks(
        &self,
        Parameters(args): Parameters<ListTasks>,
    ) -> Result<CallToolResult, ErrorData> {
        let tasks = self.tasks.lock().expect("not poisoned");
        let query = args.query.unwrap_or_default();
        let titles: Vec<String> = (tasks.values())
            .filter(|t| t.title.contains(&query))
            .map(|t| {
                format!(
                    "{} ({} notes{})",
                    t.title,
                    t.notes.len(),
                    if t.done { ", done" } else { "" }
                )
            })
            .collect();
        ok(serde_json::to_string(&titles).expect("strings serialize"))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TaskServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("Tasks; `edit_task` takes an allowed structural union.")
    }
}

/// Serves on standard input and output until the client closes them.
pub async fn serve_stdio() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = TaskServer::default()
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derive_lists_the_allowed_union_and_the_contract_holds() {
        EditTask::check_contract().expect("the allowed union is the only one");
        let allowed = EditTask::allowed_unions();
        assert_eq!(allowed.len(), 1);
        assert_eq!(allowed[0].schema_name, "Change");
    }
}
