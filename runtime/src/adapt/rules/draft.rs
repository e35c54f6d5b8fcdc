//! Draft-07 (and OpenAPI `nullable`) to JSON Schema 2020-12, the dialect every target speaks.

use serde_json::{Map, Value, json};

use crate::adapt::tree::{Body, Entry, Keyword, NodeId, Report, Rule, Slot, Tree};

/// Rewrites draft-07 forms as 2020-12: `definitions` → `$defs` (and their `$ref`s), array `items`
/// → `prefixItems` (`additionalItems` → `items`), `dependencies` → `dependentRequired` /
/// `dependentSchemas`, `nullable: true` → a `null` type or branch, a draft-07 `$schema` URI →
/// the 2020-12 one. Changes only; nothing is lost.
#[derive(Clone, Copy, Debug, Default)]
pub struct UpgradeDraft07;

/// The dialect URI of JSON Schema 2020-12.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

fn is_draft07(uri: &str) -> bool {
    let uri = uri.trim_end_matches('#');
    uri == "http://json-schema.org/draft-07/schema"
        || uri == "https://json-schema.org/draft-07/schema"
}

impl Rule for UpgradeDraft07 {
    fn name(&self) -> &'static str {
        "upgrade-draft-07"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let forms = [
            Keyword::Schema,
            Keyword::Definitions,
            Keyword::Dependencies,
            Keyword::Nullable,
            Keyword::Items,
            Keyword::Ref,
        ];
        if !tree.holds_any(&forms) {
            return;
        }
        tree.walk(|tree, id| upgrade(tree, id, report));
    }
}

fn upgrade(tree: &mut Tree, id: NodeId, report: &mut Report) {
    if !tree.is_object(id) {
        return;
    }
    let origin = tree.node(id).origin;
    if let Some(Value::String(uri)) = tree.value_mut(id, Keyword::Schema) {
        if is_draft07(uri) {
            *uri = DRAFT_2020_12.to_owned();
            report.change(origin, Some(id), "`$schema` draft-07 → 2020-12");
        }
    }
    if let Some(defs) = tree.take(id, Keyword::Definitions) {
        if let Some(()) = move_definitions(tree, id, defs) {
            report.change(origin, Some(id), "`definitions` → `$defs`");
        }
    }
    if let Some(Value::String(r)) = tree.value_mut(id, Keyword::Ref) {
        if let Some(rest) = r.strip_prefix("#/definitions/") {
            *r = format!("#/$defs/{rest}");
        }
    }
    tuple_to_prefix_items(tree, id, report);
    if let Some(deps) = tree.take(id, Keyword::Dependencies) {
        if let Value::Object(deps) = tree.slot_value(&deps.value) {
            // Rare enough to be moved as JSON: what it holds keeps the place of `dependencies`.
            for (name, dep) in deps {
                let key = if dep.is_array() {
                    Keyword::DependentRequired
                } else {
                    Keyword::DependentSchemas
                };
                let (mut value, at) = match tree.get(id, key) {
                    Some(e) => (tree.slot_value(&e.value), e.origin),
                    None => (Value::Object(Map::new()), origin),
                };
                if let Value::Object(entries) = &mut value {
                    entries.entry(name).or_insert(dep);
                }
                let entry = tree.entry_from_json(key, value, at);
                tree.set(id, entry);
            }
            report.change(
                origin,
                Some(id),
                "`dependencies` → `dependentRequired`/`dependentSchemas`",
            );
        }
    }
    match tree.take(id, Keyword::Nullable) {
        Some(Entry {
            value: Slot::Value(Value::Bool(true)),
            ..
        }) => {
            make_nullable(tree, id);
            report.change(origin, Some(id), "`nullable: true` → a `null` type");
        }
        Some(_) => report.change(origin, Some(id), "`nullable: false` removed"),
        None => {}
    }
}

/// Draft-07's array `items` (a tuple) as 2020-12's `prefixItems`, its `additionalItems` as
/// `items` (a permissive one is left out); a change, nothing lost. Nothing when `items` is no
/// array.
pub(crate) fn tuple_to_prefix_items(tree: &mut Tree, id: NodeId, report: &mut Report) {
    let origin = tree.node(id).origin;
    let tuple = matches!(
        tree.get(id, Keyword::Items).map(|e| &e.value),
        Some(Slot::Schemas(_))
    );
    if !tuple {
        return;
    }
    let items = tree.take(id, Keyword::Items).expect("present");
    tree.set(
        id,
        Entry {
            key: Keyword::PrefixItems.into(),
            ..items
        },
    );
    if let Some(rest) = tree.take(id, Keyword::AdditionalItems) {
        let permissive = matches!(&rest.value, Slot::Schema(s) if matches!(tree.node(*s).body, Body::Bool(true)))
            || matches!(&rest.value, Slot::Value(Value::Bool(true)));
        if !permissive {
            tree.set(
                id,
                Entry {
                    key: Keyword::Items.into(),
                    ..rest
                },
            );
        }
    }
    report.change(origin, Some(id), "array `items` → `prefixItems`");
}

/// Moves `definitions` into `$defs` (a name `$defs` has already keeps its schema); `None` when
/// `definitions` held no object (then it is only removed).
fn move_definitions(tree: &mut Tree, id: NodeId, defs: Entry) -> Option<()> {
    let origin = defs.origin;
    match (defs.value, tree.slot_mut(id, Keyword::Defs)) {
        (Slot::Map(members), Some(Slot::Map(target))) => {
            for (name, schema) in members {
                if !target.iter().any(|(n, _)| *n == name) {
                    target.push((name, schema));
                }
            }
        }
        (Slot::Map(members), None) => tree.set(
            id,
            Entry {
                key: Keyword::Defs.into(),
                value: Slot::Map(members),
                origin,
            },
        ),
        (value, _) => {
            // A map of more than schemas, or a `$defs` that is not a map: merged as JSON.
            let Value::Object(defs) = tree.slot_value(&value) else {
                return None;
            };
            let (mut target, at) = match tree.get(id, Keyword::Defs) {
                Some(e) => (tree.slot_value(&e.value), e.origin),
                None => (Value::Object(Map::new()), origin),
            };
            if let Value::Object(target) = &mut target {
                for (k, v) in defs {
                    target.entry(k).or_insert(v);
                }
            }
            let entry = tree.entry_from_json(Keyword::Defs, target, at);
            tree.set(id, entry);
        }
    }
    Some(())
}

/// Adds `null` to what node `id` accepts, in the form 2020-12 uses: to its type, as a branch of
/// its union, or by wrapping it in a union with `null` (the made nodes name the node's place).
pub(crate) fn make_nullable(tree: &mut Tree, id: NodeId) {
    let origin = tree.node(id).origin;
    match tree.value_mut(id, Keyword::Type) {
        Some(Value::String(t)) => {
            if t != "null" {
                let t = t.clone();
                tree.set_value(id, Keyword::Type, json!([t, "null"]));
            }
        }
        Some(Value::Array(ts)) => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
            }
        }
        _ => {
            let null = || {
                Body::Object(vec![Entry {
                    key: Keyword::Type.into(),
                    value: Slot::Value("null".into()),
                    origin,
                }])
            };
            match tree.get(id, Keyword::AnyOf).map(|e| &e.value) {
                Some(Slot::Schemas(branches)) => {
                    let has_null = (branches.iter())
                        .any(|b| crate::nullable::is_null_branch(&tree.shallow(*b)));
                    if !has_null {
                        let n = tree.add(origin, null());
                        if let Some(Slot::Schemas(branches)) = tree.slot_mut(id, Keyword::AnyOf) {
                            branches.push(n);
                        }
                    }
                }
                Some(Slot::Value(Value::Array(branches))) => {
                    if !branches.iter().any(crate::nullable::is_null_branch) {
                        if let Some(Value::Array(branches)) = tree.value_mut(id, Keyword::AnyOf) {
                            branches.push(json!({"type": "null"}));
                        }
                    }
                }
                _ => {
                    let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
                    let inner = tree.add(origin, Body::Object(entries));
                    let n = tree.add(origin, null());
                    let union = Entry {
                        key: Keyword::AnyOf.into(),
                        value: Slot::Schemas(vec![inner, n]),
                        origin,
                    };
                    *tree.entries_mut(id).expect("an object") = vec![union];
                }
            }
        }
    }
    if let Some(Value::Array(values)) = tree.value_mut(id, Keyword::Enum) {
        if !values.iter().any(Value::is_null) {
            values.push(Value::Null);
        }
    }
}
