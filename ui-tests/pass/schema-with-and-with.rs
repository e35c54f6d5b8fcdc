#![allow(dead_code)]
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::ToolParams;

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

/// A field whose schema is hand-written (`schema_with`) is judged by the runtime checker, and a
/// foreign type can publish another type's schema (`with`).
fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

/// A type from elsewhere, without `JsonSchema` or `ProviderSafe`.
#[derive(Deserialize)]
struct Stamp(String);

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Raw {
    #[schemars(schema_with = "any_object")]
    body: std::collections::HashMap<u8, String>,
    #[schemars(with = "String")]
    stamp: Stamp,
}

fn main() {
    assert_clean::<Raw>();
}
