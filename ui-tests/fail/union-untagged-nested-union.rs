#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Paint` has structural-union at `$defs.Color`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Named {
    Name(String),
    Rgb(Rgb),
}

/// A nested untagged union is flattened: `Named` brings one object, `Hsl` adds a second.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Color {
    Named(Named),
    Hsl { h: u16, s: u8, l: u8 },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Paint {
    color: Color,
}

fn main() {}
