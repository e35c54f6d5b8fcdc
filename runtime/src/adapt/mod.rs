//! Provider adapters: one schemars schema in, the form each provider accepts out, with a report
//! of everything the provider will no longer enforce.
//!
//! Each [`Target`] is an ordered list of small [`rules`], one provider rule each. Strict targets
//! fail open: when the schema cannot be represented in strict mode, the tool is adapted for the
//! same provider without strict (`strict: Some(false)`) and the reason is a loss entry; never a
//! half-strict schema. A schema that cannot be adapted at all (a non-object root) falls back to
//! the empty object for that tool alone (`fallback: true`).

mod convert;
mod pointers;
pub mod report;
pub mod rules;
mod visit;

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Value, json};

pub use convert::{ConvertReport, Converted, ToolReport, convert, convert_with};
pub use report::{Change, Loss, LossKind, Report, Unrepresentable};
use rules::keywords::{HUMAN_READABLE, keep_none};
use rules::*;

/// A wire format a tool schema is sent in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Target {
    /// MCP `tools/list` `inputSchema`: only `$schema` removed and union branches ordered.
    Mcp,
    /// OpenAI function calling without strict.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI function calling with `strict: true` (Structured Outputs).
    #[serde(rename = "openai-strict")]
    OpenAiStrict,
    /// OpenAI Responses API function tools (strict when representable).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic `input_schema`.
    Anthropic,
    /// Anthropic strict tool use.
    AnthropicStrict,
    /// Gemini `parametersJsonSchema` (seed section 3).
    Gemini,
    /// Gemini legacy `parameters`: the OpenAPI 3.0 `Schema` message (Live API, older models).
    #[serde(rename = "gemini-openapi")]
    GeminiOpenApi,
    /// Claude through Google Cloud Code Assist / Antigravity, sent as `parameters` (seed 4).
    CcaClaude,
}

impl Target {
    /// Every target, in CLI order.
    pub const ALL: [Target; 9] = [
        Target::Mcp,
        Target::OpenAi,
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::AnthropicStrict,
        Target::Gemini,
        Target::GeminiOpenApi,
        Target::CcaClaude,
    ];

    /// The CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Mcp => "mcp",
            Target::OpenAi => "openai",
            Target::OpenAiStrict => "openai-strict",
            Target::OpenAiResponses => "openai-responses",
            Target::Anthropic => "anthropic",
            Target::AnthropicStrict => "anthropic-strict",
            Target::Gemini => "gemini",
            Target::GeminiOpenApi => "gemini-openapi",
            Target::CcaClaude => "cca-claude",
        }
    }

    /// Whether the wire format has a `strict` flag.
    pub fn has_strict_flag(self) -> bool {
        matches!(
            self,
            Target::OpenAi
                | Target::OpenAiStrict
                | Target::OpenAiResponses
                | Target::Anthropic
                | Target::AnthropicStrict
        )
    }

    /// Whether the target attempts strict enforcement.
    pub fn wants_strict(self) -> bool {
        matches!(
            self,
            Target::OpenAiStrict | Target::OpenAiResponses | Target::AnthropicStrict
        )
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
                format!("unknown target `{s}`: expected one of {}", names.join(", "))
            })
    }
}

/// A schema adapted for one target, with what it changed and lost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Adapted {
    /// The target.
    pub target: Target,
    /// The schema to send.
    pub schema: Value,
    /// For targets with a strict flag: `Some(true)` only when strict enforcement succeeded.
    pub strict: Option<bool>,
    /// The per-tool fallback (`{"type": "object", "properties": {}}`) was used.
    pub fallback: bool,
    /// Everything the output no longer enforces.
    pub losses: Vec<Loss>,
    /// Rewrites that keep what the schema enforces (or change only the shape of arguments).
    pub changes: Vec<Change>,
    /// The schema before adaptation: arguments are restored and validated against it
    /// ([`crate::restore`]).
    #[serde(skip)]
    pub input: Value,
}

/// Choices a target leaves to the caller; [`AdaptOptions::default`] is what [`adapt`] uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AdaptOptions {
    /// OpenAI strict and Responses: spill every value constraint into the description instead of
    /// sending the ones OpenAI enforces in strict mode (`pattern`, `format` from OpenAI's list,
    /// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
    /// `minItems`/`maxItems`). OpenAI's Structured Outputs guide
    /// (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>) says these
    /// "are not yet supported for fine-tuned models": set this for a fine-tuned model. It is the
    /// second seed's behaviour, written when the guide rejected all of them.
    pub openai_conservative: bool,
}

impl AdaptOptions {
    /// OpenAI strict spills every value constraint (for fine-tuned models).
    pub fn openai_conservative(mut self, yes: bool) -> Self {
        self.openai_conservative = yes;
        self
    }
}

/// `TOOLSCHEMA_NO_STRICT` (`1`, `true`, `yes`, `on`): no strict schema for any target.
pub fn no_strict() -> bool {
    static FLAG: OnceLock<bool> = OnceLock::new();
    *FLAG.get_or_init(|| {
        std::env::var("TOOLSCHEMA_NO_STRICT").is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on" | "y"
            )
        })
    })
}

/// OpenAI strict strips the keywords that are not structural (seed 2.1); `default` is handled by
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
/// listed (providers.md: uncertain), so they are spilled.
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

/// Anthropic strict tool use: what its grammar does not support (providers.md section 4).
const ANTHROPIC_STRICT_STRIP: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "format",
    "pattern",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "dependentSchemas",
    "dependentRequired",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Google strips these (the reference's `UNSUPPORTED_SCHEMA_FIELDS`, seed 3.1). `$ref` and `$defs`
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

fn google_strip() -> StripKeywords {
    StripKeywords {
        name: "strip-google-unsupported",
        keywords: GOOGLE_STRIP,
        spill: HUMAN_READABLE,
        why: "Google's schema rejects it",
        keep: keep_none,
    }
}

const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

fn anthropic_keeps(key: &str, value: &Value) -> bool {
    match key {
        "minItems" => value.as_u64().is_some_and(|n| n <= 1),
        "format" => value
            .as_str()
            .is_some_and(|f| ANTHROPIC_FORMATS.contains(&f)),
        "pattern" => value.as_str().is_some_and(|p| {
            !rules::responses_has_lookaround(p)
                && !p.contains("\\b")
                && !p.contains("\\B")
                && !has_backreference(p)
        }),
        _ => false,
    }
}

fn has_backreference(p: &str) -> bool {
    let b = p.as_bytes();
    b.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'\\'
            && (w[1].is_ascii_digit() && w[1] != b'0' || w[1] == b'k')
            && b[..i].iter().rev().take_while(|c| **c == b'\\').count() % 2 == 0
    })
}

fn remove_schema_uri() -> RemoveSchemaUri {
    RemoveSchemaUri
}

/// OpenAI strict, first stage (the reference's `sanitizeSchemaForStrictMode`): keyword
/// stripping and spilling, `$ref`/`allOf` forms, `const`, type arrays and type inference. The
/// constraints OpenAI enforces are kept unless `options.openai_conservative`.
pub fn openai_strict_sanitize(options: AdaptOptions) -> Vec<Box<dyn Rule>> {
    let keep = if options.openai_conservative {
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
        Box::new(StripKeywords {
            name: "strip-non-structural",
            keywords: OPENAI_STRICT_STRIP,
            spill: HUMAN_READABLE,
            why: "not structural: OpenAI strict mode rejects it",
            keep,
        }),
        Box::new(ConstToEnum),
        Box::new(SplitTypeArrays),
        Box::new(InferType),
    ]
}

/// OpenAI strict, second stage (the reference's `enforceStrictSchema`): `anyOf` only, closed
/// objects with every property required (optional ones nullable), nested unions spliced, and
/// the representability and size checks.
pub fn openai_strict_enforce() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(InferType),
        Box::new(OneOfToAnyOf),
        Box::new(CloseObjects {
            optional: Optional::NullableRequired,
        }),
        Box::new(SpliceNestedAnyOf),
        Box::new(StructuredFirst),
        Box::new(Typed),
        Box::new(OpenAiLimits),
    ]
}

/// Google's wire: no top-level combinators, camelCase keywords, object schemas only.
fn google_prefix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(RootCombinators::OPENAI),
        Box::new(SnakeCaseKeywords),
        Box::new(BoolSchemas),
        Box::new(TupleItems::default()),
    ]
}

/// Google's value forms: constants as enums, inferred types, then null as `nullable` (Gemini)
/// or removed (Cloud Code Assist).
fn google_values(mark_nullable: bool) -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(AllConstToEnum),
        Box::new(ConstToEnum),
        Box::new(InferType),
        Box::new(GoogleNullable { mark_nullable }),
        // Removing `null` from an enum can leave values of one type to infer it from.
        Box::new(InferType),
    ]
}

/// After the per-node rules: references inlined (their losses already reported where they stand
/// in the input), objects completed and ordered, the structured branch first.
fn google_suffix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(InlineRefs::default()),
        Box::new(OneBranchUnions),
        Box::new(EnsureProperties),
        Box::new(PropertyOrdering),
        Box::new(StructuredFirst),
    ]
}

/// The rules of a target's main attempt (strict when it wants strict), with default options.
pub fn pipeline(target: Target) -> Vec<Box<dyn Rule>> {
    pipeline_with(target, AdaptOptions::default())
}

/// The rules of a target's main attempt (strict when it wants strict).
pub fn pipeline_with(target: Target, options: AdaptOptions) -> Vec<Box<dyn Rule>> {
    let openai_strict = || -> Vec<Box<dyn Rule>> {
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(StrictPrecheck)];
        rules.extend(openai_strict_sanitize(options));
        rules.extend(openai_strict_enforce());
        rules
    };
    let mut rules: Vec<Box<dyn Rule>> = Vec::new();
    if target != Target::Mcp {
        rules.push(Box::new(UpgradeDraft07));
    }
    rules.push(Box::new(remove_schema_uri()));
    rules.push(Box::new(ObjectRoot));
    match target {
        Target::Mcp => rules.push(Box::new(StructuredFirst)),
        Target::OpenAi => {
            rules.push(Box::new(RootCombinators::OPENAI));
            rules.push(Box::new(StructuredFirst));
        }
        Target::OpenAiStrict => {
            rules.push(Box::new(RootCombinators::OPENAI));
            rules.extend(openai_strict());
        }
        Target::OpenAiResponses => {
            rules.push(Box::new(RootCombinators::OPENAI));
            rules.push(Box::new(ResponsesPrepass));
            rules.extend(openai_strict());
        }
        Target::Anthropic => {
            rules.push(Box::new(RootCombinators::ANTHROPIC));
            rules.push(Box::new(StructuredFirst));
        }
        Target::Gemini => {
            rules.extend(google_prefix());
            rules.push(Box::new(google_strip()));
            rules.extend(google_values(true));
            rules.push(Box::new(StringEnumsOnly));
            rules.extend(google_suffix());
        }
        Target::GeminiOpenApi => {
            rules.extend(google_prefix());
            rules.push(Box::new(MergeSingleAllOf));
            rules.extend(google_values(true));
            rules.push(Box::new(StringEnumsOnly));
            rules.push(Box::new(OpenApiSchemaFields));
            rules.extend(google_suffix());
        }
        Target::CcaClaude => {
            rules.extend(google_prefix());
            rules.push(Box::new(MergeSingleAllOf));
            rules.push(Box::new(NullablePropertiesOptional));
            rules.push(Box::new(google_strip()));
            rules.extend(google_values(false));
            rules.push(Box::new(InlineRefs::default()));
            rules.push(Box::new(MergeSingleAllOf));
            rules.push(Box::new(StructuredFirst));
            rules.push(Box::new(CollapseCombiners));
            rules.push(Box::new(EnsureProperties));
            rules.push(Box::new(ResidualGate));
            rules.push(Box::new(MetaValidate));
        }
        Target::AnthropicStrict => {
            rules.push(Box::new(RootCombinators::ANTHROPIC));
            rules.push(Box::new(MergeSingleAllOf));
            rules.push(Box::new(TupleItems::default()));
            rules.push(Box::new(AnthropicStrictCheck));
            rules.push(Box::new(OneOfToAnyOf));
            rules.push(Box::new(StripKeywords {
                name: "strip-unsupported",
                keywords: ANTHROPIC_STRICT_STRIP,
                spill: HUMAN_READABLE,
                why: "not supported by Anthropic strict tool use",
                keep: anthropic_keeps,
            }));
            rules.push(Box::new(CloseObjects {
                optional: Optional::Keep,
            }));
            rules.push(Box::new(StructuredFirst));
            rules.push(Box::new(AnthropicStrictCheck));
        }
    }
    rules
}

/// Runs rules in order on a document, stopping at the first that finds it unrepresentable.
pub fn run_rules(rules: Vec<Box<dyn Rule>>, schema: &mut Value) -> Report {
    run(rules, schema)
}

/// The non-strict form of a strict target (its fail-open output).
fn relaxed(target: Target) -> Target {
    match target {
        Target::OpenAiStrict => Target::OpenAi,
        Target::AnthropicStrict => Target::Anthropic,
        other => other,
    }
}

fn run(rules: Vec<Box<dyn Rule>>, schema: &mut Value) -> Report {
    let mut report = Report::default();
    for mut rule in rules {
        let mut one = Report::default();
        rule.apply(schema, &mut one);
        let failed = one.failure.is_some();
        report.absorb(one);
        if failed {
            break;
        }
    }
    report
}

fn responses_relaxed() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(UpgradeDraft07),
        Box::new(remove_schema_uri()),
        Box::new(ObjectRoot),
        Box::new(RootCombinators::OPENAI),
        Box::new(ResponsesPrepass),
        Box::new(OneOfToAnyOf),
        Box::new(StructuredFirst),
    ]
}

fn non_strict(target: Target, input: &Value) -> (Value, Report) {
    let mut schema = input.clone();
    let rules = if target == Target::OpenAiResponses {
        responses_relaxed()
    } else {
        pipeline(relaxed(target))
    };
    let report = run(rules, &mut schema);
    (schema, report)
}

/// JSON nesting depth, counted without recursion.
fn json_depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// Adapts one tool's parameter schema for `target`. Never panics; recursive, deep and hostile
/// schemas are ordinary input.
///
/// serde_json clones and drops values recursively, so for deeply nested input the work runs on
/// a stack sized for it (`stacker`). The caller still drops the result on its own stack.
pub fn adapt(schema: &Value, target: Target) -> Adapted {
    adapt_with(schema, target, AdaptOptions::default())
}

/// [`adapt`] with the choices a target leaves to the caller.
pub fn adapt_with(schema: &Value, target: Target, options: AdaptOptions) -> Adapted {
    let depth = json_depth(schema);
    if depth > 128 {
        stacker::grow(
            depth.saturating_mul(16 * 1024).saturating_add(1 << 20),
            || adapt_on_this_stack(schema, target, options),
        )
    } else {
        adapt_on_this_stack(schema, target, options)
    }
}

fn adapt_on_this_stack(schema: &Value, target: Target, options: AdaptOptions) -> Adapted {
    let mut adapted = adapt_unlocated(schema, target, options);
    // Every pointer names a place in the input, every `at` one in the output.
    pointers::locate(
        &adapted.input,
        &adapted.schema,
        &mut adapted.losses,
        &mut adapted.changes,
    );
    adapted
}

fn adapt_unlocated(schema: &Value, target: Target, options: AdaptOptions) -> Adapted {
    let strict_flag = |ok: bool| target.has_strict_flag().then_some(ok);
    let mut bypass = None;
    if target.wants_strict() {
        if no_strict() {
            bypass = Some("strict mode disabled by TOOLSCHEMA_NO_STRICT".to_owned());
        } else {
            let mut attempt = schema.clone();
            let report = run(pipeline_with(target, options), &mut attempt);
            match report.failure {
                None => {
                    return Adapted {
                        target,
                        schema: attempt,
                        strict: Some(true),
                        fallback: false,
                        losses: report.losses,
                        changes: report.changes,
                        input: schema.clone(),
                    };
                }
                Some(why) => {
                    bypass = Some(format!(
                        "strict mode cannot represent this schema ({why}); sent non-strict"
                    ))
                }
            }
        }
    }
    let (out, mut report) = non_strict(target, schema);
    if let Some(failure) = report.failure.take() {
        // The empty object, as this target sends it (closed and strict where the target is), so
        // that the fallback is itself a fixed point of the adaptation.
        let empty = adapt_unlocated(
            &json!({"type": "object", "properties": {}}),
            target,
            options,
        );
        return Adapted {
            target,
            schema: empty.schema,
            strict: empty.strict,
            fallback: true,
            losses: vec![Loss {
                pointer: failure.pointer,
                at: None,
                keyword: "root".into(),
                kind: LossKind::Fallback,
                detail: format!(
                    "the schema was replaced by the empty object: {}",
                    failure.reason
                ),
            }],
            changes: Vec::new(),
            input: schema.clone(),
        };
    }
    if let Some(why) = bypass {
        report.losses.insert(
            0,
            Loss {
                pointer: String::new(),
                at: None,
                keyword: "strict".into(),
                kind: LossKind::Fallback,
                detail: why,
            },
        );
    }
    Adapted {
        target,
        schema: out,
        strict: strict_flag(false),
        fallback: false,
        losses: report.losses,
        changes: report.changes,
        input: schema.clone(),
    }
}

#[cfg(test)]
mod tests;
