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

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Scheduled {
    at: chrono::DateTime<chrono::Utc>,
    day: chrono::NaiveDate,
    time: chrono::NaiveTime,
    local: chrono::NaiveDateTime,
    id: uuid::Uuid,
    callback: url::Url,
    labels: indexmap::IndexMap<String, String>,
    tags: indexmap::IndexSet<String>,
    by_id: std::collections::BTreeMap<uuid::Uuid, u32>,
}

fn main() {
    assert_clean::<Scheduled>();
}
