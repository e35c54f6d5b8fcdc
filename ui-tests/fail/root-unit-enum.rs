#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Mode` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// Even a unit-only enum publishes a string, not an object.
#[derive(Deserialize, JsonSchema, ToolParams)]
enum Mode {
    Fast,
    Slow,
}

fn main() {}
