//! Integration tests of the toolschema workspace live in `tests/`; this library holds the example
//! MCP server they run (also `cargo run -p toolschema-tests --example mcp_server`).

pub mod example_server;
