//! Classifying the branches of a union: which are structured, which are null, in what order.

use std::collections::HashSet;
use std::rc::Rc;

use serde_json::Value;

use crate::keys::{Keys, has_type};
use crate::walk::resolve_local;

/// What a single (flattened) branch of a union is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BranchKind {
    /// `type` is or contains `object`/`array`, or no `type` but `properties`/`items`/`prefixItems`.
    Structured(&'static str),
    /// `type: "null"` (or `const`/`enum` of only null).
    Null,
    /// Anything else: scalars, the permissive schema, `false`.
    Other,
    /// A local `$ref` that does not resolve.
    Dangling(String),
    /// A `$ref` to another document: never fetched, so not judged.
    External(String),
}

/// One branch after flattening nested unions and following `$ref`s.
#[derive(Clone)]
#[non_exhaustive]
pub struct Branch {
    /// Index of the direct branch of the union it comes from.
    pub origin: usize,
    label: Rc<Hop>,
    /// What it is.
    pub kind: BranchKind,
    /// It was reached by flattening a nested union that is checked where it is defined (a
    /// `$ref` to a union that is not itself a branch of another union).
    pub reported_elsewhere: bool,
    /// The union (its address) that it is reported at when `reported_elsewhere`.
    pub(crate) elsewhere_union: Option<*const Value>,
}

impl Branch {
    /// The branch's relative label, e.g. `anyOf[2]` or `anyOf[0] -> #/$defs/Foo -> anyOf[1]`
    /// (long chains keep their first and last hops).
    pub fn label(&self) -> String {
        render(&self.label)
    }
}

impl std::fmt::Debug for Branch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Branch")
            .field("origin", &self.origin)
            .field("label", &self.label())
            .field("kind", &self.kind)
            .field("reported_elsewhere", &self.reported_elsewhere)
            .finish()
    }
}

/// Keywords that only annotate: a node made of a union plus these is "only a union".
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
    "$anchor",
    "$schema",
    "$defs",
    "definitions",
];

fn combinator_of(schema: &Value) -> Option<(&'static str, &Vec<Value>)> {
    let map = schema.as_object()?;
    let mut found = None;
    for (key, value) in map {
        match (key.as_str(), value) {
            ("anyOf", Value::Array(items)) if found.is_none() => found = Some(("anyOf", items)),
            ("oneOf", Value::Array(items)) if found.is_none() => found = Some(("oneOf", items)),
            (k, _) if ANNOTATIONS.contains(&k) => {}
            // What says the node's own kind (a type, a structure, another schema): the node is
            // judged as a whole. Any other keyword (an assertion on some type, an unknown name)
            // leaves the values the union offers, so the union still speaks for the node.
            (k, _) if OWN_KIND.contains(&k) => return None,
            _ => {}
        }
    }
    found
}

/// Keywords that give a node a kind of its own beside a union.
const OWN_KIND: &[&str] = &[
    "type",
    "properties",
    "items",
    "prefixItems",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
];

/// The node is nothing but an `anyOf` or `oneOf` (plus annotations): it contributes its branches
/// to a parent union. Returns the keyword and the branches.
pub fn union_only(schema: &Value) -> Option<(&'static str, &Vec<Value>)> {
    combinator_of(schema)
}

/// The kind of one schema, without looking through `$ref` or nested unions.
fn direct_kind(schema: &Value) -> BranchKind {
    let Value::Object(map) = schema else {
        return BranchKind::Other;
    };
    if has_type(map, "object") {
        return BranchKind::Structured("object");
    }
    if has_type(map, "array") {
        return BranchKind::Structured("array");
    }
    if map.key("type").is_none() {
        if map.has("properties") {
            return BranchKind::Structured("object");
        }
        if map.has("items") || map.has("prefixItems") {
            return BranchKind::Structured("array");
        }
    }
    // The names `type` lists (its strings), counted without collecting them: `null` alone, or
    // none at all.
    let (names, null_alone) = match map.key("type") {
        Some(Value::String(t)) => (1, t == "null"),
        Some(Value::Array(ts)) => {
            let mut names = ts.iter().filter_map(Value::as_str);
            match (names.next(), names.next()) {
                (None, _) => (0, false),
                (Some(only), None) => (1, only == "null"),
                (Some(_), Some(_)) => (2, false),
            }
        }
        _ => (0, false),
    };
    if null_alone {
        return BranchKind::Null;
    }
    let only_null = |v: &Value| match v {
        Value::Array(values) => !values.is_empty() && values.iter().all(Value::is_null),
        _ => false,
    };
    if names == 0
        && (map.key("const").is_some_and(Value::is_null) || map.key("enum").is_some_and(only_null))
    {
        return BranchKind::Null;
    }
    BranchKind::Other
}

/// A label under construction: a linked list of hops, shared between siblings, so following a
/// long chain costs O(1) per hop. Rendered only for branches that are reported.
pub(crate) struct Hop {
    text: String,
    parent: Option<Rc<Hop>>,
}

fn render(hop: &Rc<Hop>) -> String {
    let mut parts = Vec::new();
    let mut at = Some(hop);
    while let Some(h) = at {
        parts.push(h.text.as_str());
        at = h.parent.as_ref();
    }
    parts.reverse();
    if parts.len() > 6 {
        let tail = parts.split_off(parts.len() - 3);
        parts.truncate(3);
        parts.push("…");
        parts.extend(tail);
    }
    parts.join(" -> ")
}

/// The kind of each of `branches`, in order, when none of them needs [`flatten`]'s expansion (no
/// `$ref`, no union of its own, no `allOf` of one schema to look through): then each branch is
/// exactly what `flatten` emits for it, found without labels or work lists. `None` otherwise.
#[cfg(test)]
pub(crate) fn direct_kinds(branches: &[Value]) -> Option<Vec<BranchKind>> {
    branches.iter().map(direct_branch_kind).collect()
}

/// The kind of one branch as [`direct_kinds`] reads it (`None`: it needs [`flatten`]).
pub(crate) fn direct_branch_kind(schema: &Value) -> Option<BranchKind> {
    if schema.key("$ref").is_some_and(Value::is_string) || union_only(schema).is_some() {
        return None;
    }
    let kind = direct_kind(schema);
    match schema.key("allOf") {
        Some(Value::Array(all)) if all.len() == 1 && kind == BranchKind::Other => None,
        _ => Some(kind),
    }
}

/// Flattens the branches of a union: nested union-only branches contribute their own branches,
/// `$ref`s are judged by their target, an `allOf` of one schema by that schema.
///
/// Each node is expanded at most once per call (a second reference to the same definition adds
/// nothing new, and a reference cycle ends), the union being judged (`owner`) is never expanded
/// into itself, and the work list lives on the heap, so depth cannot overflow the stack.
///
/// `nested` holds the unions that are inline branches of another union: they are judged as part
/// of that union, never on their own.
pub fn flatten(
    root: &Value,
    owner: &Value,
    keyword: &str,
    branches: &[Value],
    nested: &HashSet<*const Value>,
) -> Vec<Branch> {
    struct Work<'a> {
        origin: usize,
        label: Rc<Hop>,
        schema: &'a Value,
        elsewhere: Option<*const Value>,
        via_ref: bool,
    }
    let mut expanded: HashSet<*const Value> = HashSet::new();
    expanded.insert(owner as *const Value);
    let hop = |text: String, parent: Option<&Rc<Hop>>| {
        Rc::new(Hop {
            text,
            parent: parent.cloned(),
        })
    };
    let mut stack: Vec<Work<'_>> = branches
        .iter()
        .enumerate()
        .rev()
        .map(|(i, schema)| Work {
            origin: i,
            label: hop(format!("{keyword}[{i}]"), None),
            schema,
            elsewhere: None,
            via_ref: false,
        })
        .collect();
    let mut out = Vec::new();
    let mut emit = |work: &Work<'_>, kind: BranchKind| {
        out.push(Branch {
            origin: work.origin,
            label: Rc::clone(&work.label),
            kind,
            reported_elsewhere: work.elsewhere.is_some(),
            elsewhere_union: work.elsewhere,
        });
    };
    while let Some(work) = stack.pop() {
        let schema = work.schema;
        if let Some(reference) = schema.key("$ref").and_then(Value::as_str) {
            let only_ref = schema.as_object().is_some_and(|m| {
                m.keys()
                    .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
            });
            // With siblings that say what the node is, the node is judged by them.
            if !only_ref && direct_kind(schema) != BranchKind::Other {
                emit(&work, direct_kind(schema));
                continue;
            }
            if !reference.starts_with('#') {
                emit(&work, BranchKind::External(reference.to_owned()));
                continue;
            }
            match resolve_local(root, reference) {
                None => emit(&work, BranchKind::Dangling(reference.to_owned())),
                Some(target) => {
                    // A union target is deduplicated when it is expanded; anything else here,
                    // so that a cycle of references ends.
                    if union_only(target).is_some() || expanded.insert(target as *const Value) {
                        stack.push(Work {
                            origin: work.origin,
                            label: hop(reference.to_owned(), Some(&work.label)),
                            schema: target,
                            elsewhere: work.elsewhere,
                            via_ref: true,
                        });
                    }
                }
            }
            continue;
        }
        if let Some((kw, subs)) = union_only(schema) {
            let first_time = expanded.insert(schema as *const Value);
            if !first_time && work.via_ref {
                // Already counted (a recursive reference back to a union): nothing new.
                continue;
            }
            // Reached through a `$ref`, a union that stands on its own is reported there.
            let elsewhere = work.elsewhere.or_else(|| {
                (work.via_ref && !nested.contains(&(schema as *const Value)))
                    .then_some(schema as *const Value)
            });
            for (i, sub) in subs.iter().enumerate().rev() {
                stack.push(Work {
                    origin: work.origin,
                    label: hop(format!("{kw}[{i}]"), Some(&work.label)),
                    schema: sub,
                    elsewhere,
                    via_ref: false,
                });
            }
            continue;
        }
        if let Some(Value::Array(all)) = schema.key("allOf") {
            if all.len() == 1 && direct_kind(schema) == BranchKind::Other {
                stack.push(Work {
                    origin: work.origin,
                    label: hop("allOf[0]".to_owned(), Some(&work.label)),
                    schema: &all[0],
                    elsewhere: work.elsewhere,
                    via_ref: work.via_ref,
                });
                continue;
            }
        }
        emit(&work, direct_kind(schema));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds(root: &Value, branches: Value) -> Vec<BranchKind> {
        flatten(
            root,
            &Value::Null,
            "anyOf",
            branches.as_array().unwrap(),
            &HashSet::new(),
        )
        .into_iter()
        .map(|b| b.kind)
        .collect()
    }

    #[test]
    fn each_structured_form() {
        let root = json!({});
        let got = kinds(
            &root,
            json!([
                {"type": "object"},
                {"type": "array"},
                {"type": ["object", "null"]},
                {"type": ["string", "array"]},
                {"properties": {}},
                {"items": {}},
                {"prefixItems": []},
                {"type": "string", "properties": {}},
                {"type": "null"},
                {"const": null},
                true,
                {}
            ]),
        );
        use BranchKind::*;
        assert_eq!(
            got,
            vec![
                Structured("object"),
                Structured("array"),
                Structured("object"),
                Structured("array"),
                Structured("object"),
                Structured("array"),
                Structured("array"),
                Other,
                Null,
                Null,
                Other,
                Other
            ]
        );
    }

    /// Plain branches are read as `flatten` reads them; a branch to expand leaves it to `flatten`.
    #[test]
    fn direct_kinds_agree_with_flatten() {
        let root = json!({"$defs": {"O": {"type": "object"}}});
        let plain = json!([
            {"type": "object"},
            {"type": ["string", "null"]},
            {"properties": {}},
            {"items": {}},
            {"type": "null"},
            {"const": null},
            {"$ref": 7, "type": "array"},
            {"allOf": [{"type": "object"}], "type": "array"},
            {"allOf": [{}, {}]},
            true,
            {}
        ]);
        let branches = plain.as_array().unwrap();
        assert_eq!(direct_kinds(branches), Some(kinds(&root, plain.clone())));
        for needs_flatten in [
            json!({"$ref": "#/$defs/O"}),
            json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
            json!({"oneOf": [{"type": "string"}]}),
            json!({"allOf": [{"type": "object"}]}),
            json!({"allOf": [{"type": "object"}], "type": "string"}),
        ] {
            let mut with = branches.clone();
            with.push(needs_flatten.clone());
            assert_eq!(direct_kinds(&with), None, "{needs_flatten}");
        }
    }

    #[test]
    fn refs_are_judged_by_target_and_cycles_stop() {
        let root = json!({
            "$defs": {
                "Obj": {"type": "object"},
                "Loop": {"$ref": "#/$defs/Loop"},
                "U": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "array"}]}
            }
        });
        let got = flatten(
            &root,
            &Value::Null,
            "oneOf",
            json!([
                {"$ref": "#/$defs/Obj"},
                {"$ref": "#/$defs/Loop"},
                {"$ref": "#/$defs/U"},
                {"$ref": "#/$defs/Nope"},
                {"$ref": "other.json#/x"}
            ])
            .as_array()
            .unwrap(),
            &HashSet::new(),
        );
        let kinds: Vec<_> = got.iter().map(|b| b.kind.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                BranchKind::Structured("object"),
                BranchKind::Structured("array"),
                BranchKind::Dangling("#/$defs/Nope".into()),
                BranchKind::External("other.json#/x".into())
            ]
        );
        assert_eq!(got[1].origin, 2);
        assert!(got[1].reported_elsewhere);
        assert_eq!(got[1].label(), "oneOf[2] -> #/$defs/U -> anyOf[1]");
    }

    #[test]
    fn a_union_referring_to_itself_adds_nothing() {
        // `enum Expr { Lit(i64), Call(Vec<Expr>), Boxed(Box<Expr>) }`, untagged.
        let root = json!({"$defs": {"Expr": {"anyOf": [
            {"type": "integer"},
            {"type": "array", "items": {"$ref": "#/$defs/Expr"}},
            {"$ref": "#/$defs/Expr"}
        ]}}});
        let owner = &root["$defs"]["Expr"];
        let got = flatten(
            &root,
            owner,
            "anyOf",
            owner["anyOf"].as_array().unwrap(),
            &HashSet::new(),
        );
        let structured = got
            .iter()
            .filter(|b| matches!(b.kind, BranchKind::Structured(_)))
            .count();
        assert_eq!(structured, 1, "{got:?}");
    }
}
