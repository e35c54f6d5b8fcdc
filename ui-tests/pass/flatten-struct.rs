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

use std::collections::HashMap;

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Common {
    dry_run: bool,
    reason: Option<String>,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Delete {
    id: String,
    #[serde(flatten)]
    common: Common,
    #[serde(flatten)]
    extra: HashMap<String, String>,
}

fn main() {
    assert_clean::<Delete>();
}
