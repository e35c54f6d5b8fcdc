#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `UpsertEntry` has structural-union at `$defs.FieldValue`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Text {
    body: String,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "type", rename_all = "snake_case")]
enum FieldValue {
    Text(Text),
    Integer { value: i64 },
    Asset { id: String },
}

/// The seed's `field_values` incident: a union of object variants.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct UpsertEntry {
    field_values: Vec<FieldValue>,
}

fn main() {}
