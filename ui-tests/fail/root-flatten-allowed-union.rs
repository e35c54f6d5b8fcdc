#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Update` has root-combinator at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "both shapes are sent by the legacy client (#163)")]
enum Fields {
    Replace(Vec<String>),
    Delta { add: Vec<String>, remove: Vec<String> },
}

/// An allowed union is still refused at the root: no attribute makes providers accept it.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Update {
    #[serde(flatten)]
    fields: Fields,
}

fn main() {}
