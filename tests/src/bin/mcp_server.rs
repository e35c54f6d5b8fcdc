//! The example MCP server as a binary (the stdio round-trip test runs it as a real process):
//! `mcp_server [--http ADDR] [--paged N] [--fail-list]` (see
//! `example_server::run_from_args`).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolschema_tests::example_server::run_from_args(std::env::args().skip(1)).await
}
