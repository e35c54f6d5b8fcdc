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

use std::collections::BTreeMap;

/// Direct recursion through `Vec`.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Mutual recursion.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Dir {
    files: Vec<String>,
    sub: Option<Box<SubDir>>,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct SubDir {
    parent: Option<Box<Dir>>,
}

/// A recursive untagged enum with one structured branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(untagged)]
enum Expr {
    Lit(i64),
    Var(String),
    Call(Vec<Expr>),
    Boxed(Box<Expr>),
}

/// Recursion through a map.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Tree {
    leaves: BTreeMap<String, Tree>,
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Walk {
    root: Node,
    dir: Dir,
    expr: Expr,
    tree: Tree,
}

fn main() {
    assert_clean::<Walk>();
}
