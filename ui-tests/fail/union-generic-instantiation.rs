#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Apply` has structural-union at `$defs.OrInline2` (schemars numbers the second instantiation)
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Config {
    path: String,
}

/// Generic: only the instantiation knows whether it is a structural union.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum OrInline<T> {
    Ref(T),
    Inline { body: String },
}

/// `OrInline<String>` is fine; `OrInline<Config>` has two object branches.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Apply {
    name: OrInline<String>,
    config: OrInline<Config>,
}

fn main() {}
