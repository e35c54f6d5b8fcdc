//! Moonshot (Kimi) tool calls
//! (<https://platform.moonshot.ai/docs/guide/use-kimi-api-to-complete-tool-calls>): OpenAI's
//! Chat Completions wire form. The API reads each tool's parameters as "moonshot flavored json
//! schema" and refuses the whole request otherwise ("tools.function.parameters is not a valid
//! moonshot flavored json schema … references must start with #/$defs/"). Moonshot publishes no
//! keyword list; the rules are the reference implementation's (its `normalizeSchemaForMoonshot`):
//! the non-structural keywords but `default` spilled into the description, `oneOf` folded into
//! `anyOf`, type lists split, bare enums typed, enums of anything but strings and numbers
//! spilled, boolean subschemas as objects, references under `#/$defs/` only. No strict mode.

use super::super::Target;
use super::super::rules::{self as r, Rule, keep_none};
use super::super::settings::AdaptSettings;
use super::openai::OPENAI_STRICT_STRIP;
use super::{json_schema_prefix, relaxed_only, strip_keywords};

impl AdaptSettings {
    /// Moonshot (Kimi): the reference implementation's Moonshot rules.
    pub fn moonshot() -> Self {
        relaxed_only(Target::Moonshot, relaxed)
    }
}

fn relaxed(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend([
        Box::new(r::RootCombinators::OPENAI) as Box<dyn Rule>,
        // A definition whose last use the root rules merged away goes before anything is spilled
        // into it (as on OpenAI and Anthropic).
        Box::new(r::OrphanedDefinitions),
        Box::new(r::BoolSchemas),
        Box::new(r::TupleItems::default()),
        Box::new(r::OneOfToAnyOf),
        Box::new(strip_keywords(
            settings,
            "strip-moonshot-unsupported",
            OPENAI_STRICT_STRIP,
            "not in Moonshot's flavour of JSON Schema",
            keep_none,
        )),
        Box::new(r::SplitTypeArrays::ALL),
        Box::new(r::InferType),
        Box::new(r::StringEnumsOnly::MOONSHOT),
        Box::new(r::InlineRefsNotUnder { prefix: "#/$defs/" }),
        // And one whose last use a rule above dropped.
        Box::new(r::OrphanedDefinitions),
        Box::new(r::StructuredFirst),
    ]);
    rules
}
