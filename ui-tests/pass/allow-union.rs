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

/// The escape hatch: allowed, visible, and listed.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
#[tool_schema(allow_union = "the legacy client sends both shapes; removal tracked in #194")]
enum Fields {
    Replace(Vec<String>),
    Delta { add: Vec<String>, remove: Vec<String> },
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct ManageContentType {
    fields: Option<Fields>,
    more: Vec<Fields>,
}

fn main() {
    let allowed = ManageContentType::allowed_unions();
    assert_eq!(allowed.len(), 1, "{allowed:?}");
    assert_eq!(allowed[0].schema_name, "Fields");
    assert!(allowed[0].reason.contains("#194"));
    // The union is really there; the allow-list covers it, so the check passes.
    let schema = ManageContentType::published_schema();
    let violations = toolschema::contract::check(&schema);
    assert!(violations.iter().any(|v| v.path == "$defs.Fields"), "{violations:#?}");
    ManageContentType::check_contract().unwrap();
}
