#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

use std::collections::HashMap;

/// JSON object keys are strings.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Scores {
    by_id: HashMap<u32, f64>,
}

fn main() {}
