//! Closed objects for strict modes: `additionalProperties: false` everywhere, and what to do
//! with optional properties.

use serde_json::{Map, Value, json};

use super::{Rule, RuleReport, has_type, is_pure_any_of};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, visit};
use crate::keys::Keys;
use crate::nullable::{accepts_null_by, reference_answers};

/// How a strict mode treats optional properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optional {
    /// OpenAI: every property required; an optional one accepts `null` instead (the Structured
    /// Outputs guide emulates optional fields with a union with `null`): a `null` branch appended
    /// to a pure `anyOf`, anything else wrapped, never wrapped twice.
    NullableRequired,
    /// Anthropic: optional properties stay optional.
    Keep,
}

/// Every `type: "object"` node gets `additionalProperties: false` and a `properties` map; with
/// [`Optional::NullableRequired`] every property becomes required, optional ones nullable (a
/// change recorded per property, so arguments can be mapped back). An open map
/// (`additionalProperties` true or a schema) cannot be closed without losing it: unrepresentable.
#[derive(Clone, Copy, Debug)]
pub struct CloseObjects {
    /// What happens to optional properties.
    pub optional: Optional,
}

/// Whether a node can hold an object, whatever form its `type` takes: `"object"`, a type array
/// holding it (`["object", "null"]`), or no `type` but `properties`.
fn can_be_object(map: &Map<String, Value>) -> bool {
    match map.key("type") {
        Some(_) => has_type(map, "object"),
        None => map.has("properties"),
    }
}

/// Makes a property schema that does not accept `null` accept it too.
fn nullable(v: Value) -> Value {
    if is_pure_any_of(&v) {
        let mut v = v;
        if let Some(Value::Array(bs)) = v.key_mut("anyOf") {
            bs.push(json!({"type": "null"}));
        }
        return v;
    }
    let Value::Object(mut m) = v else { return v };
    let description = m.take_key("description");
    let mut out = Map::new();
    out.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(m), json!({"type": "null"})]),
    );
    if let Some(d) = description {
        out.insert("description".into(), d);
    }
    Value::Object(out)
}

impl Rule for CloseObjects {
    fn name(&self) -> &'static str {
        "close-objects"
    }

    fn adds(&self, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(
            &[
                "additionalProperties",
                "properties",
                "required",
                "anyOf",
                "type",
                "description",
            ],
            add,
        )
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let optional = self.optional;
        // Asked while the document is rewritten: the answers for its references, once.
        let references = reference_answers(schema);
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            if !can_be_object(map) {
                return;
            }
            let at = || path.pointer();
            match map.key("additionalProperties") {
                None => {
                    map.insert("additionalProperties".into(), json!(false));
                }
                Some(Value::Bool(false)) => {}
                Some(other) => {
                    report.fail(at(), format!("an open map (`additionalProperties: {other}`) cannot be a closed object"));
                    return;
                }
            }
            if !matches!(map.key("properties"), Some(Value::Object(_))) {
                map.insert("properties".into(), json!({}));
            }
            // Read first: the required names that are not properties (reported, in order, each
            // once), and which properties are required.
            let is_required: Vec<bool> = {
                let props = map["properties"].as_object().expect("ensured");
                let listed: Vec<&str> = match map.key("required") {
                    Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                let mut stale: Vec<&str> =
                    listed.iter().copied().filter(|r| !props.has(r)).collect();
                stale.sort_unstable();
                stale.dedup();
                for stale in stale {
                    report.loss(
                        at().child("required"),
                        "required",
                        LossKind::Dropped,
                        format!(
                            "`{stale}` is required but not a property; a closed object cannot have it"
                        ),
                    );
                }
                if listed.len() <= 16 {
                    // A few names: compared in order, no set to build.
                    props.keys().map(|k| listed.contains(&k.as_str())).collect()
                } else {
                    let listed: std::collections::HashSet<&str> = listed.into_iter().collect();
                    props.keys().map(|k| listed.contains(k.as_str())).collect()
                }
            };
            match optional {
                Optional::Keep => {
                    // The original order of `required`, without names that are not properties.
                    if map.has("required") {
                        let props = map["properties"].as_object().expect("ensured");
                        let kept: Vec<Value> = match map.key("required") {
                            Some(Value::Array(r)) => r
                                .iter()
                                .filter(|x| x.as_str().is_some_and(|x| props.contains_key(x)))
                                .cloned()
                                .collect(),
                            _ => Vec::new(),
                        };
                        map.insert("required".into(), Value::Array(kept));
                    }
                }
                Optional::NullableRequired => {
                    let props = map
                        .key_mut("properties")
                        .and_then(Value::as_object_mut)
                        .expect("ensured");
                    let all_required = is_required.iter().all(|r| *r);
                    // Made once per node, shared by its properties' records.
                    let mut properties_at = None;
                    for ((name, slot), required) in props.iter_mut().zip(is_required) {
                        if required {
                            continue;
                        }
                        // In place: the property keeps its position.
                        let v = std::mem::take(slot);
                        let was_nullable = accepts_null_by(&v, &|r| references.get(r).copied());
                        *slot = if was_nullable { v } else { nullable(v) };
                        let detail = if was_nullable {
                            "optional property made required (it already accepts null)"
                        } else {
                            "optional property made required and nullable: the model sends null for \"absent\""
                        };
                        let properties_at =
                            properties_at.get_or_insert_with(|| at().child("properties"));
                        report.change(properties_at.child(name), detail);
                    }
                    // `required` lists every property, in the properties' order: kept as it is
                    // when it already does.
                    let listed_in_order = all_required
                        && match map.key("required") {
                            Some(Value::Array(r)) => {
                                let props = map["properties"].as_object().expect("ensured");
                                r.len() == props.len()
                                    && r.iter()
                                        .zip(props.keys())
                                        .all(|(r, k)| r.as_str() == Some(k))
                            }
                            _ => false,
                        };
                    if !listed_in_order {
                        let props = map["properties"].as_object().expect("ensured");
                        let names: Vec<Value> =
                            props.keys().map(|n| Value::String(n.clone())).collect();
                        map.insert("required".into(), Value::Array(names));
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closes_every_node_that_can_be_an_object() {
        let v = json!({"type": "object", "properties": {
            "a": {"type": ["object", "null"], "properties": {"x": {"type": "string"}}},
            "b": {"type": ["null", "string", "object"]},
            "c": {"properties": {"y": {"type": "integer"}}},
            "s": {"type": ["string", "null"]}
        }});
        let (out, _) = super::super::run(
            &mut CloseObjects {
                optional: Optional::Keep,
            },
            v,
        );
        for name in ["a", "b", "c"] {
            assert_eq!(
                out["properties"][name]["additionalProperties"],
                json!(false),
                "{name}"
            );
        }
        assert_eq!(out["additionalProperties"], json!(false));
        assert!(out["properties"]["s"].key("additionalProperties").is_none());
    }

    #[test]
    fn nullable_required_three_rules() {
        let mut v = json!({"type": "object", "properties": {
            "req": {"type": "string"},
            "opt": {"type": "string", "description": "o"},
            "union": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "constrained": {"anyOf": [{"type": "string"}], "minLength": 1},
            "already": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "nested": {"type": "object", "properties": {"x": {"type": "integer"}}}
        }, "required": ["req", "nested"]});
        let mut r = RuleReport::default();
        CloseObjects {
            optional: Optional::NullableRequired,
        }
        .apply(&mut v, &mut r);
        let p = &v["properties"];
        assert_eq!(
            p["opt"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "description": "o"})
        );
        assert_eq!(
            p["union"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
        );
        assert_eq!(
            p["constrained"]["anyOf"][1],
            json!({"type": "null"}),
            "siblings: wrapped, not appended"
        );
        assert_eq!(
            p["already"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(p["nested"]["additionalProperties"], json!(false));
        assert_eq!(
            p["nested"]["required"],
            json!(["x"]),
            "nested objects are closed too"
        );
        assert_eq!(
            p["nested"]["properties"]["x"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(v["required"].as_array().unwrap().len(), 6);
        assert_eq!(v["additionalProperties"], json!(false));
        assert_eq!(r.changes.len(), 5);
        assert!(r.failure.is_none());
    }

    #[test]
    fn keep_optional_and_open_maps() {
        let mut v = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"]});
        let mut r = RuleReport::default();
        CloseObjects {
            optional: Optional::Keep,
        }
        .apply(&mut v, &mut r);
        assert_eq!(v["required"], json!(["a"]));
        assert_eq!(r.losses.len(), 1);
        let mut open = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let mut r = RuleReport::default();
        CloseObjects {
            optional: Optional::Keep,
        }
        .apply(&mut open, &mut r);
        assert!(r.failure.is_some());
    }
}
