//! Local `$ref`s replaced by their targets, for wire formats without references (Google's).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::{Held, Rule, RuleReport, merge_siblings};
use crate::adapt::report::{LossKind, Pointer};
use crate::keys::Keys;
use crate::walk::{
    SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS, resolve_local,
};

/// Inlines every local `$ref` (siblings win over the target's keywords) and removes the root's
/// `$defs`/`definitions`. Recursion is unrolled: a definition already being expanded `unroll`
/// times on the current path is cut (replaced by the permissive schema, with a description
/// saying so) and reported as `inlined`. Dangling and external references are dropped and
/// reported; nothing is fetched.
#[derive(Clone, Copy, Debug)]
pub struct InlineRefs {
    /// How many times one definition may be expanded inside itself.
    pub unroll: usize,
}

impl Default for InlineRefs {
    fn default() -> Self {
        InlineRefs { unroll: 2 }
    }
}

/// A use of a definition: where (the referring node, in the coordinates of the rule's input),
/// the definition, the keywords the referring node had itself, and when its expansion ended.
struct Use {
    site: Pointer,
    definition: String,
    kept: Vec<String>,
    ended: usize,
}

struct Ctx<'a> {
    root: &'a Value,
    unroll: usize,
    active: HashMap<String, usize>,
    /// Every reference expanded, to tell which definitions nothing uses.
    used: std::collections::HashSet<String>,
    /// Where each definition went, for positions recorded in it before: per reference, its
    /// first use outside the definitions and its first use at all (not counting uses inside
    /// its own expansion), each numbered in the order their expansions ended. Two per
    /// definition at most, so the log grows with the definitions, not with the uses.
    uses: HashMap<String, [Option<Use>; 2]>,
    ended: usize,
    /// Whether the node being expanded stands in the root's definitions (every position of an
    /// expansion starts with the reference it expands): known without reading a position's text,
    /// which for a reference at every level of a nesting made the rule quadratic in the depth.
    inside: bool,
    report: &'a mut RuleReport,
}

use crate::walk::escape;

/// Whether a position is inside the root's definitions.
fn in_definitions(at: &str) -> bool {
    at.starts_with("/$defs/") || at.starts_with("/definitions/")
}

impl Ctx<'_> {
    /// The expansion of `node` found at `at` (a pointer in the input).
    fn expand(&mut self, node: &Value, at: &Pointer) -> Value {
        crate::stack::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expand_inner(node, at))
    }

    fn expand_inner(&mut self, node: &Value, at: &Pointer) -> Value {
        let Value::Object(map) = node else {
            return node.clone();
        };
        if let Some(Value::String(reference)) = map.key("$ref") {
            let reference = reference.clone();
            let siblings: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| *k != "$ref")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let target = if reference.starts_with('#') {
                resolve_local(self.root, &reference)
            } else {
                None
            };
            let Some(target) = target else {
                let why = if reference.starts_with('#') {
                    "does not resolve"
                } else {
                    "points to another document, which is never fetched"
                };
                self.report.loss(at.child("$ref"), "$ref", LossKind::Dropped, format!("`$ref: {reference}` {why}; the node accepts any value of its other keywords"));
                return self.expand(&Value::Object(siblings), at);
            };
            let depth = self.active.get(&reference).copied().unwrap_or(0);
            if depth >= self.unroll {
                self.report.loss(at.child("$ref"), "$ref", LossKind::Inlined, format!("recursion through `{reference}` cut after {} levels: deeper values are not described", self.unroll));
                let mut cut = siblings;
                cut.entry("description").or_insert_with(|| {
                    json!(format!("(recursive `{reference}`, not expanded further)"))
                });
                return Value::Object(cut);
            }
            self.used.insert(reference.clone());
            *self.active.entry(reference.clone()).or_insert(0) += 1;
            let mut merged = match target {
                Value::Object(t) => t.clone(),
                Value::Bool(true) => Map::new(),
                other => {
                    let mut m = Map::new();
                    m.insert("not".into(), json!({}));
                    let _ = other;
                    m
                }
            };
            merged.take_key("$defs");
            merged.take_key("definitions");
            let target_at = reference.trim_start_matches('#').to_owned();
            let kept: Vec<String> = siblings.keys().cloned().collect();
            merge_siblings(&mut merged, siblings, &target_at, self.report);
            let site_inside = self.inside;
            self.inside = in_definitions(&target_at);
            let out = self.expand(&Value::Object(merged), &Pointer::parse(&target_at));
            self.inside = site_inside;
            if let Some(n) = self.active.get_mut(&reference) {
                *n -= 1;
            }
            // Where the definition went, for positions recorded in it before. A use inside its
            // own expansion (recursion) is not where it went.
            if depth == 0 && in_definitions(&target_at) {
                self.ended += 1;
                let uses = self.uses.entry(reference).or_default();
                let slot = usize::from(site_inside);
                if uses[slot].is_none() {
                    uses[slot] = Some(Use {
                        site: at.clone(),
                        definition: target_at,
                        kept,
                        ended: self.ended,
                    });
                }
            }
            return out;
        }
        let mut out = Map::new();
        for (key, value) in map {
            let k = key.as_str();
            let new = if SCHEMA_MAP_KEYWORDS.contains(&k) && k != "$defs" && k != "definitions" {
                match value {
                    Value::Object(entries) => Value::Object(
                        entries
                            .iter()
                            .map(|(name, sub)| {
                                (name.clone(), self.expand(sub, &at.child(k).child(name)))
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                }
            } else if SCHEMA_ARRAY_KEYWORDS.contains(&k) && value.is_array() {
                Value::Array(
                    value
                        .as_array()
                        .expect("checked")
                        .iter()
                        .enumerate()
                        .map(|(i, sub)| self.expand(sub, &at.child(k).index(i)))
                        .collect(),
                )
            } else if SINGLE_SCHEMA_KEYWORDS.contains(&k) {
                self.expand(value, &at.child(k))
            } else {
                value.clone()
            };
            out.insert(key.clone(), new);
        }
        Value::Object(out)
    }
}

impl Rule for InlineRefs {
    fn name(&self) -> &'static str {
        "inline-refs"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("$ref") || held.may_hold("$defs") || held.may_hold("definitions")
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::moves_and_adds(held, &["description", "not"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let has_refs = crate::walk::Walk::new(schema)
            .nodes
            .iter()
            .any(|(n, _)| n.key("$ref").is_some());
        let has_defs = schema.key("$defs").is_some() || schema.key("definitions").is_some();
        if !has_refs && !has_defs {
            return;
        }
        let mut root = schema.clone();
        if let Value::Object(m) = &mut root {
            m.take_key("$defs");
            m.take_key("definitions");
        }
        let mut ctx = Ctx {
            root: schema,
            unroll: self.unroll,
            active: HashMap::new(),
            used: std::collections::HashSet::new(),
            uses: HashMap::new(),
            ended: 0,
            inside: false,
            report,
        };
        // The root itself is expanded as `#`, so `$ref: "#"` counts as recursion.
        ctx.active.insert("#".to_owned(), 1);
        let out = ctx.expand(&root, &Pointer::root());
        // Definitions no reference reaches leave with `$defs`, and say so.
        let used = std::mem::take(&mut ctx.used);
        let uses = std::mem::take(&mut ctx.uses);
        for defs in ["$defs", "definitions"] {
            let Some(Value::Object(entries)) = schema.get(defs) else {
                continue;
            };
            for name in entries.keys() {
                let at = format!("/{}/{}", escape(defs), escape(name));
                if !used.contains(&format!("#{at}")) {
                    report.loss(
                        &at,
                        defs,
                        LossKind::Dropped,
                        format!("definition `{name}` is referenced nowhere; removed with `{defs}`"),
                    );
                }
            }
        }
        if has_defs {
            report.change("", "local references inlined; `$defs` removed");
        }
        // Logged after every entry of this rule, which names places as the input had them.
        // Each definition went to its first use outside the definitions, else to its first use
        // (inside another definition, whose own move, logged after, takes it on: moves in the
        // order their expansions ended put a definition used inside another first).
        let mut moves: Vec<Use> = uses
            .into_values()
            .filter_map(|[outside, inside]| outside.or(inside))
            .collect();
        moves.sort_unstable_by_key(|u| u.ended);
        for u in moves {
            report.inlined(u.site, Pointer::parse(&u.definition), u.kept);
        }
        *schema = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An internally tagged newtype variant: schemars puts the tag property next to a `$ref` to
    /// the struct. Both apply, so inlining keeps the struct's fields and the tag.
    #[test]
    fn sibling_properties_and_required_are_united_with_the_target() {
        let mut v = json!({"type": "object", "properties": {"v": {
            "type": "object", "properties": {"kind": {"const": "w"}}, "required": ["kind"],
            "$ref": "#/$defs/P"
        }}, "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}});
        let mut r = RuleReport::default();
        InlineRefs::default().apply(&mut v, &mut r);
        let node = &v["properties"]["v"];
        assert_eq!(
            node["properties"],
            json!({"x": {"type": "number"}, "kind": {"const": "w"}})
        );
        assert_eq!(node["required"], json!(["x", "kind"]));
        assert!(r.losses.is_empty(), "{:?}", r.losses);
    }

    #[test]
    fn inlines_and_cuts_recursion() {
        let mut v = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A", "description": "the a"},
                "tree": {"$ref": "#/$defs/Tree"},
                "self": {"$ref": "#"},
                "gone": {"$ref": "#/$defs/Nope"},
                "$defs": {"type": "string"}
            },
            "$defs": {
                "A": {"type": "string", "description": "an A"},
                "Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
            }
        });
        let mut r = RuleReport::default();
        InlineRefs::default().apply(&mut v, &mut r);
        let p = &v["properties"];
        // The field's text first, then the definition's: neither is lost.
        assert_eq!(
            p["a"],
            json!({"type": "string", "description": "the a\n\nan A"})
        );
        assert_eq!(
            p["tree"]["properties"]["kids"]["items"]["properties"]["kids"]["items"]["description"],
            "(recursive `#/$defs/Tree`, not expanded further)"
        );
        assert_eq!(
            p["$defs"],
            json!({"type": "string"}),
            "a property named `$defs` stays"
        );
        assert!(v.key("$defs").is_none());
        assert!(
            p["self"]["properties"]["self"]["description"]
                .as_str()
                .unwrap()
                .contains("recursive `#`")
        );
        assert_eq!(p["gone"], json!({}));
        let kinds: Vec<_> = r.losses.iter().map(|l| l.kind).collect();
        assert!(kinds.contains(&LossKind::Inlined) && kinds.contains(&LossKind::Dropped));
    }
}
