#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `ApplyAll` has structural-union at `$defs.OrInline`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Config {
    path: String,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum OrInline<T> {
    Ref(T),
    Inline { body: String },
}

/// The union is in the array's `items`: still a structural union, one level down.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct ApplyAll {
    configs: Vec<OrInline<Config>>,
}

fn main() {}
