//! `const` as `enum`, and the type of an enum that has none.

use serde_json::{Value, json};

use super::{Held, NodeRule, Rule, RuleReport, walk_nodes};
use crate::adapt::visit::Path;
use crate::keys::Keys;

/// `const: v` → `enum: [v]` (intersected with an existing `enum`). Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstToEnum;

impl Rule for ConstToEnum {
    fn name(&self) -> &'static str {
        "const-to-enum"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("const")
    }

    /// An `enum` where a `const` was: none without one.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        if self.wanted(held) {
            add("enum");
        }
        true
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        walk_nodes(self, schema, report);
    }
}

impl NodeRule for ConstToEnum {
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        let Some(c) = map.take_key("const") else {
            return;
        };
        let values = match map.take_key("enum") {
            // Both must hold: the const if the enum allows it, else nothing validates.
            Some(Value::Array(existing)) => existing.into_iter().filter(|v| *v == c).collect(),
            _ => vec![c],
        };
        map.insert("enum".into(), Value::Array(values));
        report.change(path.pointer(), "`const` → `enum`");
    }
}

/// An `anyOf`/`oneOf` whose every branch is a `const` (schemars' documented unit enums, zod
/// literal unions) becomes one `enum` with the branches' common type; each branch's description
/// moves into the node's description (`` `value`: text ``), so nothing a person wrote is lost.
/// Same values accepted; a change. Google and Cloud Code Assist handle a plain enum far better
/// than a union.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllConstToEnum;

const CONST_BRANCH_KEYS: &[&str] = &["const", "type", "description", "title"];

impl Rule for AllConstToEnum {
    fn name(&self) -> &'static str {
        "all-const-to-enum"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("anyOf") || held.may_hold("oneOf")
    }

    /// Where a union was: none without one.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        if self.wanted(held) {
            // The union taken away may leave the node untyped (an enum of mixed types), or
            // typed `null` (consts that are all `null`).
            use crate::adapt::holds::{TYPE_NULL, UNTYPED};
            super::adds_these(&["enum", "type", TYPE_NULL, UNTYPED, "description"], add);
        }
        true
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        walk_nodes(self, schema, report);
    }
}

impl NodeRule for AllConstToEnum {
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.key(key) else {
                continue;
            };
            let all_const = !branches.is_empty()
                && branches.iter().all(|b| {
                    b.as_object().is_some_and(|m| {
                        m.has("const") && m.keys().all(|k| CONST_BRANCH_KEYS.contains(&k.as_str()))
                    })
                });
            if !all_const || map.has("enum") {
                continue;
            }
            let Some(Value::Array(branches)) = map.shift_remove(key) else {
                unreachable!()
            };
            let mut values: Vec<Value> = Vec::new();
            let mut held = super::HeldStrings::default();
            let mut notes: Vec<String> = Vec::new();
            let mut types: Vec<Option<Value>> = Vec::new();
            for b in &branches {
                let c = b["const"].clone();
                if let Some(Value::String(d)) = b.key("description") {
                    let shown = match &c {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    notes.push(format!("`{shown}`: {d}"));
                }
                types.push(b.key("type").cloned());
                held.push(&mut values, c);
            }
            let ty = match types.first() {
                Some(Some(t)) if types.iter().all(|x| x.as_ref() == Some(t)) => Some(t.clone()),
                _ => homogeneous_type(&values).map(Value::from),
            };
            if let Some(t) = ty {
                map.entry("type").or_insert(t);
            }
            map.insert("enum".into(), Value::Array(values));
            if !notes.is_empty() {
                super::append_description(map, &notes.join("\n"), "\n\n");
            }
            report.change(
                path.pointer(),
                format!("`{key}` of {} constants → `enum`", branches.len()),
            );
            return;
        }
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

    /// Only a node the scan found untyped (no `type`, union, `allOf` or `$ref`, and a keyword a
    /// type is read from) gets a type.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::UNTYPED)
    }

    /// `type`, `array` where a node has `items` or `prefixItems`, `null` where an enum or a
    /// `const` may be only `null`.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        add("type");
        if held.may_hold("items") || held.may_hold("prefixItems") {
            add(crate::adapt::holds::ARRAY_NO_ITEMS);
        }
        if held.may_hold("enum") || held.may_hold("const") {
            add(crate::adapt::holds::TYPE_NULL);
        }
        true
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        walk_nodes(self, schema, report);
    }
}

impl NodeRule for InferType {
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        if map.has("type")
            || ["anyOf", "oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| map.has(k))
        {
            return;
        }
        if map.key("properties").is_some_and(Value::is_object) {
            map.insert("type".into(), json!("object"));
            report.change(
                path.pointer(),
                "`type: \"object\"` inferred from `properties`",
            );
            return;
        }
        if map.has("items") || map.has("prefixItems") {
            map.insert("type".into(), json!("array"));
            report.change(path.pointer(), "`type: \"array\"` inferred from `items`");
            return;
        }
        let values: Vec<Value> = match (map.key("enum"), map.key("const")) {
            (Some(Value::Array(values)), _) => values.clone(),
            (None, Some(c)) => vec![c.clone()],
            _ => return,
        };
        if values.is_empty() {
            return;
        }
        if let Some(t) = homogeneous_type(&values) {
            map.insert("type".into(), Value::from(t));
            report.change(
                path.pointer(),
                format!("`type: \"{t}\"` inferred from the enum or const"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_unions_become_enums() {
        let mut v = json!({"oneOf": [
            {"type": "string", "const": "fast", "description": "Quick."},
            {"type": "string", "const": "deep", "description": "Slow."}
        ], "description": "Mode"});
        let mut r = RuleReport::default();
        AllConstToEnum.apply(&mut v, &mut r);
        assert_eq!(
            v,
            json!({"description": "Mode\n\n`fast`: Quick.\n`deep`: Slow.", "type": "string", "enum": ["fast", "deep"]})
        );
        let mut mixed = json!({"anyOf": [{"const": "a"}, {"const": 1}]});
        AllConstToEnum.apply(&mut mixed, &mut r);
        assert_eq!(mixed, json!({"enum": ["a", 1]}));
        // Each value once, in the order first seen, strings and others alike.
        let mut repeated = json!({"anyOf": [{"const": "a"}, {"const": 1}, {"const": "b"},
            {"const": "a"}, {"const": 1}, {"const": {"k": 1}}, {"const": {"k": 1}}, {"const": "1"}]});
        AllConstToEnum.apply(&mut repeated, &mut r);
        assert_eq!(repeated, json!({"enum": ["a", 1, "b", {"k": 1}, "1"]}));
        let mut not_all = json!({"anyOf": [{"const": "a"}, {"type": "integer"}]});
        AllConstToEnum.apply(&mut not_all, &mut r);
        assert!(not_all.key("anyOf").is_some());
    }

    #[test]
    fn const_and_enum_types() {
        let mut v = json!({"type": "object", "properties": {
            "a": {"const": "x"}, "b": {"enum": [1, 2]}, "c": {"enum": [1, 2.5]}, "d": {"enum": ["a", 1]},
            "e": {"const": "x", "enum": ["y"]}, "const": {"type": "string"}
        }});
        let mut r = RuleReport::default();
        ConstToEnum.apply(&mut v, &mut r);
        InferType.apply(&mut v, &mut r);
        let p = &v["properties"];
        assert_eq!(p["a"], json!({"enum": ["x"], "type": "string"}));
        assert_eq!(p["b"]["type"], "integer");
        assert_eq!(p["c"]["type"], "number");
        assert!(p["d"].key("type").is_none());
        assert_eq!(p["e"]["enum"], json!([]));
        assert_eq!(
            p["const"],
            json!({"type": "string"}),
            "a property named `const` is a name"
        );
    }
}
