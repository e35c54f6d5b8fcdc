//! The example MCP server over stdio: `cargo run -p toolschema-tests --example mcp_server`.
//! Its tools are in `src/example_server.rs`.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolschema_tests::example_server::serve_stdio().await
}
