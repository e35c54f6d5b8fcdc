#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Manage` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// An enum publishes a union at the root.
#[derive(Deserialize, JsonSchema, ToolParams)]
#[serde(tag = "action")]
enum Manage {
    Create { name: String },
    Delete { id: u64 },
}

fn main() {}
