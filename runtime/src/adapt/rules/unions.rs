//! Union forms strict providers accept: `anyOf` only, without nested pure unions.

use serde_json::{Map, Value};

use super::{Held, Rule, RuleReport, is_pure_any_of};
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, visit};
use crate::keys::Keys;

/// `oneOf` → `anyOf` (OpenAI strict supports only `anyOf`). When the branches are provably
/// exclusive (disjoint types, disjoint enums, or a shared required tag with disjoint values)
/// nothing changes in meaning; otherwise a value matching two branches is now accepted, which
/// is reported as widened.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneOfToAnyOf;

fn type_set(m: &Map<String, Value>) -> Option<Vec<String>> {
    let mut ts: Vec<String> = match m.key("type")? {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => return None,
    };
    if ts.iter().any(|t| t == "number") {
        ts.push("integer".into());
    }
    Some(ts)
}

fn values_of(s: &Value) -> Option<Vec<&Value>> {
    if let Some(c) = s.key("const") {
        return Some(vec![c]);
    }
    s.key("enum")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
}

fn disjoint(a: &[&Value], b: &[&Value]) -> bool {
    a.iter().all(|x| !b.contains(x))
}

fn resolve<'a>(root: &'a Value, v: &'a Value) -> &'a Value {
    match v.key("$ref").and_then(Value::as_str) {
        Some(r) => crate::walk::resolve_local(root, r).unwrap_or(v),
        None => v,
    }
}

/// Whether no value can match both schemas, as far as a cheap look can tell.
fn exclusive(a: &Value, b: &Value) -> bool {
    let (Some(ma), Some(mb)) = (a.as_object(), b.as_object()) else {
        return false;
    };
    if let (Some(ta), Some(tb)) = (type_set(ma), type_set(mb)) {
        if ta.iter().all(|t| !tb.contains(t)) {
            return true;
        }
    }
    if let (Some(va), Some(vb)) = (values_of(a), values_of(b)) {
        if disjoint(&va, &vb) {
            return true;
        }
    }
    // A tag: a property required by both whose values are disjoint.
    let required = |m: &Map<String, Value>| -> Vec<String> {
        m.key("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (ra, rb) = (required(ma), required(mb));
    // The names both require, found in a set (linear however long the lists).
    let in_b: std::collections::HashSet<&str> = rb.iter().map(String::as_str).collect();
    for name in ra.iter().filter(|n| in_b.contains(n.as_str())) {
        let pa = ma.key("properties").and_then(|p| p.key(name));
        let pb = mb.key("properties").and_then(|p| p.key(name));
        if let (Some(pa), Some(pb)) = (pa.and_then(values_of), pb.and_then(values_of)) {
            if disjoint(&pa, &pb) {
                return true;
            }
        }
    }
    false
}

impl Rule for OneOfToAnyOf {
    fn name(&self) -> &'static str {
        "oneof-to-anyof"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("oneOf")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&["anyOf", "allOf"], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // Exclusivity is judged on the document before the rewrite. Branches that are `$ref`s
        // need the whole document: those unions are decided first, on the immutable document,
        // by position; the others (the common case) where they stand, before they change.
        let has_ref = |branches: &[Value]| branches.iter().any(|b| b.key("$ref").is_some());
        let all_exclusive = |resolved: &[&Value]| {
            (0..resolved.len())
                .all(|i| (i + 1..resolved.len()).all(|j| exclusive(resolved[i], resolved[j])))
        };
        // Most documents have no `oneOf`: found without building the walk's node list.
        let mut any = false;
        crate::adapt::visit::visit_ref(schema, &mut |node, _| {
            any |= matches!(node.key("oneOf"), Some(Value::Array(_)));
        });
        if !any {
            return;
        }
        let mut exclusive_at: std::collections::HashMap<String, bool> =
            std::collections::HashMap::new();
        {
            let walk = crate::walk::Walk::new(schema);
            for (index, (node, _)) in walk.nodes.iter().enumerate() {
                let Some(Value::Array(branches)) = node.key("oneOf") else {
                    continue;
                };
                if has_ref(branches) {
                    let resolved: Vec<&Value> =
                        branches.iter().map(|b| resolve(schema, b)).collect();
                    exclusive_at.insert(
                        crate::walk::pointer(&walk.steps(index)),
                        all_exclusive(&resolved),
                    );
                }
            }
        }
        visit(schema, Order::Pre, &mut |node, path| {
            let Value::Object(map) = node else { return };
            // A non-array `oneOf` is not a schema keyword use we understand: left as it is.
            let Some(Value::Array(branches)) = map.key("oneOf") else {
                return;
            };
            let at = path.pointer();
            let all_exclusive = if has_ref(branches) {
                exclusive_at.get(&path.text()).copied().unwrap_or(false)
            } else {
                all_exclusive(&branches.iter().collect::<Vec<_>>())
            };
            let Some(Value::Array(branches)) = map.take_key("oneOf") else {
                unreachable!("checked above")
            };
            match map.key_mut("anyOf") {
                // Both present: a value must match the `anyOf` and the former `oneOf`, so the
                // latter becomes an `anyOf` inside an `allOf` (which strict checks then judge).
                Some(_) => {
                    let all = map
                        .entry("allOf")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(all) = all {
                        let mut inner = Map::new();
                        inner.insert("anyOf".into(), Value::Array(branches));
                        all.push(Value::Object(inner));
                    }
                }
                None => {
                    map.insert("anyOf".into(), Value::Array(branches));
                }
            }
            if all_exclusive {
                report.change(&at, "`oneOf` → `anyOf` (the branches are exclusive)");
            } else {
                report.loss(&at, "oneOf", LossKind::Widened, "`oneOf` → `anyOf`: the branches may overlap, and a value matching several is no longer rejected");
            }
        });
    }
}

/// A pure `anyOf` branch of an `anyOf` is spliced into its parent (`(A ∨ B) ∨ C` → `A ∨ B ∨ C`);
/// its description moves up when the parent has none. Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpliceNestedAnyOf;

impl Rule for SpliceNestedAnyOf {
    fn name(&self) -> &'static str {
        "splice-nested-anyof"
    }

    /// A union with a branch that is a pure `anyOf` has an `anyOf` in an `anyOf` branch.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold(crate::adapt::holds::ANY_OF_IN_ANY_OF)
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        super::adds_these(&[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            let Some(Value::Array(branches)) = map.key_mut("anyOf") else {
                return;
            };
            if !branches.iter().any(is_pure_any_of) {
                return;
            }
            let mut hoisted = None;
            let mut out = Vec::with_capacity(branches.len());
            // Where each branch was: its index, and its index in the union it was spliced from.
            let mut from = Vec::with_capacity(branches.len());
            for (i, b) in std::mem::take(branches).into_iter().enumerate() {
                if is_pure_any_of(&b) {
                    let Value::Object(mut inner) = b else {
                        unreachable!()
                    };
                    if let Some(d) = inner.take_key("description") {
                        hoisted.get_or_insert(d);
                    }
                    if let Some(Value::Array(nested)) = inner.take_key("anyOf") {
                        from.extend((0..nested.len()).map(|k| (i, Some(k))));
                        out.extend(nested);
                    }
                } else {
                    from.push((i, None));
                    out.push(b);
                }
            }
            *branches = out;
            if let Some(d) = hoisted {
                map.entry("description").or_insert(d);
            }
            report.change(path.pointer(), "nested `anyOf` spliced into its parent");
            report.spliced(path.pointer(), from);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_of_exclusivity() {
        let mut v = json!({"type": "object", "properties": {
            "tagged": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
            ]},
            "types": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "overlap": {"oneOf": [{"type": "number"}, {"type": "integer"}]}
        }});
        let mut r = RuleReport::default();
        OneOfToAnyOf.apply(&mut v, &mut r);
        assert!(v["properties"]["tagged"].key("anyOf").is_some());
        assert_eq!(r.losses.len(), 1);
        assert_eq!(r.losses[0].pointer, "/properties/overlap");
        assert_eq!(r.losses[0].kind, LossKind::Widened);
        assert_eq!(r.changes.len(), 2);
    }

    #[test]
    fn splices_pure_unions() {
        let mut v = json!({"anyOf": [{"anyOf": [{"type": "string"}, {"anyOf": [{"type": "integer"}], "description": "inner"}]}, {"type": "null"}]});
        SpliceNestedAnyOf.apply(&mut v, &mut RuleReport::default());
        assert_eq!(
            v,
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "inner"})
        );
    }
}
