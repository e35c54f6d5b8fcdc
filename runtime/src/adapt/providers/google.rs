//! Gemini function calling: `parametersJsonSchema` (JSON Schema) and the legacy `parameters`
//! (the OpenAPI 3.0 `Schema` message)
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>, <https://ai.google.dev/api/caching#Schema>).

use super::super::rules::keywords::keep_none;
use super::super::rules::{
    AllConstToEnum, BoolSchemas, ConstToEnum, EnsureProperties, Fused, GoogleNullable, InferType,
    InlineRefs, MergeSingleAllOf, NodeRule, OneBranchUnions, OpenApiSchemaFields, PropertyOrdering,
    RequiredAreProperties, RootCombinators, Rule, SnakeCaseKeywords, StringEnumsOnly,
    StructuredFirst, TupleItems,
};
use super::super::settings::{AdaptSettings, NameRule, TreeRules, Wire, no_rules};
use super::super::tree;
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
            tree: Some(TreeRules {
                shared: |_| Vec::new(),
                strict: None,
                relaxed: tree_gemini,
                meta_validate: false,
            }),
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
            tree: Some(TreeRules {
                shared: |_| Vec::new(),
                strict: None,
                relaxed: tree_gemini_openapi,
                meta_validate: false,
            }),
            ..Self::gemini()
        }
    }
}

/// Gemini `parametersJsonSchema` on the tree engine.
fn tree_gemini(settings: &AdaptSettings) -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    let mut rules = tree_google_prefix();
    rules.push(Box::new(tree_google_strip(settings)));
    rules.extend(tree_google_values(true));
    rules.push(Box::new(r::StringEnumsOnly));
    rules.push(Box::new(r::InlineRefs::default()));
    rules.push(Box::new(r::RequiredAreProperties));
    rules.extend(tree_google_suffix());
    rules
}

/// Gemini's legacy `parameters` (the OpenAPI `Schema` message) on the tree engine.
fn tree_gemini_openapi(_: &AdaptSettings) -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    let mut rules = tree_google_prefix();
    rules.push(Box::new(r::MergeSingleAllOf));
    rules.extend(tree_google_values(true));
    rules.push(Box::new(r::StringEnumsOnly));
    rules.push(Box::new(r::OpenApiSchemaFields));
    rules.push(Box::new(r::InlineRefs::default()));
    rules.extend(tree_google_suffix());
    rules
}

/// What every Google target starts with on the tree engine: the definitions nothing references
/// removed, the JSON Schema prefix, no root combinators, snake-case keywords read, boolean
/// schemas as objects, tuples as `items`.
pub(super) fn tree_google_prefix() -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    let mut rules: Vec<Box<dyn tree::Rule>> = vec![Box::new(r::UnreferencedDefinitions)];
    rules.extend(super::tree_prefix());
    rules.extend([
        Box::new(r::RootCombinators::OPENAI) as Box<dyn tree::Rule>,
        Box::new(r::SnakeCaseKeywords),
        Box::new(r::BoolSchemas),
        Box::new(r::TupleItems::default()),
    ]);
    rules
}

/// [`google_strip`] on the tree engine.
pub(super) fn tree_google_strip(settings: &AdaptSettings) -> tree::rules::StripKeywords {
    super::tree_strip_keywords(
        settings,
        "strip-google-unsupported",
        GOOGLE_STRIP,
        "Google's schema rejects it",
        keep_none,
    )
}

/// [`google_values`] on the tree engine.
pub(super) fn tree_google_values(mark_nullable: bool) -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    vec![
        Box::new(r::AllConstToEnum),
        Box::new(r::ConstToEnum),
        Box::new(r::InferType),
        Box::new(r::GoogleNullable { mark_nullable }),
        Box::new(r::InferType),
    ]
}

/// The end of Gemini's lists on the tree engine.
fn tree_google_suffix() -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    vec![
        Box::new(r::OneBranchUnions),
        Box::new(r::EnsureProperties),
        Box::new(r::PropertyOrdering),
        Box::new(r::StructuredFirst),
    ]
}

fn gemini(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend(google_prefix());
    rules.push(google_strip(settings));
    rules.extend(google_values(true));
    rules.push(Box::new(StringEnumsOnly));
    let mut suffix = google_suffix();
    // After the references are inlined: every node then has the properties it is sent with.
    suffix.insert(1, Box::new(RequiredAreProperties));
    rules.extend(suffix);
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

/// Google's strip. Its first keyword, `$schema`, remove-schema-uri (first in every list this
/// strip is in) has removed from every node its walk reached, and no rule between writes one:
/// the strip is wanted for it only where python-genai's snake_case spellings may hide nodes
/// from that walk until snake-case-keywords renames them (most published tools carry a root
/// `$schema` and nothing else of this list).
pub(super) fn google_strip(settings: &AdaptSettings) -> Box<dyn Rule> {
    Box::new(
        strip_keywords(
            settings,
            "strip-google-unsupported",
            GOOGLE_STRIP,
            "Google's schema rejects it",
            keep_none,
        )
        .node_rule()
        .first_removed_unless_under(SNAKE_CASE_HOLDERS),
    )
}

/// python-genai's spellings of keywords that hold schemas (renamed by snake-case-keywords).
const SNAKE_CASE_HOLDERS: &[&str] = &["any_of", "additional_properties", "prefix_items"];

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

#[cfg(test)]
mod tests {
    use super::super::super::Target;
    use super::super::super::holds::Holds;
    use super::super::super::report::RuleReport;
    use crate::walk::each_node;
    use serde_json::Value;

    /// What [`super::google_strip`] says of its first keyword holds: in every list that
    /// strips, on every test document (real tools, fuzz fixtures, generated ones) that holds
    /// none of the snake_case spellings, the rules before the strip leave no `$schema` at any
    /// schema node. (Where one does, a `$schema` below `any_of` is left for the strip: the
    /// generated documents have such cases, which the engine's idle-rule test covers.)
    #[test]
    fn the_google_strip_finds_no_schema_uri_unless_hidden() {
        assert_eq!(super::GOOGLE_STRIP[0], "$schema");
        stacker::grow(256 << 20, || {
            let docs = crate::adapt::holds::tests::documents();
            let (mut had, mut hidden) = (0, 0);
            for target in [Target::Gemini, Target::CcaClaude] {
                let names: Vec<&str> = target
                    .settings()
                    .relaxed_rules()
                    .iter()
                    .map(|r| r.name())
                    .collect();
                let strip = names
                    .iter()
                    .position(|n| *n == "strip-google-unsupported")
                    .expect("the list strips");
                for doc in &docs {
                    if Holds::of(doc)
                        .held()
                        .may_hold_any(super::SNAKE_CASE_HOLDERS)
                    {
                        hidden += 1;
                        continue;
                    }
                    had += usize::from(doc.to_string().contains("\"$schema\""));
                    let mut doc = doc.clone();
                    let mut rules = target.settings().relaxed_rules();
                    for rule in &mut rules[..strip] {
                        let mut report = RuleReport::for_rule(rule.name());
                        rule.apply(&mut doc, &mut report);
                        if report.failure.is_some() {
                            break;
                        }
                    }
                    let mut left = false;
                    each_node(&doc, (), &mut |node: &Value, _, ()| {
                        left |= node.as_object().is_some_and(|m| m.contains_key("$schema"));
                        Some(())
                    });
                    assert!(!left, "{target}: {doc}");
                }
            }
            assert!(
                had > 200 && hidden > 10,
                "{had} with a $schema, {hidden} with snake_case"
            );
        });
    }
}
