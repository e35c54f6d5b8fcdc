//! What a grammar engine built on a regex engine without backtracking refuses (llguidance: its
//! `derivre` parses with Rust's `regex-syntax`): lookaround, back-references, word boundaries, an
//! intersection of a pattern and a format; and a root no arguments can satisfy, which such an
//! engine refuses to compile.

use std::collections::HashSet;

use serde_json::Value;

use super::keywords::Strip;
use super::{HUMAN_READABLE, keep_none};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// Whether a regular expression uses what a regex engine without backtracking (Rust's
/// `regex-syntax`, which llguidance's `derivre` parses with) cannot: lookaround, back-references,
/// word boundaries.
pub(crate) fn needs_backtracking(pattern: &str) -> Option<&'static str> {
    if ["(?=", "(?!", "(?<=", "(?<!"]
        .iter()
        .any(|l| pattern.contains(l))
    {
        return Some("lookaround");
    }
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('1'..='9') | Some('k') => return Some("a back-reference"),
                Some('b') | Some('B') => return Some("a word boundary"),
                _ => {}
            }
        }
    }
    None
}

/// Every `pattern` (and `patternProperties` name) a regex engine without backtracking cannot
/// compile (`needs_backtracking`) spilled into the description (a `patternProperties` entry
/// dropped), each a loss: llguidance refuses the whole schema over one.
#[derive(Clone, Copy, Debug, Default)]
pub struct RegexEnginePatterns;

impl Rule for RegexEnginePatterns {
    fn name(&self) -> &'static str {
        "regex-engine-patterns"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds_any(&[Keyword::Pattern, Keyword::PatternProperties]) {
            return;
        }
        tree.walk(|tree, id| {
            let pattern = tree.value(id, Keyword::Pattern).and_then(Value::as_str);
            let refused = pattern.and_then(needs_backtracking).map(|why| {
                format!("the grammar engine's regular expressions have no {why}")
            });
            // A pattern beside a format is the intersection of two regular expressions, which
            // llguidance cannot always decide ("Unable to determine if regex is empty"): the
            // format is kept.
            let refused = refused.or_else(|| {
                (pattern.is_some() && tree.has(id, Keyword::Format)).then(|| {
                    "the grammar engine cannot always intersect a pattern with a format, which is kept".to_owned()
                })
            });
            if let Some(why) = refused {
                Strip {
                    removed: &|k| *k == Key::Kw(Keyword::Pattern),
                    spill: HUMAN_READABLE,
                    why: &why,
                    keep: keep_none,
                    also_keep: &[],
                }
                .node(tree, id, report);
            }
            one_regex_across_all_of(tree, id, report);
            let Some(Slot::Map(entries)) = tree.get(id, Keyword::PatternProperties).map(|e| &e.value)
            else {
                return;
            };
            let gone: Vec<(String, NodeId)> = (entries.iter())
                .filter(|(name, _)| needs_backtracking(name).is_some())
                .cloned()
                .collect();
            if gone.is_empty() {
                return;
            }
            if let Some(Slot::Map(entries)) = tree.slot_mut(id, Keyword::PatternProperties) {
                entries.retain(|(name, _)| needs_backtracking(name).is_none());
            }
            for (name, node) in gone {
                let origin = tree.node(node).origin;
                report.loss(
                    origin,
                    Some(id),
                    "patternProperties",
                    LossKind::Dropped,
                    format!("the `patternProperties` entry `{name}` removed: the grammar engine's regular expressions cannot match its name"),
                );
            }
            if matches!(tree.get(id, Keyword::PatternProperties).map(|e| &e.value), Some(Slot::Map(m)) if m.is_empty())
            {
                tree.take(id, Keyword::PatternProperties);
            }
        });
    }
}

/// The members of an `allOf` all hold, so their formats and patterns (at the node, and wherever
/// two members describe the same place inside) are intersected, which llguidance cannot always
/// decide: of the node's and everything inside its members, the first `format` or `pattern` is
/// kept and the others are spilled, each a loss.
fn one_regex_across_all_of(tree: &mut Tree, id: NodeId, report: &mut Report) {
    let Some(Slot::Schemas(members)) = tree.get(id, Keyword::AllOf).map(|e| &e.value) else {
        return;
    };
    // The members and every node inside them: llguidance merges the members, so a string
    // described in two of them (the same property, map values, items, a union's branch) is an
    // intersection; which ones meet is not worked out here, only one is kept in the whole.
    let mut same_value = Vec::new();
    let mut work: Vec<NodeId> = members.iter().rev().copied().collect();
    while let Some(n) = work.pop() {
        same_value.push(n);
        let children: Vec<NodeId> = tree.children(n).collect();
        work.extend(children.into_iter().rev());
    }
    let regex = [Keyword::Format, Keyword::Pattern];
    let mut kept = regex.iter().any(|k| tree.has(id, *k));
    for m in same_value {
        let here: Vec<Keyword> = regex.iter().copied().filter(|k| tree.has(m, *k)).collect();
        if here.is_empty() {
            continue;
        }
        let removed: Vec<Keyword> = if kept { here } else { here[1..].to_vec() };
        kept = true;
        if removed.is_empty() {
            continue;
        }
        Strip {
            removed: &|k| matches!(k, Key::Kw(k) if removed.contains(k)),
            spill: HUMAN_READABLE,
            why: "the grammar engine cannot always intersect the formats and patterns of an `allOf`'s members; the first is kept",
            keep: keep_none,
            also_keep: &[],
        }
        .node(tree, m, report);
    }
}

/// A root that requires a property whose schema is `false` (or `not: {}`): no arguments are
/// valid, and a grammar engine refuses to compile it ("Unsatisfiable schema"), failing the whole
/// request. The tool falls back to the empty object, a `fallback` loss saying why.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnsatisfiableRoot;

impl Rule for UnsatisfiableRoot {
    fn name(&self) -> &'static str {
        "unsatisfiable-root"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        let required: HashSet<String> = (tree
            .value(root, Keyword::Required)
            .and_then(Value::as_array))
        .map(|r| {
            r.iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
        let Some(Slot::Map(properties)) = tree.get(root, Keyword::Properties).map(|e| &e.value)
        else {
            return;
        };
        let never = |id: NodeId| match &tree.node(id).body {
            Body::Bool(false) => true,
            Body::Object(entries) => {
                entries.len() == 1
                    && entries[0].key == Keyword::Not
                    && matches!(&entries[0].value, Slot::Schema(n) if matches!(&tree.node(*n).body, Body::Bool(true)) || tree.entries(*n).is_empty() && tree.is_object(*n))
            }
            _ => false,
        };
        let impossible = (properties.iter())
            .find(|(name, id)| required.contains(name) && never(*id))
            .map(|(name, _)| name.clone());
        if let Some(name) = impossible {
            report.fail(
                crate::adapt::tree::Refused::root(),
                format!("the required property `{name}` accepts no value, so no arguments are valid and the grammar engine refuses the schema"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapt::rules::apply;

    fn run(rule: impl Rule + 'static, schema: Value) -> crate::adapt::rules::Applied {
        apply(&mut [Box::new(rule) as Box<dyn Rule>], &schema)
    }

    #[test]
    fn patterns_a_regex_engine_cannot_compile_are_spilled() {
        let out = run(
            RegexEnginePatterns,
            json!({"type": "object", "properties": {"p": {"type": "string", "pattern": r"^(a)\1$"}, "q": {"type": "string", "pattern": "^[a-z]+$"}},
                   "patternProperties": {"^(?!x-)": {"type": "string"}, "^y-": {"type": "integer"}}}),
        );
        assert!(out.schema["properties"]["p"].get("pattern").is_none());
        assert_eq!(out.schema["properties"]["q"]["pattern"], "^[a-z]+$");
        assert_eq!(
            out.schema["patternProperties"],
            json!({"^y-": {"type": "integer"}})
        );
        assert!(
            out.losses
                .iter()
                .any(|l| l.keyword == "pattern" && l.detail.contains("back-reference"))
        );
        assert!(out.losses.iter().any(|l| l.keyword == "patternProperties"
            && l.pointer.as_str() == "/patternProperties/^(?!x-)"));
    }
}
