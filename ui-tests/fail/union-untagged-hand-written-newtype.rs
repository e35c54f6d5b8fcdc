#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Click` has structural-union at `$defs.Target`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

/// A newtype whose schema is hand-written: its shape is unknown (`Shape::OPAQUE`).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Raw(#[schemars(schema_with = "any_object")] serde_json::Value);

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Selector {
    selector: String,
}

/// Defined elsewhere, the hand-written branch is still one the union must declare (issue 50).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Target {
    Selector(Selector),
    Raw(Raw),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Click {
    target: Target,
}

fn main() {}
