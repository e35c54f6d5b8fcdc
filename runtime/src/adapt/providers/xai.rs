//! xAI (Grok) function calling (<https://docs.x.ai/docs/guides/function-calling>; the schema
//! rules: <https://docs.x.ai/docs/guides/structured-outputs>). "The `strict` flag is implicitly
//! always `true`": every tool's schema must be in xAI's structured-output subset, or the request
//! fails, and there is no relaxed form to fall back to. So what the subset cannot hold is brought
//! to the nearest accepted form at that node, with a loss: references inlined (xAI takes
//! non-circular ones only; recursion is unrolled two levels, then cut), a one-entry `allOf`
//! merged, `oneOf` read as `anyOf`, tuples as `items`, boolean property schemas as objects,
//! empty `enum`/`anyOf` removed; `not`, `if`/`then`/`else` (best effort only) and
//! `minContains`/`maxContains` (refused) dropped; formats outside the eight xAI enforces,
//! patterns outside its ECMA-262 subset (lookaround, backreferences, `\b`, `\p{}`) and bounds past
//! what it guarantees (lengths 2048, items 256, properties 64) spilled into the description.
//! A root union of `required` fragments is flattened (every target's root rule). xAI closes an
//! object that does not say `additionalProperties`; an open map (a schema of values) is sent as
//! `additionalProperties: true`, its value schema reported. A multi-entry `allOf` is kept
//! (best effort).

use serde_json::Value;

use super::super::limits::{Limit, RequestLimits};

use super::super::Target;
use super::super::rules::{self as r, KeySet, Rule};
use super::super::settings::AdaptSettings;
use super::anthropic::has_backreference;
use super::{json_schema_prefix, relaxed_only, strip_keywords};

/// xAI's request limits (checked 2026-12). Tools: 200, known only from the error users report
/// ("Maximum tools limit reached. 219 tools have been provided but the maximum is 200.",
/// anomalyco/opencode #28911); xAI's function-calling guide gives none. Names and descriptions: no
/// limit documented (names follow OpenAI's rule, which xAI's API mirrors).
pub(crate) const LIMITS: RequestLimits = RequestLimits {
    tools: Some(Limit {
        max: 200,
        source: "known only from reported errors: \"Maximum tools limit reached. 219 tools have been provided but the maximum is 200.\" (anomalyco/opencode #28911)",
    }),
    description: None,
};

impl AdaptSettings {
    /// xAI: its structured-output subset, always (no strict flag, no fallback).
    pub fn xai() -> Self {
        relaxed_only(Target::Xai, relaxed)
    }
}

fn relaxed(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::RootCombinators::OPENAI) as Box<dyn Rule>,
        Box::new(r::OrphanedDefinitions),
        Box::new(r::BoolSchemas),
        Box::new(r::TupleItems::default()),
        Box::new(r::MergeSingleAllOf),
        Box::new(r::OneOfToAnyOf),
        Box::new(r::EmptyChoices),
    ]);
    // With encoding on, a map whose values have a schema is sent as key/value pairs (which
    // keep the values' schema) instead of `additionalProperties: true`.
    if settings.encode {
        rules.push(Box::new(r::EncodeMaps { any: false }));
    }
    rules.extend([
        Box::new(r::OpenMaps) as Box<dyn Rule>,
        // A one-member `allOf` whose map collided with its node's (a schema against `true`)
        // agrees with it once both say `true`: merged now, as adapting again would.
        Box::new(r::MergeSingleAllOf),
        Box::new(strip_keywords(
            settings,
            "strip-xai-unsupported",
            XAI_STRIP,
            "xAI does not guarantee it",
            xai_keeps,
        )),
        Box::new(r::InlineRefs::default()),
        Box::new(r::StructuredFirst),
    ]);
    rules
}

/// What xAI refuses (`minContains`/`maxContains`), follows at best (`not`, `if`/`then`/`else`),
/// and the keywords whose values it guarantees only in part ([`xai_keeps`]).
const XAI_STRIP: KeySet = KeySet::of(&[
    "not",
    "if",
    "then",
    "else",
    "minContains",
    "maxContains",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
]);

/// The formats xAI enforces.
const XAI_FORMATS: &[&str] = &[
    "date",
    "time",
    "date-time",
    "email",
    "uuid",
    "ipv4",
    "ipv6",
    "uri",
];

/// What xAI keeps of [`XAI_STRIP`]: its formats, a pattern in its ECMA-262 subset, and bounds
/// within what it guarantees.
fn xai_keeps(key: &str, value: &Value) -> bool {
    let within = |limit: u64| value.as_u64().is_some_and(|n| n <= limit);
    match key {
        "format" => value.as_str().is_some_and(|f| XAI_FORMATS.contains(&f)),
        "pattern" => value.as_str().is_some_and(|p| {
            !r::has_lookaround(p)
                && !p.contains("\\b")
                && !p.contains("\\B")
                && !p.contains("\\p{")
                && !p.contains("\\P{")
                && !has_backreference(p)
        }),
        "minLength" | "maxLength" => within(2048),
        "minItems" | "maxItems" => within(256),
        "minProperties" | "maxProperties" => within(64),
        _ => false,
    }
}
