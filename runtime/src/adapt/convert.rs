//! A whole catalog to a provider's tool declarations. One bad tool never fails the conversion:
//! it falls back, and the report says which and why.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use super::{AdaptOptions, AdaptSettings, Adapted, Loss, LossKind, Pointer, Target};
use crate::catalog::Catalog;
use crate::keys::Keys;

/// What happened to one tool.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct ConvertReport {
    /// The target.
    pub target: Target,
    /// One entry per tool, in order.
    pub tools: Vec<ToolReport>,
}

/// The provider's declarations and the report.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Converted<'a> {
    /// The wire form: an array of declarations, or MCP's `{"tools": [...]}`.
    pub declarations: Value,
    /// What changed and what was lost, per tool.
    pub report: ConvertReport,
    /// Every tool's adaptation, in order (borrowing its input from the catalog:
    /// [`Adapted::into_owned`] keeps one longer).
    pub adapted: Vec<Adapted<'a>>,
}

/// Optional parameters and union-typed parameters of a schema, at every level.
fn parameter_counts(schema: &Value) -> (usize, usize) {
    let (mut optional, mut unions) = (0, 0);
    for (node, _) in crate::walk::Walk::new(schema).nodes {
        let Some(Value::Object(props)) = node.key("properties") else {
            continue;
        };
        let required: Vec<&str> = node
            .key("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, p) in props {
            if !required.contains(&name.as_str()) {
                optional += 1;
            }
            if p.key("anyOf").is_some() || p.key("type").is_some_and(Value::is_array) {
                unions += 1;
            }
        }
    }
    (optional, unions)
}

/// Converts every tool of a catalog for `target`.
pub fn convert(catalog: &Catalog, target: Target) -> Converted<'_> {
    convert_with(catalog, target, AdaptOptions::default())
}

/// [`convert`] with the choices a target leaves to the caller.
pub fn convert_with(catalog: &Catalog, target: Target, options: AdaptOptions) -> Converted<'_> {
    convert_for(catalog, &target.settings().with_options(options))
}

/// [`convert`] with a provider's settings, as adjusted by the caller.
pub fn convert_for<'a>(catalog: &'a Catalog, settings: &AdaptSettings) -> Converted<'a> {
    let tools = catalog.tools.iter().map(|t| {
        let schema = Cow::Borrowed(&t.schema);
        (t.name.clone(), t.description.clone(), schema)
    });
    let mut entries = adapt_tools(tools, settings, true);
    let (declarations, report) = declare(settings, &mut entries, |a| {
        (a.schema.clone(), a.losses.clone())
    });
    Converted {
        declarations,
        report,
        adapted: entries.into_iter().map(|e| e.adapted).collect(),
    }
}

/// [`convert_for`] taking the catalog by value, for a caller that only sends the result on
/// (the CLI): each input is dropped as soon as its tool is adapted, and each adapted schema
/// moves into its declaration, so no [`Adapted`] is kept. The same wire form and report as
/// [`convert_for`]'s.
pub fn convert_owned(catalog: Catalog, settings: &AdaptSettings) -> (Value, ConvertReport) {
    let tools = catalog
        .tools
        .into_iter()
        .map(|t| (t.name, t.description, Cow::Owned(t.schema)));
    let mut entries = adapt_tools(tools, settings, false);
    declare(settings, &mut entries, |a| {
        (std::mem::take(&mut a.schema), std::mem::take(&mut a.losses))
    })
}

/// One tool as converted: the name sent, the name it had when that was rewritten, its
/// description and its adaptation.
struct Entry<'a> {
    name: String,
    renamed_from: Option<String>,
    description: Option<String>,
    adapted: Adapted<'a>,
}

/// Adapts with `settings`, borrowing or taking the input as given.
fn adapt_cow<'a>(settings: &AdaptSettings, input: Cow<'a, Value>) -> Adapted<'a> {
    match input {
        Cow::Borrowed(v) => settings.adapt(v),
        Cow::Owned(v) => settings.adapt_owned(v),
    }
}

/// Every tool's name (a name the provider accepts is kept on its first use; only refused and
/// repeated names are rewritten, never into a name another tool keeps) and adaptation, within
/// the provider's per-request strict budget, in order. Without `keep_inputs` each input is
/// dropped once its tool is adapted.
fn adapt_tools<'a>(
    tools: impl Iterator<Item = (Option<String>, Option<String>, Cow<'a, Value>)>,
    settings: &AdaptSettings,
    keep_inputs: bool,
) -> Vec<Entry<'a>> {
    let target = settings.target;
    let rule = settings.names;
    let tools: Vec<_> = tools.collect();
    let originals: Vec<String> = tools
        .iter()
        .map(|t| t.0.clone().unwrap_or_else(|| "tool".to_owned()))
        .collect();
    let mut kept: Vec<bool> = vec![false; originals.len()];
    let mut taken: HashSet<String> = HashSet::new();
    for (i, original) in originals.iter().enumerate() {
        if rule.fits(original) && taken.insert(original.clone()) {
            kept[i] = true;
        }
    }
    let (mut used_tools, mut used_optional, mut used_unions) = (0usize, 0usize, 0usize);
    let mut entries = Vec::with_capacity(tools.len());
    for (((_, description, schema), original), kept) in tools.into_iter().zip(originals).zip(kept) {
        let name = if kept {
            original.clone()
        } else {
            let name = rule.rewrite(&original, &taken);
            taken.insert(name.clone());
            name
        };
        let mut adapted = adapt_cow(settings, schema);
        if let (Some(budget), Some(true)) = (settings.budget, adapted.strict) {
            let (optional, unions) = parameter_counts(&adapted.schema);
            let over = used_tools + 1 > budget.tools
                || used_optional + optional > budget.optional
                || used_unions + unions > budget.unions;
            if over {
                let relaxed_settings = AdaptSettings {
                    options: settings.options,
                    kept_keywords: settings.kept_keywords.clone(),
                    ..budget.relaxed.settings()
                };
                let input = std::mem::replace(&mut adapted.input, Cow::Owned(Value::Null));
                let mut relaxed = adapt_cow(&relaxed_settings, input);
                relaxed.target = target;
                relaxed.losses.insert(0, Loss {
                    pointer: Pointer::root(),
                    at: Some(Pointer::root()),
                    keyword: "strict".into(),
                    kind: LossKind::Fallback,
                    detail: format!(
                        "sent non-strict: {} allows {} strict tools, {} optional and {} union-typed parameters per request, and the tools before this one used {used_tools}, {used_optional} and {used_unions} (this one needs 1, {optional}, {unions})",
                        budget.provider, budget.tools, budget.optional, budget.unions
                    ),
                    rule: "strict-budget",
                    epoch: 0,
                });
                adapted = relaxed;
            } else {
                used_tools += 1;
                used_optional += optional;
                used_unions += unions;
            }
        }
        if !keep_inputs {
            adapted.input = Cow::Owned(Value::Null);
        }
        let renamed_from = (name != original).then_some(original);
        entries.push(Entry {
            name,
            renamed_from,
            description,
            adapted,
        });
    }
    entries
}

/// The wire form and the report of converted tools; `take` gives each tool's schema and losses
/// (copied, or moved out).
fn declare(
    settings: &AdaptSettings,
    entries: &mut [Entry<'_>],
    take: impl Fn(&mut Adapted<'_>) -> (Value, Vec<Loss>),
) -> (Value, ConvertReport) {
    let any_strict = entries.iter().any(|e| e.adapted.strict == Some(true));
    let flag = |a: &Adapted| -> Option<bool> {
        match a.strict {
            Some(true) => Some(true),
            // In a catalog that mixes strict and non-strict tools, say `false` explicitly.
            Some(false) if any_strict => Some(false),
            _ => None,
        }
    };
    let mut declarations = Vec::with_capacity(entries.len());
    let mut tools = Vec::with_capacity(entries.len());
    for entry in entries {
        let strict = flag(&entry.adapted);
        let fallback = entry.adapted.fallback;
        let (schema, losses) = take(&mut entry.adapted);
        declarations.push(settings.wire.declaration(
            &entry.name,
            entry.description.as_deref(),
            schema,
            strict,
        ));
        tools.push(ToolReport {
            tool: entry.name.clone(),
            renamed_from: entry.renamed_from.clone(),
            strict,
            fallback,
            losses,
        });
    }
    let report = ConvertReport {
        target: settings.target,
        tools,
    };
    (settings.wire.envelope(declarations), report)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::adapt::NameRule;

    #[test]
    fn names() {
        use NameRule::*;
        assert!(Plain.fits("browser_navigate"));
        assert!(!Plain.fits("fs.read"));
        assert!(Google.fits("fs.read:v2"));
        assert!(!Google.fits("2fa"));
        assert!(Any.fits("anything goes"));
        let mut taken = HashSet::new();
        assert_eq!(Plain.rewrite("fs.read", &taken), "fs_read");
        taken.insert("fs_read".to_owned());
        assert_eq!(Plain.rewrite("fs/read", &taken), "fs_read_2");
        assert_eq!(Plain.rewrite(&"x".repeat(100), &HashSet::new()).len(), 64);
        assert_eq!(Plain.rewrite("", &HashSet::new()), "tool");
        assert_eq!(Google.rewrite("2fa check", &HashSet::new()), "_2fa_check");
    }

    #[test]
    fn converting_by_value_sends_what_converting_by_reference_sends() {
        // A real catalog of 40+ tools: over Anthropic's strict budget, with renames for Google.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/tools/github-mcp-server.json"
        );
        let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let catalog = Catalog::from_value(value).unwrap();
        for &target in Target::ALL {
            let settings = target.settings();
            let by_ref = convert_for(&catalog, &settings);
            let (declarations, report) = convert_owned(catalog.clone(), &settings);
            assert_eq!(declarations, by_ref.declarations, "{target}");
            assert_eq!(report, by_ref.report, "{target}");
        }
        let budgeted = convert_for(&catalog, &Target::AnthropicStrict.settings());
        assert!(
            budgeted
                .report
                .tools
                .iter()
                .any(|t| t.losses.iter().any(|l| l.rule == "strict-budget")),
            "the fixture must exceed the strict budget"
        );
    }
}
