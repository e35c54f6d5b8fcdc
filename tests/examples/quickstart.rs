//! The README's "Use it in your server" quick start, compiled with the workspace so that it stays
//! true: a complete stdio MCP server with one tool.
//! `cargo run -p toolschema-tests --example quickstart`

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use toolschema::rmcp::Parameters;
use toolschema::{ArgsError, ProviderSafe, ToolParams};

/// What `value` holds: a unit enum, not a union of one object per kind.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Text,
    Number,
}

/// Parameters of `set_field`.
#[derive(Debug, Deserialize, JsonSchema, ToolParams)]
struct SetField {
    /// The field to write.
    field: String,
    /// What `value` holds.
    kind: Kind,
    /// The value; checked against `kind` by the server.
    value: Value,
}

#[derive(Clone)]
struct Server {
    /// Made once in `main`, served by `#[tool_handler(router = self.tool_router)]`.
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    #[tool(description = "Write one field. `kind` says what `value` holds.")]
    fn set_field(
        &self,
        Parameters(args): Parameters<SetField>,
    ) -> Result<CallToolResult, ErrorData> {
        // The check that replaces a union: refused in the words of a schema violation.
        let fits = match args.kind {
            Kind::Text => args.value.is_string(),
            Kind::Number => args.value.is_number(),
        };
        if !fits {
            let error = ArgsError::invalid().with(
                "/value",
                format!("must be a {:?} value, as `kind` says", args.kind).to_lowercase(),
                Some(&args.value),
            );
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                error.to_string(),
            )]));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{} = {}",
            args.field, args.value
        ))]))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // In a test: `SetField::check_contract().unwrap();` (one line per tool).
    SetField::check_contract()?;
    // Each tool's schema exactly as toolschema publishes it: without the `$schema` rmcp adds,
    // which Gemini CLI and Vertex AI refuse.
    let server = Server {
        tool_router: toolschema::rmcp::exact_schemas(Server::tool_router()),
    };
    server
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
