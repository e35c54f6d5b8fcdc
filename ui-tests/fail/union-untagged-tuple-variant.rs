#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Select` has structural-union at `$defs.Span`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// An untagged tuple variant is an array branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Span {
    Pair(u32, u32),
    Named { start: u32, end: u32 },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Select {
    span: Span,
}

fn main() {}
