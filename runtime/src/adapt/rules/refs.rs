//! `$ref` forms strict providers reject: a single-element `allOf`, and `$ref` with siblings.

use serde_json::{Map, Value};

use super::{Held, Rule, RuleReport, joined_description, merge_siblings};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, visit};
use crate::keys::Keys;
use crate::walk::{Walk, pointer, resolve_local};

/// `allOf: [S]` with one schema: `S` merged into the node (schemars' draft-07 form of a
/// documented `$ref` field). Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct MergeSingleAllOf;

impl Rule for MergeSingleAllOf {
    fn name(&self) -> &'static str {
        "merge-single-allof"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("allOf")
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::moves_and_adds(held, &["description"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            // The merged entry may itself be an `allOf` of one (nested): merged in turn, so the
            // output is a fixed point (bounded: each round removes one level).
            for _ in 0..64 {
                let single = matches!(map.key("allOf"), Some(Value::Array(a)) if a.len() == 1 && a[0].is_object());
                if !single {
                    return;
                }
                let Some(Value::Array(mut all)) = map.take_key("allOf") else {
                    unreachable!()
                };
                let Value::Object(entry) = all.remove(0) else {
                    unreachable!()
                };
                // The entry's keywords over the node's, the node's own description first.
                let description =
                    joined_description(map.key("description"), entry.key("description"));
                // Logged as moved, so that what later rules record in the entry is named where
                // it stands in the input (not in the first branch of the node's that has the
                // same keyword).
                let mut keys = Vec::with_capacity(entry.len());
                for (k, v) in entry {
                    if k != "description" {
                        keys.push(k.clone());
                    }
                    map.insert(k, v);
                }
                if let Some(d) = description {
                    map.insert("description".into(), d);
                }
                let at = path.pointer();
                report.lifted(&at, at.child("allOf").index(0), keys, true);
                report.change(at, "`allOf` of one schema merged into the node");
            }
        });
    }
}

/// `$ref` next to other keywords (OpenAI: "$ref cannot have keywords {'description'}"): the
/// target is inlined and the siblings merged over it. A `$ref` to the root (`#`) cannot be
/// inlined; its annotation siblings are dropped (reported). Repeats until no such node is left,
/// a bounded number of rounds (recursive definitions reached through siblings fail).
#[derive(Clone, Copy, Debug, Default)]
pub struct ResolveRefSiblings;

const ROUNDS: usize = 16;

/// A node to rewrite: its pointer, its `$ref`, and the target when it can be inlined.
type Planned = (String, String, Option<Map<String, Value>>);
const ANNOTATIONS: &[&str] = &["description", "title", "$comment", "examples", "deprecated"];

impl Rule for ResolveRefSiblings {
    fn name(&self) -> &'static str {
        "resolve-ref-siblings"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("$ref")
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::moves_and_adds(held, &["description"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // Most documents have no `$ref` with siblings: found without building a walk.
        let mut any = false;
        crate::adapt::visit::visit_ref(schema, &mut |node, _| {
            any |= node
                .as_object()
                .is_some_and(|m| m.len() > 1 && matches!(m.key("$ref"), Some(Value::String(_))));
        });
        if !any {
            return;
        }
        // The first round's node count (one walk per round: it also counts the nodes).
        let mut initial = None;
        for _ in 0..ROUNDS {
            // Plan on the immutable document, then apply.
            let mut plan: Vec<Planned> = Vec::new();
            {
                let walk = Walk::new(schema);
                let initial = *initial.get_or_insert(walk.nodes.len());
                // Definitions that reach each other through references with siblings grow the
                // document each round: past a bound, that is recursion.
                if walk.nodes.len() > initial.saturating_mul(16).max(4096) {
                    report.fail("", "references with sibling keywords keep growing the schema when inlined (mutually recursive definitions)");
                    return;
                }
                for (index, (node, _)) in walk.nodes.iter().enumerate() {
                    let Some(map) = node.as_object() else {
                        continue;
                    };
                    let Some(Value::String(r)) = map.key("$ref") else {
                        continue;
                    };
                    if map.len() == 1 {
                        continue;
                    }
                    let at = pointer(&walk.steps(index));
                    // A definition that reaches itself through a `$ref` with siblings would be
                    // copied into itself on every round: recursion has no inlined form.
                    let inside_target = r
                        .strip_prefix('#')
                        .filter(|t| !t.is_empty()) // `#`, the root: handled below
                        .is_some_and(|t| at == t || at.starts_with(&format!("{t}/")));
                    if inside_target {
                        report.fail(
                            &at,
                            format!("`$ref: {r}` with sibling keywords inside the definition it names: a recursive definition cannot be inlined"),
                        );
                        return;
                    }
                    let target = if r == "#" {
                        None
                    } else {
                        resolve_local(schema, r).and_then(Value::as_object).cloned()
                    };
                    plan.push((at, r.clone(), target));
                }
            }
            if plan.is_empty() {
                return;
            }
            // Deepest first, so that replacing a node never moves a planned one.
            plan.sort_by_key(|(at, _, _)| std::cmp::Reverse(at.matches('/').count()));
            for (at, reference, target) in plan {
                let Some(Value::Object(node)) = schema.pointer_mut(&at) else {
                    continue;
                };
                node.take_key("$ref");
                match target {
                    Some(mut target) => {
                        // Definitions stay where they are; only the node is inlined.
                        target.take_key("$defs");
                        target.take_key("definitions");
                        let target_at = reference.trim_start_matches('#').to_owned();
                        merge_siblings(&mut target, std::mem::take(node), &target_at, report);
                        *node = target;
                        report.change(&at, format!("`$ref: {reference}` with siblings inlined"));
                    }
                    None => {
                        let siblings: Vec<String> = node.keys().cloned().collect();
                        let droppable = siblings.iter().all(|k| ANNOTATIONS.contains(&k.as_str()));
                        if reference == "#" && droppable {
                            for k in siblings {
                                let v = node.shift_remove(&k).expect("listed");
                                report.loss(format!("{at}/{k}"), &k, LossKind::Dropped, format!("`{k}: {v}` beside `$ref: #` (the provider rejects `$ref` siblings, and the root cannot be inlined)"));
                            }
                            node.insert("$ref".into(), Value::String(reference));
                        } else {
                            node.insert("$ref".into(), Value::String(reference.clone()));
                            report.fail(
                                &at,
                                format!(
                                    "`$ref: {reference}` has sibling keywords and cannot be inlined"
                                ),
                            );
                            return;
                        }
                    }
                }
            }
        }
        report.fail("", "references with sibling keywords keep reappearing after inlining (recursive definitions)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn single_allof_then_ref_siblings() {
        let mut v = json!({
            "type": "object",
            "properties": {
                "a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "the a"},
                "self": {"$ref": "#", "description": "again"}
            },
            "$defs": {"A": {"type": "object", "description": "an A", "properties": {"x": {"type": "string"}}}}
        });
        let mut r = RuleReport::default();
        MergeSingleAllOf.apply(&mut v, &mut r);
        ResolveRefSiblings.apply(&mut v, &mut r);
        assert_eq!(
            v["properties"]["a"],
            json!({"type": "object", "description": "the a\n\nan A", "properties": {"x": {"type": "string"}}})
        );
        assert_eq!(v["properties"]["self"], json!({"$ref": "#"}));
        assert!(r.failure.is_none());
        assert_eq!(r.losses.len(), 1);
    }

    /// Found by the fuzz suite: the definition was copied into itself on every round until the
    /// stack overflowed.
    #[test]
    fn a_definition_reaching_itself_with_siblings_fails_at_once() {
        let mut v = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/D"}},
            "$defs": {"D": {"type": "array", "prefixItems": [{"$ref": "#/$defs/D", "description": "again"}]}}});
        let mut r = RuleReport::default();
        ResolveRefSiblings.apply(&mut v, &mut r);
        let failure = r.failure.expect("recursion has no inlined form");
        assert_eq!(failure.pointer, "/$defs/D/prefixItems/0");
    }

    /// Two definitions that reach each other through references with siblings: neither node is
    /// inside the definition it names at first, but the first round copies each into the other,
    /// and the second finds the copy naming its own definition.
    #[test]
    fn mutually_recursive_definitions_with_siblings_fail_in_the_second_round() {
        let mut v = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B", "description": "to B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "to A"}}}
        }});
        let mut r = RuleReport::default();
        ResolveRefSiblings.apply(&mut v, &mut r);
        let failure = r.failure.expect("mutual recursion has no inlined form");
        assert_eq!(failure.pointer, "/$defs/A/properties/b/properties/a");
    }

    #[test]
    fn unresolvable_ref_with_siblings_fails() {
        let mut v = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope", "description": "x"}}});
        let mut r = RuleReport::default();
        ResolveRefSiblings.apply(&mut v, &mut r);
        assert!(r.failure.is_some());
    }
}
