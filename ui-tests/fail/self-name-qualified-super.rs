#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Params` has structural-union at `$defs.Filter`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// The old shape, at the parent module.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Filter {
    name: String,
}

mod v2 {
    use super::*;

    #[derive(Deserialize, JsonSchema, ProviderSafe)]
    pub struct NewFilter {
        pattern: String,
        limit: u32,
    }

    /// `super::Filter` is the parent module's struct, not this enum.
    #[derive(Deserialize, JsonSchema, ProviderSafe)]
    #[serde(untagged)]
    pub enum Filter {
        Old(super::Filter),
        New(NewFilter),
    }
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Params {
    filter: v2::Filter,
}

fn main() {}
