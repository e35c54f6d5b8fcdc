#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

/// One structured branch plus scalars is allowed without an attribute: the allowance is stale.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "fixed in #163")]
enum Fields {
    All(bool),
    Some { names: Vec<String> },
}

fn main() {}
