//! Cloud Code Assist Claude (`parameters` on Google's Claude path), as its validator accepts
//! them: nullable properties made optional, and the gate whose refusal sends the per-tool
//! fallback. (Its combiners are merged by `collapse-combiners`; its output is checked against
//! the meta-schema by the engine, `TreeRules::meta_validate`.)

use std::collections::HashSet;

use serde_json::Value;

use crate::adapt::tree::{Body, Entry, Keyword, NodeId, Report, Rule, Slot, Tree};
use crate::nullable::is_null_branch;

/// A property that accepts `null` (`nullable: true`, a `null` in its type list, a null branch of
/// its `anyOf`/`oneOf`, a `null` enum value) becomes optional instead, and the null form is
/// removed: the model leaves it out rather than sending `null`. A change per property.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullablePropertiesOptional;

impl Rule for NullablePropertiesOptional {
    fn name(&self) -> &'static str {
        "nullable-properties-optional"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        tree.walk_children_first(|tree, id| {
            let properties: Vec<NodeId> = match tree.get(id, Keyword::Properties) {
                Some(entry @ Entry { value: Slot::Map(_), .. }) => entry.value.nodes().collect(),
                _ => return,
            };
            let optional: Vec<bool> = (properties.iter()).map(|p| strip_null(tree, *p)).collect();
            if !optional.contains(&true) {
                return;
            }
            // Only the names made optional are copied (the required list is changed below).
            let names: HashSet<String> = match tree.get(id, Keyword::Properties).map(|e| &e.value) {
                Some(Slot::Map(members)) => (members.iter().zip(&optional))
                    .filter(|(_, optional)| **optional)
                    .map(|((name, _), _)| name.clone())
                    .collect(),
                _ => HashSet::new(),
            };
            if let Some(Value::Array(required)) = tree.value_mut(id, Keyword::Required) {
                required.retain(|r| !r.as_str().is_some_and(|r| names.contains(r)));
            }
            for (p, _) in properties.iter().zip(&optional).filter(|(_, o)| **o) {
                report.change(tree.node(*p).origin, Some(*p), "a nullable property made optional: the model leaves it out instead of sending null");
            }
        });
    }
}

/// Removes what makes property schema `id` nullable; whether it was.
fn strip_null(tree: &mut Tree, id: NodeId) -> bool {
    if !tree.is_object(id) {
        return false;
    }
    let mut was = false;
    if let Some(nullable) = tree.take(id, Keyword::Nullable) {
        was = matches!(nullable.value, Slot::Value(Value::Bool(true)));
    }
    if let Some(Value::Array(types)) = tree.value_mut(id, Keyword::Type) {
        let before = types.len();
        types.retain(|t| t != "null");
        if types.len() != before {
            was = true;
            if types.len() == 1 {
                let one = types.swap_remove(0);
                tree.set_value(id, Keyword::Type, one);
            }
        }
    }
    for key in [Keyword::AnyOf, Keyword::OneOf] {
        let Some(Slot::Schemas(branches)) = tree.get(id, key).map(|e| &e.value) else {
            continue;
        };
        let kept: Vec<NodeId> = (branches.iter().copied())
            .filter(|b| !is_null_branch(&tree.shallow(*b)))
            .collect();
        if kept.len() == branches.len() {
            continue;
        }
        was = true;
        // A lone branch is merged only where the property has none of its keywords with another
        // value (both must hold; `items` here and `items` in the branch are not one schema):
        // otherwise it stays a one-member union, for the later rules that merge with a report.
        let collides = kept.len() == 1
            && tree.entries(kept[0]).iter().any(|b| {
                b.key != Keyword::Description
                    && (tree.entries(id).iter())
                        .any(|n| n.key == b.key && !tree.same_slot(&n.value, &b.value))
            });
        if kept.len() != 1 || collides {
            if let Some(Slot::Schemas(branches)) = tree.slot_mut(id, key) {
                *branches = kept;
            }
            continue;
        }
        // One branch left: its keywords the property lacks are taken into it.
        tree.take(id, key);
        let branch = kept[0];
        if let Body::Object(entries) = &mut tree.node_mut(branch).body {
            let entries = std::mem::take(entries);
            tree.node_mut(branch).merged_into = Some(id);
            for entry in entries {
                if !tree.entries(id).iter().any(|e| e.key == entry.key) {
                    tree.set(id, entry);
                }
            }
        }
    }
    if let Some(Value::Array(values)) = tree.value_mut(id, Keyword::Enum) {
        let before = values.len();
        values.retain(|x| !x.is_null());
        was |= values.len() != before;
    }
    was
}

/// Seed 4.5: after normalization no type list, `type: "null"`, `nullable`, `anyOf`/`oneOf`/
/// `allOf` or `not` may remain; any of them makes the tool fall back.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResidualGate;

impl Rule for ResidualGate {
    fn name(&self) -> &'static str {
        "residual-gate"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        const RESIDUAL: [Keyword; 5] = [
            Keyword::Nullable,
            Keyword::AnyOf,
            Keyword::OneOf,
            Keyword::AllOf,
            Keyword::Not,
        ];
        let list = tree.breadth_first();
        for (index, r) in list.iter().enumerate() {
            let Body::Object(entries) = &tree.node(r.id).body else {
                continue;
            };
            let find = |k: Keyword| entries.iter().find(|e| e.key == k);
            let residual = match find(Keyword::Type).and_then(|e| e.value.as_value()) {
                Some(Value::Array(_)) => Some("a type array".to_owned()),
                Some(Value::String(t)) if t == "null" => Some("`type: \"null\"`".to_owned()),
                _ => (RESIDUAL.iter())
                    .find(|k| find(**k).is_some())
                    .map(|k| format!("`{}`", k.as_str())),
            };
            if let Some(what) = residual {
                report.fail(
                    tree.refused(&list, index),
                    format!("{what} remains after normalization; Cloud Code Assist rejects it"),
                );
                return;
            }
        }
    }
}
