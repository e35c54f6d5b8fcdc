#![allow(dead_code)]
use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use toolschema::ProviderSafe;

/// `opaque` means the derive does not read the schema: there is nothing for `allow_union` to allow.
#[derive(Deserialize, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(opaque, allow_union = "legacy shape (#12)")]
enum Target {
    Id(u64),
}

impl JsonSchema for Target {
    fn schema_name() -> Cow<'static, str> {
        "Target".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "integer"})
    }
}

fn main() {}
