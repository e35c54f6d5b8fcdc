#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

#[derive(Deserialize, JsonSchema)]
struct Opaque {
    raw: String,
}

/// `#[schemars(with = "T")]` publishes `T`'s schema, so `T` is what is checked.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Import {
    #[schemars(with = "Opaque")]
    data: String,
}

fn main() {}
