#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// A type without `ProviderSafe` (it may hide a union).
#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Ship {
    to: Address,
    weight: f32,
}

fn main() {}
