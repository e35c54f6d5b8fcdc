//! llguidance (<https://github.com/guidance-ai/llguidance>): vLLM's `guidance` structured-output
//! backend, llama.cpp built with `LLAMA_LLGUIDANCE`, and the Rust crate of the same name. It
//! compiles a tool's parameters into a grammar, and with its default options (lenient off, as
//! vLLM and llama.cpp run it) refuses the whole schema over one of (read in `src/json/schema.rs`
//! and `src/json/compiler.rs` of the crate's 1.9.1 release):
//!
//! - a keyword outside its `IMPLEMENTED` list and not an annotation ("Unimplemented keys"):
//!   `not`, `if`/`then`/`else`, `uniqueItems`, `contains`, `dependent*`, `propertyNames`,
//!   `unevaluated*`, `contentSchema`, `deprecated`, `$dynamicRef`: spilled or dropped here with
//!   a loss (`llguidance-unimplemented`);
//! - a `format` outside `lookup_format` (`date-time`, `time`, `date`, `duration`, `email`,
//!   `hostname`, `ipv4`, `ipv6`, `uuid`, `uri`): "Unknown format": spilled (`llguidance-unimplemented`);
//! - any `oneOf` ("oneOf constraints are not supported"): read as `anyOf` (`oneof-to-anyof`,
//!   `widened` unless provably exclusive);
//! - a pattern its regex engine cannot compile (lookaround, back-references, `\b`), and a
//!   pattern and format it would have to intersect ("Unable to determine if regex is empty": on
//!   one node, or across an `allOf`'s members, where the first is kept): spilled
//!   (`regex-engine-patterns`); a `$ref` that does not resolve ("Pointer ... does not exist")
//!   or a cycle of references with sibling keywords ("circular references with sibling keys are
//!   not supported"): every reference is inlined (`inline-refs`: recursion unrolled, then cut,
//!   a loss; a dangling one dropped, a loss). Keeping the recursion llguidance does take is left
//!   for later.
//! - a root requiring a property that accepts nothing ("Unsatisfiable schema"): the tool falls
//!   back to the empty object (`unsatisfiable-root`).
//!
//! Objects stay open where `additionalProperties` is absent (llguidance follows JSON Schema), so
//! nothing is closed. It has no strict flag. The wire form is OpenAI's chat `tools`.

use super::super::Target;
use super::super::rules::{self as r, KeySet, Rule};
use super::super::settings::AdaptSettings;
use super::{json_schema_prefix, relaxed_only, strip_keywords};

impl AdaptSettings {
    /// llguidance with lenient mode off: what it implements, the rest spilled and reported.
    pub fn llguidance() -> Self {
        relaxed_only(Target::Llguidance, relaxed)
    }
}

fn relaxed(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::InlineRefs::default()) as Box<dyn Rule>,
        Box::new(r::OneOfToAnyOf),
        Box::new(strip_keywords(
            settings,
            "llguidance-unimplemented",
            UNIMPLEMENTED,
            "llguidance refuses the schema over it",
            |k, v| k == "format" && v.as_str().is_some_and(|f| FORMATS.contains(&f)),
        )),
        Box::new(r::RegexEnginePatterns),
        Box::new(r::UnsatisfiableRoot),
    ]);
    rules
}

/// JSON Schema 2020-12 keywords llguidance neither implements nor ignores as annotations (its
/// `IMPLEMENTED` and `META_AND_ANNOTATIONS` lists), with `format` (kept for the formats below).
const UNIMPLEMENTED: KeySet = KeySet::of(&[
    "not",
    "if",
    "then",
    "else",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "deprecated",
    "$dynamicRef",
    "$dynamicAnchor",
    "format",
]);

/// The formats of its `lookup_format`.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uuid",
    "uri",
];
