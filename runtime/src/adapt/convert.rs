//! A whole catalog to a provider's tool declarations. One bad tool never fails the conversion:
//! it falls back, and the report says which and why.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{AdaptOptions, Adapted, Loss, LossKind, Target, adapt_with};
use crate::catalog::Catalog;

/// What happened to one tool.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolReport {
    /// The name sent.
    pub tool: String,
    /// The name in the input, when it had to be rewritten for the provider's name rule.
    pub renamed_from: Option<String>,
    /// The strict flag sent (`None`: not sent).
    pub strict: Option<bool>,
    /// The per-tool fallback was used.
    pub fallback: bool,
    /// What the provider no longer enforces.
    pub losses: Vec<Loss>,
}

/// The catalog's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConvertReport {
    /// The target.
    pub target: Target,
    /// One entry per tool, in order.
    pub tools: Vec<ToolReport>,
}

/// The provider's declarations and the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    /// The wire form: an array of declarations, or MCP's `{"tools": [...]}`.
    pub declarations: Value,
    /// What changed and what was lost, per tool.
    pub report: ConvertReport,
    /// Every tool's adaptation, in order.
    pub adapted: Vec<Adapted>,
}

/// A provider's tool-name rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NameRule {
    /// MCP: names pass through.
    Any,
    /// OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
    Plain,
    /// Google: `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`.
    Google,
}

fn allowed(rule: NameRule, c: char) -> bool {
    match rule {
        NameRule::Any => true,
        NameRule::Plain => c.is_ascii_alphanumeric() || c == '_' || c == '-',
        NameRule::Google => c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
    }
}

fn starts_well(rule: NameRule, name: &str) -> bool {
    rule != NameRule::Google
        || name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

fn fits_name_rule(rule: NameRule, name: &str) -> bool {
    rule == NameRule::Any
        || (!name.is_empty()
            && name.len() <= 64
            && starts_well(rule, name)
            && name.chars().all(|c| allowed(rule, c)))
}

fn rewrite_name(rule: NameRule, name: &str, taken: &HashSet<String>) -> String {
    let mut base: String = name
        .chars()
        .map(|c| if allowed(rule, c) { c } else { '_' })
        .collect();
    if !base.is_empty() && !starts_well(rule, &base) {
        base.insert(0, '_');
    }
    base.truncate(64);
    if base.is_empty() {
        base = "tool".into();
    }
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        let suffix = format!("_{n}");
        let mut b = base.clone();
        b.truncate(64 - suffix.len());
        candidate = format!("{b}{suffix}");
        n += 1;
    }
    candidate
}

/// Anthropic's per-request limits on strict schemas (providers.md section 4).
struct AnthropicBudget {
    tools: usize,
    optional: usize,
    unions: usize,
}

impl AnthropicBudget {
    const TOOLS: usize = 20;
    const OPTIONAL: usize = 24;
    const UNIONS: usize = 16;
}

/// Optional parameters and union-typed parameters of a schema, at every level.
fn parameter_counts(schema: &Value) -> (usize, usize) {
    let (mut optional, mut unions) = (0, 0);
    for (node, _) in crate::walk::Walk::new(schema).nodes {
        let Some(Value::Object(props)) = node.get("properties") else {
            continue;
        };
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, p) in props {
            if !required.contains(&name.as_str()) {
                optional += 1;
            }
            if p.get("anyOf").is_some() || p.get("type").is_some_and(Value::is_array) {
                unions += 1;
            }
        }
    }
    (optional, unions)
}

/// Converts every tool of a catalog for `target`.
pub fn convert(catalog: &Catalog, target: Target) -> Converted {
    convert_with(catalog, target, AdaptOptions::default())
}

/// [`convert`] with the choices a target leaves to the caller.
pub fn convert_with(catalog: &Catalog, target: Target, options: AdaptOptions) -> Converted {
    let rule = match target {
        Target::Mcp => NameRule::Any,
        Target::Gemini | Target::GeminiOpenApi | Target::CcaClaude => NameRule::Google,
        _ => NameRule::Plain,
    };
    let mut taken: HashSet<String> = HashSet::new();
    let mut budget = AnthropicBudget {
        tools: 0,
        optional: 0,
        unions: 0,
    };
    let mut entries: Vec<(String, Option<String>, Option<String>, Adapted)> = Vec::new();
    for tool in &catalog.tools {
        let original = tool.name.clone().unwrap_or_else(|| "tool".to_owned());
        let name = if !fits_name_rule(rule, &original) || taken.contains(&original) {
            rewrite_name(rule, &original, &taken)
        } else {
            original.clone()
        };
        taken.insert(name.clone());
        let mut adapted = adapt_with(&tool.schema, target, options);
        if target == Target::AnthropicStrict && adapted.strict == Some(true) {
            let (optional, unions) = parameter_counts(&adapted.schema);
            let over = budget.tools + 1 > AnthropicBudget::TOOLS
                || budget.optional + optional > AnthropicBudget::OPTIONAL
                || budget.unions + unions > AnthropicBudget::UNIONS;
            if over {
                let mut relaxed = adapt_with(&tool.schema, Target::Anthropic, options);
                relaxed.target = target;
                relaxed.losses.insert(0, Loss {
                    pointer: String::new(),
                    at: Some(String::new()),
                    keyword: "strict".into(),
                    kind: LossKind::Fallback,
                    detail: format!(
                        "sent non-strict: Anthropic allows {} strict tools, {} optional and {} union-typed parameters per request, and the tools before this one used {}, {} and {} (this one needs 1, {optional}, {unions})",
                        AnthropicBudget::TOOLS, AnthropicBudget::OPTIONAL, AnthropicBudget::UNIONS, budget.tools, budget.optional, budget.unions
                    ),
                });
                adapted = relaxed;
            } else {
                budget.tools += 1;
                budget.optional += optional;
                budget.unions += unions;
            }
        }
        let renamed_from = (name != original).then_some(original);
        entries.push((name, renamed_from, tool.description.clone(), adapted));
    }
    let any_strict = entries.iter().any(|e| e.3.strict == Some(true));
    let flag = |a: &Adapted| -> Option<bool> {
        match a.strict {
            Some(true) => Some(true),
            // In a catalog that mixes strict and non-strict tools, say `false` explicitly.
            Some(false) if any_strict => Some(false),
            _ => None,
        }
    };
    let mut declarations = Vec::new();
    let mut tools = Vec::new();
    for (name, renamed_from, description, adapted) in &entries {
        let strict = flag(adapted);
        let mut decl = Map::new();
        let description = description.clone().map_or(Value::Null, Value::String);
        match target {
            Target::Mcp => {
                decl.insert("name".into(), json!(name));
                if !description.is_null() {
                    decl.insert("description".into(), description);
                }
                decl.insert("inputSchema".into(), adapted.schema.clone());
            }
            Target::OpenAi | Target::OpenAiStrict => {
                let mut function = Map::new();
                function.insert("name".into(), json!(name));
                if !description.is_null() {
                    function.insert("description".into(), description);
                }
                function.insert("parameters".into(), adapted.schema.clone());
                if let Some(s) = strict {
                    function.insert("strict".into(), json!(s));
                }
                decl.insert("type".into(), json!("function"));
                decl.insert("function".into(), Value::Object(function));
            }
            Target::OpenAiResponses => {
                decl.insert("type".into(), json!("function"));
                decl.insert("name".into(), json!(name));
                if !description.is_null() {
                    decl.insert("description".into(), description);
                }
                decl.insert("parameters".into(), adapted.schema.clone());
                if let Some(s) = strict {
                    decl.insert("strict".into(), json!(s));
                }
            }
            Target::Anthropic | Target::AnthropicStrict => {
                decl.insert("name".into(), json!(name));
                if !description.is_null() {
                    decl.insert("description".into(), description);
                }
                decl.insert("input_schema".into(), adapted.schema.clone());
                if let Some(s) = strict {
                    decl.insert("strict".into(), json!(s));
                }
            }
            Target::Gemini | Target::GeminiOpenApi | Target::CcaClaude => {
                decl.insert("name".into(), json!(name));
                if !description.is_null() {
                    decl.insert("description".into(), description);
                }
                let field = if target == Target::Gemini {
                    "parametersJsonSchema"
                } else {
                    "parameters"
                };
                decl.insert(field.into(), adapted.schema.clone());
            }
        }
        declarations.push(Value::Object(decl));
        tools.push(ToolReport {
            tool: name.clone(),
            renamed_from: renamed_from.clone(),
            strict,
            fallback: adapted.fallback,
            losses: adapted.losses.clone(),
        });
    }
    let declarations = match target {
        Target::Mcp => json!({"tools": declarations}),
        Target::Gemini | Target::GeminiOpenApi | Target::CcaClaude => {
            json!({"functionDeclarations": declarations})
        }
        _ => Value::Array(declarations),
    };
    Converted {
        declarations,
        report: ConvertReport { target, tools },
        adapted: entries.into_iter().map(|e| e.3).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        use NameRule::*;
        assert!(fits_name_rule(Plain, "browser_navigate"));
        assert!(!fits_name_rule(Plain, "fs.read"));
        assert!(fits_name_rule(Google, "fs.read:v2"));
        assert!(!fits_name_rule(Google, "2fa"));
        assert!(fits_name_rule(Any, "anything goes"));
        let mut taken = HashSet::new();
        assert_eq!(rewrite_name(Plain, "fs.read", &taken), "fs_read");
        taken.insert("fs_read".to_owned());
        assert_eq!(rewrite_name(Plain, "fs/read", &taken), "fs_read_2");
        assert_eq!(
            rewrite_name(Plain, &"x".repeat(100), &HashSet::new()).len(),
            64
        );
        assert_eq!(rewrite_name(Plain, "", &HashSet::new()), "tool");
        assert_eq!(
            rewrite_name(Google, "2fa check", &HashSet::new()),
            "_2fa_check"
        );
    }
}
