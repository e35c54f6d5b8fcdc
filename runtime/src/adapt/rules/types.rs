//! Type arrays as unions, for strict modes that want one type per node.

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

fn fits(t: &str, v: &Value) -> bool {
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

fn variant(base: &Map<String, Value>, t: &str) -> Option<Value> {
    let mut v = base.clone();
    // One pass over the copy's keys, in their order (the table is rebuilt only when a key goes).
    v.retain(|k, _| !of_another_type(t, k));
    if let Some(Value::Array(values)) = v.key_mut("enum") {
        values.retain(|x| fits(t, x));
        if values.is_empty() {
            return None;
        }
    }
    v.insert("type".into(), Value::from(t));
    Some(Value::Object(v))
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
        // A `null` in the list becomes a branch of its own.
        super::adds_these(
            &[
                "anyOf",
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
        let Some(Value::Array(types)) = map.key("type") else {
            return;
        };
        let types: Vec<String> = types
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect();
        let mut base = std::mem::take(map);
        // `type` and `description` taken out in one pass (the others keep their order).
        let mut description = None;
        base.retain(|k, v| match k.as_str() {
            "type" => false,
            "description" => {
                description = Some(std::mem::take(v));
                false
            }
            _ => true,
        });
        let mut kept = Vec::with_capacity(types.len());
        let mut variants: Vec<Value> = types
            .iter()
            .filter_map(|t| {
                let v = variant(&base, t)?;
                kept.push(t.clone());
                Some(v)
            })
            .collect();
        if variants.len() > 1 {
            report.split(path.pointer(), kept);
        }
        *map = match variants.len() {
            0 => with_description(base, description),
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
        report.change(path.pointer(), split_detail(&types));
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
fn split_detail(types: &[String]) -> String {
    let plain = |t: &String| {
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
            let types: Vec<String> = types.into_iter().map(String::from).collect();
            assert_eq!(
                split_detail(&types),
                format!("`type: {types:?}` → one branch per type")
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
}
