//! Mistral function calling (<https://docs.mistral.ai/capabilities/function_calling/>): OpenAI's
//! Chat Completions wire form. Mistral documents no keyword list; what is known is what it has
//! refused: a tool schema is checked against a meta-schema (a draft-04 boolean
//! `exclusiveMinimum: true` failed with "is not valid under any of the given schemas"), and `$id`
//! and `$schema` stopped being accepted ("failed to compile JSON schema"). So this target is
//! OpenAI's relaxed form with those removed, and stays conservative where nothing is documented:
//! no root combinators, an object root.
//!
//! Request limits (checked 2026-12): names `^[a-zA-Z0-9_-]{1,64}$` (mistral-common's validator);
//! no tool count or description length found, so none is enforced.

use super::super::Target;
use super::super::rules::{KeySet, Rule, keep_none};
use super::super::settings::AdaptSettings;
use super::{openai, strip_keywords};

impl AdaptSettings {
    /// Mistral: OpenAI's relaxed form without `$id`/`$schema`, draft-04 bounds as numbers.
    pub fn mistral() -> Self {
        AdaptSettings {
            target: Target::Mistral,
            shared,
            ..Self::openai()
        }
    }
}

fn shared(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    // Draft-04's boolean bounds, which Mistral's meta-schema refuses, are rewritten as numbers on
    // every target before its rules run (`valid-keywords`).
    let mut rules = openai::shared(settings);
    rules.push(Box::new(strip_keywords(
        settings,
        "strip-mistral-unsupported",
        MISTRAL_STRIP,
        "Mistral's schema compiler rejects it",
        keep_none,
    )));
    rules
}

/// What Mistral has refused beyond `$schema`, which every target removes.
const MISTRAL_STRIP: KeySet = KeySet::of(&["$id"]);
