#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Click` has structural-union at `$defs.Target`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

/// A hand-written schema beside a struct variant, as a published server writes it (terminator's
/// `serde_json::Value` published as `{"type": "object"}`): the derive cannot see that it is an
/// object, so it must be told (issue 50).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Target {
    Selector { selector: String },
    Raw(#[schemars(schema_with = "any_object")] serde_json::Value),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Click {
    target: Target,
}

fn main() {}
