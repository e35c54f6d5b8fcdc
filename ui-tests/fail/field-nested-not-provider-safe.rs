#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

#[derive(Deserialize, JsonSchema)]
struct Line {
    sku: String,
}

/// The error names the innermost type that lacks `ProviderSafe`.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Order {
    lines: Vec<Option<Line>>,
}

fn main() {}
