//! OpenAI function calling: Chat Completions and Responses, with and without strict mode
//! (Structured Outputs: <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>;
//! function calling: <https://platform.openai.com/docs/guides/function-calling>).

use serde_json::Value;

use super::super::rules::keywords::keep_none;
use super::super::rules::{
    CloseObjects, CloseObjectsVouching, ConstToEnum, DefaultToDescription, Fused, InferType,
    MergeSingleAllOf, NodeRule, OneOfToAnyOf, Optional, ResolveRefSiblings, ResponsesPrepass,
    RootCombinators, Rule, SpliceNestedAnyOf, SplitTypeArrays, StrictPrecheck, StructuredFirst,
    TupleItems, TypedWithinLimitsAfter,
};
use super::super::settings::{AdaptSettings, NameRule, TreeRules, Wire};
use super::super::tree;
use super::super::{AdaptOptions, Target};
use super::{json_schema_prefix, strip_keywords};

impl AdaptSettings {
    /// OpenAI function calling without strict: JSON Schema with an object root and no root
    /// combinators; union branches ordered structured-first.
    pub fn openai() -> Self {
        AdaptSettings {
            target: Target::OpenAi,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Plain,
            wire: Wire::OpenAiChat,
            budget: None,
            strict_flag: true,
            shared,
            strict: None,
            relaxed,
            tree: Some(TreeRules {
                shared: tree_shared,
                strict: None,
                relaxed: |_| vec![Box::new(tree::rules::StructuredFirst)],
                meta_validate: false,
            }),
        }
    }

    /// OpenAI function calling with `strict: true`: the Structured Outputs subset (closed
    /// objects, every property required, `anyOf` only, OpenAI's limits). A schema strict mode
    /// cannot represent fails open to [`AdaptSettings::openai`]'s form, reported.
    pub fn openai_strict() -> Self {
        AdaptSettings {
            target: Target::OpenAiStrict,
            strict: Some(strict),
            tree: Some(TreeRules {
                shared: tree_shared,
                strict: Some(tree_strict),
                relaxed: |_| vec![Box::new(tree::rules::StructuredFirst)],
                meta_validate: false,
            }),
            ..Self::openai()
        }
    }

    /// OpenAI Responses API function tools: strict when representable, with Responses' own
    /// relaxed form (its function tools take no root combinators and no `oneOf`).
    pub fn openai_responses() -> Self {
        AdaptSettings {
            target: Target::OpenAiResponses,
            wire: Wire::OpenAiResponses,
            shared: responses_shared,
            strict: Some(strict),
            relaxed: responses_relaxed,
            tree: Some(TreeRules {
                shared: |settings| {
                    let mut rules = tree_shared(settings);
                    rules.push(Box::new(tree::rules::ResponsesPrepass));
                    rules
                },
                strict: Some(tree_strict),
                relaxed: |_| {
                    vec![
                        Box::new(tree::rules::OneOfToAnyOf),
                        Box::new(tree::rules::StructuredFirst),
                    ]
                },
                meta_validate: false,
            }),
            ..Self::openai()
        }
    }
}

/// Both forms, on the tree engine: an object root without root combinators.
fn tree_shared(_: &AdaptSettings) -> Vec<Box<dyn tree::Rule>> {
    let mut rules = super::tree_prefix();
    rules.push(Box::new(tree::rules::RootCombinators::OPENAI));
    rules
}

/// The strict attempt (Chat Completions and Responses alike), on the tree engine: what strict
/// cannot represent refused first; then the reference implementation's two stages: its
/// sanitising (`$ref`/`allOf` forms, tuples, keywords stripped or spilled, `const`, type
/// arrays and inferred types) and its enforcement (`anyOf` only, closed objects with every
/// property required, optional ones nullable, nested unions spliced); then the check of what
/// the rewrite leaves, with OpenAI's limits.
fn tree_strict(settings: &AdaptSettings) -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    let keep = if settings.options.openai_conservative {
        keep_none
    } else {
        openai_keeps
    };
    vec![
        Box::new(r::StrictPrecheck),
        Box::new(r::MergeSingleAllOf),
        Box::new(r::ResolveRefSiblings),
        Box::new(r::TupleItems {
            untyped_fails: true,
        }),
        Box::new(r::DefaultToDescription),
        Box::new(super::tree_strip_keywords(
            settings,
            "strip-non-structural",
            OPENAI_STRICT_STRIP,
            "not structural: OpenAI strict mode rejects it",
            keep,
        )),
        Box::new(r::ConstToEnum),
        Box::new(r::SplitTypeArrays),
        Box::new(r::InferType),
        Box::new(r::OneOfToAnyOf),
        Box::new(r::CloseObjects {
            optional: r::Optional::NullableRequired,
        }),
        Box::new(r::SpliceNestedAnyOf),
        Box::new(r::StructuredFirst),
        Box::new(r::TypedWithinLimits),
    ]
}

/// Both forms: an object root without root combinators.
fn shared(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.push(Box::new(RootCombinators::OPENAI));
    rules
}

fn relaxed(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    vec![Box::new(StructuredFirst)]
}

/// The strict attempt (Chat Completions and Responses alike): what it cannot represent refused
/// first, then the two stages of the reference implementation.
fn strict(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules: Vec<Box<dyn Rule>> = Vec::with_capacity(16);
    rules.push(Box::new(StrictPrecheck));
    rules.extend(sanitize(settings));
    rules.extend(openai_strict_enforce());
    rules
}

/// Both Responses forms also take the API's own pre-pass.
fn responses_shared(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = shared(settings);
    rules.push(Box::new(ResponsesPrepass));
    rules
}

fn responses_relaxed(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    vec![Box::new(OneOfToAnyOf), Box::new(StructuredFirst)]
}

/// OpenAI strict strips the keywords that are not structural; `default` is handled by
/// [`DefaultToDescription`], `nullable` by the draft upgrade.
const OPENAI_STRICT_STRIP: &[&str] = &[
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
    "examples",
    "title",
    "$comment",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedProperties",
    "unevaluatedItems",
    "patternProperties",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "dependentRequired",
    "dependentSchemas",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "deprecated",
    "readOnly",
    "writeOnly",
    "minProperties",
    "maxProperties",
    "$dynamicRef",
    "$dynamicAnchor",
];

/// The string formats OpenAI strict mode accepts (Structured Outputs guide, "Supported
/// properties").
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// What OpenAI strict mode enforces of [`OPENAI_STRICT_STRIP`], per the Structured Outputs guide:
/// string `pattern` and `format` (its list), number `minimum`/`maximum`/`exclusiveMinimum`/
/// `exclusiveMaximum`/`multipleOf`, array `minItems`/`maxItems`. `minLength`/`maxLength` are not
/// listed, so they are spilled.
fn openai_keeps(key: &str, value: &Value) -> bool {
    match key {
        "pattern" => value.is_string(),
        "format" => value.as_str().is_some_and(|f| OPENAI_FORMATS.contains(&f)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            value.is_number()
        }
        "minItems" | "maxItems" => value.is_u64(),
        _ => false,
    }
}

/// OpenAI strict, first stage (the reference's `sanitizeSchemaForStrictMode`): keyword
/// stripping and spilling, `$ref`/`allOf` forms, `const`, type arrays and type inference. The
/// constraints OpenAI enforces are kept unless `options.openai_conservative`.
fn sanitize(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let keep = if settings.options.openai_conservative {
        keep_none
    } else {
        openai_keeps
    };
    vec![
        Box::new(MergeSingleAllOf),
        Box::new(ResolveRefSiblings),
        Box::new(TupleItems {
            untyped_fails: true,
        }),
        Box::new(DefaultToDescription),
        // Two walks for four rules: the second of each pair reads and changes only its node's
        // own `const`/`enum` (`type`).
        Box::new(Fused::new(
            "strip-non-structural, const-to-enum",
            vec![
                Box::new(
                    strip_keywords(
                        settings,
                        "strip-non-structural",
                        OPENAI_STRICT_STRIP,
                        "not structural: OpenAI strict mode rejects it",
                        keep,
                    )
                    .node_rule(),
                ),
                Box::new(ConstToEnum),
            ],
        )),
        Box::new(Fused::new(
            "split-type-arrays, infer-type",
            vec![
                Box::new(SplitTypeArrays) as Box<dyn NodeRule>,
                Box::new(InferType),
            ],
        )),
    ]
}

/// OpenAI strict, second stage (the reference's `enforceStrictSchema`): `anyOf` only, closed
/// objects with every property required (optional ones nullable), nested unions spliced, and
/// the representability and size checks.
fn openai_strict_enforce() -> Vec<Box<dyn Rule>> {
    // The reference starts this stage by inferring types again; here the first stage's last
    // walk has inferred them at every node as it leaves it (infer-type reads and writes only its
    // node's own keywords), so a second walk would find nothing to do.
    // Close-objects' walk works out the checks' verdict where it can, and hands it over; the
    // checks otherwise walk the document once for the two (typed first, as listed).
    let vouch = super::super::rules::Vouch::default();
    vec![
        Box::new(OneOfToAnyOf),
        Box::new(CloseObjectsVouching {
            close: CloseObjects {
                optional: Optional::NullableRequired,
            },
            vouch: vouch.clone(),
        }),
        Box::new(SpliceNestedAnyOf),
        Box::new(StructuredFirst),
        Box::new(TypedWithinLimitsAfter { vouched: vouch }),
    ]
}
