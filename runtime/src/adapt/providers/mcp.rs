//! MCP `tools/list`: JSON Schema 2020-12 as the client receives it
//! (<https://modelcontextprotocol.io/specification/2025-06-18/server/tools>).

use super::super::rules::{ObjectRoot, PatternsCompile, RemoveSchemaUri, Rule, StructuredFirst};
use super::super::settings::{AdaptSettings, NameRule, TreeRules, Wire, no_rules};
use super::super::tree;
use super::super::{AdaptOptions, Target};

impl AdaptSettings {
    /// MCP `inputSchema`: only `$schema` and patterns that do not compile removed, an object root,
    /// and union branches ordered structured-first (clients that keep one branch keep the
    /// structured one).
    pub fn mcp() -> Self {
        AdaptSettings {
            target: Target::Mcp,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Any,
            wire: Wire::Mcp,
            budget: None,
            strict_flag: false,
            shared: no_rules,
            strict: None,
            relaxed: rules,
            tree: Some(TreeRules {
                shared: |_| Vec::new(),
                strict: None,
                relaxed: tree_rules,
                meta_validate: false,
            }),
        }
    }
}

fn rules(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(RemoveSchemaUri),
        Box::new(ObjectRoot),
        Box::new(PatternsCompile),
        Box::new(StructuredFirst),
    ]
}

fn tree_rules(_: &AdaptSettings) -> Vec<Box<dyn tree::Rule>> {
    vec![
        Box::new(tree::rules::RemoveSchemaUri),
        Box::new(tree::rules::ObjectRoot),
        Box::new(tree::rules::PatternsCompile),
        Box::new(tree::rules::StructuredFirst),
    ]
}
