#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Draw` has structural-union at `$defs.Shape`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// serde's default representation: each data variant is an object branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
enum Shape {
    Circle { radius: f64 },
    Rect { w: f64, h: f64 },
    Empty,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Draw {
    shape: Shape,
}

fn main() {}
