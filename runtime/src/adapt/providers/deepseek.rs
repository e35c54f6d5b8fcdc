//! DeepSeek function calling (<https://api-docs.deepseek.com/guides/function_calling>): OpenAI's
//! Chat Completions wire form. Strict mode (beta: `strict: true` on every function, with the base
//! URL `https://api.deepseek.com/beta`) is OpenAI's strict subset without `minLength`/`maxLength`
//! and `minItems`/`maxItems`, with the string formats `email`, `hostname`, `ipv4`, `ipv6` and
//! `uuid` only; `$ref`/`$defs` and recursion are allowed. DeepSeek publishes no size limits, so
//! OpenAI's are kept (conservative).
//!
//! Request limits (checked 2026-12): names `^[a-zA-Z0-9_-]+$` of at most 64 characters (the
//! error users report: "string too long. Expected ... maximum length 64", mrexodia/ida-pro-mcp
//! #129); no tool count found in DeepSeek's own documentation (OpenAI's 128 is not assumed), so
//! none is enforced.

use serde_json::Value;

use super::super::Target;
use super::super::rules::{Rule, keep_none};
use super::super::settings::AdaptSettings;
use super::openai::strict_with;

impl AdaptSettings {
    /// DeepSeek without strict: OpenAI's relaxed form.
    pub fn deepseek() -> Self {
        AdaptSettings {
            target: Target::DeepSeek,
            ..Self::openai()
        }
    }

    /// DeepSeek strict mode (beta): the schema DeepSeek validates server-side; what it cannot
    /// represent fails open to [`AdaptSettings::deepseek`]'s form, reported.
    pub fn deepseek_strict() -> Self {
        AdaptSettings {
            target: Target::DeepSeekStrict,
            strict: Some(strict),
            ..Self::deepseek()
        }
    }
}

fn strict(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let keep = if settings.options.openai_conservative {
        keep_none
    } else {
        deepseek_keeps
    };
    strict_with(settings, keep, "DeepSeek strict mode does not support it")
}

/// The string formats DeepSeek strict mode lists.
const DEEPSEEK_FORMATS: &[&str] = &["email", "hostname", "ipv4", "ipv6", "uuid"];

/// What DeepSeek strict mode enforces: string `pattern` and `format` (its list), number
/// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`. String lengths and
/// array counts are documented as unsupported, so they are spilled.
pub(super) fn deepseek_keeps(key: &str, value: &Value) -> bool {
    match key {
        "pattern" => value.is_string(),
        "format" => value
            .as_str()
            .is_some_and(|f| DEEPSEEK_FORMATS.contains(&f)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            value.is_number()
        }
        _ => false,
    }
}
