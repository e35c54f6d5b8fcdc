#![allow(dead_code)]
//! A field schemars leaves out and serde fills with its default, written as published servers
//! write it (stakpak's `DynamicSubagentRequest::model`), in one attribute or split over two, in
//! either order: the struct is still read, its shape is an object, and its other fields are
//! checked (issue 50).
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "snake_case")]
enum Effort {
    Low,
    High,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct StartAgent {
    prompt: String,
    effort: Effort,
    #[serde(default, skip_deserializing)]
    #[schemars(skip)]
    model: Option<String>,
    #[schemars(skip)]
    #[serde(skip_deserializing)]
    #[serde(default)]
    profile: Option<String>,
}

fn main() {
    assert_eq!(StartAgent::SHAPE, toolschema::Shape::OBJECT);
    let schema = StartAgent::published_schema();
    assert!(schema["properties"].get("model").is_none(), "{schema:#}");
    assert!(schema["properties"].get("effort").is_some(), "{schema:#}");
    StartAgent::check_contract().unwrap();
}
