//! Anthropic tool use, and strict tool use
//! (<https://docs.anthropic.com/en/docs/build-with-claude/tool-use>; the strict subset and its
//! per-request limits: <https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use>).
//!
//! Request limits (checked 2026-12): tool names `^[a-zA-Z0-9_-]{1,64}$` (the Messages API's
//! `tools[].name`; a longer limit of 128 is only reported by users, anthropics/claude-code #96152,
//! and not documented, so 64 stays); no tool count or description length is documented, so none
//! is enforced ([`crate::adapt::RequestLimits::NONE`]); strict tool use's per-request budget is
//! [`crate::adapt::StrictBudget`].

use serde_json::Value;

use super::super::rules::{self as r, KeySet, Rule};
use super::super::settings::{AdaptSettings, NameRule, StrictBudget, Wire};
use super::super::strict_output::StrictOutput;
use super::super::{AdaptOptions, Target};
use super::{json_schema_prefix, strip_keywords};

impl AdaptSettings {
    /// Anthropic `input_schema` without strict: JSON Schema with an object root and no root
    /// combinators; union branches ordered structured-first.
    pub fn anthropic() -> Self {
        AdaptSettings {
            target: Target::Anthropic,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Plain,
            wire: Wire::Anthropic,
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

    /// Anthropic strict tool use: closed objects, the supported keywords, no recursion; within
    /// a request at most 20 strict tools, 24 optional and 16 union-typed parameters (a tool over
    /// that budget is sent non-strict, reported). Fails open to [`AdaptSettings::anthropic`].
    pub fn anthropic_strict() -> Self {
        AdaptSettings {
            target: Target::AnthropicStrict,
            strict: Some(strict),
            budget: Some(StrictBudget {
                provider: "Anthropic",
                tools: 20,
                optional: 24,
                unions: 16,
                relaxed: Target::Anthropic,
            }),
            ..Self::anthropic()
        }
    }
}

/// Both forms: an object root without root combinators, and no definition whose last use the
/// root rules dropped (before strict checks read it).
fn shared(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.push(Box::new(r::RootCombinators::ANTHROPIC));
    rules.push(Box::new(r::OrphanedDefinitions));
    rules
}

/// The strict attempt: `allOf` of one merged and tuples as `items`, then
/// the check of what strict cannot represent, then the rewrite (types inferred, `anyOf` only,
/// unsupported keywords stripped or spilled, closed objects keeping optional properties).
fn strict(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules: Vec<Box<dyn Rule>> = vec![
        Box::new(r::MergeSingleAllOf),
        Box::new(r::TupleItems::default()),
    ];
    // With encoding on: open maps as key/value pairs (any-value maps as JSON text), any value
    // as JSON text, and recursion (which strict tool use does not take) unrolled two levels,
    // then JSON text.
    if settings.encode {
        rules.extend([
            Box::new(r::EncodeMaps { any: true }) as Box<dyn Rule>,
            Box::new(r::EncodeAny),
            Box::new(r::UnrollRecursion),
        ]);
    }
    rules.extend([
        Box::new(r::AnthropicStrictCheck) as Box<dyn Rule>,
        // A node with `properties` or `items` and no `type` gets the type they imply (the
        // check counts it as typed), as OpenAI strict types it.
        Box::new(r::InferType),
        Box::new(r::OneOfToAnyOf),
        Box::new(strip_keywords(
            settings,
            "strip-unsupported",
            ANTHROPIC_STRICT_STRIP,
            "not supported by Anthropic strict tool use",
            anthropic_keeps,
        )),
        Box::new(r::CloseObjects {
            optional: r::Optional::Keep,
        }),
        Box::new(r::StructuredFirst),
    ]);
    rules
}

/// Anthropic strict tool use: what its grammar does not support (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use>).
const ANTHROPIC_STRICT_STRIP: KeySet = KeySet::of(&[
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
]);

/// What the written strict schema may not hold: the stripped keywords, and what the strict
/// rewrite replaces or refuses (`oneOf`, `patternProperties`).
const ANTHROPIC_STRICT_REFUSED: &[&str] = &[
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
    "oneOf",
    "patternProperties",
];

/// Anthropic strict tool use's check of the written schema (optional properties stay optional).
pub(crate) const ANTHROPIC_STRICT: StrictOutput = StrictOutput::new(
    "Anthropic",
    ANTHROPIC_STRICT_REFUSED,
    anthropic_keeps,
    false,
);

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
            !r::has_lookaround(p)
                && !p.contains("\\b")
                && !p.contains("\\B")
                && !has_backreference(p)
        }),
        _ => false,
    }
}

pub(super) fn has_backreference(p: &str) -> bool {
    let b = p.as_bytes();
    b.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'\\'
            && (w[1].is_ascii_digit() && w[1] != b'0' || w[1] == b'k')
            && b[..i].iter().rev().take_while(|c| **c == b'\\').count() % 2 == 0
    })
}
