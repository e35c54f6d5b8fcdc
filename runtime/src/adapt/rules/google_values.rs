//! Google's value rules: its null handling, string enums only, unions of one branch, and
//! `required` names that are properties.

use serde_json::{Value, json};

use super::{absorb, json_text, words};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Keyword, NodeId, Report, Rule, Slot, Tree};
use crate::nullable::is_null_branch;

/// Google's null handling, parent first as python-genai's `handle_null_fields` does:
/// `type: "null"` → `nullable: true`; null branches of an `anyOf` removed and `nullable: true`
/// set (one object branch left is merged into the node); `type: [T, "null"]` → `type: T` +
/// `nullable: true`. A type array with several non-null types keeps the first (a `collapsed`
/// loss). With `mark_nullable: false` (Cloud Code Assist) no `nullable` is written.
#[derive(Clone, Copy, Debug)]
pub struct GoogleNullable {
    /// Write `nullable: true` (Gemini) or nothing (Cloud Code Assist).
    pub mark_nullable: bool,
}

impl Rule for GoogleNullable {
    fn name(&self) -> &'static str {
        "google-nullable"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let mark = self.mark_nullable;
        tree.walk(|tree, id| google_nullable(tree, id, mark, report));
    }
}

/// Whether the one branch of the node's union `key` can be merged into the node without losing
/// anything: an object whose every keyword the node lacks or has with the same value
/// (descriptions are joined; the union itself is about to go).
fn agrees_with(tree: &Tree, id: NodeId, branch: NodeId, key: Keyword) -> bool {
    tree.is_object(branch)
        && tree.entries(branch).iter().all(|e| {
            e.key == Keyword::Description
                || e.key == key
                || (tree.entries(id).iter().find(|m| m.key == e.key))
                    .is_none_or(|mine| tree.same_slot(&mine.value, &e.value))
        })
}

/// The one branch of union `key` at node `id`, when it has exactly one and it agrees.
fn lone_branch(tree: &Tree, id: NodeId, key: Keyword) -> Option<NodeId> {
    match tree.get(id, key).map(|e| &e.value) {
        Some(Slot::Schemas(bs)) if bs.len() == 1 && agrees_with(tree, id, bs[0], key) => {
            Some(bs[0])
        }
        _ => None,
    }
}

fn google_nullable(tree: &mut Tree, id: NodeId, mark: bool, report: &mut Report) {
    if !tree.is_object(id) {
        return;
    }
    let origin = tree.node(id).origin;
    let mut nullable = false;
    // What the node accepted was `null` alone (a union of null branches, `type: "null"`).
    let mut only_null = false;
    if let Some(Slot::Schemas(branches)) = tree.get(id, Keyword::AnyOf).map(|e| &e.value) {
        let kept: Vec<NodeId> = (branches.iter().copied())
            .filter(|b| !is_null_branch(&tree.shallow(*b)))
            .collect();
        if kept.len() != branches.len() {
            nullable = true;
            if kept.is_empty() {
                tree.take(id, Keyword::AnyOf);
                only_null = true;
            } else if let Some(Slot::Schemas(branches)) = tree.slot_mut(id, Keyword::AnyOf) {
                *branches = kept;
            }
            // One object branch left is merged into the node; it may itself be a union of one
            // (bounded). A branch that disagrees with the node stays a union of one.
            for _ in 0..9 {
                let Some(branch) = lone_branch(tree, id, Keyword::AnyOf) else {
                    break;
                };
                tree.take(id, Keyword::AnyOf);
                absorb(tree, id, branch, report);
            }
        }
    }
    // `null` alone (`type: "null"`, a list of `null` alone): no Google form keeps it.
    if tree.value(id, Keyword::Type).and_then(Value::as_str) == Some("null") {
        tree.take(id, Keyword::Type);
        nullable = true;
        only_null = true;
        // `enum: [null]` says the same as the nullable flag.
        if (tree.value(id, Keyword::Enum).and_then(Value::as_array))
            .is_some_and(|v| v.iter().all(Value::is_null))
        {
            tree.take(id, Keyword::Enum);
        }
    }
    // A list of types becomes its first non-null name.
    let type_origin = tree.get(id, Keyword::Type).map(|e| e.origin);
    if let Some(Value::Array(types)) = tree.value_mut(id, Keyword::Type) {
        let names: Vec<String> = types
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let non_null: Vec<&String> = names.iter().filter(|t| *t != "null").collect();
        if non_null.len() != names.len() {
            nullable = true;
        }
        match types
            .iter()
            .position(|t| t.as_str().is_some_and(|t| t != "null"))
        {
            Some(first) => {
                let first = std::mem::take(&mut types[first]);
                if non_null.len() > 1 {
                    let detail = format!(
                        "`type: {names:?}`: Google takes one type; `{}` kept",
                        non_null[0]
                    );
                    let at = type_origin.unwrap_or(origin);
                    report.loss(at, Some(id), "type", LossKind::Collapsed, detail);
                }
                tree.set_value(id, Keyword::Type, first);
            }
            None => {
                tree.take(id, Keyword::Type);
                only_null = true;
            }
        }
    }
    // Left with nothing that says what it accepts, the node now accepts any value.
    let widened = only_null && !super::TYPING.iter().any(|k| tree.has(id, *k));
    if widened {
        let detail = "a schema of `null` alone has no Google form: sent without a type, it accepts any value";
        report.loss(origin, Some(id), "type", LossKind::Widened, detail);
    }
    if !nullable {
        return;
    }
    // `null` among other enum values says the same as the flag: the enum keeps the others.
    if let Some(Value::Array(values)) = tree.value_mut(id, Keyword::Enum) {
        if values.iter().any(|v| !v.is_null()) {
            values.retain(|v| !v.is_null());
        }
    }
    if mark {
        tree.set_value(id, Keyword::Nullable, json!(true));
        report.change(origin, Some(id), "null as `nullable: true`");
    } else if !widened {
        let detail = "`null` is no longer accepted here (no `nullable` on this wire)";
        report.loss(origin, Some(id), "type", LossKind::Collapsed, detail);
    }
}

/// Gemini accepts only string enums (Moonshot strings and numbers): an enum with other values
/// (or none) is removed, its values written into the description, and `type` kept. A `not` that
/// holds such an enum is dropped.
#[derive(Clone, Copy, Debug)]
pub struct StringEnumsOnly {
    /// Numbers are accepted too.
    pub numbers: bool,
}

impl StringEnumsOnly {
    /// Gemini: strings only.
    pub const GOOGLE: StringEnumsOnly = StringEnumsOnly { numbers: false };
    /// Moonshot: strings and numbers.
    pub const MOONSHOT: StringEnumsOnly = StringEnumsOnly { numbers: true };
}

impl Rule for StringEnumsOnly {
    fn name(&self) -> &'static str {
        if self.numbers {
            "scalar-enums-only"
        } else {
            "string-enums-only"
        }
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds_any(&[Keyword::Not, Keyword::Enum]) {
            return;
        }
        let numbers = self.numbers;
        let who = if numbers { "Moonshot" } else { "Google" };
        let fits = move |v: &Value| v.is_string() || (numbers && v.is_number());
        let bad_enum = |v: &Value| match v {
            Value::Array(values) => values.is_empty() || values.iter().any(|v| !fits(v)),
            _ => true,
        };
        // A `not` holding a non-string enum or const cannot be rewritten without changing what
        // it excludes (removing the enum would exclude the whole type): it is dropped.
        tree.walk(|tree, id| {
            let Some(Slot::Schema(negated)) = tree.get(id, Keyword::Not).map(|e| &e.value) else {
                return;
            };
            let unrepresentable = subtree(tree, *negated).into_iter().any(|n| {
                (tree.value(n, Keyword::Enum)).is_some_and(|v| v.is_array() && bad_enum(v))
                    || tree.value(n, Keyword::Const).is_some_and(|c| !fits(c))
            });
            if unrepresentable {
                let entry = tree.take(id, Keyword::Not).expect("present");
                let detail = format!(
                    "`not: {}` excludes values {who} cannot express; no longer excluded",
                    json_text(&tree.slot_value(&entry.value))
                );
                report.loss(entry.origin, None, "not", LossKind::Dropped, detail);
            }
        });
        tree.walk_children_first(|tree, id| {
            let Some(entry) = tree.get(id, Keyword::Enum) else {
                return;
            };
            if entry.value.as_value().is_some_and(|v| !bad_enum(v)) {
                return;
            }
            let entry = tree.take(id, Keyword::Enum).expect("present");
            let values = tree.slot_value(&entry.value);
            let text = json_text(&values);
            let said = words::spill(tree, id, &[("enum".to_owned(), values)]);
            let detail = format!(
                "`enum: {text}`: {who} accepts only {} enums{}",
                if numbers {
                    "string and number"
                } else {
                    "string"
                },
                words::said_as(&said)
            );
            report.loss(entry.origin, Some(id), "enum", LossKind::Spilled, detail);
        });
    }
}

/// The nodes of the subtree at `id` (itself first).
fn subtree(tree: &Tree, id: NodeId) -> Vec<NodeId> {
    let mut out = vec![id];
    let mut next = 0;
    while next < out.len() {
        out.extend(tree.children(out[next]));
        next += 1;
    }
    out
}

/// A union of one branch is that branch: after references are inlined, `{"anyOf": [X]}` (or
/// `oneOf`) is merged into its node, where no keyword of the two disagrees (descriptions are
/// joined). Same meaning; a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneBranchUnions;

impl Rule for OneBranchUnions {
    fn name(&self) -> &'static str {
        "one-branch-unions"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds_any(&[Keyword::AnyOf, Keyword::OneOf]) {
            return;
        }
        tree.walk_children_first(|tree, id| {
            // Bounded: each round removes one union from this node.
            for _ in 0..8 {
                let one = |key| match tree.get(id, key).map(|e| &e.value) {
                    Some(Slot::Schemas(bs)) if bs.len() == 1 && tree.is_object(bs[0]) => Some(key),
                    _ => None,
                };
                let Some(key) = one(Keyword::AnyOf).or_else(|| one(Keyword::OneOf)) else {
                    return;
                };
                let Some(branch) = lone_branch(tree, id, key) else {
                    return;
                };
                tree.take(id, key);
                absorb(tree, id, branch, report);
                let detail = format!("`{}` of one branch merged into the node", key.as_str());
                report.change(tree.node(id).origin, Some(id), detail);
            }
        });
    }
}

/// `required` names that are not properties of their node, removed (Google: "property is not
/// defined"). Run after references are inlined, where every node has the properties it will be
/// sent with.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequiredAreProperties;

impl Rule for RequiredAreProperties {
    fn name(&self) -> &'static str {
        "required-are-properties"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Required) {
            return;
        }
        tree.walk(|tree, id| drop_stale_required(tree, id, report));
    }
}

/// Removes the `required` names of node `id` that are not its properties, with one loss.
pub(crate) fn drop_stale_required(tree: &mut Tree, id: NodeId, report: &mut Report) {
    let Some(Value::Array(required)) = tree.value(id, Keyword::Required) else {
        return;
    };
    let members: &[(String, NodeId)] = match tree.get(id, Keyword::Properties).map(|e| &e.value) {
        Some(Slot::Map(members)) => members,
        _ => &[],
    };
    // A long list is looked up in a set of the names (linear), a short one scanned.
    let names: Option<std::collections::HashSet<&str>> =
        (required.len() > 8).then(|| members.iter().map(|(n, _)| n.as_str()).collect());
    let is_property = |r: &Value| {
        r.as_str().is_some_and(|r| match &names {
            Some(names) => names.contains(r),
            None => members.iter().any(|(n, _)| n == r),
        })
    };
    if required.iter().all(is_property) {
        return;
    }
    let kept: Vec<Value> = required
        .iter()
        .filter(|r| is_property(r))
        .cloned()
        .collect();
    let origin = tree.get(id, Keyword::Required).expect("there").origin;
    tree.set_value(id, Keyword::Required, Value::Array(kept));
    let detail =
        "required names that are not properties removed (Google: \"property is not defined\")";
    report.loss(origin, Some(id), "required", LossKind::Dropped, detail);
}
