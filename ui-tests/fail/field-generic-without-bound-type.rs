#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema)]
struct Foreign {
    x: u8,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Wrapper<T> {
    inner: T,
}

/// `Wrapper<T>` is `ProviderSafe` only when `T` is.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Use {
    wrapped: Wrapper<Foreign>,
}

fn main() {}
