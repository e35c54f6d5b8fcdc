//! Gemini function calling: `parametersJsonSchema` (JSON Schema) and the legacy `parameters`
//! (the OpenAPI 3.0 `Schema` message)
//! (<https://ai.google.dev/api/caching#FunctionDeclaration>, <https://ai.google.dev/api/caching#Schema>).
//!
//! `gemini` follows what Google documents for the JSON Schema fields now. Sources (checked
//! 2026-12; the project's `providers.md` section 3b cites each):
//! - the keyword list of `response_json_schema` / `responseJsonSchema` (python-genai
//!   `GenerateContentConfig.response_json_schema`; googleapis aiplatform v1 `content.proto`):
//!   "only the following properties are supported: `$id`, `$defs`, `$ref`, `$anchor`, `type`,
//!   `format`, `title`, `description`, `enum` (for strings and numbers), `items`, `prefixItems`,
//!   `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`, `oneOf` (interpreted the same as
//!   `anyOf`), `properties`, `additionalProperties`, `required`", plus `propertyOrdering`; "Cyclic
//!   references ... may only be used within non-required properties. (Nullable properties are not
//!   sufficient.)"; "If `$ref` is set on a sub-schema, no other properties, except for than those
//!   starting as a `$`, may be set." Google documents no separate list for `parametersJsonSchema`;
//!   this one is the closest Google gives, and Google's own `parameters_json_schema` example
//!   carries `additionalProperties: false`, `required` and `propertyOrdering`;
//! - Google's announcement of JSON Schema support for all active Gemini models (Nov 2025): `anyOf`,
//!   `$ref` for recursive schemas, `minimum`/`maximum`, `additionalProperties`, `type: "null"`,
//!   `prefixItems`;
//! - the structured-output guide: nullability as a type list (`{"type": ["string", "null"]}`),
//!   "The model ignores unsupported properties";
//! - Gemini CLI, which sends `minimum`, `minItems`, `maxItems`, `minLength`, `default` and
//!   `additionalProperties: false` in its own tools' `parametersJsonSchema` to every backend: so
//!   those are accepted. `default` (an annotation, which nothing enforces anywhere) is kept, as
//!   before: the reported `$ref` error names it as allowed ("only description and default can be
//!   set alongside it"). `minLength`, `maxLength` and `pattern` are not in Google's list, and the
//!   guide says the model ignores what is unsupported: accepted is not enforced, so they are
//!   spilled into the description in words (reported), where the model reads them.
//!
//! Reported 400s on this field are about a `$ref` with siblings, references to undefined
//! definitions and nesting depth; the "Unknown name ... Cannot find field" errors come from the
//! legacy `parameters` field. Vertex AI has refused a `type` beside a bare `anyOf` on the legacy
//! field; on this field no such refusal is documented or reported, so the `type` stays (named
//! here, not rewritten).
//!
//! `gemini-compat` is the seed's cross-provider contract (the reference implementation's Google
//! path, written from protojson errors of the legacy `Schema` message), byte for byte what
//! `gemini` sent before: for gateways that convert the field to the legacy form and for endpoints
//! that refuse more than the Gemini API.

use super::super::limits::{Limit, RequestLimits};
use super::super::rules::{self as r, KeySet, Rule, keep_none};
use super::super::settings::{AdaptSettings, NameRule, Wire};
use super::super::{AdaptOptions, Target};
use super::{json_schema_prefix, strip_keywords};

/// Gemini's request limits (checked 2026-12). Tools: 512 function declarations, known only from
/// the error users report ("At most 512 function declarations can be specified.",
/// google-gemini/gemini-cli #19083); the `FunctionDeclaration` reference gives none. Names: "Must
/// start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots,
/// colons and dashes, with a maximum length of 64" (`FunctionDeclaration.name`). Descriptions: no
/// limit documented or reported.
pub(crate) const LIMITS: RequestLimits = RequestLimits {
    tools: Some(Limit {
        max: 512,
        source: "known only from reported errors: \"At most 512 function declarations can be specified.\" (google-gemini/gemini-cli #19083)",
    }),
    description: None,
};

impl AdaptSettings {
    /// Gemini `parametersJsonSchema` as Google documents it: its keyword list kept, the rest
    /// spilled or dropped (reported), `$ref` kept (its siblings moved beside a one-branch `anyOf`)
    /// unless recursion passes a required property or it names nothing, `oneOf` → `anyOf`,
    /// `const` → `enum`, enums of strings and numbers.
    pub fn gemini() -> Self {
        AdaptSettings {
            target: Target::Gemini,
            relaxed: gemini,
            ..Self::gemini_compat()
        }
    }

    /// Gemini `parametersJsonSchema` under the seed's contract: the reference implementation's
    /// accepted keywords (the rest spilled or dropped, reported), references inlined, null as
    /// `nullable`, string enums only.
    pub fn gemini_compat() -> Self {
        AdaptSettings {
            target: Target::GeminiCompat,
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
            relaxed: gemini_compat,
            meta_validate: false,
            added: Vec::new(),
            removed: Vec::new(),
            encode: false,
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
            ..Self::gemini_compat()
        }
    }
}

/// Gemini `parametersJsonSchema` as Google documents it (the module's sources).
fn gemini(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        // "The schema must describe an object where the properties are the parameters".
        Box::new(r::RootCombinators::OPENAI) as Box<dyn Rule>,
        // A definition whose last use the root rules dropped, before anything is spilled into
        // it (as on OpenAI and Anthropic).
        Box::new(r::OrphanedDefinitions),
        Box::new(r::MergeSingleAllOf),
        Box::new(r::AllConstToEnum),
        Box::new(r::ConstToEnum),
        Box::new(r::OneOfToAnyOf),
        Box::new(gemini_strip(settings)),
        Box::new(r::StringEnumsOnly::MOONSHOT),
        Box::new(r::InferType),
        // "If `$ref` is set on a sub-schema, no other properties, except for than those starting
        // as a `$`, may be set": the reference moved into a one-branch `anyOf` beside them (the
        // same schema, no copy); beside a union of its own, the target inlined.
        Box::new(r::WrapRefSiblings),
        Box::new(r::ResolveRefSiblings),
        Box::new(r::InlineRefusedRefs),
        // What inlining wrote (a `false` definition as `{"not": {}}`) is held to the same list,
        // and a node whose `$ref` named nothing is typed by what it still says.
        Box::new(gemini_strip(settings)),
        Box::new(r::InferType),
        // A `required` name without its property: the legacy field refuses it ("property is not
        // defined"); on this one it is kept out too, reported, rather than risk the request.
        Box::new(r::RequiredAreProperties),
        Box::new(r::OrphanedDefinitions),
        Box::new(r::PropertyOrdering),
        Box::new(r::StructuredFirst),
        Box::new(r::StructuralUnionKept::GEMINI),
    ]);
    rules
}

/// `gemini`'s keyword table ([`GEMINI_UNDOCUMENTED`]).
fn gemini_strip(settings: &AdaptSettings) -> r::StripKeywords {
    strip_keywords(
        settings,
        "strip-gemini-undocumented",
        GEMINI_UNDOCUMENTED,
        "not in Google's documented JSON Schema keywords: the model ignores it",
        keep_none,
    )
}

/// What `gemini` does not send: every keyword outside Google's documented list (the module's
/// sources), with the human-readable ones spilled into the description in words.
const GEMINI_UNDOCUMENTED: KeySet = KeySet::of(&[
    "$comment",
    "$dynamicRef",
    "$dynamicAnchor",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "nullable",
    "discriminator",
    "x-mcp-header",
]);

/// Gemini `parametersJsonSchema` under the seed's contract.
fn gemini_compat(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = google_prefix();
    rules.extend(typed_maps(settings));
    rules.push(Box::new(google_strip(settings)));
    rules.extend(google_values(true));
    rules.push(Box::new(r::StringEnumsOnly::GOOGLE));
    rules.push(Box::new(r::InlineRefs::default()));
    // A node whose `$ref` named nothing (removed, reported) is typed by what it still says.
    rules.push(Box::new(r::InferType));
    rules.push(Box::new(r::RequiredAreProperties));
    rules.extend(google_suffix());
    rules
}

/// Gemini's legacy `parameters` (the OpenAPI `Schema` message).
fn gemini_openapi(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = google_prefix();
    rules.extend(typed_maps(settings));
    rules.push(Box::new(r::BoolItems));
    rules.push(Box::new(r::MergeSingleAllOf));
    rules.extend(google_values(true));
    rules.push(Box::new(r::StringEnumsOnly::GOOGLE));
    rules.push(Box::new(r::OpenApiSchemaFields));
    // A node whose `allOf` the field list dropped is untyped no more than before: what its other
    // keywords imply is its type (the first pass skipped it for the `allOf`).
    rules.push(Box::new(r::InferType));
    rules.push(Box::new(r::InlineRefs::default()));
    rules.push(Box::new(r::InferType));
    rules.extend(google_suffix());
    rules
}

/// With encoding on ([`AdaptSettings::with_encoding`]), a map whose values have a schema, which
/// these lists drop with `additionalProperties`, is sent as key/value pairs that keep it.
/// `gemini` takes `additionalProperties` as Google documents it, and encodes nothing.
pub(super) fn typed_maps(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    if !settings.encode {
        return Vec::new();
    }
    vec![Box::new(r::EncodeMaps { any: false })]
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
        // A union of one branch that named nothing (a dangling reference, removed) leaves its
        // node as its other keywords say: typed by them.
        Box::new(r::InferType),
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
