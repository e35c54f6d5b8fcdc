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

/// schemars reads `#[schemars(untagged)]` as it would `#[serde(untagged)]`, so the published
/// schema is an `anyOf` of a string and an array: one structured branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[schemars(untagged)]
enum Names {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Tag {
    names: Names,
}

fn main() {
    assert_clean::<Tag>();
}
