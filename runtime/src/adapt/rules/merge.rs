//! Merging object branches into their node, and collapsing unions into one branch (Cloud Code
//! Assist, and an object root made of a union of objects).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{absorb, append_description, object_shaped, str_of, strings};
use crate::adapt::report::LossKind;
use crate::adapt::rules::HeldStrings;
use crate::adapt::tree::{Body, Entry, Keyword, NodeId, Origin, Report, Rule, Slot, Tree};

/// Merges, collapses or removes the combiners of Cloud Code Assist, children first, so that
/// when a node is reached its branches are collapsed already (no subtree is walked twice).
///
/// - `allOf` of objects: merged (properties united, `required` united); a change.
/// - `anyOf`/`oneOf` of objects: merged into one object, `required` the intersection; values
///   mixing branches become valid (`collapsed`).
/// - same-type branches: one branch (enums united); the others' keywords are lost (`collapsed`).
/// - mixed types: the first non-null branch's type (the structured one, ordered first); the
///   other types are no longer accepted (`collapsed`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CollapseCombiners;

impl Rule for CollapseCombiners {
    fn name(&self) -> &'static str {
        "collapse-combiners"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let combiners = [Keyword::AnyOf, Keyword::OneOf, Keyword::AllOf];
        tree.walk_children_first(|tree, id| {
            if combiners.iter().any(|k| tree.has(id, *k)) {
                collapse(tree, id, report);
            }
        });
    }
}

/// The keywords of `b` that uniting its enum into `a`'s ([`merge_property`]) does not keep:
/// every one but `enum` and `description` that `a` does not hold with the same value.
fn lost_in_enum_union(tree: &Tree, a: NodeId, b: NodeId) -> Vec<String> {
    if !tree.is_object(a) {
        return Vec::new();
    }
    (tree.entries(b).iter())
        .filter(|e| !matches!(e.key.as_str(), "enum" | "description"))
        .filter(|e| {
            let own = tree.entries(a).iter().find(|o| o.key == e.key);
            !own.is_some_and(|o| tree.same_slot(&o.value, &e.value))
        })
        .map(|e| e.key.as_str().to_owned())
        .collect()
}

/// Whether [`merge_property`] unites the enums of `a` and `b` (same `type`, both enums).
fn unites_enums(tree: &Tree, a: NodeId, b: NodeId) -> bool {
    let is_enum = |id| tree.value(id, Keyword::Enum).is_some_and(Value::is_array);
    !tree.same(a, b)
        && is_enum(a)
        && is_enum(b)
        && tree.value(a, Keyword::Type) == tree.value(b, Keyword::Type)
}

/// One property schema from two (the reference's `mergePropertySchemas`): equal → one; both
/// enums of one type → `a` with the union of values and `b`'s description too; otherwise an
/// `anyOf` of both, made for `a`'s place. `strings` holds the string values of `a`'s enum,
/// kept by the caller for the next union of the same property.
fn merge_property(
    tree: &mut Tree,
    a: NodeId,
    b: NodeId,
    strings: &mut Option<HeldStrings>,
) -> NodeId {
    if tree.same(a, b) {
        return a;
    }
    if !unites_enums(tree, a, b) {
        let origin = tree.node(a).origin;
        let union = Entry {
            key: Keyword::AnyOf.into(),
            value: Slot::Schemas(vec![a, b]),
            origin,
        };
        return tree.add(origin, Body::Object(vec![union]));
    }
    let more = tree.value(b, Keyword::Enum).cloned();
    if let (Some(Value::Array(values)), Some(Value::Array(more))) =
        (tree.value_mut(a, Keyword::Enum), more)
    {
        let held = strings.get_or_insert_with(|| HeldStrings::of(values));
        for x in more {
            held.push(values, x);
        }
    }
    // The other branch's description (where earlier rules spilled its constraints) stays on the
    // united enum, unless it says nothing new.
    if let Some(d) = str_of(tree, b, Keyword::Description).map(str::to_owned) {
        let known = str_of(tree, a, Keyword::Description).is_some_and(|mine| mine.contains(&d));
        if !d.is_empty() && !known {
            append_description(tree, a, &d, "\n\n");
        }
    }
    a
}

/// The list of subschemas `key` holds at `id` (none when absent or not a list).
fn union_at(tree: &Tree, id: NodeId, key: Keyword) -> Option<&[NodeId]> {
    match tree.get(id, key).map(|e| &e.value) {
        Some(Slot::Schemas(ids)) => Some(ids),
        _ => None,
    }
}

/// Takes the list `key` out of node `id`: its origin and its subschemas.
fn take_union(tree: &mut Tree, id: NodeId, key: Keyword) -> (Origin, Vec<NodeId>) {
    match tree.take(id, key) {
        Some(Entry {
            value: Slot::Schemas(ids),
            origin,
            ..
        }) => (origin, ids),
        _ => unreachable!("checked by union_at"),
    }
}

/// [`CollapseCombiners`]' work at one node.
pub(crate) fn collapse(tree: &mut Tree, node: NodeId, report: &mut Report) {
    // Bounded: each round removes one combiner keyword from this node.
    for _ in 0..8 {
        if let Some(all) = union_at(tree, node, Keyword::AllOf) {
            if !all.iter().all(|b| object_shaped(tree, *b)) {
                return;
            }
            let (_, all) = take_union(tree, node, Keyword::AllOf);
            merge_objects(tree, node, all, true, "allOf", report);
            continue;
        }
        let key = if union_at(tree, node, Keyword::AnyOf).is_some() {
            Keyword::AnyOf
        } else if union_at(tree, node, Keyword::OneOf).is_some() {
            Keyword::OneOf
        } else {
            return;
        };
        let branches = union_at(tree, node, key).expect("a list of schemas");
        if branches.is_empty() {
            return;
        }
        let name = key.as_str();
        if branches.iter().all(|b| object_shaped(tree, *b)) {
            let (origin, branches) = take_union(tree, node, key);
            let n = branches.len();
            // A union of one means its branch: every keyword of it is kept, as for `allOf`.
            merge_objects(tree, node, branches, n == 1, name, report);
            if n > 1 {
                report.loss(origin, Some(node), name, LossKind::Collapsed, format!("{n} object branches merged into one object: a value mixing their fields is now accepted, and only properties required by every branch stay required"));
            }
            continue;
        }
        let types: Option<Vec<String>> = branches
            .iter()
            .map(|b| str_of(tree, *b, Keyword::Type).map(str::to_owned))
            .collect();
        let Some(types) = types else {
            return; // an untyped branch: cannot collapse; the gate decides
        };
        let (origin, branches) = take_union(tree, node, key);
        let mut notes = Vec::new();
        let chosen = if types.iter().all(|t| *t == types[0]) {
            if branches.iter().all(|b| tree.has(*b, Keyword::Enum)) {
                // United into the first branch's keywords: what another branch said besides
                // its values and description is lost.
                let what: Vec<String> = (branches.iter().enumerate().skip(1))
                    .map(|(i, b)| (i, lost_in_enum_union(tree, branches[0], *b)))
                    .filter(|(_, lost)| !lost.is_empty())
                    .map(|(i, keys)| format!("branch {i}'s `{}`", keys.join("`, `")))
                    .collect();
                if !what.is_empty() {
                    report.loss(origin, Some(node), name, LossKind::Collapsed, format!("{} `{}` enum branches united into one enum, every value kept; lost with the union: {}", branches.len(), types[0], what.join(", ")));
                }
                let mut strings = None;
                let mut rest = branches.into_iter();
                let first = rest.next().expect("not empty");
                rest.fold(first, |a, b| merge_property(tree, a, b, &mut strings))
            } else {
                let pick = (branches.iter())
                    .position(|b| !tree.has(*b, Keyword::Enum))
                    .unwrap_or(0);
                if branches.len() > 1 {
                    report.loss(origin, Some(node), name, LossKind::Collapsed, format!("{} `{}` branches collapsed into branch {pick}; the others' constraints are lost", branches.len(), types[0]));
                }
                notes = dropped_descriptions(tree, node, &branches, &types, pick, true);
                report.forget_encoded_under(tree, &others(&branches, pick));
                branches[pick]
            }
        } else {
            let pick = types.iter().position(|t| t != "null").unwrap_or(0);
            let dropped: Vec<String> = (types.iter().enumerate())
                .filter(|(i, _)| *i != pick)
                .map(|(_, t)| format!("`{t}`"))
                .collect();
            report.loss(
                origin,
                Some(node),
                name,
                LossKind::Collapsed,
                format!(
                    "mixed types collapsed to `{}`; values of type {} are no longer accepted",
                    types[pick],
                    dropped.join(", ")
                ),
            );
            notes = dropped_descriptions(tree, node, &branches, &types, pick, false);
            report.forget_encoded_under(tree, &others(&branches, pick));
            branches[pick]
        };
        if tree.is_object(chosen) {
            absorb(tree, node, chosen, report);
        }
        for (_, note) in notes {
            append_description(tree, node, &note, "\n\n");
        }
    }
}

/// The branches but the one at `pick`.
fn others(branches: &[NodeId], pick: usize) -> Vec<NodeId> {
    (branches.iter().enumerate())
        .filter(|(i, _)| *i != pick)
        .map(|(_, b)| *b)
        .collect()
}

/// The notes for the descriptions of the branches a collapse drops ([`notes_of_dropped`],
/// which reads every description in the dropped subtrees).
fn dropped_descriptions(
    tree: &mut Tree,
    node: NodeId,
    branches: &[NodeId],
    types: &[String],
    pick: usize,
    same_type: bool,
) -> Vec<(usize, String)> {
    // The dropped branches' descriptions go into the node's: what a report says of a node that
    // had one is at the node.
    for (i, b) in branches.iter().enumerate() {
        if i == pick {
            continue;
        }
        // The branch itself was one of the node's forms.
        if tree.node(*b).merged_into.is_none() {
            tree.node_mut(*b).merged_into = Some(node);
        }
        let mut work = vec![*b];
        while let Some(id) = work.pop() {
            work.extend(tree.children(id));
            if tree.has(id, Keyword::Description) && tree.node(id).merged_into.is_none() {
                tree.node_mut(id).merged_into = Some(node);
            }
        }
    }
    let values: Vec<Value> = (branches.iter().enumerate())
        .map(|(i, b)| {
            if i == pick {
                Value::Null
            } else {
                tree.to_value(*b)
            }
        })
        .collect();
    notes_of_dropped(&values, types, pick, same_type)
}

/// Merges object branches into `node`: properties united (a name in several branches gets
/// [`merge_property`]), `required` united (`allOf`) or intersected (`anyOf`/`oneOf`).
/// `keyword` names the union the branches came from, in the losses.
pub(crate) fn merge_objects(
    tree: &mut Tree,
    node: NodeId,
    branches: Vec<NodeId>,
    all_of: bool,
    keyword: &'static str,
    report: &mut Report,
) {
    let node_origin = tree.node(node).origin;
    let (props_origin, mut props): (Origin, Vec<(String, NodeId)>) =
        match tree.take(node, Keyword::Properties) {
            Some(Entry {
                value: Slot::Map(p),
                origin,
                ..
            }) => (origin, p),
            Some(Entry { origin, .. }) => (origin, Vec::new()),
            None => (node_origin, Vec::new()),
        };
    let parent_required = strings(tree.value(node, Keyword::Required));
    let mut required: Option<Vec<String>> = None;
    let mut listed: HashSet<String> = HashSet::new();
    // Per property, each definition's origin (a property several define differently becomes a
    // union, which only exists in the output).
    let mut defined_by: HashMap<String, Vec<Origin>> = HashMap::new();
    let mut last_defined: HashMap<String, (usize, usize)> = HashMap::new();
    let mut enum_strings: HashMap<String, Option<HeldStrings>> = HashMap::new();
    let mut defined_again = false;
    // Where each property name is in `props`.
    let mut index: HashMap<String, usize> = (props.iter().enumerate())
        .map(|(i, (n, _))| (n.clone(), i))
        .collect();
    for (i, b) in branches.into_iter().enumerate() {
        if !tree.is_object(b) {
            continue;
        }
        // The branch's object is the node's now: what is said of it is at the node.
        if tree.node(b).merged_into.is_none() && b != node {
            tree.node_mut(b).merged_into = Some(node);
        }
        if let Some(Entry {
            value: Slot::Map(members),
            ..
        }) = tree.take(b, Keyword::Properties)
        {
            for (place, (name, schema)) in members.into_iter().enumerate() {
                defined_by
                    .entry(name.clone())
                    .or_default()
                    .push(tree.node(schema).origin);
                last_defined.insert(name.clone(), (i, place));
                match index.get(&name).copied() {
                    Some(at) => {
                        let existing = props[at].1;
                        if unites_enums(tree, existing, schema) {
                            let lost = lost_in_enum_union(tree, existing, schema);
                            if !lost.is_empty() {
                                report.loss(
                                    tree.node(schema).origin,
                                    Some(existing),
                                    keyword,
                                    LossKind::Collapsed,
                                    format!("property `{name}` is also defined by an earlier branch, as an enum of the same type: the values were united, and this definition's `{}` no longer applies", lost.join("`, `")),
                                );
                            }
                        }
                        let strings = enum_strings.entry(name.clone()).or_default();
                        props[at].1 = merge_property(tree, existing, schema, strings);
                        defined_again = true;
                    }
                    None => {
                        index.insert(name.clone(), props.len());
                        props.push((name, schema));
                    }
                }
            }
        }
        let br = strings(tree.value(b, Keyword::Required));
        required = Some(match required {
            None => {
                if all_of {
                    listed = br.iter().cloned().collect();
                }
                br
            }
            Some(mut acc) if all_of => {
                for name in br {
                    if listed.insert(name.clone()) {
                        acc.push(name);
                    }
                }
                acc
            }
            Some(acc) => {
                let in_branch: HashSet<&str> = br.iter().map(String::as_str).collect();
                acc.into_iter()
                    .filter(|r| in_branch.contains(r.as_str()))
                    .collect()
            }
        });
        if all_of {
            tree.take(b, Keyword::Required);
            tree.take(b, Keyword::Type);
            absorb(tree, node, b, report);
            continue;
        }
        // The branch is gone: what was recorded of it is at the node, where its description
        // is joined (what it still holds below is not written: it has no place in the output).
        tree.node_mut(b).merged_into = Some(node);
        if let Some(d) = tree.get(b, Keyword::Description).cloned() {
            // Alternatives merged: each branch's description is kept, joined after the node's.
            super::join_description(tree, node, &d);
        }
    }
    if defined_again {
        props.sort_by_key(|(name, _)| last_defined.get(name).copied());
    }
    // A merged property that became a union is collapsed in turn (its branches already are).
    for (name, id) in &props {
        if tree.has(*id, Keyword::AnyOf) {
            let before = report.loss_count();
            collapse(tree, *id, report);
            let sources = defined_by.get(name).map_or(&[][..], Vec::as_slice);
            if report.loss_count() > before && sources.len() > 1 {
                for origin in sources {
                    report.loss(
                        *origin,
                        Some(*id),
                        keyword,
                        LossKind::Collapsed,
                        format!("property `{name}` is defined by {} branches with different schemas; they were merged into one and what the others accepted or constrained is lost", sources.len()),
                    );
                }
            }
        }
    }
    let mut req = parent_required;
    let mut seen: HashSet<String> = req.iter().cloned().collect();
    for name in required.unwrap_or_default() {
        if seen.insert(name.clone()) {
            req.push(name);
        }
    }
    let keys: HashSet<&str> = props.iter().map(|(n, _)| n.as_str()).collect();
    req.retain(|r| keys.contains(r.as_str()));
    tree.set_value(node, Keyword::Type, Value::from("object"));
    tree.set(
        node,
        Entry {
            key: Keyword::Properties.into(),
            value: Slot::Map(props),
            origin: props_origin,
        },
    );
    if req.is_empty() {
        tree.take(node, Keyword::Required);
    } else {
        let req = Value::Array(req.into_iter().map(Value::String).collect());
        tree.set_value(node, Keyword::Required, req);
    }
}

/// Notes for the descriptions of the branches a collapse drops (where earlier rules spilled those
/// branches' constraints) stay readable on the node, marked as no longer accepted, so that what a
/// report says is "in the description" is. Each note with the index of its branch.
fn notes_of_dropped(
    branches: &[Value],
    types: &[String],
    pick: usize,
    same_type: bool,
) -> Vec<(usize, String)> {
    let mut notes = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        if i == pick {
            continue;
        }
        // Every description in the dropped subtree: spilled constraints sit where they applied.
        let mut texts: Vec<&str> = Vec::new();
        let mut stack = vec![branch];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(d)) = m.get("description") {
                        if !d.is_empty() {
                            texts.push(d.as_str());
                        }
                    }
                    stack.extend(m.values().rev());
                }
                Value::Array(a) => stack.extend(a.iter().rev()),
                _ => {}
            }
        }
        if !texts.is_empty() {
            // "(another `T` form, no longer enforced: a; b)" or "(values of type `T`, no longer
            // accepted here: a; b)", written without the formatter.
            let (before, after) = if same_type {
                ("(another `", "` form, no longer enforced: ")
            } else {
                ("(values of type `", "`, no longer accepted here: ")
            };
            let texts_len: usize = texts.iter().map(|t| t.len() + 2).sum();
            let mut note =
                String::with_capacity(before.len() + types[i].len() + after.len() + texts_len);
            for part in [before, &types[i], after] {
                note.push_str(part);
            }
            for (k, text) in texts.iter().enumerate() {
                if k > 0 {
                    note.push_str("; ");
                }
                note.push_str(text);
            }
            note.push(')');
            notes.push((i, note));
        }
    }
    notes
}
