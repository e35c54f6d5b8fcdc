#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `FindUser` has structural-union at `$defs.Lookup`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ByEmail {
    email: String,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct ByPhone {
    phone: String,
}

/// Newtype variants wrapping structs defined elsewhere: counted by the compiler.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Lookup {
    Email(ByEmail),
    Id(u64),
    Phone(ByPhone),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct FindUser {
    lookup: Lookup,
}

fn main() {}
