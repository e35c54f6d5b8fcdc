//! Amazon Bedrock Converse tool use
//! (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html>,
//! <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolInputSchema.html>):
//! each tool is `{"toolSpec": {"name", "description", "inputSchema": {"json": …}}}`, the name
//! 1–64 characters of `[a-zA-Z0-9_-]`, and "the top level schema type must be object". Bedrock
//! lists no keywords of its own: the schema reaches the model family behind it, so the keyword
//! rules are that family's (Anthropic's non-strict rules by default; [`AdaptSettings::bedrock_for`]
//! takes another target's). The `strict` flag newer references add is not sent (undocumented
//! for tools' schemas).
//!
//! Request limits (checked 2026-12): names `[a-zA-Z0-9_-]+`, 1 to 64 characters
//! (`ToolSpecification.name`); a description of at least one character when sent
//! (`ToolSpecification.description`); no tool count documented, so none is enforced.

use super::super::Target;
use super::super::settings::{AdaptSettings, NameRule, Wire};

impl AdaptSettings {
    /// Bedrock Converse for Claude: Anthropic's rules, Bedrock's wire form.
    pub fn bedrock() -> Self {
        Self::bedrock_for(Target::Anthropic)
    }

    /// Bedrock Converse for another model family: `family`'s keyword rules (its strict attempt
    /// too, if it has one), Bedrock's wire form and names. Reports name the target `bedrock`.
    pub fn bedrock_for(family: Target) -> Self {
        AdaptSettings {
            target: Target::Bedrock,
            wire: Wire::Bedrock,
            names: NameRule::Plain,
            strict_flag: false,
            budget: None,
            ..family.settings()
        }
    }
}
