//! `$ref` forms strict providers reject: an `allOf` of one schema, and `$ref` with siblings.

use serde_json::Value;

use super::{joined_description, json_text, str_of};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Refused, Report, Rule, Slot, Tree};

/// Merges an `allOf` of exactly one object schema into its node (the branch's keywords set on
/// the node, the descriptions joined, the node's first). A change: the same values validate. A
/// branch with a keyword the node also has, with another value, is not merged (both must hold).
#[derive(Clone, Copy, Debug, Default)]
pub struct MergeSingleAllOf;

impl Rule for MergeSingleAllOf {
    fn name(&self) -> &'static str {
        "merge-single-allof"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::AllOf) {
            return;
        }
        tree.walk(|tree, id| {
            // Bounded: each round takes one `allOf` away (a merged branch may bring another).
            for _ in 0..64 {
                let branch = match tree.get(id, Keyword::AllOf).map(|e| &e.value) {
                    Some(Slot::Schemas(all)) if all.len() == 1 && tree.is_object(all[0]) => all[0],
                    _ => return,
                };
                // Both must hold: a keyword the node has too, with another value, would be
                // replaced by the branch's (`{type: string, allOf: [{type: integer}]}` is not an
                // integer schema). Then the `allOf` stays.
                // (The node's own `allOf`, the one being merged, is not a collision.)
                let collides = tree.entries(branch).iter().any(|b| {
                    b.key != Keyword::Description
                        && b.key != Keyword::AllOf
                        && (tree.entries(id).iter())
                            .any(|n| n.key == b.key && !tree.same_slot(&n.value, &b.value))
                });
                if collides {
                    return;
                }
                tree.take(id, Keyword::AllOf);
                let description = joined_description(
                    tree.value(id, Keyword::Description),
                    tree.value(branch, Keyword::Description),
                );
                let entries = tree
                    .entries_mut(branch)
                    .map(std::mem::take)
                    .unwrap_or_default();
                tree.node_mut(branch).merged_into = Some(id);
                for entry in entries {
                    tree.set(id, entry);
                }
                if let Some(d) = description {
                    match tree.value_mut(id, Keyword::Description) {
                        Some(own) => *own = d,
                        None => tree.set_value(id, Keyword::Description, d),
                    }
                }
                let origin = tree.node(id).origin;
                report.change(
                    origin,
                    Some(id),
                    "`allOf` of one schema merged into the node",
                );
            }
        });
    }
}

/// `$ref` next to keywords that do not start with `$` (Google: "If `$ref` is set on a
/// sub-schema, no other properties, except for than those starting as a `$`, may be set"): the
/// reference moves into a one-branch `anyOf` of its node, beside the other keywords, which means
/// the same (`{$ref: R, description: d}` → `{anyOf: [{$ref: R}], description: d}`). A change:
/// nothing is copied, so it is linear on any chain of references and keeps recursion. The root
/// (which takes no combinator) and a node with its own `anyOf`, `oneOf` or `allOf` are left as
/// they are (for [`ResolveRefSiblings`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct WrapRefSiblings;

impl Rule for WrapRefSiblings {
    fn name(&self) -> &'static str {
        "wrap-ref-siblings"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Ref) {
            return;
        }
        let root = tree.root;
        tree.walk(|tree, id| {
            // The root takes no combinator (providers need an object root): left as it is.
            if id == root || !matches!(tree.value(id, Keyword::Ref), Some(Value::String(_))) {
                return;
            }
            let entries = tree.entries(id);
            let siblings = entries.iter().any(|e| !e.key.as_str().starts_with('$'));
            let union = entries.iter().any(|e| {
                matches!(
                    e.key,
                    Key::Kw(Keyword::AnyOf | Keyword::OneOf | Keyword::AllOf)
                )
            });
            if !siblings || union {
                return;
            }
            let reference = tree.take(id, Keyword::Ref).expect("present");
            let at = reference.origin;
            let origin = tree.node(id).origin;
            let branch = tree.add(origin, Body::Object(vec![reference]));
            tree.set(
                id,
                Entry {
                    key: Keyword::AnyOf.into(),
                    value: Slot::Schemas(vec![branch]),
                    origin,
                },
            );
            report.change(
                at,
                Some(id),
                "`$ref` beside other keywords moved into a one-branch `anyOf`",
            );
        });
    }
}

/// `$ref` next to other keywords (OpenAI: "$ref cannot have keywords {'description'}"): a copy
/// of the target is inlined and the siblings merged over it (`properties` and `required`
/// united, descriptions joined, any other keyword the sibling's). A `$ref` to the root (`#`)
/// cannot be inlined; its annotation siblings are dropped (reported). Repeats until no such
/// node is left, in at most 16 rounds (definitions that reach each other through siblings are
/// recursion: refused).
#[derive(Clone, Copy, Debug, Default)]
pub struct ResolveRefSiblings;

/// The siblings of `$ref: "#"` that can be dropped.
const ANNOTATIONS: &[&str] = &["description", "title", "$comment", "examples", "deprecated"];

/// A node to rewrite in one round: where it stands, its reference, and a copy of the target
/// when it can be inlined.
struct Planned {
    node: NodeId,
    at: String,
    reference: String,
    copy: Option<NodeId>,
}

impl Rule for ResolveRefSiblings {
    fn name(&self) -> &'static str {
        "resolve-ref-siblings"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let with_siblings = |tree: &Tree, id: NodeId| {
            tree.entries(id).len() > 1
                && matches!(tree.value(id, Keyword::Ref), Some(Value::String(_)))
        };
        if !tree.holds(Keyword::Ref) {
            return;
        }
        let mut initial = None;
        for _ in 0..16 {
            let list = tree.breadth_first();
            let initial = *initial.get_or_insert(list.len());
            if list.len() > initial.saturating_mul(16).max(4096) {
                report
                    .fail(Refused::root(), "references with sibling keywords keep growing the schema when inlined (mutually recursive definitions)")
                    .fix(crate::adapt::fixes::RECURSION);
                return;
            }
            let mut plan = Vec::new();
            for (index, r) in list.iter().enumerate() {
                if !with_siblings(tree, r.id) {
                    continue;
                }
                let reference = str_of(tree, r.id, Keyword::Ref)
                    .unwrap_or_default()
                    .to_owned();
                let at = Tree::pointer_of(&list, index);
                // A definition that reaches itself through a `$ref` with siblings would be
                // copied into itself on every round: recursion has no inlined form.
                let inside_target = (reference.strip_prefix('#'))
                    .filter(|t| !t.is_empty())
                    .is_some_and(|t| at == t || at.starts_with(&format!("{t}/")));
                if inside_target {
                    report
                        .fail(
                            tree.refused(&list, index),
                            format!("`$ref: {reference}` with sibling keywords inside the definition it names: a recursive definition cannot be inlined"),
                        )
                        .fix(crate::adapt::fixes::RECURSION);
                    return;
                }
                plan.push((r.id, at, reference));
            }
            if plan.is_empty() {
                return;
            }
            // The targets copied as they are before the round rewrites anything.
            let mut plan: Vec<Planned> = (plan.into_iter())
                .map(|(node, at, reference)| {
                    let target = (reference != "#")
                        .then(|| tree.resolve(&reference))
                        .flatten()
                        .filter(|t| tree.is_object(*t));
                    let copy = target.map(|t| tree.copy(t));
                    Planned {
                        node,
                        at,
                        reference,
                        copy,
                    }
                })
                .collect();
            // Deepest first (the order in which the entries are recorded).
            plan.sort_by_key(|p| std::cmp::Reverse(p.at.matches('/').count()));
            for p in plan {
                if !inline(tree, p, report) {
                    return;
                }
            }
        }
        report
            .fail(Refused::root(), "references with sibling keywords keep reappearing after inlining (recursive definitions)")
            .fix(crate::adapt::fixes::RECURSION);
    }
}

/// Inlines one planned reference; false when it is refused.
fn inline(tree: &mut Tree, p: Planned, report: &mut Report) -> bool {
    let Planned {
        node,
        reference,
        copy,
        ..
    } = p;
    let Some(reference_entry) = tree.take(node, Keyword::Ref) else {
        return true;
    };
    let Some(copy) = copy else {
        let droppable = (tree.entries(node).iter()).all(|e| ANNOTATIONS.contains(&e.key.as_str()));
        if reference == "#" && droppable {
            for e in tree
                .entries_mut(node)
                .map(std::mem::take)
                .unwrap_or_default()
            {
                let k = e.key.as_str().to_owned();
                let detail = format!(
                    "`{k}: {}` beside `$ref: #` (the provider rejects `$ref` siblings, and the root cannot be inlined)",
                    tree.slot_value(&e.value)
                );
                report.loss(e.origin, None, k, LossKind::Dropped, detail);
            }
            tree.set(node, reference_entry);
            return true;
        }
        tree.set(node, reference_entry);
        report.fail(
            tree.refused_node(node),
            format!("`$ref: {reference}` has sibling keywords and cannot be inlined"),
        );
        return false;
    };
    // Definitions stay where they are; only the node is inlined.
    tree.take(copy, Keyword::Defs);
    tree.take(copy, Keyword::Definitions);
    let siblings = tree
        .entries_mut(node)
        .map(std::mem::take)
        .unwrap_or_default();
    let target = tree
        .entries_mut(copy)
        .map(std::mem::take)
        .unwrap_or_default();
    *tree.entries_mut(node).expect("an object") = target;
    // The copy's entries are the referring node's now.
    tree.node_mut(copy).merged_into = Some(node);
    for sibling in siblings {
        merge_sibling(tree, node, sibling, report);
    }
    let origin = tree.node(node).origin;
    report.change(
        origin,
        Some(node),
        format!("`$ref: {reference}` with siblings inlined"),
    );
    true
}

/// One sibling keyword of an inlined reference over the target's entries at `node`.
pub(crate) fn merge_sibling(tree: &mut Tree, node: NodeId, sibling: Entry, report: &mut Report) {
    let key = sibling.key.clone();
    if key == Keyword::Description {
        let own = tree.value(node, Keyword::Description);
        if let Some(joined) = joined_description(sibling.value.as_value(), own) {
            tree.set(
                node,
                Entry {
                    value: Slot::Value(joined),
                    ..sibling
                },
            );
        }
        return;
    }
    // Both apply (a `$ref` and its siblings hold together): an internally tagged variant's tag
    // property next to the referenced struct's fields keeps both.
    let own = tree.get(node, Keyword::Properties).map(|e| &e.value);
    if let (true, Some(Slot::Map(_)), Slot::Map(more)) =
        (key == Keyword::Properties, own, &sibling.value)
    {
        let more = more.clone();
        if let Some(Slot::Map(own)) = tree.slot_mut(node, Keyword::Properties) {
            for (name, schema) in more {
                match own.iter_mut().find(|(n, _)| *n == name) {
                    Some(slot) => slot.1 = schema,
                    None => own.push((name, schema)),
                }
            }
        }
        return;
    }
    if let (true, Some(Value::Array(_)), Some(Value::Array(more))) = (
        key == Keyword::Required,
        tree.value(node, Keyword::Required),
        sibling.value.as_value(),
    ) {
        let more = more.clone();
        if let Some(Value::Array(own)) = tree.value_mut(node, Keyword::Required) {
            crate::adapt::rules::push_each_once(own, more);
        }
        return;
    }
    if let Some(old) = tree.entries(node).iter().find(|e| e.key == key) {
        if !tree.same_slot(&old.value, &sibling.value) {
            let k = key.as_str().to_owned();
            let detail = format!(
                "`{k}: {}` of the definition is replaced by the referring node's `{k}: {}` where it is inlined",
                json_text(&tree.slot_value(&old.value)),
                json_text(&tree.slot_value(&sibling.value))
            );
            report.loss(old.origin, Some(node), k, LossKind::Dropped, detail);
        }
    }
    tree.set(node, sibling);
}

#[cfg(test)]
mod wrap_tests {
    use serde_json::json;

    use super::WrapRefSiblings;
    use crate::adapt::rules::{Rule, apply};

    /// A reference with siblings is wrapped, one with only `$` siblings or beside a union is
    /// left; recursion stays a reference.
    #[test]
    fn references_with_siblings_are_wrapped() {
        let input = json!({"type": "object", "properties": {
            "a": {"$ref": "#/$defs/N", "description": "An N."},
            "b": {"$ref": "#/$defs/N", "$comment": "only a $-keyword"},
            "c": {"$ref": "#/$defs/N", "anyOf": [{"type": "object"}], "description": "x"}
        }, "$defs": {"N": {"type": "object", "properties": {
            "next": {"$ref": "#/$defs/N", "description": "The next."}
        }}}});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(WrapRefSiblings)];
        let applied = apply(&mut rules, &input);
        let p = &applied.schema["properties"];
        assert_eq!(
            p["a"],
            json!({"description": "An N.", "anyOf": [{"$ref": "#/$defs/N"}]})
        );
        assert_eq!(p["b"], input["properties"]["b"]);
        assert_eq!(p["c"], input["properties"]["c"]);
        assert_eq!(
            applied.schema["$defs"]["N"]["properties"]["next"],
            json!({"description": "The next.", "anyOf": [{"$ref": "#/$defs/N"}]})
        );
        assert!(applied.losses.is_empty());
        assert_eq!(applied.changes.len(), 2);
    }
}

#[cfg(test)]
mod merge_tests {
    use serde_json::json;

    use super::MergeSingleAllOf;
    use crate::adapt::rules::{Rule, apply};

    /// A member that says what its node says, or more, is merged; one whose keyword the node
    /// has with another value is not (both must hold), and nested members merge all the way.
    #[test]
    fn a_colliding_member_is_not_merged() {
        let input = json!({"type": "object", "properties": {
            "more": {"type": "string", "allOf": [{"minLength": 1, "description": "d"}]},
            "same": {"type": "string", "allOf": [{"type": "string"}]},
            "other": {"type": "string", "allOf": [{"type": "integer"}]},
            "nested": {"allOf": [{"allOf": [{"type": "string"}]}]}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(MergeSingleAllOf)];
        let p = apply(&mut rules, &input).schema["properties"].clone();
        assert_eq!(
            p["more"],
            json!({"type": "string", "minLength": 1, "description": "d"})
        );
        assert_eq!(p["same"], json!({"type": "string"}));
        assert_eq!(p["other"], input["properties"]["other"]);
        assert_eq!(p["nested"], json!({"type": "string"}));
    }
}
