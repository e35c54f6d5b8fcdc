#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `StartAgent` has structural-union at `$defs.Request`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// A field schemars leaves out while serde fills it with its default: the pattern of a published
/// server (stakpak's `DynamicSubagentRequest::model`). It once switched off every check of the
/// struct (issue 50).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ByName {
    name: String,
    #[serde(default, skip_deserializing)]
    #[schemars(skip)]
    model: Option<String>,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ByPrompt {
    prompt: String,
    #[serde(default, skip_deserializing)]
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
