//! The last word on `strict: true`: the schema as written, after every rule (the target's and
//! the caller's: [`AdaptSettings::with_rule`], [`AdaptSettings::without_rule`],
//! [`AdaptSettings::keep_keyword`]), checked against what the provider's strict mode accepts.
//! A schema that fails is sent in the relaxed form instead, with the reason: `strict: true`
//! always means the provider will enforce the schema, whatever the caller composed.
//!
//! The check reads the output alone: every keyword of every node is one the provider accepts
//! (with its value, where only some values are: OpenAI's nine formats), every object is closed,
//! and where the provider requires it every property is required.

use serde_json::Value;

use super::Target;
use super::settings::AdaptSettings;
use crate::walk::{Walk, pointer};

/// What one provider's strict mode accepts of a written schema.
pub(crate) struct StrictOutput {
    /// The provider, as the reason names it.
    provider: &'static str,
    /// Keywords it refuses...
    refused: &'static [&'static str],
    /// ...unless it takes this one with this value.
    keep: fn(&str, &Value) -> bool,
    /// Every property of an object must be in its `required` (OpenAI).
    all_required: bool,
}

impl StrictOutput {
    /// The check for the settings' target (`None`: it has no strict mode, or its strict form
    /// is another target's, as Bedrock's).
    pub(crate) fn of(settings: &AdaptSettings) -> Option<StrictOutput> {
        use super::providers::{ANTHROPIC_STRICT, DEEPSEEK_STRICT, OPENAI_STRICT};
        match settings.target {
            Target::OpenAiStrict | Target::OpenAiResponses => Some(OPENAI_STRICT),
            Target::DeepSeekStrict => Some(DEEPSEEK_STRICT),
            Target::AnthropicStrict => Some(ANTHROPIC_STRICT),
            _ => None,
        }
    }

    pub(crate) const fn new(
        provider: &'static str,
        refused: &'static [&'static str],
        keep: fn(&str, &Value) -> bool,
        all_required: bool,
    ) -> Self {
        StrictOutput {
            provider,
            refused,
            keep,
            all_required,
        }
    }

    /// Why `schema` is not one the provider's strict mode takes, at its first offending node;
    /// `None` when it is.
    pub(crate) fn refusal(&self, schema: &Value) -> Option<String> {
        let walk = Walk::new(schema);
        for (index, (node, _)) in walk.nodes.iter().enumerate() {
            let Value::Object(map) = node else { continue };
            let at = || match pointer(&walk.steps(index)) {
                p if p.is_empty() => "the root".to_owned(),
                p => format!("`{p}`"),
            };
            for (key, value) in map {
                if self.refused.contains(&key.as_str()) && !(self.keep)(key, value) {
                    let shown = super::rules::shown(value);
                    return Some(format!(
                        "`{key}: {shown}` at {} is not accepted by {} strict mode",
                        at(),
                        self.provider
                    ));
                }
            }
            let object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
            if !object {
                continue;
            }
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Some(format!(
                    "the object at {} is not closed (`additionalProperties: false`), which {} strict mode requires",
                    at(),
                    self.provider
                ));
            }
            if self.all_required {
                let required: Vec<&str> = (map.get("required").and_then(Value::as_array))
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let properties = map.get("properties").and_then(Value::as_object);
                if let Some(missing) = properties
                    .into_iter()
                    .flat_map(|p| p.keys())
                    .find(|name| !required.contains(&name.as_str()))
                {
                    return Some(format!(
                        "the property `{missing}` of the object at {} is not required, which {} strict mode requires of every property",
                        at(),
                        self.provider
                    ));
                }
            }
        }
        None
    }
}
