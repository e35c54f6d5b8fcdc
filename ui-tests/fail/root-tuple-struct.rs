#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Move` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// A tool's parameters written as a tuple struct publish an array.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Move(i32, i32);

fn main() {}
