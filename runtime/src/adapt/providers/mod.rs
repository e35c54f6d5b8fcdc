//! One constructor per provider: each builds the [`AdaptSettings`] of one target, with its
//! rules in order and its keyword tables, and links the provider's own documentation.

mod anthropic;
mod cca;
mod google;
mod mcp;
mod openai;

use super::rules::{
    Fused, ObjectRoot, PatternsCompile, RemoveSchemaUri, Rule, StripKeywords, UpgradeDraft07,
};
use super::settings::AdaptSettings;
use super::tree;
use serde_json::Value;

/// What every target but MCP starts with: draft-07 forms upgraded and `$schema` removed (in one
/// walk: the removal reads and changes only the node's own `$schema`), an object root, and no
/// `pattern` that does not compile.
fn json_schema_prefix() -> Vec<Box<dyn Rule>> {
    // Room for the longest list a provider builds on it (Cloud Code Assist's 21 rules), so that
    // the list each adaptation builds is allocated once.
    let mut rules: Vec<Box<dyn Rule>> = Vec::with_capacity(24);
    rules.push(Box::new(Fused::new(
        "upgrade-draft-07, remove-schema-uri",
        vec![Box::new(UpgradeDraft07), Box::new(RemoveSchemaUri)],
    )));
    rules.push(Box::new(ObjectRoot));
    rules.push(Box::new(PatternsCompile));
    rules
}

/// A keyword table as a rule, with the caller's kept keywords exempted.
fn strip_keywords(
    settings: &AdaptSettings,
    name: &'static str,
    keywords: &'static [&'static str],
    why: &'static str,
    keep: fn(&str, &Value) -> bool,
) -> StripKeywords {
    StripKeywords {
        name,
        keywords,
        spill: super::rules::keywords::HUMAN_READABLE,
        why,
        keep,
        also_keep: settings.kept_keywords.clone(),
    }
}

/// [`json_schema_prefix`] on the tree engine.
fn tree_prefix() -> Vec<Box<dyn tree::Rule>> {
    vec![
        Box::new(tree::rules::UpgradeDraft07),
        Box::new(tree::rules::RemoveSchemaUri),
        Box::new(tree::rules::ObjectRoot),
        Box::new(tree::rules::PatternsCompile),
    ]
}

/// [`strip_keywords`] on the tree engine.
fn tree_strip_keywords(
    settings: &AdaptSettings,
    name: &'static str,
    keywords: &'static [&'static str],
    why: &'static str,
    keep: fn(&str, &Value) -> bool,
) -> tree::rules::StripKeywords {
    tree::rules::StripKeywords {
        name,
        keywords,
        spill: super::rules::keywords::HUMAN_READABLE,
        why,
        keep,
        also_keep: settings.kept_keywords.clone(),
    }
}
