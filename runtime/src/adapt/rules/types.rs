//! Type arrays as unions, for strict modes that want one type per node.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{Held, NodeRule, Rule, RuleReport, walk_nodes};
use crate::adapt::visit::Path;
use crate::keys::Keys;

/// `type: ["string", "null"]` → `anyOf: [{type: string, ...}, {type: null}]`: one branch per
/// type, each keeping only the keywords of its type, with `enum` narrowed per type and the
/// description on the union. Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct SplitTypeArrays;

const OBJECT_ONLY: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
];
const ARRAY_ONLY: &[&str] = &[
    "items",
    "prefixItems",
    "contains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "unevaluatedItems",
    "minContains",
    "maxContains",
];
const STRING_ONLY: &[&str] = &[
    "pattern",
    "minLength",
    "maxLength",
    "format",
    "contentEncoding",
    "contentMediaType",
];
const NUMBER_ONLY: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

pub(crate) fn fits(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

/// Whether `key` is a keyword of another type than `t` (one that `t`'s branch does not keep).
pub(crate) fn of_another_type(t: &str, key: &str) -> bool {
    let of = |keys: &[&str]| keys.contains(&key);
    (t != "object" && of(OBJECT_ONLY))
        || (t != "array" && of(ARRAY_ONLY))
        || (t != "string" && of(STRING_ONLY))
        || (t != "number" && t != "integer" && of(NUMBER_ONLY))
}

/// Whether `t`'s branch of the split node whose other keywords are `base` is made: not when the
/// node has an `enum` of which no value is of type `t`.
fn has_branch(base: &Map<String, Value>, t: &str) -> bool {
    match base.key("enum") {
        Some(Value::Array(values)) => values.iter().any(|x| fits(t, x)),
        _ => true,
    }
}

/// `t`'s branch of the split node whose other keywords are `base` (a copy of them, or them
/// taken over for the last branch): without the keywords of other types, `enum` narrowed to
/// `t`'s values, and `type: t` (`t` is the type's name as a JSON string). Made only where
/// [`has_branch`].
fn variant(base: Cow<'_, Map<String, Value>>, t: Value) -> Value {
    let mut v = base.into_owned();
    let name = t.as_str().expect("a type name");
    // One pass over the keys, in their order (the table is rebuilt only when a key goes).
    v.retain(|k, _| !of_another_type(name, k));
    if let Some(Value::Array(values)) = v.key_mut("enum") {
        values.retain(|x| fits(name, x));
    }
    v.insert("type".into(), t);
    Value::Object(v)
}

impl Rule for SplitTypeArrays {
    fn name(&self) -> &'static str {
        "split-type-arrays"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::TYPE_LIST)
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        if !self.wanted(held) {
            return super::adds_these(&[], add);
        }
        // A `null` in the list becomes a branch of its own. The union stands where the list
        // was, its branches made from that node's keywords: it stands in a union's branch, or
        // holds an `anyOf` in its branches, only where the document held an `anyOf` (a `oneOf`
        // made one later declares so itself). Its branches after the first may be more than the
        // null schema.
        super::adds_these(
            &[
                super::any_of_around(held),
                crate::adapt::holds::UNION_PAST_NULL,
                "type",
                crate::adapt::holds::TYPE_NULL,
                "description",
            ],
            add,
        )
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        walk_nodes(self, schema, report);
    }
}

impl NodeRule for SplitTypeArrays {
    fn node(&mut self, node: &mut Value, path: &Path<'_>, report: &mut RuleReport) {
        let Value::Object(map) = node else { return };
        if !matches!(map.key("type"), Some(Value::Array(_))) {
            return;
        }
        let mut base = std::mem::take(map);
        // `type` and `description` taken out in one pass (the others keep their order).
        let (mut listed, mut description) = (Value::Null, None);
        base.retain(|k, v| match k.as_str() {
            "type" => {
                listed = std::mem::take(v);
                false
            }
            "description" => {
                description = Some(std::mem::take(v));
                false
            }
            _ => true,
        });
        let Value::Array(items) = listed else {
            unreachable!("checked above")
        };
        let types: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
        let (detail, count) = (split_detail(&types), types.len());
        let mut kept = Vec::with_capacity(count);
        let mut variants: Vec<Value> = Vec::with_capacity(count);
        // Each branch starts from a copy of the other keywords; the last takes them over. The
        // listed names become the branches' `type` values (moved, not copied).
        let mut base = Some(base);
        for (i, t) in items
            .into_iter()
            .filter(|t| matches!(t, Value::String(_)))
            .enumerate()
        {
            let Some(others) = base.as_ref() else { break };
            let name = t.as_str().expect("a string");
            if !has_branch(others, name) {
                continue;
            }
            kept.push(super::type_name(name));
            let from = if i + 1 == count {
                Cow::Owned(base.take().expect("there"))
            } else {
                Cow::Borrowed(others)
            };
            variants.push(variant(from, t));
        }
        if variants.len() > 1 {
            report.split(path.pointer(), kept);
        }
        *map = match variants.len() {
            // No type listed, or none with a value of the `enum`: the other keywords as they
            // were (no branch took them over).
            0 => with_description(base.unwrap_or_default(), description),
            1 => match variants.remove(0) {
                Value::Object(m) => with_description(m, description),
                _ => unreachable!(),
            },
            // `{"anyOf": variants, "description": ...}`, its keys placed without hashing.
            _ => match super::objects::wrapper(Value::Array(variants), description) {
                Value::Object(m) => m,
                _ => unreachable!(),
            },
        };
        report.change(path.pointer(), detail);
    }
}

/// `map` with `description` last, when there is one.
fn with_description(mut map: Map<String, Value>, description: Option<Value>) -> Map<String, Value> {
    if let Some(d) = description {
        map.insert("description".into(), d);
    }
    map
}

/// "`type: [\"a\", \"b\"]` → one branch per type": the list as Rust's `Debug` writes it,
/// without the formatter where no name needs escaping (type names never do).
pub(crate) fn split_detail(types: &[&str]) -> String {
    let plain = |t: &&str| {
        t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    if !types.iter().all(plain) {
        return format!("`type: {types:?}` → one branch per type");
    }
    let mut detail = String::with_capacity(40 + types.iter().map(|t| t.len() + 4).sum::<usize>());
    detail.push_str("`type: [");
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            detail.push_str(", ");
        }
        detail.push('"');
        detail.push_str(t);
        detail.push('"');
    }
    detail.push_str("]` → one branch per type");
    detail
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The change's words are the list as `Debug` writes it, names to escape included.
    #[test]
    fn split_detail_is_the_debug_form() {
        for types in [
            vec!["string", "null"],
            vec!["integer"],
            vec![],
            vec!["my_type", "x-y", "A1"],
            vec!["quo\"te", "back\\slash", "tab\t", "é"],
        ] {
            // Debug writes a `&str` as it writes a `String`.
            let owned: Vec<String> = types.iter().map(|t| t.to_string()).collect();
            assert_eq!(
                split_detail(&types),
                format!("`type: {owned:?}` → one branch per type")
            );
        }
    }

    #[test]
    fn splits_and_narrows() {
        let mut v = json!({"type": ["string", "null"], "enum": ["a", null], "minLength": 1, "description": "d"});
        SplitTypeArrays.apply(&mut v, &mut RuleReport::default());
        assert_eq!(
            v,
            json!({"anyOf": [
            {"type": "string", "enum": ["a"], "minLength": 1},
            {"type": "null", "enum": [null]}
        ], "description": "d"})
        );
        let mut v = json!({"type": ["integer", "string"], "enum": [1]});
        SplitTypeArrays.apply(&mut v, &mut RuleReport::default());
        assert_eq!(v, json!({"type": "integer", "enum": [1]}));
        let mut v = json!({"type": ["object", "null"], "properties": {"a": {}}});
        SplitTypeArrays.apply(&mut v, &mut RuleReport::default());
        assert_eq!(v["anyOf"][0]["properties"], json!({"a": {}}));
        assert_eq!(v["anyOf"][1], json!({"type": "null"}));
    }

    /// Each branch is made from the node's other keywords: copied for every branch but the
    /// last listed type's, which takes them over. Whichever types the `enum` leaves out, the
    /// output is the same as when every branch copied them: the last type without a value of
    /// the `enum` leaves them to the others, and with no branch at all the node keeps them.
    #[test]
    fn branches_are_made_from_the_other_keywords_whichever_types_the_enum_leaves() {
        let split = |v: Value| {
            let mut v = v;
            let mut report = RuleReport::default();
            SplitTypeArrays.apply(&mut v, &mut report);
            let logged: Vec<String> = report
                .moves
                .iter()
                .map(|m| match m {
                    crate::adapt::report::BranchMove::Split { types, .. } => types.join(","),
                    _ => String::new(),
                })
                .collect();
            (v, logged)
        };
        // The last type's branch alone: it takes the keywords over.
        let (v, logged) = split(
            json!({"type": ["integer", "string"], "enum": ["x"], "minimum": 1, "minLength": 2, "description": "d"}),
        );
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"enum":["x"],"minLength":2,"type":"string","description":"d"}"#
        );
        assert!(logged.is_empty());
        // The last type has no value: the first branch is a copy, and nothing is lost.
        let (v, logged) = split(
            json!({"enum": ["x", 2], "type": ["string", "integer", "null"], "maxLength": 3, "maximum": 9}),
        );
        assert_eq!(
            v,
            json!({"anyOf": [
                {"enum": ["x"], "maxLength": 3, "type": "string"},
                {"enum": [2], "maximum": 9, "type": "integer"}
            ]})
        );
        assert_eq!(logged, ["string,integer"]);
        // No type has a value: the node keeps its other keywords, its type list gone.
        let (v, logged) = split(
            json!({"description": "d", "type": ["boolean", "null"], "enum": ["x"], "title": "t"}),
        );
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"enum":["x"],"title":"t","description":"d"}"#
        );
        assert!(logged.is_empty());
        // Names that are not strings are passed over; the last string takes the keywords.
        let (v, logged) =
            split(json!({"type": ["string", 7, "null", {}], "pattern": "p", "default": null}));
        assert_eq!(
            v,
            json!({"anyOf": [
                {"pattern": "p", "default": null, "type": "string"},
                {"default": null, "type": "null"}
            ]})
        );
        assert_eq!(logged, ["string,null"]);
        // A type that is not a JSON type is logged as it is spelled.
        let (_, logged) = split(json!({"type": ["string", "x-custom"]}));
        assert_eq!(logged, ["string,x-custom"]);
    }
}
