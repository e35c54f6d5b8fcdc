//! Tuples and untyped arrays, for targets whose schema language has `items` but no `prefixItems`
//! (OpenAI strict, Anthropic strict, Google's schemas).
//!
//! OpenAI strict rejects an array without `items` ("array schema missing items") and has no
//! `prefixItems` in its subset; Anthropic's strict subset does not list `prefixItems`; the
//! OpenAPI 3.0 `Schema` Gemini's legacy `parameters` take has only `items`.

use serde_json::{Value, json};

use super::{Held, Rule, RuleReport, has_type};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, visit};
use crate::keys::Keys;

/// A tuple (`prefixItems`) becomes an array of `items`: positions that share one schema give
/// that schema (a change); different positions give `items: {"anyOf": [each distinct
/// schema]}`, a `widened` loss (the per-position types are no longer enforced; the arguments
/// are still validated against the original schema on the way back). A closed tuple keeps its
/// length with `maxItems`. With `untyped_fails`, an array with neither `items` nor
/// `prefixItems` is unrepresentable (strict fails open with the reason).
#[derive(Clone, Copy, Debug, Default)]
pub struct TupleItems {
    /// An array with no `items` cannot be enforced (OpenAI strict).
    pub untyped_fails: bool,
}

impl Rule for TupleItems {
    fn name(&self) -> &'static str {
        "tuple-items"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("prefixItems")
            || self.untyped_fails && held.may_hold(crate::adapt::holds::ARRAY_NO_ITEMS)
    }

    /// A tuple becomes an array (`type: "array"` where it had no type), its positions the
    /// branches of an `anyOf` at `items`.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        if !held.may_hold("prefixItems") {
            return super::adds_these(&[], add);
        }
        super::adds_these(
            &[
                "items",
                "type",
                crate::adapt::holds::ARRAY_NO_ITEMS,
                "maxItems",
                super::any_of_around(held),
                crate::adapt::holds::UNION_PAST_NULL,
            ],
            add,
        )
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let untyped_fails = self.untyped_fails;
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            if let Some(Value::Array(_)) = map.key("prefixItems") {
                let Some(Value::Array(positions)) = map.take_key("prefixItems") else {
                    unreachable!("checked above")
                };
                let count = positions.len();
                let rest = map.take_key("items");
                let closed = matches!(rest, Some(Value::Bool(false)));
                let past = rest.filter(|r| !closed && *r != Value::Bool(true));
                let mut all: Vec<Value> = positions.into_iter().chain(past).collect();
                // Where each position (and the schema past them) is among the distinct ones,
                // each moved, not copied (a copy per level of a nest of tuples was quadratic;
                // so was comparing each with every distinct one: they are found by a hash).
                let first = super::first_equal(&all);
                let mut distinct: Vec<Value> = Vec::new();
                let mut rank = vec![0; all.len()];
                let mut to = Vec::with_capacity(all.len());
                for (i, f) in first.into_iter().enumerate() {
                    if f == i {
                        rank[i] = distinct.len();
                        distinct.push(std::mem::take(&mut all[i]));
                    }
                    to.push(rank[f]);
                }
                let rest_at = (to.len() > count).then(|| to[count]);
                to.truncate(count);
                // Items past the tuple, where the original allows them, are held to the same
                // schemas: narrower, never wider, than the original.
                let one = distinct.len() <= 1;
                let items = match distinct.len() {
                    0 => json!({}),
                    1 => distinct.pop().expect("one"),
                    _ => super::one_key("anyOf", Value::Array(distinct)),
                };
                let single = items.key("anyOf").is_none();
                map.insert("items".into(), items);
                if !map.has("type") {
                    map.insert("type".into(), json!("array"));
                }
                if closed && !map.has("maxItems") {
                    map.insert("maxItems".into(), json!(count));
                }
                // Logged before the entry below, which names the tuple as it was.
                report.tupled(path.pointer(), to, rest_at, one);
                if single {
                    report.change(
                        path.child("prefixItems"),
                        format!("a tuple of {count} positions with one schema → `items`"),
                    );
                } else {
                    report.loss(
                        path.child("prefixItems"),
                        "prefixItems",
                        LossKind::Widened,
                        format!(
                            "a tuple of {count} positions with different schemas is sent as an array whose items may be any of them: the per-position types are no longer enforced (arguments are still validated against the original tuple)"
                        ),
                    );
                }
                return;
            }
            if untyped_fails
                && has_type(map, "array")
                && !matches!(map.key("items"), Some(Value::Object(_)))
            {
                report.fail(
                    path.pointer(),
                    "an array with no `items` schema cannot be enforced in strict mode (OpenAI: \"array schema missing items\")",
                );
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::rules::run;
    use serde_json::json;

    fn tuple(positions: Value) -> Value {
        json!({"type": "object", "properties": {"end": {
            "type": "array", "prefixItems": positions, "minItems": 2, "maxItems": 2
        }}})
    }

    #[test]
    fn same_schema_positions_become_items_as_a_change() {
        let (out, report) = run(
            &mut TupleItems::default(),
            tuple(
                json!([{"type": "number", "format": "float"}, {"type": "number", "format": "float"}]),
            ),
        );
        assert_eq!(
            out["properties"]["end"],
            json!({"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number", "format": "float"}})
        );
        assert!(report.losses.is_empty());
        assert_eq!(report.changes[0].pointer, "/properties/end/prefixItems");
    }

    #[test]
    fn different_positions_become_any_of_with_a_widened_loss() {
        let (out, report) = run(
            &mut TupleItems::default(),
            tuple(json!([{"type": "string"}, {"type": "integer", "minimum": 0}])),
        );
        assert_eq!(
            out["properties"]["end"]["items"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]})
        );
        assert_eq!(report.losses.len(), 1);
        assert_eq!(report.losses[0].kind, LossKind::Widened);
        assert_eq!(report.losses[0].pointer, "/properties/end/prefixItems");
    }

    #[test]
    fn closed_tuple_keeps_its_length() {
        let (out, _) = run(
            &mut TupleItems::default(),
            json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false}),
        );
        assert_eq!(
            out,
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 1})
        );
    }

    #[test]
    fn untyped_array_fails_only_when_asked() {
        let schema = json!({"type": "object", "properties": {"xs": {"type": ["array", "null"]}}});
        let (_, report) = run(
            &mut TupleItems {
                untyped_fails: true,
            },
            schema.clone(),
        );
        assert_eq!(report.failure.unwrap().pointer, "/properties/xs");
        let (out, report) = run(&mut TupleItems::default(), schema.clone());
        assert!(report.failure.is_none());
        assert_eq!(out, schema);
    }
}
