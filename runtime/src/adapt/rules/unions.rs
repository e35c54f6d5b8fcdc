//! `oneOf` read as `anyOf` (strict modes and Responses take `anyOf` only), and nested pure
//! unions spliced into their parent.

use std::collections::HashSet;

use serde_json::Value;

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Keyword, NodeId, Report, Rule, Slot, Tree};

/// Rewrites `oneOf` as `anyOf` (beside an `anyOf` the node has, inside an `allOf`). Where the
/// branches are provably exclusive (disjoint types, disjoint `const`/`enum` values, or a
/// required property whose values are disjoint) nothing is lost: a change. Otherwise a value
/// matching several branches is no longer rejected: a `widened` loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneOfToAnyOf;

/// The types a node accepts (`integer` with `number`), when it says.
fn type_set(tree: &Tree, id: NodeId) -> Option<Vec<String>> {
    let mut ts: Vec<String> = match tree.value(id, Keyword::Type)? {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => return None,
    };
    if ts.iter().any(|t| t == "number") {
        ts.push("integer".into());
    }
    Some(ts)
}

/// The values a node's `const` or `enum` allows.
fn values_of<'v>(map: &[(&str, &'v Value)]) -> Option<Vec<&'v Value>> {
    if let Some((_, c)) = map.iter().find(|(k, _)| *k == "const") {
        return Some(vec![c]);
    }
    let (_, values) = map.iter().find(|(k, _)| *k == "enum")?;
    values.as_array().map(|a| a.iter().collect())
}

/// A node's own plain values, by key.
fn own_values(tree: &Tree, id: NodeId) -> Vec<(&str, &Value)> {
    (tree.entries(id).iter())
        .filter_map(|e| e.value.as_value().map(|v| (e.key.as_str(), v)))
        .collect()
}

/// The values property `name` of node `id` allows by its `const` or `enum`.
fn property_values<'t>(tree: &'t Tree, id: NodeId, name: &str) -> Option<Vec<&'t Value>> {
    match &tree.get(id, Keyword::Properties)?.value {
        Slot::Map(members) => {
            let (_, p) = members.iter().find(|(n, _)| n == name)?;
            values_of(&own_values(tree, *p))
        }
        Slot::Value(Value::Object(members)) => {
            let p = members.get(name)?.as_object()?;
            let own: Vec<(&str, &Value)> = p.iter().map(|(k, v)| (k.as_str(), v)).collect();
            values_of(&own)
        }
        _ => None,
    }
}

fn disjoint(a: &[&Value], b: &[&Value]) -> bool {
    a.iter().all(|x| !b.contains(x))
}

/// Whether no value can match both `a` and `b`, as far as their own keywords tell.
fn exclusive(tree: &Tree, a: NodeId, b: NodeId) -> bool {
    if !tree.is_object(a) || !tree.is_object(b) {
        return false;
    }
    if let (Some(ta), Some(tb)) = (type_set(tree, a), type_set(tree, b)) {
        if ta.iter().all(|t| !tb.contains(t)) {
            return true;
        }
    }
    if let (Some(va), Some(vb)) = (
        values_of(&own_values(tree, a)),
        values_of(&own_values(tree, b)),
    ) {
        if disjoint(&va, &vb) {
            return true;
        }
    }
    let required = |id| super::strings(tree.value(id, Keyword::Required));
    let (ra, rb) = (required(a), required(b));
    let in_b: HashSet<&str> = rb.iter().map(String::as_str).collect();
    ra.iter().filter(|n| in_b.contains(n.as_str())).any(|name| {
        match (
            property_values(tree, a, name),
            property_values(tree, b, name),
        ) {
            (Some(pa), Some(pb)) => disjoint(&pa, &pb),
            _ => false,
        }
    })
}

/// Whether the `oneOf` of node `id` has exclusive branches (a branch's local `$ref` is judged
/// by its target).
fn all_exclusive(tree: &Tree, id: NodeId) -> bool {
    let branches: Vec<NodeId> = match tree.get(id, Keyword::OneOf).map(|e| &e.value) {
        Some(Slot::Schemas(ids)) => ids.clone(),
        _ => return false,
    };
    let has_ref = branches.iter().any(|b| tree.has(*b, Keyword::Ref));
    let resolved: Vec<NodeId> = if has_ref {
        (branches.iter())
            .map(|&b| {
                let target = tree.value(b, Keyword::Ref).and_then(Value::as_str);
                target.and_then(|r| tree.resolve(r)).unwrap_or(b)
            })
            .collect()
    } else {
        branches
    };
    (0..resolved.len())
        .all(|i| (i + 1..resolved.len()).all(|j| exclusive(tree, resolved[i], resolved[j])))
}

impl Rule for OneOfToAnyOf {
    fn name(&self) -> &'static str {
        "oneof-to-anyof"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::OneOf) {
            return;
        }
        // Judged on the document before any `oneOf` is renamed (a `$ref` may name a place
        // inside one).
        let unions: Vec<(NodeId, bool)> = (tree.placed().into_iter())
            .filter(|&(id, ..)| {
                matches!(
                    tree.get(id, Keyword::OneOf).map(|e| &e.value),
                    Some(Slot::Schemas(_))
                )
            })
            .map(|(id, ..)| (id, all_exclusive(tree, id)))
            .collect();
        for (id, exclusive) in unions {
            let origin = tree.node(id).origin;
            let one_of = tree.take(id, Keyword::OneOf).expect("found above");
            if tree.has(id, Keyword::AnyOf) {
                // Both apply: the `oneOf`'s union goes into an `allOf` beside the node's own.
                let wrapper = tree.add(
                    origin,
                    Body::Object(vec![Entry {
                        key: Keyword::AnyOf.into(),
                        ..one_of.clone()
                    }]),
                );
                if !tree.has(id, Keyword::AllOf) {
                    let all = Entry {
                        key: Keyword::AllOf.into(),
                        value: Slot::Schemas(Vec::new()),
                        origin,
                    };
                    tree.set(id, all);
                }
                if let Some(Slot::Schemas(all)) = tree.slot_mut(id, Keyword::AllOf) {
                    all.push(wrapper);
                }
            } else {
                tree.set(
                    id,
                    Entry {
                        key: Keyword::AnyOf.into(),
                        ..one_of
                    },
                );
            }
            if exclusive {
                report.change(
                    origin,
                    Some(id),
                    "`oneOf` → `anyOf` (the branches are exclusive)",
                );
            } else {
                report.loss(origin, Some(id), "oneOf", LossKind::Widened, "`oneOf` → `anyOf`: the branches may overlap, and a value matching several is no longer rejected");
            }
        }
    }
}

/// Splices `anyOf` branches that are themselves only an `anyOf` (and a description) into the
/// parent union: the same values, one level less. A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpliceNestedAnyOf;

/// A node that is only an `anyOf` of schemas (and optionally a `description`).
fn is_pure_any_of(tree: &Tree, id: NodeId) -> bool {
    matches!(
        tree.get(id, Keyword::AnyOf).map(|e| &e.value),
        Some(Slot::Schemas(_))
    ) && (tree.entries(id).iter()).all(|e| e.key == Keyword::AnyOf || e.key == Keyword::Description)
}

impl Rule for SpliceNestedAnyOf {
    fn name(&self) -> &'static str {
        "splice-nested-anyof"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let nested = |tree: &Tree, id: NodeId| {
            matches!(tree.get(id, Keyword::AnyOf).map(|e| &e.value),
                Some(Slot::Schemas(branches)) if branches.iter().any(|b| is_pure_any_of(tree, *b)))
        };
        if !tree.holds(Keyword::AnyOf) || !tree.any_node(nested) {
            return;
        }
        tree.walk_children_first(|tree, id| {
            let Some(Slot::Schemas(branches)) = tree.get(id, Keyword::AnyOf).map(|e| &e.value)
            else {
                return;
            };
            if !branches.iter().any(|b| is_pure_any_of(tree, *b)) {
                return;
            }
            let branches = branches.clone();
            let mut hoisted = Vec::new();
            let mut out = Vec::with_capacity(branches.len());
            for b in branches {
                if !is_pure_any_of(tree, b) {
                    out.push(b);
                    continue;
                }
                if let Some(d) = tree.take(b, Keyword::Description) {
                    hoisted.push(d);
                }
                if let Some(Entry {
                    value: Slot::Schemas(nested),
                    ..
                }) = tree.take(b, Keyword::AnyOf)
                {
                    out.extend(nested);
                }
                tree.node_mut(b).merged_into = Some(id);
            }
            if let Some(Slot::Schemas(branches)) = tree.slot_mut(id, Keyword::AnyOf) {
                *branches = out;
            }
            // Every spliced branch's description joins the node's (what rules spilled into it
            // included), each text once.
            for d in &hoisted {
                super::join_description(tree, id, d);
            }
            report.change(
                tree.node(id).origin,
                Some(id),
                "nested `anyOf` spliced into its parent",
            );
        });
    }
}
