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

mod reexport {
    pub use ::toolschema;
}

#[derive(Deserialize, JsonSchema, ToolParams)]
#[tool_schema(crate = "reexport::toolschema")]
struct Params {
    name: String,
}

fn main() {
    assert_clean::<Params>();
}
