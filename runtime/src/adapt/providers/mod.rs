//! One constructor per provider: each builds the [`AdaptSettings`] of one target, with its
//! rules in order and its keyword tables, and links the provider's own documentation.

mod anthropic;
mod bedrock;
mod cca;
mod deepseek;
pub(super) mod google;
mod llama;
mod llguidance;
mod mcp;
mod mistral;
mod moonshot;
mod ollama;
pub(super) mod openai;
pub(super) mod xai;
mod xgrammar;

pub(crate) use anthropic::ANTHROPIC_STRICT;
pub(crate) use openai::{DEEPSEEK_STRICT, OPENAI_STRICT};

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

            /// What the target does, in one paragraph (its documentation here, which
            /// `toolschema targets` and the README's table print).
            pub fn summary(self) -> String {
                let lines: &str = match self {
                    $(Target::$variant => concat!($($doc, "\n"),*),)+
                };
                let lines: Vec<&str> = lines.lines().map(str::trim).collect();
                lines.join(" ")
            }
        }
    };
}

targets! {
    /// MCP `tools/list` `inputSchema`: `$schema` and unreferenced definitions removed, a union's
    /// only structured branch put first, each structural union a client may flatten reported.
    Mcp = "mcp" => AdaptSettings::mcp,
    /// OpenAI function calling without strict: draft-07 → 2020-12, an object root without
    /// top-level combinators.
    OpenAi = "openai" => AdaptSettings::openai,
    /// OpenAI function calling with `strict: true`, [Structured
    /// Outputs](https://developers.openai.com/api/docs/guides/structured-outputs): keywords
    /// outside the subset spilled into the description (what OpenAI enforces kept, see below),
    /// `default` into the description, `const` → `enum`, closed objects, optional → required +
    /// nullable (a plain scalar as `type: [T, "null"]`), `oneOf` → `anyOf`, `$ref` siblings
    /// inlined, nested unions spliced, OpenAI's size limits; fails open to `openai`.
    OpenAiStrict = "openai-strict" => AdaptSettings::openai_strict,
    /// OpenAI Responses API function tools: the Responses pre-pass (lookaround patterns,
    /// `properties` on objects), then strict as `openai-strict`; fails open to Responses'
    /// relaxed form.
    OpenAiResponses = "openai-responses" => AdaptSettings::openai_responses,
    /// Anthropic `input_schema`: an object root without top-level `anyOf`/`oneOf`/`allOf`.
    Anthropic = "anthropic" => AdaptSettings::anthropic,
    /// Anthropic [strict tool
    /// use](https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use):
    /// closed objects, optional stays optional, unsupported constraints spilled; recursion or
    /// open maps fail open to `anthropic`; the per-request budget (20 strict tools, 24 optional,
    /// 16 union parameters) is shared across a catalog.
    AnthropicStrict = "anthropic-strict" => AdaptSettings::anthropic_strict,
    /// Gemini `parametersJsonSchema`, [function
    /// calling](https://ai.google.dev/gemini-api/docs/function-calling), as Google documents its
    /// JSON Schema fields (the `responseJsonSchema` keyword list, the JSON Schema announcement,
    /// the structured-output guide): those keywords kept (`minimum`/`maximum`,
    /// `minItems`/`maxItems`, `prefixItems`, `additionalProperties`, type lists with `null`,
    /// `$ref`), the rest spilled or dropped; a `$ref`'s siblings moved beside a one-branch
    /// `anyOf`, recursion through a required property unrolled and cut, `oneOf` → `anyOf`,
    /// `const` → `enum`, enums of strings and numbers, `propertyOrdering`.
    Gemini = "gemini" => AdaptSettings::gemini,
    /// Gemini `parametersJsonSchema` under the seed's cross-provider contract (the reference
    /// implementation's Google path, written for the legacy `Schema` message), what `gemini` sent
    /// before: unsupported keywords spilled, `$ref` inlined (recursion unrolled two levels, then
    /// cut and reported), type arrays → `nullable`, `const` and all-const unions → `enum`, string
    /// enums only, `properties` on every object, `propertyOrdering`. For gateways that convert
    /// the field to the legacy form.
    GeminiCompat = "gemini-compat" => AdaptSettings::gemini_compat,
    /// Gemini legacy `parameters`, the OpenAPI 3.0 [`Schema`
    /// message](https://ai.google.dev/api/caching#Schema) (Live API, older models): only its
    /// fields, string-only enums, formats `enum`/`date-time` (and `float`/`double`,
    /// `int32`/`int64`), `oneOf` → `anyOf`.
    GeminiOpenApi = "gemini-openapi" => AdaptSettings::gemini_openapi,
    /// Claude through Google Cloud Code Assist / Antigravity, sent as `parameters`: what it
    /// accepts (it publishes no schema reference; the rules follow the errors it returns):
    /// nullable properties made optional, object unions merged, same- and mixed-type unions
    /// collapsed (structured branch kept); a residual gate and the 2020-12 meta-schema decide the
    /// per-tool fallback.
    CcaClaude = "cca-claude" => AdaptSettings::cca_claude,
    /// [DeepSeek](https://api-docs.deepseek.com/guides/function_calling) function calling without
    /// strict: OpenAI's relaxed form.
    DeepSeek = "deepseek" => AdaptSettings::deepseek,
    /// DeepSeek strict mode (beta, the `/beta` base URL): OpenAI's strict rewrite, with
    /// `minLength`/`maxLength`, `minItems`/`maxItems` and formats other than `email`,
    /// `hostname`, `ipv4`, `ipv6`, `uuid` spilled; recursion allowed; fails open to `deepseek`.
    DeepSeekStrict = "deepseek-strict" => AdaptSettings::deepseek_strict,
    /// [Mistral](https://docs.mistral.ai/capabilities/function_calling/) function calling:
    /// OpenAI's relaxed form without `$id`/`$schema` (refused), draft-04 boolean
    /// `exclusiveMinimum`/`exclusiveMaximum` as numbers (its meta-schema refuses the booleans);
    /// conservative where Mistral documents nothing.
    Mistral = "mistral" => AdaptSettings::mistral,
    /// [Ollama](https://docs.ollama.com/capabilities/tool-calling) chat with tools: only the
    /// fields its request types read survive (root `type`, `$defs`, `items`, `required`,
    /// `properties`; elsewhere also `anyOf`, `description`, `enum`), the rest spilled into the
    /// description or dropped, reported (Ollama drops them silently); `const` → `enum`, `oneOf` →
    /// `anyOf`, references inlined, an untyped subschema given every type.
    Ollama = "ollama" => AdaptSettings::ollama,
    /// [Moonshot](https://platform.moonshot.ai/docs/guide/use-kimi-api-to-complete-tool-calls)
    /// (Kimi), "moonshot flavored json schema": the reference implementation's rules
    /// (non-structural keywords but `default` spilled, `oneOf` → `anyOf`, type lists split, bare
    /// enums typed, enums of strings and numbers only), references under `#/$defs/` only (others
    /// inlined).
    Moonshot = "moonshot" => AdaptSettings::moonshot,
    /// [Amazon Bedrock](https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html)
    /// Converse `toolSpec`: the wire envelope (`inputSchema.json`), names of
    /// `[a-zA-Z0-9_-]{1,64}`, an object root; the keyword rules of the model family behind it,
    /// Anthropic's by default (`AdaptSettings::bedrock_for` takes another target's).
    Bedrock = "bedrock" => AdaptSettings::bedrock,
    /// [xAI](https://docs.x.ai/docs/guides/structured-outputs) (Grok): strict always, with no
    /// form to fall back to, so what its subset cannot hold is degraded at that node, reported:
    /// references inlined (recursion unrolled, then cut), `oneOf` → `anyOf`, empty choices
    /// removed, `not`/`if`/`minContains` dropped, formats outside its eight, patterns outside its
    /// ECMA-262 subset and bounds past its guarantees spilled, value schemas of open maps dropped
    /// (`additionalProperties: true`).
    Xai = "xai" => AdaptSettings::xai,
    /// [llama.cpp](https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md)'s server
    /// (`llama-server`; also the name `llama-server`): every tool becomes part of one GBNF
    /// grammar (`common/json-schema-to-grammar.cpp`), which refuses the whole request over one
    /// bad schema: patterns anchored and their `\d`/`\w`/`\s` written as classes (or spilled),
    /// boolean subschemas and references replaced, lengths and counts past its repetition limit
    /// spilled; what the converter skips at a node (number bounds, most formats, `not`,
    /// `uniqueItems`, ...) spilled, `oneOf` → `anyOf`, keywords beside an `anyOf` moved into
    /// its branches, and each object the grammar closes reported.
    LlamaCpp = "llama-cpp" => AdaptSettings::llama_cpp,
    /// [llguidance](https://github.com/guidance-ai/llguidance/blob/main/docs/json_schema.md)
    /// with lenient mode off (vLLM's `guidance` backend, llama.cpp built with it): keywords it
    /// does not implement and formats it does not know spilled (it refuses the schema over
    /// one), every `oneOf` → `anyOf`, patterns with lookaround or back-references spilled, a
    /// non-local `$ref` inlined; objects stay open.
    Llguidance = "llguidance" => AdaptSettings::llguidance,
    /// [xgrammar](https://xgrammar.mlc.ai/docs/) in strict mode (vLLM's and SGLang's default
    /// engine; also the names `vllm` and `sglang`): what its converter skips at a node (keywords
    /// beside a reference, union or `allOf`, several `allOf` members, `not`, lengths beside a
    /// pattern, ...) and what vLLM refuses up front (`multipleOf`, `uniqueItems`, unknown
    /// formats) spilled, references inlined, `oneOf` → `anyOf`, patterns written for a
    /// whole-string match, and each object or tuple strict mode closes reported.
    Xgrammar = "xgrammar" => AdaptSettings::xgrammar,
}

/// What every target but MCP starts with: draft-07 forms upgraded, `$schema` removed, an object
/// root, and no `pattern` that does not compile.
fn json_schema_prefix() -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(rules::UnreferencedDefinitions),
        Box::new(rules::UpgradeDraft07),
        Box::new(rules::RemoveSchemaUri),
        Box::new(rules::ObjectRoot),
        // A root `$ref` replaced by its target may leave that definition unreferenced: removed
        // before any rule writes into it (an encoding of it would otherwise be placed at the
        // root, its copy).
        Box::new(rules::UnreferencedDefinitions),
        Box::new(rules::RemoveRootTitle),
        Box::new(rules::PatternsCompile),
    ]
}

/// The settings of a provider with one form and no strict flag, in OpenAI's Chat Completions
/// wire form with OpenAI's names (Ollama, Moonshot, xAI): its list of rules is `relaxed`.
fn relaxed_only(
    target: Target,
    relaxed: fn(&AdaptSettings) -> Vec<Box<dyn Rule>>,
) -> AdaptSettings {
    AdaptSettings {
        target,
        options: super::AdaptOptions::default(),
        kept_keywords: Vec::new(),
        names: super::settings::NameRule::Plain,
        wire: super::settings::Wire::OpenAiChat,
        budget: None,
        strict_flag: false,
        shared: |_| Vec::new(),
        strict: None,
        relaxed,
        meta_validate: false,
        added: Vec::new(),
        removed: Vec::new(),
        encode: false,
    }
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
