//! Gemini function calling: `parametersJsonSchema` (JSON Schema) and the legacy `parameters`
//! (the OpenAPI 3.0 `Schema` message)
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>, <https://ai.google.dev/api/caching#Schema>).

use super::super::rules::keywords::keep_none;
use super::super::rules::{
    AllConstToEnum, BoolSchemas, ConstToEnum, EnsureProperties, Fused, GoogleNullable, InferType,
    InlineRefs, MergeSingleAllOf, NodeRule, OneBranchUnions, OpenApiSchemaFields, PropertyOrdering,
    RootCombinators, Rule, SnakeCaseKeywords, StringEnumsOnly, StructuredFirst, TupleItems,
};
use super::super::settings::{AdaptSettings, NameRule, Wire, no_rules};
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
            // Long pipelines with many rules that most tools give nothing to do: the scan that finds
            // them pays for itself (`cargo bench -p toolschema --bench adapt`).
            shared: no_rules,
            strict: None,
            relaxed: gemini,
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

fn gemini(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend(google_prefix());
    rules.push(google_strip(settings));
    rules.extend(google_values(true));
    rules.push(Box::new(StringEnumsOnly));
    rules.extend(google_suffix());
    rules
}

fn gemini_openapi(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend(google_prefix());
    rules.push(Box::new(MergeSingleAllOf));
    rules.extend(google_values(true));
    rules.push(Box::new(StringEnumsOnly));
    rules.push(Box::new(OpenApiSchemaFields));
    rules.extend(google_suffix());
    rules
}

/// Google strips these (the reference implementation's `UNSUPPORTED_SCHEMA_FIELDS`). `$ref` and `$defs`
/// are in that list too; here they are inlined instead, after the per-node rules have run on the
/// definitions, so that every loss is reported at its place in the input.
const GOOGLE_STRIP: &[&str] = &[
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
];

pub(super) fn google_strip(settings: &AdaptSettings) -> Box<dyn Rule> {
    Box::new(
        strip_keywords(
            settings,
            "strip-google-unsupported",
            GOOGLE_STRIP,
            "Google's schema rejects it",
            keep_none,
        )
        .node_rule(),
    )
}

/// Google's wire: no top-level combinators, camelCase keywords, object schemas only.
pub(super) fn google_prefix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(RootCombinators::OPENAI),
        Box::new(SnakeCaseKeywords),
        Box::new(BoolSchemas),
        Box::new(TupleItems::default()),
    ]
}

/// Google's value forms: constants as enums, inferred types, then null as `nullable` (Gemini)
/// or removed (Cloud Code Assist).
pub(super) fn google_values(mark_nullable: bool) -> Vec<Box<dyn Rule>> {
    vec![
        // One walk: the two later rules read and change only their node's own `const`, `enum`
        // and `type`.
        Box::new(Fused::new(
            "all-const-to-enum, const-to-enum, infer-type",
            vec![
                Box::new(AllConstToEnum) as Box<dyn NodeRule>,
                Box::new(ConstToEnum),
                Box::new(InferType),
            ],
        )),
        // Removing `null` from an enum can leave values of one type to infer it from: one walk,
        // inference reading and changing only the node's own `enum` and `type`.
        Box::new(Fused::new(
            "google-nullable, infer-type",
            vec![
                Box::new(GoogleNullable { mark_nullable }) as Box<dyn NodeRule>,
                Box::new(InferType),
            ],
        )),
    ]
}

/// After the per-node rules: references inlined (their losses already reported where they stand
/// in the input), objects completed and ordered, the structured branch first.
fn google_suffix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(InlineRefs::default()),
        Box::new(OneBranchUnions),
        // One walk: the ordering reads only its node's own `type` and property names.
        Box::new(Fused::new(
            "ensure-properties, property-ordering",
            vec![
                Box::new(EnsureProperties) as Box<dyn NodeRule>,
                Box::new(PropertyOrdering),
            ],
        )),
        Box::new(StructuredFirst),
    ]
}
