#![allow(dead_code)]
//! A variant-level `#[serde(untagged)]` newtype over a scalar adds one scalar branch: these
//! enums are not structural unions and must compile (their representation text contains braces,
//! which once reached a format string).
use schemars::JsonSchema;
use serde::Deserialize;
use toolschema::{ProviderSafe, ToolParams};

/// From a published rmcp server (LSP code action kinds with an open-ended fallback).
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(rename_all = "lowercase")]
enum CodeActionKind {
    #[serde(rename = "")]
    Empty,
    QuickFix,
    Refactor,
    #[serde(untagged)]
    Unknown(String),
}

/// The smallest form.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
enum A {
    X,
    #[serde(untagged)]
    U(String),
}

/// Internally tagged: `X` is one object branch, `U` a string.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "t")]
enum B {
    X,
    #[serde(untagged)]
    U(String),
}

/// Adjacently tagged: the same.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
#[serde(tag = "t", content = "c")]
enum C {
    X,
    #[serde(untagged)]
    U(u32),
}

/// A newtype over a type defined elsewhere, counted by the compiler: one object branch.
#[derive(Deserialize, JsonSchema, ProviderSafe)]
struct Inner {
    text: String,
}

#[derive(Deserialize, JsonSchema, ProviderSafe)]
enum D {
    X,
    #[serde(untagged)]
    Other(Inner),
}

#[derive(Deserialize, JsonSchema, ToolParams)]
struct Params {
    kind: CodeActionKind,
    a: A,
    b: B,
    c: C,
    d: D,
}

fn main() {
    Params::check_contract().unwrap();
    let args = serde_json::json!({"kind": "whatever", "a": "free text", "b": {"t": "X"}, "c": 7, "d": {"text": "t"}});
    let p: Params = serde_json::from_value(args).unwrap();
    assert!(matches!(p.kind, CodeActionKind::Unknown(ref s) if s == "whatever"));
    assert!(matches!(p.d, D::Other(_)));
}
