#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema)]
struct Body {
    text: String,
}

/// Variant fields are checked too.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
enum Message {
    Ping,
    Post { body: Body },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Send {
    message: Message,
}

fn main() {}
