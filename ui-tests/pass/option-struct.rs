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
struct Paging {
    page: u32,
    size: u32,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Sort {
    Field(String),
    Spec { field: String, desc: bool },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct List {
    paging: Option<Paging>,
    sort: Option<Sort>,
    #[serde(default)]
    limit: u32,
}

fn main() {
    assert_clean::<List>();
}
