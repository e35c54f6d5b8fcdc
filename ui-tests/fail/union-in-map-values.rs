#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `ApplyNamed` has structural-union at `$defs.OrInline`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

use std::collections::BTreeMap;

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

/// The union is in `additionalProperties`.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct ApplyNamed {
    configs: BTreeMap<String, OrInline<Config>>,
}

fn main() {}
