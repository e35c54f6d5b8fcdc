//! `const` as `enum`, and the type of an enum that has none.

use serde_json::{Value, json};

use super::{Report, Rule};
use crate::adapt::visit::{Order, visit};

/// `const: v` → `enum: [v]` (intersected with an existing `enum`). Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstToEnum;

impl Rule for ConstToEnum {
    fn name(&self) -> &'static str {
        "const-to-enum"
    }

    fn apply(&mut self, schema: &mut Value, report: &mut Report) {
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            let Some(c) = map.shift_remove("const") else {
                return;
            };
            let values = match map.shift_remove("enum") {
                // Both must hold: the const if the enum allows it, else nothing validates.
                Some(Value::Array(existing)) => existing.into_iter().filter(|v| *v == c).collect(),
                _ => vec![c],
            };
            map.insert("enum".into(), Value::Array(values));
            report.change(&path.pointer(), "const-to-enum", "`const` → `enum`");
        });
    }
}

/// The JSON type of a value (`integer` for integral numbers).
pub(crate) fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The one primitive type that every value has (`number` when integers and floats mix).
pub(crate) fn homogeneous_type(values: &[Value]) -> Option<&'static str> {
    let mut found: Option<&'static str> = None;
    for v in values {
        let t = value_type(v);
        found = match (found, t) {
            (None, t) => Some(t),
            (Some(a), b) if a == b => Some(a),
            (Some("integer"), "number") | (Some("number"), "integer") => Some("number"),
            _ => return None,
        };
    }
    found.filter(|t| !matches!(*t, "array" | "object"))
}

/// A node with no `type` (nor combinator or `$ref`) gets the one its other keywords imply:
/// `object` with `properties`, `array` with `items`/`prefixItems`, or the primitive type of a
/// homogeneous `enum`. Same meaning for every value a strict provider can produce; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct InferType;

impl Rule for InferType {
    fn name(&self) -> &'static str {
        "infer-type"
    }

    fn apply(&mut self, schema: &mut Value, report: &mut Report) {
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            if map.contains_key("type")
                || ["anyOf", "oneOf", "allOf", "$ref"]
                    .iter()
                    .any(|k| map.contains_key(*k))
            {
                return;
            }
            if map.get("properties").is_some_and(Value::is_object) {
                map.insert("type".into(), json!("object"));
                report.change(
                    &path.pointer(),
                    "infer-type",
                    "`type: \"object\"` inferred from `properties`",
                );
                return;
            }
            if map.contains_key("items") || map.contains_key("prefixItems") {
                map.insert("type".into(), json!("array"));
                report.change(
                    &path.pointer(),
                    "infer-type",
                    "`type: \"array\"` inferred from `items`",
                );
                return;
            }
            let values: Vec<Value> = match (map.get("enum"), map.get("const")) {
                (Some(Value::Array(values)), _) => values.clone(),
                (None, Some(c)) => vec![c.clone()],
                _ => return,
            };
            if values.is_empty() {
                return;
            }
            if let Some(t) = homogeneous_type(&values) {
                map.insert("type".into(), json!(t));
                report.change(
                    &path.pointer(),
                    "infer-type",
                    format!("`type: \"{t}\"` inferred from the enum or const"),
                );
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_and_enum_types() {
        let mut v = json!({"type": "object", "properties": {
            "a": {"const": "x"}, "b": {"enum": [1, 2]}, "c": {"enum": [1, 2.5]}, "d": {"enum": ["a", 1]},
            "e": {"const": "x", "enum": ["y"]}, "const": {"type": "string"}
        }});
        let mut r = Report::default();
        ConstToEnum.apply(&mut v, &mut r);
        InferType.apply(&mut v, &mut r);
        let p = &v["properties"];
        assert_eq!(p["a"], json!({"enum": ["x"], "type": "string"}));
        assert_eq!(p["b"]["type"], "integer");
        assert_eq!(p["c"]["type"], "number");
        assert!(p["d"].get("type").is_none());
        assert_eq!(p["e"]["enum"], json!([]));
        assert_eq!(
            p["const"],
            json!({"type": "string"}),
            "a property named `const` is a name"
        );
    }
}
