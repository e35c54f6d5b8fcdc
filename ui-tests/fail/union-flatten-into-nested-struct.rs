#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Run` has structural-union at `$defs.Step`
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

/// Flattening a structural union into a nested object puts the union at that object.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Step {
    name: String,
    #[serde(flatten)]
    config: OrInline<Config>,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Run {
    steps: Vec<Step>,
}

fn main() {}
