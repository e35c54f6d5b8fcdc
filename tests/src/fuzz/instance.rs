//! A small instance generator for the generated schemas: a plain value of the schema's first
//! form, which the fuzz suite keeps only when the input schema accepts it (checked with the
//! `jsonschema` crate), so the generator can stay simple and never decides validity itself.

use serde_json::{Map, Value, json};
use toolschema::walk::resolve_local as target;

/// A value for `schema`; `with_optional` also fills properties that are not required.
pub fn instance(schema: &Value, root: &Value, with_optional: bool, depth: usize) -> Value {
    if depth > 6 {
        return Value::Null;
    }
    let Some(m) = schema.as_object() else {
        return Value::Null;
    };
    if let Some(Value::String(r)) = m.get("$ref") {
        if let Some(t) = target(root, r) {
            return instance(t, root, with_optional, depth + 1);
        }
    }
    if let Some(c) = m.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        if let Some(v) = values.first() {
            return v.clone();
        }
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = m.get(k) {
            if let Some(b) = branches.first() {
                if !m.contains_key("type") {
                    return instance(b, root, with_optional, depth + 1);
                }
            }
        }
    }
    let t = match m.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or("null"),
        _ if m.contains_key("properties") => "object",
        _ if m.contains_key("items") || m.contains_key("prefixItems") => "array",
        _ => "null",
    };
    match t {
        "string" => {
            let n = m.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            Value::String("a".repeat(n))
        }
        "integer" | "number" => {
            let lo = m
                .get("minimum")
                .and_then(Value::as_f64)
                .or_else(|| {
                    m.get("exclusiveMinimum")
                        .and_then(Value::as_f64)
                        .map(|x| x + 1.0)
                })
                .unwrap_or(0.0)
                .ceil();
            let step = m.get("multipleOf").and_then(Value::as_f64).unwrap_or(1.0);
            let v = (lo / step).ceil() * step;
            json!(v as i64)
        }
        "boolean" => Value::Bool(true),
        "array" => {
            let mut items = Vec::new();
            if let Some(Value::Array(positions)) = m.get("prefixItems") {
                for p in positions {
                    items.push(instance(p, root, with_optional, depth + 1));
                }
            }
            let min = m.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            if let Some(item) = m.get("items").filter(|i| i.is_object()) {
                while items.len() < min.max(1) {
                    items.push(instance(item, root, with_optional, depth + 1));
                }
            }
            Value::Array(items)
        }
        "object" => {
            let required: Vec<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(Value::Object(props)) = m.get("properties") {
                for (name, sub) in props {
                    if with_optional || required.contains(&name.as_str()) {
                        out.insert(name.clone(), instance(sub, root, with_optional, depth + 1));
                    }
                }
            }
            // With optional members: one entry of a map beside them (a key no property and no
            // pattern names), so that maps and their encodings are exercised.
            let declared = |k: &str| m.get("properties").and_then(|p| p.get(k)).is_some();
            if with_optional && !declared("extra_key") && m.get("patternProperties").is_none() {
                match m.get("additionalProperties") {
                    Some(Value::Bool(true)) => {
                        out.insert("extra_key".into(), json!({"any": [1, "two"]}));
                    }
                    Some(values @ Value::Object(_)) => {
                        let v = instance(values, root, with_optional, depth + 1);
                        out.insert("extra_key".into(), v);
                    }
                    None if m.get("properties").is_none() => {
                        out.insert("extra_key".into(), json!({"any": [1, "two"]}));
                    }
                    _ => {}
                }
            }
            Value::Object(out)
        }
        // Any value (`{}`, annotations only): with optional members, a structured one.
        _ if with_optional && m.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) => {
            json!({"any": [1, "two", null]})
        }
        _ => Value::Null,
    }
}

/// Keys that leave a schema accepting any value.
const ANNOTATIONS: &[&str] = &["description", "title", "$comment", "examples", "default"];
