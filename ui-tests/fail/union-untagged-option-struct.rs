#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `SetRetention` has structural-union at `$defs.Retention`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Window {
    days: u32,
}

/// `Option<T>` adds a null branch, but `T` is still a structured branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Retention {
    Window(Option<Window>),
    Policy { name: String },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct SetRetention {
    retention: Retention,
}

fn main() {}
