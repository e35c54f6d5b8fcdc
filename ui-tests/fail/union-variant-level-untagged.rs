#![allow(dead_code)]
// agreement: without the toolschema derives, schemars' schema of `Load` has structural-union at `$defs.Source`
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// A tagged data variant plus an untagged struct variant: two object branches.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
enum Source {
    Url { href: String },
    #[serde(untagged)]
    Inline { text: String },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Load {
    source: Source,
}

fn main() {}
