#![allow(dead_code)]
//! True self-reference by the type's bare name or `Self` still compiles: `Box<Filter>` adds no
//! branch, `Vec<Filter>` one array branch. (The values below match an earlier branch: serde's
//! untagged newtype over the enum itself retries the same value.)
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Filter {
    Name(String),
    All(Vec<Filter>),
    Not(Box<Filter>),
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Expr {
    Lit(i64),
    Neg(Box<Self>),
    Group(Option<Box<Expr>>),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Params {
    filter: Filter,
    expr: Expr,
}

fn main() {
    Params::check_contract().unwrap();
    let p: Params =
        serde_json::from_value(serde_json::json!({"filter": ["a", ["b"]], "expr": 3})).unwrap();
    assert!(matches!(p.filter, Filter::All(ref v) if v.len() == 2));
}
