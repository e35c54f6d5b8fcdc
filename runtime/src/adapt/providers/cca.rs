//! Claude through Google Cloud Code Assist / Antigravity: Google's `parameters` wire with
//! Claude's validator behind it (no public schema reference: the rules follow the errors it
//! returns).

use super::super::rules::{self as r, Rule};
use super::super::settings::{AdaptSettings, NameRule, Wire};
use super::super::{AdaptOptions, Target};
use super::google::{google_prefix, google_strip, google_values, typed_maps};

impl AdaptSettings {
    /// Cloud Code Assist Claude: no combinators at all (object unions merged, mixed types
    /// collapsed, reported), nullable properties made optional, and a tool the gate still
    /// refuses sent as the empty object (per-tool fallback).
    pub fn cca_claude() -> Self {
        AdaptSettings {
            target: Target::CcaClaude,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Google,
            wire: Wire::Google {
                field: "parameters",
            },
            budget: None,
            strict_flag: false,
            shared: |_| Vec::new(),
            strict: None,
            relaxed: rules,
            meta_validate: true,
            added: Vec::new(),
            removed: Vec::new(),
            encode: false,
        }
    }
}

/// The list; the output is then checked against the meta-schema (`meta_validate`).
fn rules(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = google_prefix();
    rules.extend(typed_maps(settings));
    rules.push(Box::new(r::MergeSingleAllOf));
    rules.push(Box::new(r::NullablePropertiesOptional));
    rules.push(Box::new(google_strip(settings)));
    rules.extend(google_values(false));
    // A root `const` is an `enum` only now, which the root may not hold either.
    rules.push(Box::new(r::RootCombinators::OPENAI));
    rules.extend([
        Box::new(r::InlineRefs::default()) as Box<dyn Rule>,
        Box::new(r::MergeSingleAllOf),
        // A property that was a `$ref` to a nullable definition is nullable only now.
        Box::new(r::NullablePropertiesOptional),
        Box::new(r::InferType),
        Box::new(r::StructuredFirst),
        Box::new(r::CollapseCombiners),
        // After unions are merged: every node then has the properties it is sent with.
        Box::new(r::RequiredAreProperties),
        Box::new(r::EnsureProperties),
        Box::new(r::ResidualGate),
        Box::new(r::StructuralUnionKept::CCA),
    ]);
    rules
}
