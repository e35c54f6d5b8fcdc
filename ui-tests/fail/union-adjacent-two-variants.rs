#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Emit` has structural-union at `$defs.Event`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// Adjacently tagged: every variant is `{"t": ..., "c": ...}`.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "t", content = "c")]
enum Event {
    Click(u32),
    Key(String),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Emit {
    event: Event,
}

fn main() {}
