#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Name` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// A transparent struct publishes its field's schema: here a string.
#[derive(Deserialize, JsonSchema, ToolParams)]
#[serde(transparent)]
struct Name {
    value: String,
}

fn main() {}
