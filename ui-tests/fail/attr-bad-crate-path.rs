#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

#[derive(Deserialize, JsonSchema, ToolParams)]
#[tool_schema(crate = "not a path")]
struct Params {
    name: String,
}

fn main() {}
