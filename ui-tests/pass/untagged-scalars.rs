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

/// The "smart identifier": a union of scalars is never degraded.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Identifier {
    Name(String),
    Id(i64),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Get {
    identifier: Identifier,
}

fn main() {
    assert_clean::<Get>();
}
