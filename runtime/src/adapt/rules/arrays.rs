//! Tuples and untyped arrays, for targets whose schema language has `items` but no
//! `prefixItems` (OpenAI strict, Anthropic strict, Google's schemas).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// A tuple (`prefixItems`) becomes an array of `items`: positions that share one schema give
/// that schema (a change); different positions give `items: {"anyOf": [each distinct
/// schema]}`, a `widened` loss (the per-position types are no longer enforced; the arguments
/// are still validated against the original schema on the way back). A closed tuple keeps its
/// length with `maxItems`. With `untyped_fails`, an array with no `items` schema is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct TupleItems {
    /// An array with no `items` cannot be enforced (OpenAI strict).
    pub untyped_fails: bool,
}

impl Rule for TupleItems {
    fn name(&self) -> &'static str {
        "tuple-items"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let itemless = |tree: &Tree, id: NodeId| {
            super::has_type(tree, id, "array")
                && !matches!(tree.get(id, Keyword::Items).map(|e| &e.value),
                    Some(Slot::Schema(c)) if tree.is_object(*c))
        };
        if !(tree.holds(Keyword::PrefixItems) || self.untyped_fails && tree.any_node(itemless)) {
            return;
        }
        // Each subtree's fingerprint, kept: children first, a node is final once visited.
        let mut prints = HashMap::new();
        tree.walk_children_first(|tree, id| {
            if tuple(tree, id, &mut prints, report) || !self.untyped_fails || report.failed() {
                return;
            }
            let typed_array = super::has_type(tree, id, "array");
            let items = tree.get(id, Keyword::Items).map(|e| &e.value);
            let has_items = matches!(items, Some(Slot::Schema(c)) if tree.is_object(*c));
            if typed_array && !has_items {
                report
                    .fail(
                        tree.refused_node(id),
                        "an array with no `items` schema cannot be enforced in strict mode (OpenAI: \"array schema missing items\")",
                    )
                    .fix(crate::adapt::fixes::NO_ITEMS);
            }
        });
    }
}

/// Rewrites the tuple at node `id`, if it is one.
fn tuple(
    tree: &mut Tree,
    id: NodeId,
    prints: &mut HashMap<NodeId, u64>,
    report: &mut Report,
) -> bool {
    if !matches!(
        tree.get(id, Keyword::PrefixItems).map(|e| &e.value),
        Some(Slot::Schemas(_))
    ) {
        return false;
    }
    let Some(Entry {
        value: Slot::Schemas(positions),
        origin,
        ..
    }) = tree.take(id, Keyword::PrefixItems)
    else {
        unreachable!("checked above")
    };
    let count = positions.len();
    let rest = tree.take(id, Keyword::Items).map(|e| match e.value {
        Slot::Schema(c) => c,
        // A list or a value beside `prefixItems`: one more member, kept as it is.
        other => {
            let value = tree.slot_value(&other);
            tree.add(e.origin, Body::NotSchema(value))
        }
    });
    let closed = rest.is_some_and(|r| matches!(tree.node(r).body, Body::Bool(false)));
    let past = rest.filter(|r| !matches!(tree.node(*r).body, Body::Bool(_)));
    let all: Vec<NodeId> = positions.into_iter().chain(past).collect();
    let first = first_equal(tree, &all, prints);
    let mut distinct: Vec<NodeId> = Vec::new();
    for (i, f) in first.into_iter().enumerate() {
        if f == i {
            distinct.push(all[i]);
        }
    }
    let items = match distinct.len() {
        0 => tree.add(origin, Body::Object(Vec::new())),
        1 => distinct[0],
        _ => {
            let union = Entry {
                key: Key::Kw(Keyword::AnyOf),
                value: Slot::Schemas(distinct),
                origin,
            };
            tree.add(origin, Body::Object(vec![union]))
        }
    };
    let single = !tree.has(items, Keyword::AnyOf);
    tree.set(
        id,
        Entry {
            key: Key::Kw(Keyword::Items),
            value: Slot::Schema(items),
            origin,
        },
    );
    if !tree.has(id, Keyword::Type) {
        tree.set_value(id, Keyword::Type, json!("array"));
    }
    if closed && !tree.has(id, Keyword::MaxItems) {
        tree.set_value(id, Keyword::MaxItems, json!(count));
    }
    if single {
        let detail = format!("a tuple of {count} positions with one schema → `items`");
        report.change(origin, Some(id), detail);
    } else {
        let detail = format!(
            "a tuple of {count} positions with different schemas is sent as an array whose items may be any of them: the per-position types are no longer enforced (arguments are still validated against the original tuple)"
        );
        // A draft-07 tuple is reported as the input spelled it.
        let keyword = tree.keyword_at(origin).unwrap_or(Keyword::PrefixItems);
        report.loss(
            origin,
            Some(id),
            keyword.as_str(),
            LossKind::Widened,
            detail,
        );
    }
    true
}

/// For each of `ids`, the index of the first of them with the same JSON (itself when none is
/// before it): fingerprints group the candidates, and only those that share one are compared.
fn first_equal(tree: &Tree, ids: &[NodeId], prints: &mut HashMap<NodeId, u64>) -> Vec<usize> {
    let mut first: Vec<usize> = (0..ids.len()).collect();
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let print = fingerprint(tree, *id, prints);
        let same = seen.entry(print).or_default();
        match same.iter().find(|&&k| tree.same(ids[k], *id)) {
            Some(&k) => first[i] = k,
            None => same.push(i),
        }
    }
    first
}

/// A hash of the subtree at `id` that equal JSON shares (an object's keys in any order),
/// kept in `prints` for every node it reads: a loop, children before their parent.
fn fingerprint(tree: &Tree, id: NodeId, prints: &mut HashMap<NodeId, u64>) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut stack = vec![(id, false)];
    while let Some((at, expanded)) = stack.pop() {
        if prints.contains_key(&at) {
            continue;
        }
        if !expanded {
            stack.push((at, true));
            stack.extend(tree.children(at).map(|c| (c, false)));
            continue;
        }
        let mut h = DefaultHasher::new();
        let print = match &tree.node(at).body {
            Body::Bool(b) => {
                (0u8, b).hash(&mut h);
                h.finish()
            }
            Body::NotSchema(v) => {
                1u8.hash(&mut h);
                value_print(v, &mut h);
                h.finish()
            }
            Body::Object(entries) => {
                // Keys in any order: each entry hashed alone, the hashes summed.
                let mut sum = 2u64;
                for e in entries {
                    let mut h = DefaultHasher::new();
                    e.key.as_str().hash(&mut h);
                    match &e.value {
                        Slot::Schema(c) => prints[c].hash(&mut h),
                        Slot::Schemas(cs) => cs.iter().for_each(|c| prints[c].hash(&mut h)),
                        Slot::Map(members) => {
                            let mut members_sum = 0u64;
                            for (name, c) in members {
                                let mut m = DefaultHasher::new();
                                (name, prints[c]).hash(&mut m);
                                members_sum = members_sum.wrapping_add(m.finish());
                            }
                            members_sum.hash(&mut h);
                        }
                        Slot::Value(v) => value_print(v, &mut h),
                    }
                    sum = sum.wrapping_add(h.finish());
                }
                sum
            }
        };
        prints.insert(at, print);
    }
    prints[&id]
}

/// Hashes a plain value's top level: equal values hash alike, and the comparison after tells
/// the rest apart.
fn value_print(v: &Value, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => b.hash(h),
        // As serde_json compares them: an integer by its value, a float by its value with
        // `-0.0` as `0.0`.
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => (3u8, u).hash(h),
            (None, Some(i), _) => (4u8, i).hash(h),
            (_, _, f) => (5u8, f.map(|f| (f + 0.0).to_bits())).hash(h),
        },
        Value::String(s) => s.hash(h),
        Value::Array(a) => a.len().hash(h),
        Value::Object(m) => m.len().hash(h),
    }
}
