#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Params` has structural-union at `$defs.F`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Inner {
    text: String,
}

/// An adjacently tagged variant (an object) plus an untagged newtype over a struct.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "kind", content = "body")]
enum F {
    X { a: u32 },
    #[serde(untagged)]
    Other(Inner),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Params {
    f: F,
}

fn main() {}
