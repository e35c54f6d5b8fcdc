//! Claude through Google Cloud Code Assist / Antigravity: Google's `parameters` wire with
//! Claude's validator behind it (no public schema reference: the rules follow the errors it
//! returns).

use super::super::rules::{
    CollapseCombiners, EnsureProperties, InferType, InlineRefs, MergeSingleAllOf, MetaValidate,
    NullablePropertiesOptional, RequiredAreProperties, ResidualGate, Rule, StructuredFirst,
};
use super::super::settings::{AdaptSettings, NameRule, TreeRules, Wire, no_rules};
use super::super::tree;
use super::super::{AdaptOptions, Target};
use super::google::{google_prefix, google_strip, google_values};
use super::json_schema_prefix;

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
            // As Gemini's: a long pipeline, most of whose rules most tools give nothing to do.
            shared: no_rules,
            strict: None,
            relaxed: rules,
            tree: Some(TreeRules {
                shared: |_| Vec::new(),
                strict: None,
                relaxed: tree_rules,
                meta_validate: true,
            }),
        }
    }
}

/// The list on the tree engine; the output is then checked against the meta-schema.
fn tree_rules(settings: &AdaptSettings) -> Vec<Box<dyn tree::Rule>> {
    use tree::rules as r;
    let mut rules = super::google::tree_google_prefix();
    rules.push(Box::new(r::MergeSingleAllOf));
    rules.push(Box::new(r::NullablePropertiesOptional));
    rules.push(Box::new(super::google::tree_google_strip(settings)));
    rules.extend(super::google::tree_google_values(false));
    rules.extend([
        Box::new(r::InlineRefs::default()) as Box<dyn tree::Rule>,
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
    ]);
    rules
}

fn rules(settings: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    let mut rules = json_schema_prefix();
    rules.extend(google_prefix());
    rules.push(Box::new(MergeSingleAllOf));
    rules.push(Box::new(NullablePropertiesOptional));
    rules.push(google_strip(settings));
    rules.extend(google_values(false));
    rules.extend([
        Box::new(InlineRefs::default()) as Box<dyn Rule>,
        Box::new(MergeSingleAllOf),
        // A property that was a `$ref` to a nullable definition is nullable only now.
        Box::new(NullablePropertiesOptional),
        Box::new(InferType),
        Box::new(StructuredFirst),
        Box::new(CollapseCombiners),
        // After unions are merged: every node then has the properties it is sent with.
        Box::new(RequiredAreProperties),
        Box::new(EnsureProperties),
        Box::new(ResidualGate),
        Box::new(MetaValidate),
    ]);
    rules
}
