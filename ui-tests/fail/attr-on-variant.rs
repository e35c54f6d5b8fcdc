#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Fields {
    #[tool_schema(allow_union = "legacy (#163)")]
    Replace(Vec<String>),
    Count(u64),
}

fn main() {}
