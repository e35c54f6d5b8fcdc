//! One answer to "does this schema accept `null`?", for every rule and for argument restoring.
//!
//! Read from the keywords alone: `false` accepts nothing, `true` and `{}` everything; `type`
//! (a name or a list), OpenAPI's `nullable: true` (Gemini's form), `enum`, `const`, `anyOf`/
//! `oneOf` (some branch; exactly one for `oneOf`), `allOf` (every branch) and local `$ref`s (by their target) each can
//! refuse it. A reference that cannot be followed (dangling, external, or too deep a chain) says
//! nothing, so it does not refuse `null`.

use serde_json::Value;

use crate::keys::Keys;

/// How deep a chain of references is followed.
#[cfg(feature = "validate")]
const MAX_REF_DEPTH: usize = 64;

/// Whether `schema`, a node of the document `root`, accepts `null` (for restoring arguments;
/// the adapters answer on their tree).
#[cfg(feature = "validate")]
pub(crate) fn accepts_null(schema: &Value, root: &Value) -> bool {
    /// References being answered (a cycle says nothing) and those answered (each once: a
    /// definition that refers to itself twice must not double the work per level).
    struct Seen {
        open: Vec<String>,
        done: std::collections::HashMap<String, bool>,
    }
    fn go(schema: &Value, root: &Value, seen: &std::cell::RefCell<Seen>) -> bool {
        accepts_null_by(schema, &|reference| {
            {
                let s = seen.borrow();
                if let Some(answer) = s.done.get(reference) {
                    return Some(*answer);
                }
                if s.open.len() >= MAX_REF_DEPTH || s.open.iter().any(|r| r == reference) {
                    return None;
                }
            }
            let target = crate::walk::resolve_local(root, reference)?;
            seen.borrow_mut().open.push(reference.to_owned());
            let answer = go(target, root, seen);
            let mut s = seen.borrow_mut();
            s.open.pop();
            s.done.insert(reference.to_owned(), answer);
            Some(answer)
        })
    }
    let seen = std::cell::RefCell::new(Seen {
        open: Vec::new(),
        done: std::collections::HashMap::new(),
    });
    go(schema, root, &seen)
}

/// [`accepts_null`] with references answered by `reference` (`None`: unknown, does not refuse).
#[cfg(feature = "validate")]
fn accepts_null_by(schema: &Value, reference: &dyn Fn(&str) -> Option<bool>) -> bool {
    let m = match schema {
        Value::Bool(b) => return *b,
        Value::Object(m) => m,
        _ => return true,
    };
    if let Some(Value::String(r)) = m.key("$ref") {
        if reference(r) == Some(false) {
            return false;
        }
    }
    let openapi_nullable = m.key("nullable") == Some(&Value::Bool(true));
    match m.key("type") {
        Some(Value::String(t)) if t != "null" && !openapi_nullable => return false,
        Some(Value::Array(ts)) if !openapi_nullable && !ts.iter().any(|t| t == "null") => {
            return false;
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = m.key("enum") {
        if !values.iter().any(Value::is_null) {
            return false;
        }
    }
    if let Some(c) = m.key("const") {
        if !c.is_null() {
            return false;
        }
    }
    if let Some(Value::Array(branches)) = m.key("anyOf") {
        if !branches.iter().any(|b| accepts_null_by(b, reference)) {
            return false;
        }
    }
    // `oneOf`: exactly one branch may take it (null in two branches is refused).
    if let Some(Value::Array(branches)) = m.key("oneOf") {
        if branches
            .iter()
            .filter(|b| accepts_null_by(b, reference))
            .count()
            != 1
        {
            return false;
        }
    }
    if let Some(Value::Array(branches)) = m.key("allOf") {
        if !branches.iter().all(|b| accepts_null_by(b, reference)) {
            return false;
        }
    }
    true
}

/// A union branch that stands for `null` alone: `{"type": "null"}` (with any annotations),
/// `{"type": ["null"]}`, `{"const": null}` or `{"enum": [null]}`.
pub(crate) fn is_null_branch(v: &Value) -> bool {
    let Some(m) = v.as_object() else {
        return false;
    };
    match m.key("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => !ts.is_empty() && ts.iter().all(|t| t == "null"),
        Some(_) => false,
        None => {
            m.key("const") == Some(&Value::Null)
                || matches!(m.key("enum"), Some(Value::Array(vs)) if !vs.is_empty() && vs.iter().all(Value::is_null))
        }
    }
}

#[cfg(test)]
mod tests {

    #[cfg(feature = "validate")]
    #[test]
    fn self_references_are_answered_once() {
        // 40 self-references per level: following each would never end.
        let refs: Vec<Value> = (0..40)
            .map(|_| serde_json::json!({"$ref": "#/$defs/D"}))
            .collect();
        let root = serde_json::json!({"$defs": {"D": {"allOf": refs, "type": ["object", "null"]}}});
        assert!(accepts_null(&root["$defs"]["D"], &root));
        let refs: Vec<Value> = (0..40)
            .map(|_| serde_json::json!({"$ref": "#/$defs/D"}))
            .collect();
        let root = serde_json::json!({"$defs": {"D": {"anyOf": refs, "type": "string"}}});
        assert!(!accepts_null(&root["$defs"]["D"], &root));
    }

    use super::*;
    use serde_json::json;

    #[cfg(feature = "validate")]
    #[test]
    fn one_table_for_every_form() {
        let root = json!({"$defs": {
            "Maybe": {"type": ["string", "null"]},
            "Never": {"type": "string"},
            "Loop": {"$ref": "#/$defs/Loop"},
            "ViaRef": {"$ref": "#/$defs/Never"}
        }});
        let cases = [
            (json!(false), false),
            (json!(true), true),
            (json!({}), true),
            (json!({"description": "anything"}), true),
            (json!({"type": "null"}), true),
            (json!({"type": "string"}), false),
            (json!({"type": ["integer", "null"]}), true),
            (json!({"type": ["integer", "string"]}), false),
            (json!({"type": "string", "nullable": true}), true),
            (json!({"type": "string", "nullable": false}), false),
            (json!({"enum": ["a", null]}), true),
            (json!({"enum": ["a"]}), false),
            (json!({"type": ["string", "null"], "enum": ["a"]}), false),
            (json!({"const": null}), true),
            (json!({"const": 0}), false),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                true,
            ),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                false,
            ),
            (json!({"oneOf": [{"type": "string"}, {}]}), true),
            // Found by the fuzz suite: null in two `oneOf` branches matches both, so is refused.
            (
                json!({"oneOf": [{"type": ["string", "null"]}, {"type": "null"}]}),
                false,
            ),
            (
                json!({"allOf": [{"type": ["string", "null"]}, {"maxLength": 3}]}),
                true,
            ),
            (
                json!({"allOf": [{"type": ["string", "null"]}, {"type": "string"}]}),
                false,
            ),
            (json!({"$ref": "#/$defs/Maybe"}), true),
            (json!({"$ref": "#/$defs/Never"}), false),
            (json!({"$ref": "#/$defs/ViaRef"}), false),
            (json!({"$ref": "#/$defs/Loop"}), true),
            (json!({"$ref": "#/$defs/Missing"}), true),
            (json!({"$ref": "https://example.com/x"}), true),
        ];
        for (schema, want) in cases {
            assert_eq!(accepts_null(&schema, &root), want, "{schema}");
        }
    }

    #[test]
    fn null_branches() {
        for (v, want) in [
            (json!({"type": "null"}), true),
            (json!({"type": "null", "description": "none"}), true),
            (json!({"type": ["null"]}), true),
            (json!({"const": null}), true),
            (json!({"enum": [null]}), true),
            (json!({"type": ["string", "null"]}), false),
            (json!({}), false),
            (json!(true), false),
        ] {
            assert_eq!(is_null_branch(&v), want, "{v}");
        }
    }
}
