//! The example MCP server as a binary (the stdio round-trip test runs it as a real process).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolschema_tests::example_server::serve_stdio().await
}
