#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Find` has structural-union at `$defs.Filter`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// Untagged struct variants: two object branches of an `anyOf`.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Filter {
    Range { from: i64, to: i64 },
    Exact { value: i64 },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Find {
    filter: Filter,
}

fn main() {}
