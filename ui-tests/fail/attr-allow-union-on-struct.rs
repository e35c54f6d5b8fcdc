#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

#[derive(Deserialize, JsonSchema, ToolParams)]
#[tool_schema(allow_union = "not a union (#12)")]
struct Params {
    name: String,
}

fn main() {}
