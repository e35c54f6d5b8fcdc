//! Implementation detail of the `toolschema` crate: the `ToolParams` and `ProviderSafe` derives.
//!
//! Each entry point parses, hands the input to `expand::derive`, and returns its tokens. The
//! phases below it work on `proc_macro2` and are tested without a compiler invocation.

mod ast;
mod attr;
mod check;
mod errors;
mod expand;
mod krate;
mod prepass;
mod shape;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `toolschema::ToolParams` (and `ProviderSafe`) for a tool's parameter struct.
///
/// The struct must have named fields (a tool's parameters are an object) and every field's type
/// must implement `ProviderSafe`. See the `toolschema` crate docs.
#[proc_macro_derive(ToolParams, attributes(tool_schema, serde, schemars))]
pub fn derive_tool_params(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, expand::Mode::ToolParams).into()
}

/// Derives `toolschema::ProviderSafe` for a type nested in a tool's parameters.
///
/// Enums that would publish an `anyOf`/`oneOf` with more than one object- or array-typed branch
/// are refused, unless allowed with `#[tool_schema(allow_union = "reason (#issue)")]`.
#[proc_macro_derive(ProviderSafe, attributes(tool_schema, serde, schemars))]
pub fn derive_provider_safe(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, expand::Mode::ProviderSafe).into()
}
