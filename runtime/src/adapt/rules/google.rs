//! Google's wire forms (Gemini `parametersJsonSchema` and the legacy OpenAPI `parameters`): the
//! rules that work one node at a time.

use std::collections::VecDeque;

use serde_json::Value;

use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// The snake-case spellings some servers publish (`any_of`, `additional_properties`, ...) as the
/// keywords they mean. A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct SnakeCaseKeywords;

const SNAKE: &[(&str, Keyword)] = &[
    ("any_of", Keyword::AnyOf),
    ("additional_properties", Keyword::AdditionalProperties),
    ("prefix_items", Keyword::PrefixItems),
    ("property_ordering", Keyword::PropertyOrdering),
];

impl Rule for SnakeCaseKeywords {
    fn name(&self) -> &'static str {
        "snake-case-keywords"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let snake = |e: &Entry| SNAKE.iter().any(|(s, _)| e.key.as_str() == *s);
        if !tree.any_entry(snake) {
            return;
        }
        tree.walk(|tree, id| {
            for (snake, camel) in SNAKE {
                let Some(entries) = tree.entries_mut(id) else {
                    return;
                };
                let Some(at) = entries.iter().position(|e| e.key.as_str() == *snake) else {
                    continue;
                };
                let entry = entries.remove(at);
                // Read again as the keyword it is: its subschemas now hold schemas.
                let key = Key::Kw(*camel);
                let value = tree.slot_value(&entry.value);
                let slot = tree.slot_from_json(&key, &value, entry.origin);
                tree.set(
                    id,
                    Entry {
                        key,
                        value: slot,
                        origin: entry.origin,
                    },
                );
                let detail = format!("`{snake}` → `{}`", camel.as_str());
                report.change(tree.node(id).origin, Some(id), detail);
            }
        });
    }
}

/// Boolean subschemas as objects (`true` → `{}`, `false` → `{"not": {}}`), which Google's
/// schema types cannot hold; `additionalProperties`/`items: false` are keyword values, left to
/// the keyword rules. A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoolSchemas;

impl Rule for BoolSchemas {
    fn name(&self) -> &'static str {
        "bool-schemas"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let boolean = |id: NodeId| matches!(tree.node(id).body, Body::Bool(_));
        let schema_slot = |e: &Entry| !keyword_value(e) && e.value.nodes().any(boolean);
        if !boolean(tree.root) && !tree.any_entry(schema_slot) {
            return;
        }
        // Breadth-first, each node with whether a keyword holds it as its value.
        let mut found = Vec::new();
        let mut queue = VecDeque::from([(tree.root, false)]);
        while let Some((id, held)) = queue.pop_front() {
            if let Body::Bool(b) = tree.node(id).body {
                if !held {
                    found.push((id, b));
                }
            }
            for e in tree.entries(id) {
                let value = keyword_value(e);
                queue.extend(e.value.nodes().map(|c| (c, value)));
            }
        }
        for (id, b) in found {
            let origin = tree.node(id).origin;
            let body = if b {
                Body::Object(Vec::new())
            } else {
                let empty = tree.add(origin, Body::Object(Vec::new()));
                Body::Object(vec![Entry {
                    key: Keyword::Not.into(),
                    value: Slot::Schema(empty),
                    origin,
                }])
            };
            tree.node_mut(id).body = body;
            report.change(
                origin,
                Some(id),
                format!("boolean schema `{b}` as an object"),
            );
        }
    }
}

/// A boolean `items` as the object Google's `Schema` message needs there (its `items` is a
/// `Schema`, never a boolean): `true` → `{}`, `false` → `{}` with `maxItems: 0` (the array must
/// be empty, as `items: false` says). A change: what is allowed stays the same.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoolItems;

impl Rule for BoolItems {
    fn name(&self) -> &'static str {
        "bool-items"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let bool_items = |tree: &Tree, id: NodeId| match tree.get(id, Keyword::Items) {
            Some(Entry {
                value: Slot::Schema(items),
                ..
            }) => matches!(tree.node(*items).body, Body::Bool(_)),
            _ => false,
        };
        if !tree.any_node(bool_items) {
            return;
        }
        tree.walk(|tree, id| {
            if !bool_items(tree, id) {
                return;
            }
            let entry = tree.get(id, Keyword::Items).expect("present");
            let (origin, Slot::Schema(items)) = (entry.origin, &entry.value) else {
                return;
            };
            let items = *items;
            let Body::Bool(allowed) = tree.node(items).body else {
                return;
            };
            tree.node_mut(items).body = Body::Object(Vec::new());
            if allowed {
                report.change(origin, Some(id), "`items: true` as `items: {}`");
            } else {
                // A `maxItems` already there says no more than `items: false` does: it becomes 0,
                // a change at its own place.
                if let Some(old) = tree.get(id, Keyword::MaxItems) {
                    let (at, value) = (old.origin, tree.slot_value(&old.value));
                    report.change(
                        at,
                        Some(id),
                        format!(
                            "`maxItems: {value}` → `maxItems: 0`: `items: false` allows no item"
                        ),
                    );
                }
                tree.set_value(id, Keyword::MaxItems, 0.into());
                report.change(
                    origin,
                    Some(id),
                    "`items: false` as `items: {}` with `maxItems: 0`",
                );
            }
        });
    }
}

/// Whether the entry holds a boolean as a keyword's value (`additionalProperties: false`), not as
/// a subschema.
fn keyword_value(e: &Entry) -> bool {
    matches!(
        e.key,
        Key::Kw(
            Keyword::AdditionalProperties
                | Keyword::UnevaluatedProperties
                | Keyword::Items
                | Keyword::UnevaluatedItems
        )
    ) && matches!(e.value, Slot::Schema(_))
}

/// Whether node's `properties` is an object.
fn has_properties_object(tree: &Tree, id: crate::adapt::tree::NodeId) -> bool {
    matches!(
        tree.get(id, Keyword::Properties).map(|e| &e.value),
        Some(Slot::Map(_) | Slot::Value(Value::Object(_)))
    )
}

/// `properties: {}` on every object-typed node without it (Gemini refuses an object without
/// properties). A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct EnsureProperties;

impl Rule for EnsureProperties {
    fn name(&self) -> &'static str {
        "ensure-properties"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        tree.walk(|tree, id| {
            let object = tree.value(id, Keyword::Type).and_then(Value::as_str) == Some("object");
            if object && !has_properties_object(tree, id) {
                let origin = tree
                    .get(id, Keyword::Properties)
                    .map_or(tree.node(id).origin, |e| e.origin);
                tree.set(
                    id,
                    Entry {
                        key: Keyword::Properties.into(),
                        value: Slot::Map(Vec::new()),
                        origin,
                    },
                );
                report.change(tree.node(id).origin, Some(id), "`properties: {}` added");
            }
        });
    }
}

/// `propertyOrdering` as the properties are declared, on every object with two or more (Gemini
/// otherwise orders them alphabetically). A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct PropertyOrdering;

impl Rule for PropertyOrdering {
    fn name(&self) -> &'static str {
        "property-ordering"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Properties) {
            return;
        }
        tree.walk(|tree, id| {
            if tree.has(id, Keyword::PropertyOrdering)
                || tree.value(id, Keyword::Type).and_then(Value::as_str) != Some("object")
            {
                return;
            }
            let names: Vec<Value> = match tree.get(id, Keyword::Properties).map(|e| &e.value) {
                Some(Slot::Map(members)) => members
                    .iter()
                    .map(|(n, _)| Value::String(n.clone()))
                    .collect(),
                Some(Slot::Value(Value::Object(members))) => {
                    members.keys().map(|k| Value::String(k.clone())).collect()
                }
                _ => return,
            };
            if names.len() < 2 {
                return;
            }
            tree.set_value(id, Keyword::PropertyOrdering, Value::Array(names));
            report.change(
                tree.node(id).origin,
                Some(id),
                "`propertyOrdering` as declared",
            );
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::BoolItems;
    use crate::adapt::rules::{Rule, apply};

    /// A boolean `items` becomes the object the `Schema` message needs, allowing the same arrays.
    #[test]
    fn bool_items_become_objects() {
        let input = json!({"type": "object", "properties": {
            "any": {"type": "array", "items": true},
            "none": {"type": "array", "items": false, "maxItems": 3},
            "typed": {"type": "array", "items": {"type": "string"}}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(BoolItems)];
        let applied = apply(&mut rules, &input);
        assert_eq!(
            applied.schema["properties"],
            json!({
                "any": {"type": "array", "items": {}},
                "none": {"type": "array", "items": {}, "maxItems": 0},
                "typed": {"type": "array", "items": {"type": "string"}}
            })
        );
        assert!(applied.losses.is_empty());
        // `items` twice, and `maxItems: 3` at its own place.
        assert_eq!(applied.changes.len(), 3);
    }
}
