//! OpenAI function calling: Chat Completions and Responses, with and without strict mode
//! (Structured Outputs: <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>;
//! function calling: <https://platform.openai.com/docs/guides/function-calling>).

use serde_json::Value;

use super::super::limits::{Limit, RequestLimits};

use super::super::rules::{self as r, KeySet, Rule, keep_none};
use super::super::settings::{AdaptSettings, NameRule, Wire};
use super::super::strict_output::StrictOutput;
use super::super::{AdaptOptions, Target};
use super::{json_schema_prefix, strip_keywords};

/// Chat Completions' request limits (checked 2026-12). Tools: the API reference's `tools`
/// parameter, "A max of 128 functions are supported"; over it the request fails with "Invalid
/// 'tools': array too long. Expected an array with maximum length 128" (`array_above_max_length`).
/// Description: 1,024 characters, known only from the errors users report
/// (`string_above_max_length` on `tools[].function.description`, getsentry/sentry-mcp #106); the
/// reference states no length. Names: `^[a-zA-Z0-9_-]{1,64}$` (the reference's `name`).
/// Responses has no documented tool count (256 tools reported to fail with a `server_error`,
/// Spshulem/openAGI #53, which names no limit): none is enforced for `openai-responses`.
pub(crate) const CHAT_LIMITS: RequestLimits = RequestLimits {
    tools: Some(Limit {
        max: 128,
        source: "OpenAI API reference, Chat Completions `tools`: \"A max of 128 functions are supported\"",
    }),
    description: Some(Limit {
        max: 1024,
        source: "known only from reported errors: `string_above_max_length` on a tool description (getsentry/sentry-mcp #106)",
    }),
};

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
            relaxed: |_| vec![Box::new(r::StructuredFirst)],
            meta_validate: false,
            added: Vec::new(),
            removed: Vec::new(),
            encode: false,
        }
    }

    /// OpenAI function calling with `strict: true`: the Structured Outputs subset (closed
    /// objects, every property required, `anyOf` only, OpenAI's limits). A schema strict mode
    /// cannot represent fails open to [`AdaptSettings::openai`]'s form, reported.
    pub fn openai_strict() -> Self {
        AdaptSettings {
            target: Target::OpenAiStrict,
            strict: Some(strict),
            ..Self::openai()
        }
    }

    /// OpenAI Responses API function tools: strict when representable, with Responses' own
    /// relaxed form (its function tools take no root combinators and no `oneOf`).
    pub fn openai_responses() -> Self {
        AdaptSettings {
            target: Target::OpenAiResponses,
            wire: Wire::OpenAiResponses,
            // The pre-pass gives every object a `properties` map; an object that declares nothing
            // is encoded before it (once it has `properties: {}`, strict mode closes it to `{}`).
            shared: |settings| {
                let mut rules = shared(settings);
                rules.extend(encodings(settings));
                rules.push(Box::new(r::ResponsesPrepass));
                rules
            },
            // Encoded in the shared list already (before the pre-pass).
            strict: Some(|settings| {
                let mut rules = strict(settings);
                rules.retain(|r| !matches!(r.name(), "encode-maps" | "encode-any"));
                rules
            }),
            relaxed: |_| vec![Box::new(r::OneOfToAnyOf), Box::new(r::StructuredFirst)],
            ..Self::openai()
        }
    }
}

/// Both forms: an object root without root combinators, and no definition whose last use the
/// root rules dropped (before strict checks read it).
pub(super) fn shared(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.push(Box::new(r::RootCombinators::OPENAI));
    rules.push(Box::new(r::OrphanedDefinitions));
    rules
}

/// The strict attempt (Chat Completions and Responses alike): what strict
/// cannot represent refused first; then the reference implementation's two stages: its
/// sanitising (`$ref`/`allOf` forms, tuples, keywords stripped or spilled, `const`, type
/// arrays and inferred types) and its enforcement (`anyOf` only, closed objects with every
/// property required, optional ones nullable, nested unions spliced); then the check of what
/// the rewrite leaves, with OpenAI's limits.
fn strict(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let keep = if settings.options.openai_conservative {
        keep_none
    } else {
        openai_keeps
    };
    strict_with(
        settings,
        keep,
        "not structural: OpenAI strict mode rejects it",
    )
}

/// OpenAI's strict list with another provider's table of what it enforces (`keep`) and its words
/// for what it rejects (`why`): the providers that copy OpenAI's strict mode (DeepSeek).
pub(super) fn strict_with(
    settings: &AdaptSettings,
    keep: fn(&str, &Value) -> bool,
    why: &'static str,
) -> Vec<Box<dyn Rule>> {
    let mut rules = encodings(settings);
    rules.extend([
        Box::new(r::StrictPrecheck) as Box<dyn Rule>,
        Box::new(r::MergeSingleAllOf),
        Box::new(r::ResolveRefSiblings),
        Box::new(r::TupleItems {
            untyped_fails: true,
        }),
        Box::new(r::DefaultToDescription),
        Box::new(strip_keywords(
            settings,
            "strip-non-structural",
            OPENAI_STRICT_STRIP,
            why,
            keep,
        )),
        Box::new(r::ConstToEnum),
        Box::new(r::SplitTypeArrays::OPENAI),
        Box::new(r::InferType),
        Box::new(r::OneOfToAnyOf),
        Box::new(r::CloseObjects {
            optional: r::Optional::NullableRequired,
        }),
        Box::new(r::SpliceNestedAnyOf),
        Box::new(r::StructuredFirst),
        // A definition whose every use was inlined (a `$ref` with siblings) is not sent.
        Box::new(r::OrphanedDefinitions),
        Box::new(r::TypedWithinLimits),
    ]);
    rules
}

/// With encoding on ([`AdaptSettings::with_encoding`]), what strict mode cannot hold and the
/// precheck would refuse: open maps as key/value pairs (any-value maps as JSON text), and any
/// value as JSON text. Recursion needs none: strict mode takes `$ref` cycles.
fn encodings(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    if !settings.encode {
        return Vec::new();
    }
    vec![
        Box::new(r::EncodeMaps { any: true }),
        Box::new(r::EncodeAny),
    ]
}

/// OpenAI strict strips the keywords that are not structural (the reference implementation's
/// `NON_STRUCTURAL_SCHEMA_KEYS` but `$schema`, which every target removes, and `default`, handled
/// by [`DefaultToDescription`]); `nullable` goes with the draft upgrade. Moonshot strips the
/// same.
pub(super) const OPENAI_STRICT_STRIP: KeySet = KeySet::of(&[
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
]);

/// What the written strict schema may not hold (the stripped keywords, and what the strict
/// rewrite replaces: `oneOf`, `allOf`, `default`, tuples, OpenAPI's `nullable`), checked after
/// every rule, the caller's too ([`crate::adapt::strict_output`]).
const OPENAI_STRICT_REFUSED: &[&str] = &[
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
    "oneOf",
    "allOf",
    "default",
    "prefixItems",
    "nullable",
];

/// OpenAI strict mode's check of the written schema.
pub(crate) const OPENAI_STRICT: StrictOutput =
    StrictOutput::new("OpenAI", OPENAI_STRICT_REFUSED, openai_keeps, true);

/// DeepSeek's: OpenAI's with what DeepSeek enforces.
pub(crate) const DEEPSEEK_STRICT: StrictOutput = StrictOutput::new(
    "DeepSeek",
    OPENAI_STRICT_REFUSED,
    super::deepseek::deepseek_keeps,
    true,
);

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
/// `exclusiveMaximum`/`multipleOf`, array `minItems`/`maxItems`; and `title`, an annotation its
/// SDKs send. `minLength`/`maxLength` are not listed, so they are spilled.
fn openai_keeps(key: &str, value: &Value) -> bool {
    match key {
        "pattern" => value.is_string(),
        "format" => value.as_str().is_some_and(|f| OPENAI_FORMATS.contains(&f)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            value.is_number()
        }
        "minItems" | "maxItems" => value.is_u64(),
        // Not a constraint; OpenAI's Java SDK allows it on every node kind, and the Python SDK
        // sends Pydantic's titles unchanged in strict schemas.
        "title" => value.is_string(),
        _ => false,
    }
}
