#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// A type without `ProviderSafe` (it may hide a union).
#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

/// A skipped field beside it must not switch the other fields' checks off (issue 50).
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Ship {
    to: Address,
    #[serde(default, skip_deserializing)]
    #[schemars(skip)]
    carrier: Option<String>,
}

fn main() {}
