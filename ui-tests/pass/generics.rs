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
struct Page<T> {
    items: Vec<T>,
    next: Option<String>,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum OrName<T> {
    Value(T),
    Name(String),
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Item {
    id: u64,
}

/// Generic recursion.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Tree<T> {
    value: T,
    children: Vec<Tree<T>>,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Import {
    page: Page<Item>,
    target: OrName<Item>,
    count: OrName<u32>,
    tree: Tree<String>,
}

/// A generic tool's parameters.
#[derive(Deserialize, JsonSchema, ToolParams)]
struct Envelope<T> {
    payload: T,
}

fn main() {
    assert_clean::<Import>();
    assert_clean::<Envelope<Item>>();
}
