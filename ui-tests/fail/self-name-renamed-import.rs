#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Params` has structural-union at `$defs.Filter`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

mod v1 {
    use super::*;

    /// The old shape of the filter, kept under the same name in its own module.
    #[derive(Deserialize, JsonSchema, ProviderSafe)]
    pub struct Filter {
        pub name: String,
    }
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct NewFilter {
    pattern: String,
    limit: u32,
}

use v1::Filter as OldFilter;

/// A renamed import is another type: counted through its own shape.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Filter {
    Old(OldFilter),
    New(NewFilter),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Params {
    filter: Filter,
}

fn main() {}
