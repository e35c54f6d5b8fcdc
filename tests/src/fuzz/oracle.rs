//! A second, independent answer to "does this schema hold an `anyOf`/`oneOf` with more than one
//! structured branch?", written for the fuzz suite from the contract's words alone (README, "The
//! contract"), small and recursive, to compare with `toolschema::contract::check`.

use serde_json::Value;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "additionalProperties",
    "items",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// `#/a/b` in `root`.
fn target<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        Some(root)
    } else {
        root.pointer(fragment)
    }
}

/// A branch is structured when its `type` is or holds `object` or `array`, or when it has no
/// `type` but `properties`, `items` or `prefixItems`.
fn structured(branch: &Value) -> bool {
    let Some(m) = branch.as_object() else {
        return false;
    };
    match m.get("type") {
        Some(Value::String(t)) => t == "object" || t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object" || t == "array"),
        Some(_) => false,
        None => {
            m.contains_key("properties") || m.contains_key("items") || m.contains_key("prefixItems")
        }
    }
}

/// The branches a union offers, a branch that is only a union contributing its own branches,
/// a `$ref` standing for its target and an `allOf` of one schema for that schema.
fn branches<'a>(
    root: &'a Value,
    union: &'a [Value],
    expanded: &mut Vec<*const Value>,
    out: &mut Vec<&'a Value>,
) {
    // Each union is expanded once: one that reaches itself adds nothing new.
    if expanded.contains(&union.as_ptr()) {
        return;
    }
    expanded.push(union.as_ptr());
    for b in union {
        let mut b = b;
        let mut seen: Vec<&str> = Vec::new();
        // Follow references to what they name (a cycle names nothing), and an `allOf` of one
        // schema to that schema, where the branch says nothing structured itself.
        for _ in 0..64 {
            if let Some(r) = b.get("$ref").and_then(Value::as_str) {
                if seen.contains(&r) {
                    break;
                }
                seen.push(r);
                match target(root, r) {
                    Some(t) => b = t,
                    None => break,
                }
                continue;
            }
            match b.get("allOf").and_then(Value::as_array) {
                Some(all) if all.len() == 1 && !structured(b) && b.get("type").is_none() => {
                    b = &all[0];
                }
                _ => break,
            }
        }
        if b.get("$ref").is_some() && b.get("type").is_none() {
            continue;
        }
        let only_union = !structured(b)
            && b.get("type").is_none()
            && ["anyOf", "oneOf"]
                .iter()
                .any(|k| b.get(*k).is_some_and(Value::is_array));
        if only_union {
            for k in ["anyOf", "oneOf"] {
                if let Some(Value::Array(inner)) = b.get(k) {
                    branches(root, inner, expanded, out);
                }
            }
        } else {
            out.push(b);
        }
    }
}

/// Whether any union in the document has two or more structured branches.
pub fn has_structural_union(root: &Value) -> bool {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let Some(m) = node.as_object() else { continue };
        for k in ["anyOf", "oneOf"] {
            if let Some(Value::Array(union)) = m.get(k) {
                let mut offered = Vec::new();
                branches(root, union, &mut Vec::new(), &mut offered);
                // A union that reaches itself offers each of its branches once.
                let mut distinct: Vec<&Value> = Vec::new();
                for b in offered {
                    if !distinct.iter().any(|d| std::ptr::eq(*d, b)) {
                        distinct.push(b);
                    }
                }
                if distinct.iter().filter(|b| structured(b)).count() > 1 {
                    return true;
                }
            }
        }
        for k in ONE {
            if let Some(v) = m.get(*k).filter(|v| v.is_object()) {
                stack.push(v);
            }
        }
        // (`items` is a list of positions in draft-07.)
        for k in LIST.iter().chain(["items"].iter()) {
            if let Some(Value::Array(vs)) = m.get(*k) {
                stack.extend(vs);
            }
        }
        for k in MAP {
            if let Some(Value::Object(entries)) = m.get(*k) {
                stack.extend(entries.values());
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_contract_cases() {
        let cases = [
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                false,
            ),
            (
                json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
                false,
            ),
            (
                json!({"anyOf": [{"type": "array"}, {"type": "object"}]}),
                true,
            ),
            (
                json!({"properties": {"x": {"oneOf": [{"properties": {}}, {"items": {}}]}}}),
                true,
            ),
            (
                json!({"anyOf": [{"type": "object"}, {"anyOf": [{"type": "array"}, {"type": "null"}]}]}),
                true,
            ),
            (
                json!({"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
                "$defs": {"A": {"type": "object"}, "B": {"type": "array"}}}),
                true,
            ),
            (
                json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}],
                "$defs": {"A": {"type": "object"}}}),
                false,
            ),
        ];
        for (schema, want) in cases {
            assert_eq!(has_structural_union(&schema), want, "{schema}");
        }
    }
}
