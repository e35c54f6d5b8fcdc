//! Integration tests of the toolschema workspace live in `tests/`; this library holds what they
//! share with the binaries: the example MCP server (also `cargo run -p toolschema-tests --example
//! mcp_server`), the per-provider validators written from the providers' documentation, and the
//! generated-schema fuzzing suite (`cargo run --release -p toolschema-tests --bin fuzz`).

pub mod example_server;
pub mod fuzz;
pub mod grammars;
pub mod promises;
pub mod raw_server;
pub mod requests;
pub mod task_server;
pub mod validators;
pub mod xgrammar;
