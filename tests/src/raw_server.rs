//! A server not written with toolschema, for the proxy's tests (one resource and one prompt
//! too, for what the proxy passes through): its schemas are hand-written
//! JSON, and it publishes what the derives refuse (a structural union, a constraint providers
//! drop, a name providers reject). Every tool answers with the arguments it received, so a test
//! sees exactly what reached the server.
//!
//! Tools: `draw` (a union of a circle and a rectangle object, and a `label` of at most 8
//! characters), `files.read/v2` (a name OpenAI and Gemini refuse), `calls` (how many other
//! calls arrived), `add_tool` (adds `extra` and sends `notifications/tools/list_changed`),
//! `progress` (two progress notifications, then done), `roots` (asks the client for its roots),
//! `background` (answers with a task, whose `tasks/get` is completed),
//! `hang` (never answers; counts its cancellation), `cancelled` (how many were), `env` (a variable
//! of its environment), `exit` (the process exits at once, mid-call), `big` (an answer of
//! `bytes` bytes) and `slow` (answers after `seconds` seconds, reporting progress every half
//! second whether or not it was asked to).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The raw server; clones share their counters.
#[derive(Clone, Default)]
pub struct RawServer {
    calls: Arc<AtomicUsize>,
    cancelled: Arc<AtomicUsize>,
    extra: Arc<AtomicBool>,
    /// Sends `notifications/tools/list_changed` as soon as the client is initialized (as some
    /// published servers do at start).
    announce: bool,
}

/// The published tools, as the server's authors wrote them.
pub fn tools(with_extra: bool) -> Vec<Value> {
    let object = json!({"type": "object", "properties": {}});
    let mut tools = vec![
        json!({
            "name": "draw",
            "description": "Draw a shape.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "shape": {"anyOf": [
                        {"type": "object", "properties": {"radius": {"type": "number"}},
                         "required": ["radius"], "additionalProperties": false},
                        {"type": "object", "properties": {"width": {"type": "number"}, "height": {"type": "number"}},
                         "required": ["width", "height"], "additionalProperties": false}
                    ]},
                    "label": {"type": "string", "maxLength": 8},
                    "note": {"type": "string"}
                },
                "required": ["shape"]
            }
        }),
        json!({
            "name": "files.read/v2",
            "description": "Read a file.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
        }),
        json!({"name": "calls", "description": "How many other calls arrived.", "inputSchema": object}),
        json!({"name": "background", "description": "Runs as a task (the tasks extension, SEP-2663): `tasks/get` gives its result.", "inputSchema": object}),
        json!({"name": "add_tool", "description": "Adds the tool `extra`.", "inputSchema": object}),
        json!({"name": "progress", "description": "Reports progress twice.", "inputSchema": object}),
        json!({"name": "roots", "description": "Asks the client for its roots.", "inputSchema": object}),
        json!({"name": "hang", "description": "Never answers (until cancelled).", "inputSchema": object}),
        json!({"name": "cancelled", "description": "How many calls were cancelled.", "inputSchema": object}),
        json!({"name": "env", "description": "The value of the environment variable `name`.",
               "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}),
        json!({"name": "exit", "description": "Exits the server process.", "inputSchema": object}),
        json!({"name": "big", "description": "Answers with `bytes` bytes of text.",
               "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer", "minimum": 0}}, "required": ["bytes"]}}),
        json!({"name": "slow", "description": "Answers after `seconds` seconds, with progress.",
               "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0}}, "required": ["seconds"]}}),
    ];
    if with_extra {
        tools.push(json!({"name": "extra", "description": "Added later.", "inputSchema": object}));
    }
    tools
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn text(value: Value) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(value.to_string())]).into())
}

impl ServerHandler for RawServer {
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if self.announce {
            let _ = context.peer.notify_tool_list_changed().await;
        }
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let task = rmcp::model::Task::new(
            request.task_id.clone(),
            rmcp::model::TaskStatus::Completed,
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:01Z",
        );
        let result = json!({"content": [{"type": "text", "text": "done in the background"}]});
        let payload = rmcp::model::TaskPayload::Completed {
            result: result.as_object().cloned().unwrap_or_default(),
        };
        Ok(rmcp::model::GetTaskResult::new(
            rmcp::model::DetailedTask::new(task, payload),
        ))
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities: ServerCapabilities = serde_json::from_value(json!({
            "tools": {"listChanged": true}, "resources": {}, "prompts": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }))
        .unwrap_or_default();
        ServerConfig::new(capabilities)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        from_json(json!({"resources": [
            {"uri": "file:///notes.txt", "name": "notes", "mimeType": "text/plain"}
        ]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let result: ReadResourceResult = from_json(json!({"contents": [
            {"uri": request.uri, "mimeType": "text/plain", "text": "remember the milk"}
        ]}))?;
        Ok(ReadResourceResponse::Complete(result))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        from_json(json!({"prompts": [
            {"name": "greet", "description": "Greets someone.",
             "arguments": [{"name": "who", "required": true}]}
        ]}))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let who = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("who"))
            .and_then(Value::as_str)
            .unwrap_or("nobody")
            .to_owned();
        let result: GetPromptResult = from_json(json!({
            "description": "A greeting.",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Say hello to {who}.")}}]
        }))?;
        Ok(GetPromptResponse::Complete(result))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools: Vec<Tool> =
            serde_json::from_value(Value::Array(tools(self.extra.load(Ordering::SeqCst))))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if name != "calls" && name != "cancelled" {
            self.calls.fetch_add(1, Ordering::SeqCst);
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        match name.as_str() {
            "calls" => text(json!(self.calls.load(Ordering::SeqCst))),
            "add_tool" => {
                self.extra.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                text(json!("added"))
            }
            "progress" => {
                let token = context
                    .meta
                    .get_progress_token()
                    .ok_or_else(|| ErrorData::invalid_params("no progress token", None))?;
                for step in [1.0, 2.0] {
                    let _ = context
                        .peer
                        .notify_progress(ProgressNotificationParam::new(token.clone(), step))
                        .await;
                }
                text(json!({"token": token}))
            }
            // Deprecated by SEP-2577, still what deployed clients answer: a plain server→client
            // request for the proxy to pass on.
            #[allow(deprecated)]
            "roots" => {
                let roots = context
                    .peer
                    .list_roots()
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                text(serde_json::to_value(roots).unwrap_or(Value::Null))
            }
            "hang" => {
                context.ct.cancelled().await;
                self.cancelled.fetch_add(1, Ordering::SeqCst);
                text(Value::Null)
            }
            "cancelled" => text(json!(self.cancelled.load(Ordering::SeqCst))),
            "env" => text(json!(
                std::env::var(args["name"].as_str().unwrap_or_default()).ok()
            )),
            "exit" => std::process::exit(3),
            "big" => {
                let n = args["bytes"].as_u64().unwrap_or(0) as usize;
                Ok(CallToolResult::success(vec![ContentBlock::text("x".repeat(n))]).into())
            }
            "slow" => {
                let seconds = args["seconds"].as_f64().unwrap_or(0.0);
                let token = context.meta.get_progress_token();
                let start = std::time::Instant::now();
                let mut step = 0.0;
                while start.elapsed().as_secs_f64() < seconds {
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    step += 1.0;
                    if let Some(token) = &token {
                        let _ = context
                            .peer
                            .notify_progress(ProgressNotificationParam::new(token.clone(), step))
                            .await;
                    }
                }
                text(json!("done"))
            }
            "background" => {
                let task = rmcp::model::Task::new(
                    "task-1",
                    rmcp::model::TaskStatus::Working,
                    "2026-01-01T00:00:00Z",
                    "2026-01-01T00:00:00Z",
                );
                Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(
                    task,
                )))
            }
            "draw" | "files.read/v2" | "extra" => text(json!({"tool": name, "arguments": args})),
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}`"),
                None,
            )),
        }
    }
}

/// Serves the raw server on standard input and output until the client closes them.
pub async fn serve_stdio() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = RawServer::default().serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

/// The raw server as a noisy published server is at the ends of a connection: it announces a
/// tool list change as soon as it is initialized, and once its input is closed it still writes
/// a line (a log notification) to its output. If that output was closed under it, it says
/// `EPIPE` on standard error and exits with 1, as a Node server dies with a stack trace.
pub async fn serve_stdio_noisy() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use std::io::Write;
    let server = RawServer {
        announce: true,
        ..RawServer::default()
    };
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}"#;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        eprintln!("EPIPE: the server's last write failed: {e}");
        std::process::exit(1);
    }
    Ok(())
}

/// A server that speaks MCP tasks in the 2025-11-25 form, written line by line (rmcp 3.11 has no
/// types for it): its `initialize` answer has `capabilities.tasks` (and the client's protocol
/// version), its one tool `export` has `execution.taskSupport: "required"`, and a call without a
/// `task` gets the error such a server gives ("requires task augmentation").
pub fn serve_stdio_tasks_2025() -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(request) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let Some(id) = request.get("id").cloned() else {
            continue; // a notification
        };
        let answer = match request.get("method").and_then(Value::as_str) {
            Some("initialize") => json!({"result": {
                "protocolVersion": request.pointer("/params/protocolVersion").cloned()
                    .unwrap_or(json!("2025-11-25")),
                "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {},
                    "requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "tasks-2025", "version": "0.1.0"}
            }}),
            Some("tools/list") => json!({"result": {"tools": [{
                "name": "export",
                "description": "Export the database (long-running: run it as a task).",
                "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}}},
                "execution": {"taskSupport": "required"}
            }]}}),
            Some("tools/call") if request.pointer("/params/task").is_none() => json!({"error": {
                "code": -32602, "message": "tool `export` requires task augmentation"
            }}),
            Some("tools/call") => json!({"result": {"task": {
                "taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000
            }}}),
            Some("ping") => json!({"result": {}}),
            _ => json!({"error": {"code": -32601, "message": "method not found"}}),
        };
        let mut answer = answer;
        answer["jsonrpc"] = json!("2.0");
        answer["id"] = id;
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

/// Serves the raw server over Streamable HTTP at `http://ADDR/mcp` on a bound listener (one
/// server, its counters shared by every session), until the process ends.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let server = RawServer::default();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    axum::serve(listener, router).await?;
    Ok(())
}
