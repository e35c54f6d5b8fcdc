//! An MCP server whose tool parameters derive `ToolParams`, written in provider-safe shapes:
//!
//! - `upsert_entry`: the seed's `field_values` written as a unit enum for the kind plus a
//!   permissive value, checked on the server against the field's real type (a mismatched value
//!   is rejected with a tool error and never stored: the silent-corruption incident cannot
//!   happen);
//! - `manage_fields`: "replace or delta" as separate parameters (seed, #194), not a union;
//! - `search_entries`: optional parameters, a nested object, an enum, a length limit;
//! - `tree_size`: a recursive type.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolschema::rmcp::Parameters;
use toolschema::{ArgsError, ProviderSafe, ToolParams};

/// What a content field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// A string.
    Text,
    /// A whole number.
    Integer,
    /// A number with decimals.
    Decimal,
    /// A reference to an uploaded asset: `{"id": "..."}`.
    Asset,
}

/// One field to write.
#[derive(Debug, Deserialize, JsonSchema, ProviderSafe)]
pub struct FieldValue {
    /// The field's id in the content type (`title`, `count`, `price`, `image`).
    pub field: String,
    /// The kind of `value`; it must be the field's kind.
    pub kind: FieldKind,
    /// The value: a string for text, a number for integer and decimal, `{"id": "..."}` for an
    /// asset. Checked on the server against `kind` and the field.
    pub value: Value,
}

/// Parameters of `upsert_entry`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct UpsertEntry {
    /// The entry to create or update.
    pub entry_id: String,
    /// The fields to write.
    pub field_values: Vec<FieldValue>,
}

/// Parameters of `manage_fields`: replace the list, or add and remove, never both.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct ManageFields {
    /// The complete new list of field ids. Excludes `add` and `remove`.
    pub replace: Option<Vec<String>>,
    /// Field ids to add.
    pub add: Option<Vec<String>>,
    /// Field ids to remove.
    pub remove: Option<Vec<String>>,
}

/// Sort order.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    Asc,
    Desc,
}

/// How to sort results.
#[derive(Debug, Deserialize, JsonSchema, ProviderSafe)]
pub struct Sort {
    /// The field to sort by.
    pub field: String,
    /// The direction.
    pub order: Order,
}

/// Parameters of `search_entries`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct SearchEntries {
    /// Words to find in entry ids.
    #[schemars(length(min = 1, max = 40))]
    pub query: String,
    /// How many results at most.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: u32,
    /// Sorting; by entry id when absent.
    pub sort: Option<Sort>,
}

fn default_limit() -> u32 {
    10
}

/// A tree node.
#[derive(Debug, Deserialize, JsonSchema, ProviderSafe)]
pub struct Node {
    /// The node's name.
    pub name: String,
    /// Its children.
    #[serde(default)]
    pub children: Vec<Node>,
}

/// Parameters of `tree_size`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
pub struct TreeSize {
    /// The tree to measure.
    pub root: Node,
}

/// The example content type: field id → kind.
const CONTENT_TYPE: &[(&str, FieldKind)] = &[
    ("title", FieldKind::Text),
    ("count", FieldKind::Integer),
    ("price", FieldKind::Decimal),
    ("image", FieldKind::Asset),
];

/// The example server, with an in-memory store.
#[derive(Clone)]
pub struct ContentServer {
    entries: Arc<Mutex<BTreeMap<String, BTreeMap<String, Value>>>>,
    fields: Arc<Mutex<Vec<String>>>,
    /// Made once, with exact schemas; `#[tool_handler(router = self.tool_router)]` serves it.
    tool_router: ToolRouter<Self>,
}

impl Default for ContentServer {
    fn default() -> Self {
        ContentServer {
            entries: Arc::default(),
            fields: Arc::new(Mutex::new(
                CONTENT_TYPE.iter().map(|(f, _)| (*f).to_owned()).collect(),
            )),
            // Every tool's schema exactly as toolschema publishes it (no `$schema` from rmcp).
            tool_router: toolschema::rmcp::exact_schemas(Self::tool_router()),
        }
    }
}

fn tool_error(message: String) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::error(vec![ContentBlock::text(message)]))
}

/// A refusal in the same words as a schema violation (`toolschema::ArgsError`).
fn refuse(error: ArgsError) -> Result<CallToolResult, ErrorData> {
    tool_error(error.to_string())
}

fn ok(message: String) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(message)]))
}

/// Whether `value` is a valid value of `kind`.
fn value_fits(kind: FieldKind, value: &Value) -> bool {
    match kind {
        FieldKind::Text => value.is_string(),
        FieldKind::Integer => value.is_i64() || value.is_u64(),
        FieldKind::Decimal => value.is_number(),
        FieldKind::Asset => {
            value.get("id").is_some_and(Value::is_string)
                && value.as_object().is_some_and(|m| m.len() == 1)
        }
    }
}

#[tool_router]
impl ContentServer {
    /// The stored entries (for tests).
    pub fn entry(&self, id: &str) -> Option<BTreeMap<String, Value>> {
        self.entries.lock().expect("not poisoned").get(id).cloned()
    }

    #[tool(
        description = "Create or update a content entry. Each field value names its kind; a value that does not fit the field is rejected and nothing is written."
    )]
    fn upsert_entry(
        &self,
        Parameters(args): Parameters<UpsertEntry>,
    ) -> Result<CallToolResult, ErrorData> {
        // Validate everything first: a call writes all its fields or none.
        for (i, fv) in args.field_values.iter().enumerate() {
            // The server's own checks read like the schema's: an `ArgsError` with pointers.
            let at = |key: &str| format!("/field_values/{i}/{key}");
            let Some((_, real)) = CONTENT_TYPE.iter().find(|(f, _)| *f == fv.field) else {
                let known: Vec<String> =
                    CONTENT_TYPE.iter().map(|(f, _)| format!("`{f}`")).collect();
                return refuse(ArgsError::invalid().with(
                    at("field"),
                    format!("must be a field of the content type ({})", known.join(", ")),
                    Some(&Value::String(fv.field.clone())),
                ));
            };
            if fv.kind != *real {
                return refuse(ArgsError::invalid().with(
                    at("kind"),
                    format!(
                        "must be {} for the field `{}`",
                        serde_json::to_value(real).unwrap_or_default(),
                        fv.field
                    ),
                    serde_json::to_value(fv.kind).ok().as_ref(),
                ));
            }
            if !value_fits(fv.kind, &fv.value) {
                return refuse(ArgsError::invalid().with(
                    at("value"),
                    format!(
                        "must be a valid {} value for the field `{}`",
                        serde_json::to_value(fv.kind).unwrap_or_default(),
                        fv.field
                    ),
                    Some(&fv.value),
                ));
            }
        }
        let mut entries = self.entries.lock().expect("not poisoned");
        let entry = entries.entry(args.entry_id.clone()).or_default();
        for fv in args.field_values {
            entry.insert(fv.field, fv.value);
        }
        ok(format!(
            "entry `{}` now has {} field(s)",
            args.entry_id,
            entry.len()
        ))
    }

    #[tool(
        description = "Change the content type's field list: `replace` it, or `add` and `remove` ids."
    )]
    fn manage_fields(
        &self,
        Parameters(args): Parameters<ManageFields>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut fields = self.fields.lock().expect("not poisoned");
        match (args.replace, args.add, args.remove) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => tool_error("`replace` cannot be combined with `add` or `remove`: send either the whole list or the changes".to_owned()),
            (None, None, None) => tool_error("nothing to do: send `replace`, or `add` and/or `remove`".to_owned()),
            (Some(all), None, None) => {
                *fields = all;
                ok(format!("fields: {}", fields.join(", ")))
            }
            (None, add, remove) => {
                for f in add.unwrap_or_default() {
                    if !fields.contains(&f) {
                        fields.push(f);
                    }
                }
                let remove = remove.unwrap_or_default();
                fields.retain(|f| !remove.contains(f));
                ok(format!("fields: {}", fields.join(", ")))
            }
        }
    }

    #[tool(description = "Find entries whose id contains the query.")]
    fn search_entries(
        &self,
        Parameters(args): Parameters<SearchEntries>,
    ) -> Result<CallToolResult, ErrorData> {
        let entries = self.entries.lock().expect("not poisoned");
        let mut ids: Vec<&String> = entries
            .keys()
            .filter(|id| id.contains(&args.query))
            .collect();
        if matches!(
            args.sort,
            Some(Sort {
                order: Order::Desc,
                ..
            })
        ) {
            ids.reverse();
        }
        ids.truncate(args.limit as usize);
        ok(serde_json::to_string(&ids).expect("strings serialize"))
    }

    // The documented explicit path: the published schema exactly, key order included, with no
    // `$schema` (rmcp's own generator, used when `input_schema` is not given, adds one).
    #[tool(
        description = "Count the nodes of a tree and its depth.",
        input_schema = toolschema::rmcp::input_schema::<TreeSize>()
    )]
    fn tree_size(
        &self,
        Parameters(args): Parameters<TreeSize>,
    ) -> Result<CallToolResult, ErrorData> {
        fn walk(n: &Node, depth: usize) -> (usize, usize) {
            n.children.iter().fold((1, depth), |(count, deepest), c| {
                let (cc, cd) = walk(c, depth + 1);
                (count + cc, deepest.max(cd))
            })
        }
        let (count, depth) = walk(&args.root, 1);
        ok(format!("{count} nodes, depth {depth}"))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ContentServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "Content entries with typed fields; every tool's parameters derive ToolParams.",
        )
    }
}

/// Serves on standard input and output until the client closes them.
pub async fn serve_stdio() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = ContentServer::default()
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}

/// How the example server behaves, for the live-server tests of `toolschema lint --server/--url`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// All tools in one `tools/list` page.
    #[default]
    Normal,
    /// `tools/list` in pages of this many tools, linked by `nextCursor`.
    Paged(usize),
    /// `tools/list` answers with a JSON-RPC error.
    FailList,
}

/// The example server in one [`Mode`].
#[derive(Clone, Default)]
pub struct ModedServer {
    inner: ContentServer,
    mode: Mode,
}

impl ModedServer {
    /// The example server in `mode`.
    pub fn new(mode: Mode) -> Self {
        ModedServer {
            inner: ContentServer::default(),
            mode,
        }
    }
}

impl ServerHandler for ModedServer {
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let mut all = self.inner.tool_router.list_all();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        let size = match self.mode {
            Mode::Normal => all.len().max(1),
            Mode::Paged(n) => n.max(1),
            Mode::FailList => {
                return Err(ErrorData::internal_error(
                    "the tool list is unavailable (a test server that always fails)",
                    None,
                ));
            }
        };
        let start: usize = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => c
                .parse()
                .map_err(|_| ErrorData::invalid_params(format!("bad cursor {c:?}"), None))?,
        };
        let end = (start + size).min(all.len());
        let tools = all.get(start..end).unwrap_or_default().to_vec();
        let mut page = rmcp::model::ListToolsResult::with_all_items(tools);
        page.next_cursor = (end < all.len()).then(|| end.to_string());
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        self.inner.call_tool(request, context).await
    }
}

/// Serves `mode` on standard input and output until the client closes them.
pub async fn serve_stdio_in(mode: Mode) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = ModedServer::new(mode)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}

/// Serves `mode` over Streamable HTTP at `http://ADDR/mcp` on an already bound listener, until
/// the process ends.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    mode: Mode,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let service = StreamableHttpService::new(
        move || Ok(ModedServer::new(mode)),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    axum::serve(listener, router).await?;
    Ok(())
}

/// The example server's command line: `[--http ADDR] [--paged N] [--fail-list] [--raw]
/// [--allowed-union] [--noisy] [--tasks-2025]`. Stdio by
/// default; `--http` serves Streamable HTTP at `http://ADDR/mcp` and first prints the bound
/// address on standard output (so `127.0.0.1:0` picks a free port); `--paged N` lists tools N
/// per page; `--fail-list` answers `tools/list` with a JSON-RPC error; `--raw` serves
/// [`crate::raw_server`] instead (on stdio, or over HTTP with `--http`); `--allowed-union` serves
/// [`crate::task_server`] (on stdio); `--noisy` serves
/// [`crate::raw_server::serve_stdio_noisy`] (on stdio); `--tasks-2025` serves
/// [`crate::raw_server::serve_stdio_tasks_2025`] (on stdio).
pub async fn run_from_args(
    args: impl IntoIterator<Item = String>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = args.into_iter();
    let (mut http, mut mode, mut raw, mut tasks, mut noisy) =
        (None, Mode::Normal, false, false, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => http = args.next(),
            "--paged" => mode = Mode::Paged(args.next().and_then(|n| n.parse().ok()).unwrap_or(2)),
            "--fail-list" => mode = Mode::FailList,
            "--raw" => raw = true,
            "--allowed-union" => tasks = true,
            "--noisy" => noisy = true,
            "--tasks-2025" => return Ok(crate::raw_server::serve_stdio_tasks_2025()?),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    match (http, raw) {
        (None, _) if tasks => crate::task_server::serve_stdio().await,
        (None, _) if noisy => crate::raw_server::serve_stdio_noisy().await,
        (None, false) => serve_stdio_in(mode).await,
        (None, true) => crate::raw_server::serve_stdio().await,
        (Some(addr), raw) => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            println!("{}", listener.local_addr()?);
            if raw {
                crate::raw_server::serve_http(listener).await
            } else {
                serve_http(listener, mode).await
            }
        }
    }
}
