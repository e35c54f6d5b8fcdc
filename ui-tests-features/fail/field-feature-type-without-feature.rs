//! `uuid::Uuid` and `chrono::DateTime` with schemars' features on and toolschema's off: one error
//! per field, naming the toolschema feature that gives the type a provider-safe schema.
#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Event {
    id: uuid::Uuid,
    at: chrono::DateTime<chrono::Utc>,
    title: String,
}

fn main() {}
