//! Closed objects for strict modes: `additionalProperties: false` everywhere, and what to do
//! with optional properties.

use serde_json::{Map, Value, json};

use super::strict_checks::{TypedQuick, Vouch};
use super::{Held, Rule, RuleReport, is_pure_any_of, null_schema};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, Path, visit};
use crate::keys::Keys;
use crate::nullable::{accepts_null_by, reference_answers};
use smallvec::SmallVec;

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
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        Some(_) => false,
        None => map.has("properties"),
    }
}

/// Whether a union (`anyOf`, `oneOf`, `allOf`) stands anywhere in `v` (a key of that name
/// anywhere, a property so named included).
fn holds_union(v: &Value) -> bool {
    // The values left to look into: most property schemas have a few, kept on the stack.
    let mut pending: SmallVec<[&Value; 16]> = SmallVec::new();
    pending.push(v);
    let container = |x: &&Value| x.is_object() || x.is_array();
    while let Some(v) = pending.pop() {
        match v {
            Value::Object(m) => {
                for (k, sub) in m {
                    if matches!(k.as_str(), "anyOf" | "oneOf" | "allOf") {
                        return true;
                    }
                    if container(&sub) {
                        pending.push(sub);
                    }
                }
            }
            Value::Array(a) => a.iter().filter(container).for_each(|sub| pending.push(sub)),
            _ => {}
        }
    }
    false
}

/// Makes a property schema that does not accept `null` accept it too; with whether it was
/// wrapped (its keywords moved into the first branch of a new `anyOf`).
fn nullable(v: Value) -> (Value, bool) {
    if is_pure_any_of(&v) {
        let mut v = v;
        if let Some(Value::Array(bs)) = v.key_mut("anyOf") {
            bs.push(null_schema());
        }
        return (v, false);
    }
    let Value::Object(mut m) = v else {
        return (v, false);
    };
    let description = crate::keys::take_in_one_pass(&mut m, "description");
    let wrapped = wrapper(
        Value::Array(vec![Value::Object(m), null_schema()]),
        description,
    );
    (wrapped, true)
}

/// `{"anyOf": branches, "description": description}` (without a description when there is
/// none), copied from a prototype: its keys are placed without hashing them, as inserting them
/// would.
pub(super) fn wrapper(branches: Value, description: Option<Value>) -> Value {
    static PROTOTYPES: std::sync::OnceLock<[Map<String, Value>; 2]> = std::sync::OnceLock::new();
    let prototypes = PROTOTYPES.get_or_init(|| {
        let keys = |keys: &[&str]| keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
        [keys(&["anyOf"]), keys(&["anyOf", "description"])]
    });
    let mut out = prototypes[usize::from(description.is_some())].clone();
    let mut slots = out.values_mut();
    *slots.next().expect("anyOf") = branches;
    if let (Some(slot), Some(d)) = (slots.next(), description) {
        *slot = d;
    }
    Value::Object(out)
}

impl Rule for CloseObjects {
    fn name(&self) -> &'static str {
        "close-objects"
    }

    /// Its `anyOf` wraps an optional property's schema with the null schema: an `anyOf` in
    /// that wrapper's branch is one the document held already.
    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        let wrapper = super::any_of_around(held);
        super::adds_these(
            &[
                "additionalProperties",
                "properties",
                "required",
                wrapper,
                "type",
                // The wrapper's null branch.
                crate::adapt::holds::TYPE_NULL,
                "description",
            ],
            add,
        )
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.apply_held(schema, report, &Held::anything());
    }

    fn told(&self) -> bool {
        true
    }

    /// Told that the document holds no `$ref`, it does not look for references to answer.
    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        self.close(schema, report, held, &mut |_, _| {});
    }
}

impl CloseObjects {
    /// The rule's walk, calling `after` on every node it visits once its work there is done
    /// (parents after their children).
    fn close(
        &self,
        schema: &mut Value,
        report: &mut RuleReport,
        held: &Held<'_>,
        after: &mut dyn FnMut(&Value, &Path<'_>),
    ) {
        let optional = self.optional;
        // Asked while the document is rewritten: the answers for its references, once.
        let references = if held.may_hold("$ref") {
            reference_answers(schema)
        } else {
            Default::default()
        };
        visit(schema, Order::Post, &mut |node, path| {
            close_node(node, path, optional, &references, report);
            after(node, path);
        });
    }
}

/// [`CloseObjects`]' work at one node.
fn close_node(
    node: &mut Value,
    path: &Path<'_>,
    optional: Optional,
    references: &std::collections::HashMap<String, bool>,
    report: &mut RuleReport,
) {
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
            report.fail(
                at(),
                format!("an open map (`additionalProperties: {other}`) cannot be a closed object"),
            );
            return;
        }
    }
    if !matches!(map.key("properties"), Some(Value::Object(_))) {
        map.insert("properties".into(), json!({}));
    }
    // The required names that are not properties (reported, in order, each once).
    {
        let props = map
            .key("properties")
            .and_then(Value::as_object)
            .expect("ensured");
        let listed: &[Value] = match map.key("required") {
            Some(Value::Array(r)) => r,
            _ => &[],
        };
        let mut stale: Vec<&str> = listed
            .iter()
            .filter_map(Value::as_str)
            .filter(|r| !props.has(r))
            .collect();
        stale.sort_unstable();
        stale.dedup();
        for stale in stale {
            report.loss(
                at().child("required"),
                "required",
                LossKind::Dropped,
                format!("`{stale}` is required but not a property; a closed object cannot have it"),
            );
        }
    }
    match optional {
        Optional::Keep => {
            // The original order of `required`, without names that are not properties.
            if map.has("required") {
                let props = map
                    .key("properties")
                    .and_then(Value::as_object)
                    .expect("ensured");
                let is_property = |x: &Value| x.as_str().is_some_and(|x| props.has(x));
                match map.key("required") {
                    // Every name a property: the list stays as it is.
                    Some(Value::Array(r)) if r.iter().all(is_property) => {}
                    listed => {
                        let kept: Vec<Value> = match listed {
                            Some(Value::Array(r)) => {
                                r.iter().filter(|x| is_property(x)).cloned().collect()
                            }
                            _ => Vec::new(),
                        };
                        map.insert("required".into(), Value::Array(kept));
                    }
                }
            }
        }
        Optional::NullableRequired => {
            // The listed names, read while the properties are rewritten: taken out of
            // their slot (which keeps its place among the keys) and put back, or
            // replaced, after.
            let listed = map.key_mut("required").map(std::mem::take);
            let names: &[Value] = match &listed {
                Some(Value::Array(r)) => r,
                _ => &[],
            };
            // A few names are compared in order; many go through a set.
            let set: Option<std::collections::HashSet<&str>> =
                (names.len() > 16).then(|| names.iter().filter_map(Value::as_str).collect());
            let is_listed = |k: &str| match &set {
                Some(set) => set.contains(k),
                None => names.iter().any(|r| r.as_str() == Some(k)),
            };
            let props = map
                .key_mut("properties")
                .and_then(Value::as_object_mut)
                .expect("ensured");
            let mut all_required = true;
            // Made once per node, shared by its properties' records.
            let mut properties_at = None;
            for (name, slot) in props.iter_mut() {
                if is_listed(name) {
                    continue;
                }
                all_required = false;
                // In place: the property keeps its position.
                let v = std::mem::take(slot);
                let was_nullable = accepts_null_by(&v, &|r| references.get(r).copied());
                let wrapped = if was_nullable {
                    *slot = v;
                    false
                } else {
                    let unions = holds_union(&v);
                    let (v, wrapped) = nullable(v);
                    *slot = v;
                    wrapped && unions
                };
                let detail = if was_nullable {
                    "optional property made required (it already accepts null)"
                } else {
                    "optional property made required and nullable: the model sends null for \"absent\""
                };
                let properties_at = properties_at.get_or_insert_with(|| at().child("properties"));
                let property_at = properties_at.child(name);
                // Logged (before the entry, which names the property as it was) where a later
                // rule may move a union's branches inside it: the positions those moves name,
                // and those recorded there, are below the wrap. Elsewhere the wrap is told by
                // what the branches hold (the null branch holds nothing else), at no cost per
                // property.
                if wrapped {
                    report.wrapped(property_at.clone());
                }
                report.change(property_at, detail);
            }
            // `required` lists every property, in the properties' order: kept as it is
            // when it already does.
            let listed_in_order = all_required
                && matches!(listed, Some(Value::Array(_)))
                && names.len() == props.len()
                && names
                    .iter()
                    .zip(props.keys())
                    .all(|(r, k)| r.as_str() == Some(k));
            let required = match listed {
                Some(listed) if listed_in_order => listed,
                // A few names listed already are moved over (found in order), not copied.
                Some(Value::Array(mut old)) if old.len() <= 16 => Value::Array(
                    props
                        .keys()
                        .map(|n| match old.iter_mut().find(|r| r.as_str() == Some(n)) {
                            Some(r) => std::mem::take(r),
                            None => Value::String(n.clone()),
                        })
                        .collect(),
                ),
                _ => Value::Array(props.keys().map(|n| Value::String(n.clone())).collect()),
            };
            match map.key_mut("required") {
                Some(slot) => *slot = required,
                None => {
                    map.insert("required".into(), required);
                }
            }
        }
    }
}

/// [`CloseObjects`] in OpenAI's strict lists: its walk also works out the verdict of the check
/// at the end of the list ([`TypedQuick`]), which it hands over ([`TypedWithinLimitsAfter`]), so
/// that the check does not walk the document again. Same name in reports.
pub(crate) struct CloseObjectsVouching {
    pub(crate) close: CloseObjects,
    pub(crate) vouch: Vouch,
}

impl Rule for CloseObjectsVouching {
    fn name(&self) -> &'static str {
        self.close.name()
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        self.close.adds(held, add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        self.apply_held(schema, report, &Held::anything());
    }

    fn told(&self) -> bool {
        true
    }

    fn apply_held(&mut self, schema: &mut Value, report: &mut RuleReport, held: &Held<'_>) {
        self.vouch.set(false);
        let mut quick = TypedQuick::default();
        self.close.close(schema, report, held, &mut |node, path| {
            quick.node(node, path.step(), path.depth())
        });
        if report.failure.is_none() {
            self.vouch.set(quick.passes());
        }
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

    /// `required` keeps its place among the node's keys; it is kept when it already lists every
    /// property in order, and rebuilt otherwise (also when it is not a list at all).
    #[test]
    fn required_is_rebuilt_in_place_only_when_needed() {
        let rule = || CloseObjects {
            optional: Optional::NullableRequired,
        };
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        let (out, r) = super::super::run(
            &mut rule(),
            json!({"required": ["a", "b"], "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}),
        );
        assert_eq!(
            keys(&out),
            ["required", "type", "properties", "additionalProperties"]
        );
        assert_eq!(out["required"], json!(["a", "b"]));
        assert!(r.changes.is_empty() && r.losses.is_empty());
        let (out, r) = super::super::run(
            &mut rule(),
            json!({"type": "object", "required": ["b", "ghost"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}),
        );
        assert_eq!(
            keys(&out),
            ["type", "required", "properties", "additionalProperties"]
        );
        assert_eq!(out["required"], json!(["a", "b"]));
        assert_eq!((r.changes.len(), r.losses.len()), (1, 1), "{r:?}");
        // Names listed twice, a name that is not a string, one that is not a property: every
        // property once, in the properties' order.
        let (out, _) = super::super::run(
            &mut rule(),
            json!({"type": "object", "required": ["b", 3, "b", "ghost", "a"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}}),
        );
        assert_eq!(out["required"], json!(["a", "b", "c"]));
        for odd in [json!("x"), json!({"a": true}), json!(3)] {
            let (out, _) = super::super::run(
                &mut rule(),
                json!({"type": "object", "properties": {}, "required": odd}),
            );
            assert_eq!(out["required"], json!([]), "{odd}");
        }
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
