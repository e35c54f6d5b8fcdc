#![allow(dead_code)]
//! `opaque` still works for an enum whose `JsonSchema` is written by hand and whose serde
//! attributes make no structural union: the derive leaves its shape to `check_contract()`.
use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// A size: a named preset or a number of pixels, published by hand as one string pattern.
#[derive(Deserialize, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(opaque)]
enum Size {
    Preset(String),
    Pixels(u32),
}

impl JsonSchema for Size {
    fn schema_name() -> Cow<'static, str> {
        "Size".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^(small|large|[0-9]+px)$"})
    }
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Render {
    size: Size,
}

fn main() {
    Render::check_contract().unwrap();
}
