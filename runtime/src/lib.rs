//! # toolschema
//!
//! Make a tool's parameter schema safe for every LLM provider.
//!
//! What a Rust MCP server author needs, all of it on this page:
//!
//! - [`#[derive(ToolParams)]`](derive@ToolParams) on a tool's parameters and
//!   [`#[derive(ProviderSafe)]`](derive@ProviderSafe) on every type inside them (feature `derive`,
//!   on by default): the published-schema contract as compile errors (no structural union, an
//!   object root).
//! - `toolschema::rmcp::Parameters<T>` in an rmcp `#[tool]` (feature `rmcp`), with
//!   `toolschema::rmcp::exact_schemas(router)` where the router is made: the MCP-adapted schema
//!   published exactly, each call's arguments validated against it.
//! - `ArgsError` (feature `validate`): the refusal of a call, worded for the model.
//! - [`Target`]`::….adapt(&schema)`: what each provider would be sent, and what it will no
//!   longer enforce ([`Adapted`]).
//! - [`ToolParams::check_contract`]: one line per tool in a test.
//!
//! A complete server: `tests/examples/quickstart.rs` in the repository (shown whole in the
//! README). The modules below serve tools in other languages ([`contract`], [`catalog`]), custom
//! adapter rules ([`adapt::rules`]) and snapshot files ([`snapshot`]).
//!
//! ```
//! use serde::Deserialize;
//! use schemars::JsonSchema;
//! use toolschema::{ProviderSafe, ToolParams};
//!
//! #[derive(Deserialize, JsonSchema, ProviderSafe)]
//! #[serde(rename_all = "snake_case")]
//! enum FieldKind { Text, Integer, Asset }
//!
//! #[derive(Deserialize, JsonSchema, ToolParams)]
//! struct SetField {
//!     /// The field to write.
//!     field: String,
//!     /// What kind of value `value` holds; checked on the server.
//!     kind: FieldKind,
//!     /// The value, validated against `kind` by the server.
//!     value: serde_json::Value,
//! }
//!
//! SetField::check_contract().unwrap();
//! ```
//!
//! ## The modules, one example each
//!
//! [`contract`]: any published schema against the contract (a structural union is reported with
//! its path, the cause and the fix).
//!
//! ```
//! use serde_json::json;
//! let schema = json!({"type": "object", "properties": {"filter": {"anyOf": [
//!     {"type": "object", "properties": {"name": {"type": "string"}}},
//!     {"type": "array", "items": {"type": "string"}}
//! ]}}});
//! let violations = toolschema::contract::check(&schema);
//! assert_eq!(violations.len(), 1);
//! assert_eq!(violations[0].path, "properties.filter");
//! ```
//!
//! [`adapt`](mod@adapt): the schema each provider accepts, and what it will no longer enforce.
//!
//! ```
//! use serde_json::json;
//! use toolschema::Target;
//! let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}}});
//! let gemini = Target::Gemini.adapt(&schema);
//! assert!(gemini.schema["properties"]["n"].get("multipleOf").is_none()); // Gemini has no such keyword...
//! assert_eq!(gemini.losses[0].keyword, "multipleOf"); // ...and the report says so
//! let strict = Target::OpenAiStrict.adapt(&schema);
//! assert_eq!(strict.strict, Some(true));
//! ```
//!
//! [`args`]: the model's arguments back through the adaptation, validated against the schema the
//! server published.
//!
//! ```
//! use serde_json::json;
//! use toolschema::{Target, restore};
//! let schema = json!({"type": "object", "properties": {"limit": {"type": "integer"}}});
//! let strict = Target::OpenAiStrict.adapt(&schema); // optional `limit` became required + nullable
//! assert_eq!(restore(&strict, json!({"limit": null})).unwrap(), json!({}));
//! let refused = restore(&strict, json!({"limit": "ten"})).unwrap_err();
//! assert!(refused.to_string().contains("/limit must be an integer"));
//! ```
//!
//! [`catalog`]: tool lists as servers in any language publish them.
//!
//! ```
//! use serde_json::json;
//! use toolschema::catalog::Catalog;
//! let list = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {}}}]});
//! let catalog = Catalog::from_value(list).unwrap();
//! assert_eq!(catalog.tools[0].name.as_deref(), Some("echo"));
//! assert!(catalog.check(&Default::default()).is_ok());
//! ```
//!
//! [`snapshot`]: per-provider files of your own tools, to commit and review.
//!
//! `rmcp` (feature `rmcp`): `toolschema::rmcp::Parameters<T>` in an rmcp `#[tool]` publishes the
//! MCP-adapted schema and restores, validates and deserializes each call's arguments; invalid
//! arguments become a tool error the model can act on. A complete server:
//! `tests/examples/quickstart.rs` in the repository.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapt;
#[cfg(feature = "validate")]
pub mod args;
pub mod catalog;
pub mod contract;
mod hints;
mod impls;
mod keys;
mod nullable;
#[cfg(feature = "rmcp")]
pub mod rmcp;
mod shape;
pub mod snapshot;
pub mod toolset;
mod traits;
/// How this workspace walks a JSON Schema's subschemas (its CLI and tests read schemas with it).
/// Not part of the API: it may change in any release.
#[doc(hidden)]
pub mod walk;

pub use adapt::{Adapted, Target};
#[cfg(feature = "validate")]
pub use args::{ArgsError, encode, restore};
pub use shape::{Shape, ShapeKind};
/// What the derives' generated code collects allowed unions with.
#[doc(hidden)]
pub use traits::AllowedUnions;
pub use traits::{AllowedUnion, ProviderSafe, StringKey, ToolParams};

#[cfg(feature = "derive")]
pub use toolschema_macros::{ProviderSafe, ToolParams};

/// What the derives' generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::hints::{Chrono04, Indexmap2, NoVisit, Url2, Uuid1, Visit};
    pub use crate::impls::{field_ok, require};
    #[cfg(feature = "insta")]
    pub use insta;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

/// The README's Rust examples (blocks marked `rust`; `rust,ignore` ones are built elsewhere), run
/// as doctests so that what the README shows compiles and holds.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
