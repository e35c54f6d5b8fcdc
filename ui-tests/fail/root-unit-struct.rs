#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Ping` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// A unit struct publishes `null`.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Ping;

fn main() {}
