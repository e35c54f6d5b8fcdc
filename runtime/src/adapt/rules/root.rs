//! The root every provider requires: an object, without combinators at the top level.

use serde_json::{Map, Value, json};

use super::{Held, NodeRule, Rule, RuleReport, absorb, type_names};
use crate::adapt::pointer::Pointer;
use crate::adapt::report::LossKind;
use crate::adapt::visit::Path;
use crate::keys::Keys;
use crate::walk::resolve_local;

/// Removes `$schema` (rmcp publishes it; VS Code tried to fetch an unreachable one, and some
/// validators cannot resolve the 2020-12 URI). It declares the dialect, which the target fixes
/// anyway: a change, not a loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct RemoveSchemaUri;

impl Rule for RemoveSchemaUri {
    fn name(&self) -> &'static str {
        "remove-schema-uri"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("$schema")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    /// It only takes keys away.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    super::fused::node_rule_walks!();
}

/// Reads and changes only the node's own `$schema` (a string, not a schema): it can run fused
/// after other node rules.
impl NodeRule for RemoveSchemaUri {
    fn grows_below(&self, _: &Held<'_>) -> bool {
        false
    }

    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        if let Value::Object(map) = node {
            if let Some(uri) = crate::keys::take_in_one_pass(map, "$schema") {
                // The URI most published tools carry (and the one the draft-07 upgrade writes):
                // its words are fixed.
                if uri == REMOVED_URI {
                    report.change(path.pointer(), REMOVED_DETAIL);
                } else {
                    report.change(path.pointer(), removed_detail(&uri));
                }
            }
        }
    }
}

/// The dialect URI of JSON Schema 2020-12, and [`removed_detail`] of it.
const REMOVED_URI: &str = super::draft::DRAFT_2020_12;
const REMOVED_DETAIL: &str = "`$schema: \"https://json-schema.org/draft/2020-12/schema\"` removed";

/// "`$schema: <the value as JSON>` removed". A string that JSON writes as it is (no quote,
/// backslash or control character) is copied in without the serializer.
fn removed_detail(uri: &Value) -> String {
    match uri {
        Value::String(s) if super::written_as_is(s) => {
            let mut detail = String::with_capacity(s.len() + 21);
            detail.push_str("`$schema: \"");
            detail.push_str(s);
            detail.push_str("\"` removed");
            detail
        }
        other => format!("`$schema: {other}` removed"),
    }
}

/// Makes the root `type: "object"`: `true`/`{}` become the empty object, a root that is only a
/// local `$ref` (schemars' `#[serde(transparent)]`) is replaced by its target, an untyped root
/// with `properties` gets its `type`. Anything else is unrepresentable (the per-tool fallback).
#[derive(Clone, Copy, Debug, Default)]
pub struct ObjectRoot;

const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$schema",
    "$defs",
    "$id",
    "$comment",
];

impl Rule for ObjectRoot {
    fn name(&self) -> &'static str {
        "object-root"
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        // The empty object and the root's `type` are written at the root (`adds_at_root`). A
        // root union merged moves its branches' keywords into the root (`required`,
        // `description`, united `enum`s are theirs), and the union a property defined twice
        // becomes is collapsed again.
        super::moves_and_adds(held, &[], add)
    }

    /// Everything it writes is the root's.
    fn adds_at_root(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) {
        add("type");
        add("properties");
    }

    /// A root `$ref` replaced by its target, or a root union merged, brings keys from below
    /// up to the root; otherwise it only writes the root's `type` and `properties` (a
    /// permissive root replaced by the empty object had no keys).
    fn keeps_root_and_below(&self, root: &Held<'_>) -> bool {
        !root.may_hold_any(&["$ref", "anyOf", "oneOf"])
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // The common root, `type: "object"` without a `$ref`, is already what this rule makes:
        // answered from its few keys, before the type list is collected.
        if let Value::Object(map) = schema {
            if matches!(map.key("type"), Some(Value::String(t)) if t == "object")
                && !map.has("$ref")
            {
                return;
            }
        }
        if matches!(schema, Value::Bool(true)) || schema.as_object().is_some_and(Map::is_empty) {
            *schema = json!({"type": "object", "properties": {}});
            report.change("", "the permissive root became the empty object");
            return;
        }
        if !schema.is_object() {
            report.fail("", "the root is `false`: no arguments are valid");
            return;
        }
        // The root as it was, for references its union branches make: copied only when the
        // root `$ref` below rewrites the root before they are resolved.
        let mut before: Option<Value> = None;
        if let Some(Value::String(r)) = schema.key("$ref") {
            let r = r.clone();
            let only_ref = schema.as_object().is_some_and(|m| {
                m.keys()
                    .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
            });
            if let Some(Value::Object(target)) = resolve_local(schema, &r)
                .filter(|_| only_ref && r != "#")
                .cloned()
            {
                before = Some(schema.clone());
                let map = schema.as_object_mut().expect("an object");
                map.take_key("$ref");
                let target_at = r.trim_start_matches('#').to_owned();
                absorb(
                    map,
                    target,
                    &Pointer::root(),
                    &Pointer::parse(&target_at),
                    false,
                    report,
                );
                report.change(
                    "",
                    format!("the root `$ref: {r}` was replaced by its target"),
                );
            }
        }
        // A root that is only a union of objects (a flattened enum, a zod discriminated union):
        // merged into one object, so the tool keeps its parameters (the choice itself is lost).
        let map = schema.as_object().expect("an object");
        if type_names(map).is_empty() && !map.has("properties") {
            for key in ["anyOf", "oneOf"] {
                let Some(Value::Array(branches)) = map.key(key) else {
                    continue;
                };
                let root = before.as_ref().unwrap_or(schema);
                let resolved: Vec<Value> = branches
                    .iter()
                    .map(|b| match b.key("$ref").and_then(Value::as_str) {
                        Some(r) => resolve_local(root, r).cloned().unwrap_or_else(|| b.clone()),
                        None => b.clone(),
                    })
                    .collect();
                if !resolved.is_empty() && resolved.iter().all(super::cca::object_shaped) {
                    let n = resolved.len();
                    let map = schema.as_object_mut().expect("an object");
                    map.shift_remove(key);
                    super::cca::merge_objects(
                        map,
                        resolved,
                        false,
                        &Pointer::root().child(key),
                        &Pointer::root(),
                        report,
                    );
                    report.loss(format!("/{key}"), key, LossKind::Collapsed, format!("the root `{key}` of {n} objects was merged into one object (providers need an object root): a value mixing their fields is now accepted, and only properties every branch requires stay required"));
                    break;
                }
            }
        }
        let map = schema.as_object_mut().expect("an object");
        let types = type_names(map);
        if types.is_empty() && (map.has("properties") || map.has("required")) {
            map.insert("type".into(), json!("object"));
            report.change("", "`type: \"object\"` added to the root");
        } else if types.len() > 1 && types.contains(&"object") {
            let others: Vec<String> = types
                .iter()
                .filter(|t| **t != "object")
                .map(|t| t.to_string())
                .collect();
            map.insert("type".into(), json!("object"));
            report.loss(
                "/type",
                "type",
                LossKind::Collapsed,
                format!(
                    "the root also accepted {}; providers take only an object",
                    others.join(", ")
                ),
            );
        }
        match map.key("type") {
            Some(Value::String(t)) if t == "object" => {}
            other => {
                let what = other.map_or("no `type`".to_owned(), |t| format!("`type: {t}`"));
                report.fail(
                    "",
                    format!("the root has {what}; a tool's parameters must be an object"),
                );
            }
        }
    }
}

/// Removes combinators and `enum`/`not` at the root, which OpenAI (any mode) and Anthropic
/// reject; each removal is a loss (the choice is no longer enforced).
#[derive(Clone, Copy, Debug)]
pub struct RootCombinators {
    /// The keywords this provider refuses at the top level.
    pub keywords: &'static [&'static str],
}

impl RootCombinators {
    /// OpenAI: "must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level".
    pub const OPENAI: RootCombinators = RootCombinators {
        keywords: &["anyOf", "oneOf", "allOf", "enum", "not"],
    };
    /// Anthropic: "input_schema does not support oneOf, allOf, or anyOf at the top level".
    pub const ANTHROPIC: RootCombinators = RootCombinators {
        keywords: &["anyOf", "oneOf", "allOf"],
    };
}

impl Rule for RootCombinators {
    fn name(&self) -> &'static str {
        "root-combinators"
    }

    /// Only where the document holds one of its keywords (it looks at the root alone).
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(self.keywords)
    }

    /// Nothing: it only takes keywords away from the root, which object-root has made
    /// `type: "object"` before it in every list (so no untyped node is left either).
    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    /// It only takes keys away.
    fn keeps_root_and_below(&self, _: &Held<'_>) -> bool {
        true
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let Value::Object(map) = schema else { return };
        for keyword in self.keywords {
            // Looked for by scanning the root's few keys; removed (hashed) only when there.
            if let Some(value) = map.take_key(keyword) {
                let n = value.as_array().map_or(1, Vec::len);
                report.loss(
                    format!("/{keyword}"),
                    keyword,
                    LossKind::Dropped,
                    format!("`{keyword}` ({n} entries) at the root is rejected by the provider; the server must check what it expressed"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    /// The removal's detail is the value as JSON, however the value is written.
    #[test]
    fn removed_detail_writes_the_value_as_json() {
        for uri in [
            json!("https://json-schema.org/draft/2020-12/schema"),
            json!(""),
            json!("a \"quoted\" \\ uri\n\u{1}"),
            json!("é ünïcode"),
            json!(7),
            json!({"a": [1]}),
        ] {
            assert_eq!(removed_detail(&uri), format!("`$schema: {uri}` removed"));
        }
        assert_eq!(REMOVED_DETAIL, removed_detail(&json!(REMOVED_URI)));
    }

    #[test]
    fn roots() {
        assert_eq!(
            run(&mut ObjectRoot, json!(true)).0,
            json!({"type": "object", "properties": {}})
        );
        let (v, r) = run(
            &mut ObjectRoot,
            json!({"$ref": "#/$defs/P", "description": "d", "$defs": {"P": {"type": "object", "properties": {"a": {}}}}}),
        );
        assert_eq!(v["type"], "object");
        assert_eq!(v["description"], "d");
        assert!(v.key("$ref").is_none() && r.failure.is_none());
        assert_eq!(
            run(&mut ObjectRoot, json!({"properties": {}})).0["type"],
            "object"
        );
        assert!(
            run(&mut ObjectRoot, json!({"type": "array"}))
                .1
                .failure
                .is_some()
        );
        assert!(run(&mut ObjectRoot, json!(false)).1.failure.is_some());
        // A root union of objects is merged; the root's own `required` applies to every branch.
        let (v, r) = run(
            &mut ObjectRoot,
            json!({"required": ["a"], "anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "number"}}, "required": ["b"]}
            ]}),
        );
        assert_eq!(
            v,
            json!({"required": ["a"], "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}})
        );
        assert!(r.failure.is_none());
        assert_eq!(r.losses[0].kind, LossKind::Collapsed);
        let (v, r) = run(&mut ObjectRoot, json!({"type": ["object", "null"]}));
        assert_eq!(v["type"], "object");
        assert_eq!(r.losses[0].kind, LossKind::Collapsed);
    }

    #[test]
    fn root_combinators_are_dropped_and_reported() {
        let (v, r) = run(
            &mut RootCombinators::OPENAI.clone(),
            json!({"type": "object", "oneOf": [{}, {}], "enum": [{}]}),
        );
        assert_eq!(v, json!({"type": "object"}));
        assert_eq!(r.losses.len(), 2);
        let (v, _) = run(
            &mut RootCombinators::ANTHROPIC.clone(),
            json!({"type": "object", "enum": [{}]}),
        );
        assert_eq!(v, json!({"type": "object", "enum": [{}]}));
    }
}
