//! What an adaptation changed, and what it lost: the report is the guarantee that nothing is
//! lost silently.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

pub use super::pointer::Pointer;

/// How a constraint stopped being enforced by the provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LossKind {
    /// Removed from the schema and written into the node's `description`: the model can read
    /// it, the provider no longer enforces it.
    Spilled,
    /// Removed without a trace in the schema.
    Dropped,
    /// Several branches or types merged into one; values of the others are no longer accepted
    /// or no longer distinguished.
    Collapsed,
    /// The schema accepts more than before (`oneOf` read as `anyOf`, a closed choice opened).
    Widened,
    /// A `$ref` replaced by its target, or recursion cut at a bounded depth.
    Inlined,
    /// An object the schema left open (no `additionalProperties`) that the provider closes:
    /// properties beyond the declared ones, which the schema accepts, are refused (a grammar
    /// engine's default). The output says `additionalProperties: false`.
    Closed,
    /// The whole tool fell back to a simpler schema (non-strict, or the empty object).
    Fallback,
}

/// One keyword, branch or constraint whose enforcement the output no longer carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Loss {
    /// JSON Pointer into the input schema, as the caller passed it: the keyword itself where it
    /// still names one, else its node (for a node made by inlining a `$ref`: the definition).
    pub pointer: Pointer,
    /// JSON Pointer of the node in the output where the place now is (a spilled keyword is in
    /// that node's `description`); absent when the node is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Pointer>,
    /// The keyword (or `strict`, `root`, ... for whole-schema fallbacks). A JSON Schema keyword is
    /// kept without a copy, as [`Change::detail`]'s fixed words are.
    pub keyword: Cow<'static, str>,
    /// How it was lost.
    pub kind: LossKind,
    /// The value and why, in words.
    pub detail: String,
    /// The rule that made it ([`crate::adapt::rules::Rule::name`]), or the engine's step:
    /// `fail-open` (strict refused), `fallback` (the per-tool fallback), `strict-budget` (a
    /// provider's per-request strict limits).
    pub rule: &'static str,
}

/// A rewrite that keeps what the schema enforces (reordering, renaming, equivalent forms), or
/// changes what the model sends back without loosening the schema (an optional property made
/// required and nullable).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// JSON Pointer of the node in the input schema.
    pub pointer: Pointer,
    /// JSON Pointer of the node in the output; absent when the node is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Pointer>,
    /// The rule that made it ([`crate::adapt::rules::Rule::name`]).
    pub rule: &'static str,
    /// What it did (most rules' words are fixed text, kept without a copy).
    pub detail: Cow<'static, str>,
    /// An annotation not sent where it stood (`title`, `examples`, `$comment`, `deprecated`,
    /// `readOnly`, `writeOnly`; the root `description` that repeats the tool's): the model no
    /// longer reads it there, and nothing it enforced is lost, since it enforced nothing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub annotation: bool,
}

/// Why a schema cannot be represented for a target (strict mode fails open on this).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unrepresentable {
    /// Where.
    pub pointer: String,
    /// Why, and what the provider would need.
    pub reason: String,
    /// What the user can change for the schema to be represented (in the Rust type, or a
    /// setting to turn on), where there is something to say.
    pub fix: Option<String>,
}

impl fmt::Display for Unrepresentable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "the root"
        } else {
            &self.pointer
        };
        write!(f, "at {at}: {}", self.reason)
    }
}

/// A form a place is sent in instead of its own, because the target cannot hold it (an open map
/// under a strict mode, a value of any type, recursion past what the target allows). A model's
/// value there is decoded back by [`crate::restore`] before it is validated against the original
/// schema; [`crate::encode`] goes the other way.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Encoding {
    /// An open map sent as a list of `{"key", "value"}` objects (`[{"key": "a", "value": 1}]` for
    /// `{"a": 1}`).
    Pairs,
    /// A value sent as a string holding its JSON text (`"{\"a\":1}"` for `{"a": 1}`).
    JsonText,
    /// An object's properties beyond its declared ones, sent under the added property
    /// `property` as a list of `{"key", "value"}` objects. The name is one the object does not
    /// declare, so it never collides with a declared property.
    ExtraPairs {
        /// The added property.
        property: String,
    },
    /// An object's properties beyond its declared ones, sent under the added property
    /// `property` as the JSON text of an object.
    ExtraJsonText {
        /// The added property.
        property: String,
    },
}

impl Encoding {
    /// How the report words the form: "encoded as key/value pairs", "encoded as JSON text".
    pub fn words(&self) -> &'static str {
        match self {
            Encoding::Pairs | Encoding::ExtraPairs { .. } => "encoded as key/value pairs",
            Encoding::JsonText | Encoding::ExtraJsonText { .. } => "encoded as JSON text",
        }
    }
}

/// One place sent encoded ([`Encoding`]): where it was in the input, where it is in the output,
/// and what the form no longer enforces is a [`Loss`] of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Encoded {
    /// JSON Pointer of the node in the input schema.
    pub pointer: Pointer,
    /// JSON Pointer of the node in the output (a node written at several places, as inlining
    /// copies one, has an entry for each).
    pub at: Pointer,
    /// The form.
    #[serde(flatten)]
    pub encoding: Encoding,
    /// What was done, in words.
    pub detail: Cow<'static, str>,
    /// The rule that made it.
    pub rule: &'static str,
}
