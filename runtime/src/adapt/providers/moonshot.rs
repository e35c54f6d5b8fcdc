//! Moonshot (Kimi) tool calls
//! (<https://platform.moonshot.ai/docs/guide/use-kimi-api-to-complete-tool-calls>): OpenAI's
//! Chat Completions wire form. The API reads each tool's parameters as "moonshot flavored json
//! schema" and refuses the whole request otherwise ("tools.function.parameters is not a valid
//! moonshot flavored json schema … references must start with #/$defs/"). Moonshot publishes no
//! keyword list; the rules are the reference implementation's (its `normalizeSchemaForMoonshot`):
//! the non-structural keywords but `default` spilled into the description, `oneOf` folded into
//! `anyOf`, type lists split, bare enums typed, enums of anything but strings and numbers
//! spilled, boolean subschemas as objects, references under `#/$defs/` only. No strict mode.

use super::super::rules::{self as r, KeySet, Rule, keep_none};
use super::super::settings::{AdaptSettings, NameRule, Wire};
use super::super::{AdaptOptions, Target};
use super::{json_schema_prefix, strip_keywords};

impl AdaptSettings {
    /// Moonshot (Kimi): the reference implementation's Moonshot rules.
    pub fn moonshot() -> Self {
        AdaptSettings {
            target: Target::Moonshot,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Plain,
            wire: Wire::OpenAiChat,
            budget: None,
            strict_flag: false,
            shared: |_| Vec::new(),
            strict: None,
            relaxed,
            meta_validate: false,
            added: Vec::new(),
            removed: Vec::new(),
        }
    }
}

fn relaxed(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::RootCombinators::OPENAI) as Box<dyn Rule>,
        Box::new(r::BoolSchemas),
        Box::new(r::TupleItems::default()),
        Box::new(r::OneOfToAnyOf),
        Box::new(strip_keywords(
            settings,
            "strip-moonshot-unsupported",
            MOONSHOT_STRIP,
            "not in Moonshot's flavour of JSON Schema",
            keep_none,
        )),
        Box::new(r::SplitTypeArrays::ALL),
        Box::new(r::InferType),
        Box::new(r::StringEnumsOnly::MOONSHOT),
        Box::new(r::InlineRefsNotUnder { prefix: "#/$defs/" }),
        Box::new(r::OrphanedDefinitions),
        Box::new(r::StructuredFirst),
    ]);
    rules
}

/// The reference's `NON_STRUCTURAL_SCHEMA_KEYS` without `default`, with `prefixItems` (a tuple
/// with no common item schema keeps it until here).
const MOONSHOT_STRIP: KeySet = KeySet::of(&[
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
    "$schema",
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
    "prefixItems",
]);
