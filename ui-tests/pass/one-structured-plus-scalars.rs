#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// The published schema has no structural union and the contract check passes.
fn assert_clean<T: ToolParams>() {
    let schema = T::published_schema();
    let violations = toolschema::contract::check(&schema);
    assert!(
        violations
            .iter()
            .all(|v| v.severity == toolschema::contract::Severity::Warning),
        "{violations:#?}\n{schema:#}"
    );
    T::check_contract().unwrap();
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Window {
    days: u32,
}

/// One structured branch plus scalars: a degrading client keeps the structured one.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Retention {
    Window(Window),
    Forever(bool),
    Preset(String),
}

/// Externally tagged: unit variants collapse into one string branch, one data variant.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
enum Limit {
    None,
    Unlimited,
    Max { value: u32 },
}

/// Internally tagged with a single variant: one object.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "kind")]
enum Only {
    Solo { x: u8 },
}

/// Only one variant is deserialized: the skipped ones are not in the schema.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Source {
    Inline { text: String },
    #[serde(skip_deserializing)]
    Cached { key: String },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Configure {
    retention: Retention,
    limit: Limit,
    only: Only,
    source: Source,
}

fn main() {
    assert_clean::<Configure>();
}
