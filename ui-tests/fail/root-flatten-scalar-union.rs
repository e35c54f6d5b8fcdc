#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Open` has root-combinator at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Target {
    ById(u64),
    ByName(String),
}

/// Flattening a union into the parameters puts `anyOf` at the root.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Open {
    #[serde(flatten)]
    target: Target,
}

fn main() {}
