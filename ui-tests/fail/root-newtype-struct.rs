#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Search` has non-object-root at ``
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Query {
    text: String,
}

/// A newtype publishes the inner type's schema, not an object of its own.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Search(Query);

fn main() {}
