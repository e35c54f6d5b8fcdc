#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `StartAgent` has structural-union at `$defs.Request`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// The same skipped field with serde's keys on two lines, after `#[schemars(skip)]`.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ByName {
    name: String,
    #[schemars(skip)]
    #[serde(skip_deserializing)]
    #[serde(default)]
    model: Option<String>,
}

/// And in the other order.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ByPrompt {
    prompt: String,
    #[serde(default)]
    #[serde(skip_deserializing)]
    #[schemars(skip)]
    model: Option<String>,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Request {
    Name(ByName),
    Prompt(ByPrompt),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct StartAgent {
    request: Request,
}

fn main() {}
