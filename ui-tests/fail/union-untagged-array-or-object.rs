#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `ManageContentType` has structural-union at `$defs.Fields`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// The "replace or delta" idiom (seed #194): an array branch and an object branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Fields {
    Replace(Vec<String>),
    Delta { add: Vec<String>, remove: Vec<String> },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct ManageContentType {
    fields: Fields,
}

fn main() {}
