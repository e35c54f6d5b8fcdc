//! Helpers on plain JSON values the rules share: a value's type, lists grown without
//! duplicates, and JSON text as reports quote it.

use serde_json::Value;

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

/// The string values of a list, for adding values to it each once: a string is found in the
/// set (uniting two long lists of names or enum values is then linear), another value by
/// comparing it with each held one.
#[derive(Default)]
pub(crate) struct HeldStrings(std::collections::HashSet<String>);

impl HeldStrings {
    /// The strings `values` holds.
    pub(crate) fn of(values: &[Value]) -> Self {
        HeldStrings(
            values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )
    }

    /// Appends `v` to `values` unless it holds it already. `values` is the list this was made
    /// of, grown only through here.
    pub(crate) fn push(&mut self, values: &mut Vec<Value>, v: Value) {
        let held = match &v {
            Value::String(s) => !self.0.insert(s.clone()),
            other => values.contains(other),
        };
        if !held {
            values.push(v);
        }
    }
}

/// Appends each of `more` that `values` does not hold yet (nor an earlier one of `more`), in
/// order ([`HeldStrings`]; a few are compared instead, so that adding one value to a long
/// list does not make the set).
pub(crate) fn push_each_once(values: &mut Vec<Value>, more: impl IntoIterator<Item = Value>) {
    let more = more.into_iter();
    if more.size_hint().1.is_some_and(|n| n <= 8) {
        for v in more {
            if !values.contains(&v) {
                values.push(v);
            }
        }
        return;
    }
    let mut held = HeldStrings::of(values);
    for v in more {
        held.push(values, v);
    }
}

/// The description of a node made from a reference and its target: the referring node's own
/// text first, then the target's (with everything rules spilled into it), each once. Either may
/// be absent.
pub(crate) fn joined_description(own: Option<&Value>, target: Option<&Value>) -> Option<Value> {
    match (own, target) {
        (Some(Value::String(own)), Some(Value::String(target)))
            if !target.is_empty() && !own.contains(target.as_str()) =>
        {
            if own.is_empty() {
                Some(Value::String(target.clone()))
            } else {
                Some(Value::String(format!("{own}\n\n{target}")))
            }
        }
        (Some(own), _) => Some(own.clone()),
        (None, target) => target.cloned(),
    }
}

/// JSON text of a value, with integral floats printed as integers (`0.0` as `0`).
pub(crate) fn json_text(v: &Value) -> String {
    let mut text = String::new();
    write_json_text(&mut text, v);
    text
}

/// [`json_text`] appended to `out` (no string of its own made).
pub(crate) fn write_json_text(out: &mut String, v: &Value) {
    use std::fmt::Write as _;
    // The common small values written directly, as serde_json writes them.
    match v {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null => out.push_str("null"),
        Value::String(s) if written_as_is(s) => {
            out.reserve(s.len() + 2);
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        _ => {
            // Writing into a `String` cannot fail.
            let _ = match v.as_f64() {
                Some(f) if v.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                    write!(out, "{}", f as i64)
                }
                _ => write!(out, "{v}"),
            };
        }
    }
}

/// Whether serde_json writes `s` as it is between quotes (it escapes only `"`, `\` and control
/// characters).
pub(crate) fn written_as_is(s: &str) -> bool {
    !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_is_serde_json_s() {
        let values = [
            json!(""),
            json!("plain"),
            json!("date-time"),
            json!("^[a-z]+/x$"),
            json!("quote \" inside"),
            json!("back\\slash"),
            json!("tab\there"),
            json!("line\nbreak"),
            json!("\u{1}\u{1f}"),
            json!("del \u{7f} é 日本 🦀"),
            json!(true),
            json!(false),
            json!(null),
            json!(3),
            json!(-2.5),
            json!([1, "a"]),
            json!({"k": "v"}),
        ];
        for v in &values {
            assert_eq!(json_text(v), v.to_string(), "{v}");
        }
        assert_eq!(json_text(&json!(2.0)), "2");
        assert_eq!(json_text(&Value::from(1e20)), Value::from(1e20).to_string());
    }
}
