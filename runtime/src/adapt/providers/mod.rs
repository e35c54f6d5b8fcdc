//! One constructor per provider: each builds the [`AdaptSettings`] of one target, with its
//! rules in order and its keyword tables, and links the provider's own documentation.

mod anthropic;
mod cca;
mod google;
mod mcp;
mod openai;

use serde_json::Value;

use super::rules::{self, KeySet, Rule, StripKeywords};
use super::settings::AdaptSettings;

/// The list of targets: each line gives the [`Target`] variant, its name (the CLI's, the
/// reports'), and the constructor of its [`AdaptSettings`]. The CLI, the proxy, `convert` and the
/// tests read [`Target::ALL`]; adding a provider is its file and one line here.
macro_rules! targets {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal => $settings:path,)+) => {
        /// A wire format a tool schema is sent in.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Target {
            $($(#[doc = $doc])* $variant,)+
        }

        impl Target {
            /// Every target, in CLI order. A slice, so that a target added later is not a
            /// breaking change.
            pub const ALL: &'static [Target] = &[$(Target::$variant),+];

            /// The CLI name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Target::$variant => $name,)+
                }
            }

            /// The provider's default settings.
            pub fn settings(self) -> AdaptSettings {
                match self {
                    $(Target::$variant => $settings(),)+
                }
            }
        }
    };
}

targets! {
    /// MCP `tools/list` `inputSchema`: only `$schema` removed and union branches ordered.
    Mcp = "mcp" => AdaptSettings::mcp,
    /// OpenAI function calling without strict.
    OpenAi = "openai" => AdaptSettings::openai,
    /// OpenAI function calling with `strict: true` (Structured Outputs).
    OpenAiStrict = "openai-strict" => AdaptSettings::openai_strict,
    /// OpenAI Responses API function tools (strict when representable).
    OpenAiResponses = "openai-responses" => AdaptSettings::openai_responses,
    /// Anthropic `input_schema`.
    Anthropic = "anthropic" => AdaptSettings::anthropic,
    /// Anthropic strict tool use.
    AnthropicStrict = "anthropic-strict" => AdaptSettings::anthropic_strict,
    /// Gemini `parametersJsonSchema` (<https://ai.google.dev/gemini-api/docs/function-calling>).
    Gemini = "gemini" => AdaptSettings::gemini,
    /// Gemini legacy `parameters`: the OpenAPI 3.0 `Schema` message (Live API, older models).
    GeminiOpenApi = "gemini-openapi" => AdaptSettings::gemini_openapi,
    /// Claude through Google Cloud Code Assist / Antigravity, sent as `parameters`.
    CcaClaude = "cca-claude" => AdaptSettings::cca_claude,
}

/// What every target but MCP starts with: draft-07 forms upgraded, `$schema` removed, an object
/// root, and no `pattern` that does not compile.
fn json_schema_prefix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(rules::UnreferencedDefinitions),
        Box::new(rules::UpgradeDraft07),
        Box::new(rules::RemoveSchemaUri),
        Box::new(rules::ObjectRoot),
        Box::new(rules::PatternsCompile),
    ]
}

/// A keyword table as a rule, with the caller's kept keywords exempted.
fn strip_keywords(
    settings: &AdaptSettings,
    name: &'static str,
    keywords: KeySet,
    why: &'static str,
    keep: fn(&str, &Value) -> bool,
) -> StripKeywords {
    StripKeywords {
        name,
        keywords,
        spill: rules::HUMAN_READABLE,
        why,
        keep,
        also_keep: settings.kept_keywords.clone(),
    }
}
