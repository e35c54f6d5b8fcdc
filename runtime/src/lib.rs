//! # toolschema
//!
//! Make a tool's parameter schema safe for every LLM provider.
//!
//! - `#[derive(ToolParams)]` / `#[derive(ProviderSafe)]` (feature `derive`, on by default) turn the
//!   published-schema contract into compile errors: no structural unions (an `anyOf`/`oneOf` with
//!   more than one object- or array-typed branch) at any depth, and an object root.
//! - [`contract`] checks any published JSON Schema (hand-written, `schema_with`, or from a server
//!   in another language) against the same contract, with an allow-list that fails both ways.
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

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapt;
pub mod args;
pub mod catalog;
pub mod contract;
mod impls;
mod nullable;
#[cfg(feature = "rmcp")]
pub mod rmcp;
mod shape;
pub mod snapshot;
mod traits;
pub mod walk;

pub use adapt::{Adapted, Target, adapt};
pub use args::{ArgsError, restore};
pub use shape::{Shape, ShapeKind};
pub use traits::{AllowedUnion, AllowedUnions, ProviderSafe, StringKey, ToolParams};

#[cfg(feature = "derive")]
pub use toolschema_macros::{ProviderSafe, ToolParams};

/// What the derives' generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::impls::field_ok;
    #[cfg(feature = "insta")]
    pub use insta;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
