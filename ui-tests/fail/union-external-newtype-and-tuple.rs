#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Goto` has structural-union at `$defs.Place`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Point {
    x: f64,
    y: f64,
}

/// A newtype and a tuple variant are two object branches (`{"At": ...}`, `{"Between": [...]}`).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
enum Place {
    At(Point),
    Between(Point, Point),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Goto {
    place: Place,
}

fn main() {}
