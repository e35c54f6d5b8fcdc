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
#[serde(rename_all = "kebab-case")]
enum FieldKind {
    ShortText,
    LongText,
    #[serde(rename = "int")]
    Integer,
    #[serde(skip)]
    Internal,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
#[serde(rename_all = "camelCase")]
struct AddField {
    field_name: String,
    field_kind: FieldKind,
}

fn main() {
    assert_clean::<AddField>();
}
