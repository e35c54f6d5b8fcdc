#![allow(dead_code)]
//! goose's `ChartDataValues`: `opaque` on an enum that derives `JsonSchema` and is an untagged
//! union of two list variants. `opaque` would keep the union without a reason.
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ProviderSafe;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ChartPoint {
    x: f64,
    y: f64,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(opaque)]
enum ChartDataValues {
    Values(Vec<f64>),
    Points(Vec<ChartPoint>),
}

fn main() {}
