#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Wrapped` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Inner {
    query: String,
}

/// schemars publishes `{"$ref": "#/$defs/Inner"}` at the root: no `type: "object"` there, so
/// rmcp panics and providers reject it, even though the wrapped type is fine.
#[derive(Deserialize, JsonSchema, ToolParams)]
#[serde(transparent)]
struct Wrapped {
    inner: Inner,
}

fn main() {}
