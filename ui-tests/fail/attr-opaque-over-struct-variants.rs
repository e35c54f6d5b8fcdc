#![allow(dead_code)]
//! `opaque` on an untagged enum of two struct variants: the derive reads the union from the
//! syntax alone and refuses at `opaque`.
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(opaque)]
enum Target {
    File { path: String },
    Url { url: String },
}

fn main() {}
