//! Closed objects for strict modes: `additionalProperties: false` everywhere, and what to do
//! with optional properties.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// Every node that can be an object gets `additionalProperties: false` and a `properties` map;
/// with [`Optional::NullableRequired`] every property becomes required, an optional one
/// nullable (a change per property, so that arguments can be mapped back). An open map
/// (`additionalProperties` true or a schema) cannot be closed without losing it: refused.
#[derive(Clone, Copy, Debug)]
pub struct CloseObjects {
    /// What happens to optional properties.
    pub optional: Optional,
}

impl Rule for CloseObjects {
    fn name(&self) -> &'static str {
        "close-objects"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        // Whether each reference's target accepts `null`, answered on the document as it is
        // before anything is wrapped.
        let mut answers: HashMap<String, bool> = HashMap::new();
        if self.optional == Optional::NullableRequired && tree.holds(Keyword::Ref) {
            let refs: HashSet<String> = (tree.nodes.iter())
                .filter_map(|n| match &n.body {
                    Body::Object(entries) => entries.iter().find(|e| e.key == Keyword::Ref),
                    _ => None,
                })
                .filter_map(|e| e.value.as_value())
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect();
            for r in refs {
                // Each answered afresh: what a cycle leaves unknown depends on where it is
                // entered.
                let state = std::cell::RefCell::new(References::default());
                if let Some(answer) = reference_accepts_null(tree, &r, &state) {
                    answers.insert(r, answer);
                }
            }
        }
        let optional = self.optional;
        let mut failed = None;
        tree.walk_children_first(|tree, id| {
            if failed.is_none() {
                failed = close(tree, id, optional, &answers, report).err();
            }
        });
        if let Some(id) = failed {
            let other = (tree.get(id, Keyword::AdditionalProperties))
                .map(|e| tree.slot_value(&e.value))
                .unwrap_or_default();
            report
                .fail(
                    tree.refused_node(id),
                    format!(
                        "an open map (`additionalProperties: {other}`) cannot be a closed object"
                    ),
                )
                .fix(crate::adapt::fixes::OPEN_MAP);
        }
    }
}

/// Whether a node can hold an object: `type` `"object"` or a list holding it, or no `type` and
/// `properties`.
fn can_be_object(tree: &Tree, id: NodeId) -> bool {
    tree.is_object(id)
        && match tree.get(id, Keyword::Type) {
            Some(_) => super::has_type(tree, id, "object"),
            None => tree.has(id, Keyword::Properties),
        }
}

/// [`CloseObjects`]' work at one node; `Err` with the node where an open map cannot be closed.
fn close(
    tree: &mut Tree,
    id: NodeId,
    optional: Optional,
    answers: &HashMap<String, bool>,
    report: &mut Report,
) -> Result<(), NodeId> {
    if !can_be_object(tree, id) {
        return Ok(());
    }
    let origin = tree.node(id).origin;
    match tree
        .get(id, Keyword::AdditionalProperties)
        .map(|e| &e.value)
    {
        None => {
            let closed = tree.add(origin, Body::Bool(false));
            tree.set(
                id,
                entry(Keyword::AdditionalProperties, Slot::Schema(closed), origin),
            );
        }
        Some(Slot::Schema(c)) if matches!(tree.node(*c).body, Body::Bool(false)) => {}
        Some(Slot::Value(Value::Bool(false))) => {}
        Some(_) => return Err(id),
    }
    if !matches!(
        tree.get(id, Keyword::Properties).map(|e| &e.value),
        Some(Slot::Map(_))
    ) {
        let at = tree
            .get(id, Keyword::Properties)
            .map_or(origin, |e| e.origin);
        tree.set(id, entry(Keyword::Properties, Slot::Map(Vec::new()), at));
    }
    // What the node's `required` says, read before anything is rewritten: the properties
    // each listed name is (none: not a property), and whether the list is every property in
    // order.
    let (names, required) = match (
        tree.get(id, Keyword::Properties).map(|e| &e.value),
        tree.get(id, Keyword::Required),
    ) {
        (Some(Slot::Map(members)), required) => (members, required),
        _ => unreachable!("ensured above"),
    };
    let listed: &[Value] = match required.and_then(|e| e.value.as_value()) {
        Some(Value::Array(r)) => r,
        _ => &[],
    };
    let names_set: Option<HashSet<&str>> =
        (listed.len() > 8).then(|| names.iter().map(|(n, _)| n.as_str()).collect());
    let is_property = |x: &Value| {
        x.as_str().is_some_and(|x| match &names_set {
            Some(set) => set.contains(x),
            None => names.iter().any(|(n, _)| n == x),
        })
    };
    let listed_set: Option<HashSet<&str>> =
        (listed.len() > 8).then(|| listed.iter().filter_map(Value::as_str).collect());
    let is_listed = |name: &str| match &listed_set {
        Some(set) => set.contains(name),
        None => listed.iter().any(|r| r.as_str() == Some(name)),
    };
    // The required names that are not properties, each reported once, in order.
    let mut stale: Vec<&str> = (listed.iter())
        .filter(|r| r.is_string() && !is_property(r))
        .filter_map(Value::as_str)
        .collect();
    stale.sort_unstable();
    stale.dedup();
    let required_origin = required.map_or(origin, |e| e.origin);
    for stale in stale {
        let detail =
            format!("`{stale}` is required but not a property; a closed object cannot have it");
        report.loss(
            required_origin,
            Some(id),
            "required",
            LossKind::Dropped,
            detail,
        );
    }
    match optional {
        Optional::Keep => {
            let kept: Vec<Value> = match required.map(|e| e.value.as_value()) {
                None => return Ok(()),
                Some(Some(Value::Array(r))) if r.iter().all(is_property) => return Ok(()),
                Some(Some(Value::Array(r))) => {
                    r.iter().filter(|x| is_property(x)).cloned().collect()
                }
                Some(_) => Vec::new(),
            };
            tree.set_value(id, Keyword::Required, Value::Array(kept));
        }
        Optional::NullableRequired => {
            let in_order = matches!(required.and_then(|e| e.value.as_value()), Some(Value::Array(r))
                if r.len() == names.len() && r.iter().zip(names).all(|(r, (n, _))| r.as_str() == Some(n)));
            let optional: Vec<NodeId> = (names.iter())
                .filter(|(name, _)| !is_listed(name))
                .map(|(_, property)| *property)
                .collect();
            let all = (!in_order).then(|| {
                let all = names.iter().map(|(n, _)| Value::String(n.clone()));
                Value::Array(all.collect())
            });
            for property in optional {
                let was_nullable = accepts_null(tree, property, answers);
                if !was_nullable {
                    nullable(tree, property);
                }
                let detail = if was_nullable {
                    "optional property made required (it already accepts null)"
                } else {
                    "optional property made required and nullable: the model sends null for \"absent\""
                };
                report.change(tree.node(property).origin, Some(property), detail);
            }
            if let Some(all) = all {
                tree.set_value(id, Keyword::Required, all);
            }
        }
    }
    Ok(())
}

fn entry(key: Keyword, value: Slot, origin: crate::adapt::tree::Origin) -> Entry {
    Entry {
        key: Key::Kw(key),
        value,
        origin,
    }
}

/// Makes property schema `id` accept `null` too: one plain scalar type `T` becomes
/// `type: [T, "null"]`, a `null` branch is appended to a pure `anyOf` (nothing beside it but a
/// description), anything else is wrapped in `anyOf: [it, null]` that
/// takes its description. The wrapper is node `id` (what was recorded of the property is at
/// the property's place, where its description now is); its keywords move into a new first
/// branch.
fn nullable(tree: &mut Tree, id: NodeId) {
    let origin = tree.node(id).origin;
    if plain_scalar(tree, id) {
        if let Some(ty) = tree.value_mut(id, Keyword::Type) {
            let t = std::mem::take(ty);
            *ty = Value::Array(vec![t, Value::String("null".into())]);
        }
        return;
    }
    let Body::Object(entries) = &tree.node(id).body else {
        return;
    };
    let pure = entries
        .iter()
        .all(|e| e.key == Keyword::AnyOf || e.key == Keyword::Description)
        && matches!(
            tree.get(id, Keyword::AnyOf).map(|e| &e.value),
            Some(Slot::Schemas(_))
        );
    let null = entry(
        Keyword::Type,
        Slot::Value(Value::String("null".into())),
        origin,
    );
    let null = tree.add(origin, Body::Object(vec![null]));
    if pure {
        if let Some(Slot::Schemas(branches)) = tree.slot_mut(id, Keyword::AnyOf) {
            branches.push(null);
        }
        return;
    }
    let description = tree.take(id, Keyword::Description);
    let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
    let inner = tree.add(origin, Body::Object(entries));
    let wrapper = tree.entries_mut(id).expect("an object");
    wrapper.push(entry(
        Keyword::AnyOf,
        Slot::Schemas(vec![inner, null]),
        origin,
    ));
    wrapper.extend(description);
}

/// Whether schema `id` accepts `null` (`answers`: whether each reference's target does),
/// read from its own keywords and unions.
fn accepts_null(tree: &Tree, id: NodeId, answers: &HashMap<String, bool>) -> bool {
    accepts_null_by(tree, id, &|r| answers.get(r).copied())
}

/// [`accepts_null`] with references answered by `reference` (`None`: not known, taken as
/// accepting). A loop over the unions' branches, not recursion.
fn accepts_null_by(tree: &Tree, id: NodeId, reference: &dyn Fn(&str) -> Option<bool>) -> bool {
    // The few levels of unions a property has are answered recursively (a document deeper than
    // the caller's stack may hold is adapted on a stack sized for it).
    {
        let entries = match &tree.node(id).body {
            Body::Bool(b) => return *b,
            Body::NotSchema(_) => return true,
            Body::Object(entries) => entries,
        };
        let get = |k: Keyword| entries.iter().find(|e| e.key == k).map(|e| &e.value);
        if let Some(Slot::Value(Value::String(r))) = get(Keyword::Ref) {
            if reference(r) == Some(false) {
                return false;
            }
        }
        let openapi_nullable =
            matches!(get(Keyword::Nullable), Some(Slot::Value(Value::Bool(true))));
        match get(Keyword::Type) {
            Some(Slot::Value(Value::String(t))) if t != "null" && !openapi_nullable => {
                return false;
            }
            Some(Slot::Value(Value::Array(ts)))
                if !openapi_nullable && !ts.iter().any(|t| t == "null") =>
            {
                return false;
            }
            _ => {}
        }
        if let Some(Slot::Value(Value::Array(values))) = get(Keyword::Enum) {
            if !values.iter().any(Value::is_null) {
                return false;
            }
        }
        if let Some(c) = get(Keyword::Const) {
            if !matches!(c, Slot::Value(Value::Null)) {
                return false;
            }
        }
        let branches = |k: Keyword| match get(k) {
            Some(Slot::Schemas(bs)) => {
                Some(bs.iter().map(|b| accepts_null_by(tree, *b, reference)))
            }
            _ => None,
        };
        if let Some(mut answers) = branches(Keyword::AnyOf) {
            if !answers.any(|a| a) {
                return false;
            }
        }
        if let Some(answers) = branches(Keyword::OneOf) {
            if answers.filter(|a| *a).count() != 1 {
                return false;
            }
        }
        if let Some(mut answers) = branches(Keyword::AllOf) {
            if !answers.all(|a| a) {
                return false;
            }
        }
        true
    }
}

/// Whether the targets of references accept `null`, each answered once (a reference open
/// while it is answered, or more than 64 open at once, is "not known").
#[derive(Default)]
struct References {
    open: Vec<String>,
    done: HashMap<String, bool>,
}

/// Whether the target of `reference` accepts `null`; `None` when it does not resolve.
fn reference_accepts_null(
    tree: &Tree,
    reference: &str,
    state: &std::cell::RefCell<References>,
) -> Option<bool> {
    {
        let s = state.borrow();
        if let Some(answer) = s.done.get(reference) {
            return Some(*answer);
        }
        if s.open.len() >= 64 || s.open.iter().any(|r| r == reference) {
            return None;
        }
    }
    let target = tree.resolve(reference)?;
    state.borrow_mut().open.push(reference.to_owned());
    let answer = accepts_null_by(tree, target, &|r| reference_accepts_null(tree, r, state));
    let mut s = state.borrow_mut();
    s.open.pop();
    s.done.insert(reference.to_owned(), answer);
    Some(answer)
}

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

/// A node of one plain scalar type (`string`, `number`, `integer` or `boolean`, no `enum`,
/// `const`, union or reference): OpenAI strict makes it nullable as `type: [T, "null"]`, the
/// form OpenAI documents for optional fields.
fn plain_scalar(tree: &Tree, id: NodeId) -> bool {
    let scalar = |t: &Value| {
        matches!(
            t.as_str(),
            Some("string" | "number" | "integer" | "boolean")
        )
    };
    scalar_node(tree, id, |t| match t {
        Value::String(_) => scalar(t),
        _ => false,
    })
}

/// A node whose `type` is `[T, "null"]` of one plain scalar type `T` (no `enum`, `const`,
/// union or reference): the form [`plain_scalar`] nodes are made nullable in.
pub(crate) fn nullable_scalar(tree: &Tree, id: NodeId) -> bool {
    scalar_node(tree, id, |t| match t {
        Value::Array(ts) => {
            ts.len() == 2
                && matches!(
                    ts[0].as_str(),
                    Some("string" | "number" | "integer" | "boolean")
                )
                && ts[1] == "null"
        }
        _ => false,
    })
}

fn scalar_node(tree: &Tree, id: NodeId, typed: impl Fn(&Value) -> bool) -> bool {
    tree.value(id, Keyword::Type).is_some_and(typed)
        && !tree.entries(id).iter().any(|e| {
            matches!(
                e.key,
                Key::Kw(
                    Keyword::Enum
                        | Keyword::Const
                        | Keyword::AnyOf
                        | Keyword::OneOf
                        | Keyword::AllOf
                        | Keyword::Ref
                )
            )
        })
}
