//! MCP `tools/list`: JSON Schema 2020-12 as the client receives it
//! (<https://modelcontextprotocol.io/specification/2025-06-18/server/tools>).

use super::super::rules::{self as r, Rule};
use super::super::settings::{AdaptSettings, NameRule, Wire};
use super::super::{AdaptOptions, Target};

impl AdaptSettings {
    /// MCP `inputSchema`: only `$schema`, definitions nothing references and patterns that do
    /// not compile removed, an object root,
    /// and union branches ordered structured-first (clients that keep one branch keep the
    /// structured one); a structural union is reported, since clients may flatten it.
    pub fn mcp() -> Self {
        AdaptSettings {
            target: Target::Mcp,
            options: AdaptOptions::default(),
            kept_keywords: Vec::new(),
            names: NameRule::Any,
            wire: Wire::Mcp,
            budget: None,
            strict_flag: false,
            shared: |_| Vec::new(),
            strict: None,
            relaxed: rules,
            meta_validate: false,
            added: Vec::new(),
            removed: Vec::new(),
            encode: false,
        }
    }
}

fn rules(_: &AdaptSettings) -> Vec<Box<dyn Rule>> {
    vec![
        Box::new(r::UnreferencedDefinitions),
        Box::new(r::RemoveSchemaUri),
        Box::new(r::ObjectRoot),
        Box::new(r::RemoveRootTitle),
        Box::new(r::PatternsCompile),
        Box::new(r::StructuredFirst),
        Box::new(r::StructuralUnionKept::MCP),
        // What the root rules dropped may have been a definition's last use.
        Box::new(r::OrphanedDefinitions),
    ]
}
