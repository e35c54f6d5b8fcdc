#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `MaybeApply` has structural-union at `$defs.OrInline`
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

/// `Option<Union>` is still that union.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct MaybeApply {
    config: Option<OrInline<Config>>,
}

fn main() {}
