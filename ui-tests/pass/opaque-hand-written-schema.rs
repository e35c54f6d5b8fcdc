#![allow(dead_code)]
//! Types whose `JsonSchema` is written by hand: their serde attributes say nothing about what they
//! publish, so they declare it — `#[tool_schema(opaque)]` on the derive, or a manual
//! `ProviderSafe` impl with the `SHAPE` the author states — and `check_contract()` (one line in a
//! test) is the check of the schema they really publish.
use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use toolschema::{ProviderSafe, Shape, ToolParams};

/// Declared opaque: the derive counts it as unknown (no structured branch).
#[derive(Deserialize, ProviderSafe)]
#[tool_schema(opaque)]
struct Color(String);

impl JsonSchema for Color {
    fn schema_name() -> Cow<'static, str> {
        "Color".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^#[0-9a-f]{6}$"})
    }
}

/// A manual `ProviderSafe` impl: the author states the shape its hand-written schema has.
#[derive(Deserialize)]
struct Point {
    x: f64,
    y: f64,
}

impl JsonSchema for Point {
    fn schema_name() -> Cow<'static, str> {
        "Point".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"]
        })
    }
}

impl ProviderSafe for Point {
    const SHAPE: Shape = Shape::OBJECT;
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Draw {
    color: Color,
    at: Point,
}

/// An opaque type whose hand-written schema *is* a structural union: the derive cannot see it,
/// so it compiles, and the run-time check is what refuses it.
#[derive(Deserialize, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(opaque)]
enum Target {
    Id(u64),
}

impl JsonSchema for Target {
    fn schema_name() -> Cow<'static, str> {
        "Target".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"anyOf": [
            {"type": "object", "properties": {"id": {"type": "integer"}}},
            {"type": "array", "items": {"type": "integer"}}
        ]})
    }
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Select {
    target: Target,
}

fn main() {
    assert!(<Color as ProviderSafe>::SHAPE.is_opaque());
    Draw::check_contract().unwrap();
    let err = Select::check_contract().unwrap_err();
    let text = err.to_string();
    assert!(text.contains("structural-union"), "{text}");
}
