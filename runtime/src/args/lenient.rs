//! Arguments a model sends in a form the type reads but the schema does not say: `"400"` for 400,
//! `"true"` for true, an array or object as JSON text, one value where a list is expected. Many
//! servers accept these on purpose with a lenient `deserialize_with` (models send them), and a
//! call they accept today must not be refused because toolschema validates before serde runs.
//!
//! The rule, for typed callers ([`crate::ToolParams::from_args`], rmcp's `Parameters`, a
//! toolset's `call`): when the arguments fail the schema, and the type itself deserializes them
//! as sent (the server author's deserializer asked for the leniency), each place whose JSON type
//! is not the one the schema gives is coerced where that has one reading (a numeric string to
//! the number, `"true"`/`"false"` to the boolean, JSON text to the array or object it holds, a
//! lone value to a one-item list), and the coerced arguments are validated again: every
//! constraint is checked on the coerced value. The type then reads the coerced value (or, if it
//! does not, the value as sent). Arguments the type does not read, or that still fail once
//! coerced, get the validation error as before. A type without a lenient deserializer refuses
//! `"400"` for a number itself, so for it nothing changes.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{ArgsError, deserialize, validate};

/// `error` (the schema refused `sent`) stands unless `T` reads `sent` and the coerced value
/// passes `schema`; then the value `T` reads.
pub(crate) fn retry<T: DeserializeOwned>(
    schema: &Value,
    sent: Value,
    error: ArgsError,
) -> Result<T, ArgsError> {
    if serde_json::from_value::<T>(sent.clone()).is_err() {
        return Err(error);
    }
    let mut coerced = sent.clone();
    if !coerce(&mut coerced, schema, schema, 0) {
        return Err(error);
    }
    validate(schema, &coerced)?;
    deserialize::<T>(coerced).or_else(|_| deserialize::<T>(sent))
}

/// The first JSON type a schema node names (`["integer", "null"]` → `integer` for a non-null
/// value).
fn expected_type<'a>(node: &'a Value, value: &Value) -> Option<&'a str> {
    match node.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => {
            let mut names = types.iter().filter_map(Value::as_str);
            if value.is_null() {
                return None;
            }
            names.find(|t| *t != "null")
        }
        _ => None,
    }
}

/// Coerces `value` in place toward `node` (and below); whether anything changed.
fn coerce(value: &mut Value, node: &Value, root: &Value, depth: usize) -> bool {
    if depth > 512 {
        return false;
    }
    let Some(node) = super::follow_refs(node, root) else {
        return false;
    };
    let mut changed = false;
    if let Some(kind) = expected_type(node, value) {
        if let Some(new) = scalar(value, kind) {
            *value = new;
            changed = true;
        }
    }
    match value {
        Value::Object(map) => {
            let properties = node.get("properties").and_then(Value::as_object);
            let extra = node.get("additionalProperties").filter(|a| a.is_object());
            for (key, v) in map.iter_mut() {
                if let Some(p) = properties.and_then(|p| p.get(key)).or(extra) {
                    changed |= coerce(v, p, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let prefix = node.get("prefixItems").and_then(Value::as_array);
            let rest = node.get("items").filter(|i| i.is_object());
            for (i, v) in items.iter_mut().enumerate() {
                if let Some(s) = prefix.and_then(|p| p.get(i)).or(rest) {
                    changed |= coerce(v, s, root, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

/// The value of JSON type `kind` that `value` stands for, when it has one reading.
fn scalar(value: &Value, kind: &str) -> Option<Value> {
    match (kind, value) {
        ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
        ("number", Value::String(s)) => {
            let n: serde_json::Number = s.trim().parse().ok()?;
            Some(Value::Number(n))
        }
        ("boolean", Value::String(s)) => match s.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("array", Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(items)) => Some(Value::Array(items)),
            // Not JSON text of a list: the one item of a list.
            _ => Some(Value::Array(vec![value.clone()])),
        },
        ("array", v) if !v.is_array() && !v.is_null() => Some(Value::Array(vec![v.clone()])),
        ("object", Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(map)) => Some(Value::Object(map)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 600},
                "follow": {"type": ["boolean", "null"]},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
                "features": {"type": "array", "items": {"type": "string"}}
            },
            "$defs": {"Edit": {"type": "object", "properties": {"old": {"type": "string"}}, "required": ["old"]}}
        })
    }

    #[test]
    fn each_shape_is_coerced_to_the_one_reading() {
        let mut v = json!({"timeout_seconds": "400", "follow": "true",
            "edits": "[{\"old\": \"a\"}]", "features": "derive"});
        assert!(coerce(&mut v, &schema(), &schema(), 0));
        assert_eq!(
            v,
            json!({"timeout_seconds": 400, "follow": true, "edits": [{"old": "a"}], "features": ["derive"]})
        );
        assert!(validate(&schema(), &v).is_ok());
    }

    /// A type that reads numbers as strings too (a lenient `deserialize_with`).
    #[derive(Debug, Deserialize, PartialEq)]
    struct Lenient {
        #[serde(deserialize_with = "number_or_string")]
        timeout_seconds: u64,
    }

    fn number_or_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            N(u64),
            S(String),
        }
        match Either::deserialize(d)? {
            Either::N(n) => Ok(n),
            Either::S(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }

    /// A plain type: serde refuses "400" itself.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Plain {
        timeout_seconds: u64,
    }

    #[test]
    fn only_what_the_type_reads_is_retried_and_constraints_still_hold() {
        let schema = schema();
        let refused = |sent: Value| validate(&schema, &sent).unwrap_err();
        let sent = json!({"timeout_seconds": "400"});
        let ok: Lenient = retry(&schema, sent.clone(), refused(sent.clone())).unwrap();
        assert_eq!(ok.timeout_seconds, 400);
        // The plain type refuses it: the schema's error stands.
        assert!(retry::<Plain>(&schema, sent.clone(), refused(sent)).is_err());
        // Coerced, 4000 is over the maximum: refused, named.
        let over = json!({"timeout_seconds": "4000"});
        let e = retry::<Lenient>(&schema, over.clone(), refused(over)).unwrap_err();
        assert!(e.to_string().contains("600"), "{e}");
    }
}
