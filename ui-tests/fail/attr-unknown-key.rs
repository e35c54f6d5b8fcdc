#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_unions = "typo (#1)")]
enum Id {
    Num(u64),
    Name(String),
}

fn main() {}
