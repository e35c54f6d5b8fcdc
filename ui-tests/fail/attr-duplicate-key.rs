#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "legacy clients (#163)", allow_union = "again (#164)")]
enum Fields {
    Replace(Vec<String>),
    Delta { add: Vec<String> },
}

fn main() {}
