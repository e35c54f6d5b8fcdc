//! `const` and unions of constants as `enum`s, and the `type` a node's other keywords imply.

use serde_json::Value;

use super::append_description;
use crate::adapt::rules::{HeldStrings, homogeneous_type};
use crate::adapt::tree::{Entry, Keyword, NodeId, Report, Rule, Slot, Tree};

/// `const: x` → `enum: [x]` (an `enum` beside it keeps only `x`, if it has it): for strict
/// modes that take no `const`. A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstToEnum;

impl Rule for ConstToEnum {
    fn name(&self) -> &'static str {
        "const-to-enum"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Const) {
            return;
        }
        tree.walk(|tree, id| {
            let Some(Entry {
                value: Slot::Value(c),
                origin,
                ..
            }) = tree.take(id, Keyword::Const)
            else {
                return;
            };
            // An `enum` beside it keeps its place: what is said of the values is said there.
            let (values, origin) = match tree.take(id, Keyword::Enum) {
                Some(Entry {
                    value: Slot::Value(Value::Array(existing)),
                    origin,
                    ..
                }) => (existing.into_iter().filter(|v| *v == c).collect(), origin),
                _ => (vec![c], origin),
            };
            tree.set(
                id,
                Entry {
                    key: Keyword::Enum.into(),
                    value: Slot::Value(Value::Array(values)),
                    origin,
                },
            );
            report.change(tree.node(id).origin, Some(id), "`const` → `enum`");
        });
    }
}

/// An `anyOf`/`oneOf` whose branches are only constants (with a `type`, `description` or
/// `title`) becomes one `enum` of their values, typed when they agree; the branches'
/// descriptions stay readable in the node's description. A change.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllConstToEnum;

const CONST_BRANCH_KEYS: &[Keyword] = &[
    Keyword::Const,
    Keyword::Type,
    Keyword::Description,
    Keyword::Title,
];

impl Rule for AllConstToEnum {
    fn name(&self) -> &'static str {
        "all-const-to-enum"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds_any(&[Keyword::AnyOf, Keyword::OneOf]) {
            return;
        }
        tree.walk(|tree, id| {
            for key in [Keyword::AnyOf, Keyword::OneOf] {
                let Some(Slot::Schemas(branches)) = tree.get(id, key).map(|e| &e.value) else {
                    continue;
                };
                let all_const = !branches.is_empty()
                    && branches.iter().all(|&b| {
                        tree.is_object(b)
                            && tree.has(b, Keyword::Const)
                            && (tree.entries(b).iter())
                                .all(|e| CONST_BRANCH_KEYS.iter().any(|k| e.key == *k))
                    });
                if !all_const || tree.has(id, Keyword::Enum) {
                    continue;
                }
                let Some(Entry {
                    value: Slot::Schemas(branches),
                    ..
                }) = tree.take(id, key)
                else {
                    unreachable!("checked above")
                };
                let mut values: Vec<Value> = Vec::new();
                let mut held = HeldStrings::default();
                let mut notes: Vec<String> = Vec::new();
                let mut types: Vec<Option<Value>> = Vec::new();
                for &b in &branches {
                    let c = tree
                        .value(b, Keyword::Const)
                        .cloned()
                        .unwrap_or(Value::Null);
                    if let Some(Value::String(d)) = tree.value(b, Keyword::Description) {
                        let shown = match &c {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        notes.push(format!("`{shown}`: {d}"));
                    }
                    types.push(tree.value(b, Keyword::Type).cloned());
                    held.push(&mut values, c);
                }
                let ty = match types.first() {
                    Some(Some(t)) if types.iter().all(|x| x.as_ref() == Some(t)) => Some(t.clone()),
                    _ => homogeneous_type(&values).map(Value::from),
                };
                if let Some(t) = ty {
                    if !tree.has(id, Keyword::Type) {
                        tree.set_value(id, Keyword::Type, t);
                    }
                }
                tree.set_value(id, Keyword::Enum, Value::Array(values));
                if !notes.is_empty() {
                    append_description(tree, id, &notes.join("\n"), "\n\n");
                }
                let detail = format!(
                    "`{}` of {} constants → `enum`",
                    key.as_str(),
                    branches.len()
                );
                report.change(tree.node(id).origin, Some(id), detail);
                return;
            }
        });
    }
}

/// Gives an untyped node (no `type`, union, `allOf` or `$ref`) the type its keywords imply:
/// `object` from `properties`, `array` from `items`/`prefixItems`, the one type of its `enum`
/// or `const` values, `string` from a `pattern` (with an `enum` or `const` only when its values
/// are strings too). A change: a strict mode needs a type on every node.
#[derive(Clone, Copy, Debug, Default)]
pub struct InferType;

impl Rule for InferType {
    fn name(&self) -> &'static str {
        "infer-type"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let untyped = |tree: &Tree, id: NodeId| {
            let typed = [
                Keyword::Type,
                Keyword::AnyOf,
                Keyword::OneOf,
                Keyword::AllOf,
                Keyword::Ref,
            ];
            tree.is_object(id) && !typed.iter().any(|k| tree.has(id, *k))
        };
        if !tree.any_node(untyped) {
            return;
        }
        tree.walk(|tree, id| {
            if !untyped(tree, id) {
                return;
            }
            let origin = tree.node(id).origin;
            let properties = tree.get(id, Keyword::Properties).map(|e| &e.value);
            if matches!(
                properties,
                Some(Slot::Map(_) | Slot::Value(Value::Object(_)))
            ) {
                tree.set_value(id, Keyword::Type, "object".into());
                report.change(
                    origin,
                    Some(id),
                    "`type: \"object\"` inferred from `properties`",
                );
                return;
            }
            if tree.has(id, Keyword::Items) || tree.has(id, Keyword::PrefixItems) {
                tree.set_value(id, Keyword::Type, "array".into());
                report.change(origin, Some(id), "`type: \"array\"` inferred from `items`");
                return;
            }
            // Each of `enum`, `const` and `pattern` that the node has names one type, and
            // they agree: a `pattern` says only strings are checked, so it names `string`.
            let values: Option<Vec<Value>> = match (
                tree.value(id, Keyword::Enum),
                tree.value(id, Keyword::Const),
            ) {
                (Some(Value::Array(values)), _) if !values.is_empty() => Some(values.clone()),
                (Some(_), _) => return,
                (None, Some(c)) => Some(vec![c.clone()]),
                (None, None) => None,
            };
            let from_values = match &values {
                Some(values) => match homogeneous_type(values) {
                    Some(t) => Some(t),
                    None => return,
                },
                None => None,
            };
            let pattern = matches!(tree.value(id, Keyword::Pattern), Some(Value::String(_)));
            let (t, from) = match (from_values, pattern) {
                (Some(t), false) => (t, "the enum or const"),
                (Some("string"), true) => ("string", "the enum or const and `pattern`"),
                (None, true) => ("string", "`pattern`"),
                _ => return,
            };
            tree.set_value(id, Keyword::Type, Value::from(t));
            report.change(
                origin,
                Some(id),
                format!("`type: \"{t}\"` inferred from {from}"),
            );
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::InferType;
    use crate::adapt::rules::{Rule, apply};

    /// A `pattern` names `string`, alone or with string values; values of another type disagree
    /// with it, and nothing is inferred.
    #[test]
    fn a_pattern_names_string_where_everything_agrees() {
        let input = json!({"type": "object", "properties": {
            "p": {"pattern": "^a"},
            "pe": {"pattern": "^a", "enum": ["ab", "ac"]},
            "pc": {"pattern": "^a", "const": "ab"},
            "pn": {"pattern": "^a", "enum": [1, 2]},
            "e": {"enum": [1, 2]}
        }});
        let mut rules: Vec<Box<dyn Rule>> = vec![Box::new(InferType)];
        let applied = apply(&mut rules, &input);
        let t = |name: &str| applied.schema["properties"][name].get("type").cloned();
        assert_eq!(t("p"), Some(json!("string")));
        assert_eq!(t("pe"), Some(json!("string")));
        assert_eq!(t("pc"), Some(json!("string")));
        assert_eq!(t("pn"), None);
        assert_eq!(t("e"), Some(json!("integer")));
        assert!(applied.losses.is_empty());
    }
}
