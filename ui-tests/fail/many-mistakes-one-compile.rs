#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema)]
struct Foreign {
    x: u8,
}

/// Three independent mistakes, reported together.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[tool_schema(reason = "x")]
enum Action {
    Create { name: String },
    Update { id: u64, patch: Foreign },
}

fn main() {}
