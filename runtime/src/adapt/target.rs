//! The targets by name: the wire formats a tool schema is sent in.

use std::error::Error;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

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
    /// Gemini `parametersJsonSchema` (<https://ai.google.dev/gemini-api/docs/function-calling>).
    Gemini,
    /// Gemini legacy `parameters`: the OpenAPI 3.0 `Schema` message (Live API, older models).
    #[serde(rename = "gemini-openapi")]
    GeminiOpenApi,
    /// Claude through Google Cloud Code Assist / Antigravity, sent as `parameters`.
    CcaClaude,
}

impl Target {
    /// Every target, in CLI order. A slice, so that a target added later is not a breaking
    /// change.
    pub const ALL: &'static [Target] = &[
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
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`Target`]'s ([`Target::from_str`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownTarget {
    /// The name given.
    pub name: String,
}

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
        write!(
            f,
            "unknown target `{}`: expected one of {}",
            self.name,
            names.join(", ")
        )
    }
}

impl Error for UnknownTarget {}

impl FromStr for Target {
    type Err = UnknownTarget;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .iter()
            .copied()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownTarget { name: s.to_owned() })
    }
}
