#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Apply` has structural-union at `$defs.OrInline`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

mod reexport {
    #[allow(unused_imports)] // used by the derives only, which the agreement test removes
    pub use ::toolschema;
}

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

/// With `crate = "..."` the check still fails at the field, not at the derive.
#[derive(Deserialize, JsonSchema, ToolParams)]
#[tool_schema(crate = "reexport::toolschema")]
struct Apply {
    config: OrInline<Config>,
}

fn main() {}
