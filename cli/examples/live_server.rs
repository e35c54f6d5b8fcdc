//! The example MCP server, built with this package for its live-server tests
//! (`tests/server.rs`): `live_server [--http ADDR] [--paged N] [--fail-list] [--raw]
//! [--allowed-union] [--noisy] [--tasks-2025]`
//! (`--raw`: the hand-written server of the proxy tests, `toolschema_tests::raw_server`;
//! `--allowed-union`: the task tracker of `toolschema_tests::task_server`; `--tasks-2025`: a
//! server of MCP tasks in the 2025-11-25 form, written line by line).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolschema_tests::example_server::run_from_args(std::env::args().skip(1)).await
}
