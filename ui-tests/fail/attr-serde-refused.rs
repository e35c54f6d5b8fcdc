#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

/// `#[schemars(skip)]` already means both skips: naming one again is a real duplicate, which
/// serde's parser refuses, and the derive says that it checks nothing until it reads.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Ship {
    to: String,
    #[schemars(skip, skip_deserializing)]
    carrier: Option<String>,
}

fn main() {}
