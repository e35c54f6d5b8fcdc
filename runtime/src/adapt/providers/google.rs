//! Gemini function calling: `parametersJsonSchema` (JSON Schema) and the legacy `parameters`
//! (the OpenAPI 3.0 `Schema` message)
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>, <https://ai.google.dev/api/caching#Schema>).

use super::super::rules::{self as r, KeySet, Rule, keep_none};
use super::super::settings::{AdaptSettings, NameRule, Wire};
use super::super::{AdaptOptions, Target};
use super::{json_schema_prefix, strip_keywords};

impl AdaptSettings {
    /// Gemini `parametersJsonSchema`: Google's accepted keywords (the rest spilled or dropped,
    /// reported), references inlined, null as `nullable`, string enums only.
    pub fn gemini() -> Self {
        AdaptSettings {
            target: Target::Gemini,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Google,
            wire: Wire::Google {
                field: "parametersJsonSchema",
            },
            budget: None,
            strict_flag: false,
            shared: |_| Vec::new(),
            strict: None,
            relaxed: gemini,
            meta_validate: false,
            added: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// Gemini legacy `parameters`: the fields of the `Schema` message only (Live API, older
    /// models).
    pub fn gemini_openapi() -> Self {
        AdaptSettings {
            target: Target::GeminiOpenApi,
            wire: Wire::Google {
                field: "parameters",
            },
            relaxed: gemini_openapi,
            ..Self::gemini()
        }
    }
}

/// Gemini `parametersJsonSchema`.
fn gemini(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = google_prefix();
    rules.push(Box::new(google_strip(settings)));
    rules.extend(google_values(true));
    rules.push(Box::new(r::StringEnumsOnly::GOOGLE));
    rules.push(Box::new(r::InlineRefs::default()));
    rules.push(Box::new(r::RequiredAreProperties));
    rules.extend(google_suffix());
    rules
}

/// Gemini's legacy `parameters` (the OpenAPI `Schema` message).
fn gemini_openapi(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = google_prefix();
    rules.push(Box::new(r::BoolItems));
    rules.push(Box::new(r::MergeSingleAllOf));
    rules.extend(google_values(true));
    rules.push(Box::new(r::StringEnumsOnly::GOOGLE));
    rules.push(Box::new(r::OpenApiSchemaFields));
    // A node whose `allOf` the field list dropped is untyped no more than before: what its other
    // keywords imply is its type (the first pass skipped it for the `allOf`).
    rules.push(Box::new(r::InferType));
    rules.push(Box::new(r::InlineRefs::default()));
    rules.extend(google_suffix());
    rules
}

/// What every Google target starts with: the definitions nothing references removed, the JSON
/// Schema prefix, no root combinators, snake-case keywords read, boolean schemas as objects,
/// tuples as `items`.
pub(super) fn google_prefix() -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::RootCombinators::OPENAI) as Box<dyn Rule>,
        Box::new(r::SnakeCaseKeywords),
        Box::new(r::BoolSchemas),
        Box::new(r::TupleItems::default()),
    ]);
    rules
}

/// Google's keyword table ([`GOOGLE_STRIP`]).
pub(super) fn google_strip(settings: &AdaptSettings) -> r::StripKeywords {
    strip_keywords(
        settings,
        "strip-google-unsupported",
        GOOGLE_STRIP,
        "Google's schema rejects it",
        keep_none,
    )
}

/// Google's value forms: constants as enums, inferred types, then null as `nullable` (Gemini)
/// or removed (Cloud Code Assist), and types inferred again where that leaves values of one type.
pub(super) fn google_values(mark_nullable: bool) -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(r::AllConstToEnum),
        Box::new(r::ConstToEnum),
        Box::new(r::InferType),
        Box::new(r::GoogleNullable { mark_nullable }),
        Box::new(r::InferType),
    ]
}

/// The end of Gemini's lists: objects completed and ordered, the structured branch first, and
/// each structural union Gemini may flatten reported.
fn google_suffix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(r::OneBranchUnions),
        Box::new(r::EnsureProperties),
        Box::new(r::PropertyOrdering),
        Box::new(r::StructuredFirst),
        Box::new(r::StructuralUnionKept::GEMINI),
    ]
}

/// Google strips these (the reference implementation's `UNSUPPORTED_SCHEMA_FIELDS`). `$ref` and `$defs`
/// are in that list too; here they are inlined instead, after the per-node rules have run on the
/// definitions, so that every loss is reported at its place in the input.
const GOOGLE_STRIP: KeySet = KeySet::of(&[
    "$schema",
    "$dynamicRef",
    "$dynamicAnchor",
    "examples",
    "prefixItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "pattern",
    "format",
    "dependencies",
    "dependentSchemas",
    "dependentRequired",
    "x-mcp-header",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
]);
