#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Names {
    names: Vec<String>,
}

/// Only the compiler can see that `u64` is not structured: the allowance is stale.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "fixed in #163")]
enum Fields {
    Count(u64),
    Names(Names),
}

fn main() {}
