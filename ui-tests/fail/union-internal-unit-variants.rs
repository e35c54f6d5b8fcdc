#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Control` has structural-union at `$defs.Command`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// Internally tagged: even unit variants are objects (`{"kind": "Start"}`).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "kind")]
enum Command {
    Start,
    Stop,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Control {
    command: Command,
}

fn main() {}
