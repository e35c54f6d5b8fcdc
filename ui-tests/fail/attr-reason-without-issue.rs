#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "we need both shapes")]
enum Fields {
    Replace(Vec<String>),
    Delta { add: Vec<String> },
}

fn main() {}
