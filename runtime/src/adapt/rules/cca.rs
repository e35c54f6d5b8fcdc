//! Cloud Code Assist Claude (`parameters` on Google's Claude path), as its validator accepts them: nullable
//! properties made optional, combiners merged or collapsed, then a gate and a meta-schema check
//! whose failure sends the per-tool fallback.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::{Held, Rule, RuleReport, absorb, append_description, is_null_schema, names_null_alone};
use crate::adapt::pointer::Pointer;
use crate::adapt::report::LossKind;
use crate::adapt::visit::{Order, visit};
use crate::keys::Keys;

/// A property that accepts `null` (`nullable: true`, a `null` in its type array, or a bare null
/// branch of its `anyOf`/`oneOf`) becomes optional instead, and the null form is removed: the
/// model leaves it out rather than sending `null`. Runs before anything removes the null forms
/// (the reference loses nullability first and keeps such properties required).
#[derive(Clone, Copy, Debug, Default)]
pub struct NullablePropertiesOptional;

/// Removes what makes the property schema at `at` nullable; `true` if it was. A union's null
/// branches removed, and a union left with one branch merged into the property, are logged as
/// moves, so that what later rules record in the branch is named where it stands in the input.
fn strip_null(v: &mut Value, at: &dyn Fn() -> Pointer, report: &mut RuleReport) -> bool {
    let Value::Object(m) = v else { return false };
    let mut was = false;
    if m.take_key("nullable") == Some(Value::Bool(true)) {
        was = true;
    }
    if let Some(Value::Array(types)) = m.key_mut("type") {
        let before = types.len();
        types.retain(|t| t != "null");
        if types.len() != before {
            was = true;
            if types.len() == 1 {
                // The one name left, moved out of the list in place.
                let t = types.swap_remove(0);
                if let Some(slot) = m.key_mut("type") {
                    *slot = t;
                }
            }
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = m.key_mut(key) else {
            continue;
        };
        let kept: Vec<usize> = (0..branches.len())
            .filter(|&i| !is_null_schema(&branches[i]))
            .collect();
        if kept.len() == branches.len() {
            continue;
        }
        branches.retain(|b| !is_null_schema(b));
        was = true;
        let at = at();
        report.moved(at.clone(), key, kept);
        if branches.len() == 1 {
            let Some(Value::Array(mut one)) = m.shift_remove(key) else {
                unreachable!()
            };
            if let Value::Object(inner) = one.remove(0) {
                let mut taken = Vec::new();
                for (k, val) in inner {
                    if let serde_json::map::Entry::Vacant(e) = m.entry(k) {
                        taken.push(e.key().clone());
                        e.insert(val);
                    }
                }
                report.lifted(&at, at.child(key).index(0), taken, true);
            }
        }
    }
    if let Some(Value::Array(values)) = m.key_mut("enum") {
        let before = values.len();
        values.retain(|x| !x.is_null());
        was |= values.len() != before;
    }
    was
}

impl Rule for NullablePropertiesOptional {
    fn name(&self) -> &'static str {
        "nullable-properties-optional"
    }

    /// The null forms of a property: `nullable`, a list of types, a union, an enum.
    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold_any(&["nullable", "anyOf", "oneOf", "enum"])
            || held.may_hold(crate::adapt::holds::TYPE_LIST)
    }

    fn adds(&self, held: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        // It removes `null` and `nullable`; a one-branch union left is merged into its node; a
        // list of types left with one is that type (`["object", "null"]` → `"object"`).
        if held.may_hold(crate::adapt::holds::TYPE_LIST) {
            add(crate::adapt::holds::TYPE_OBJECT);
        }
        super::moves_and_adds(held, &[], add)
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            let Some(Value::Object(props)) = map.key_mut("properties") else {
                return;
            };
            // The position of `properties`, made once for all of them.
            let props_at = std::cell::OnceCell::new();
            let props_at = || {
                props_at
                    .get_or_init(|| path.pointer().child("properties"))
                    .clone()
            };
            let mut made_optional: Vec<String> = Vec::new();
            for (name, p) in props.iter_mut() {
                let at = || props_at().child(name);
                if strip_null(p, &at, report) {
                    made_optional.push(name.clone());
                }
            }
            if made_optional.is_empty() {
                return;
            }
            if let Some(Value::Array(names)) = map.key_mut("required") {
                // A set for a long list: linear in the names, not in their product.
                if made_optional.len() <= 8 {
                    names.retain(|r| {
                        !r.as_str()
                            .is_some_and(|r| made_optional.iter().any(|m| m == r))
                    });
                } else {
                    let made: HashSet<&str> = made_optional.iter().map(String::as_str).collect();
                    names.retain(|r| !r.as_str().is_some_and(|r| made.contains(r)));
                }
            }
            for name in &made_optional {
                report.change(props_at().child(name), "a nullable property made optional: the model leaves it out instead of sending null");
            }
        });
    }
}

/// `names`, then each of `more` it does not list yet (in order, once): a set keeps it linear in
/// the names.
fn with_each_once(mut names: Vec<String>, more: Vec<String>) -> Vec<String> {
    let mut listed: HashSet<String> = names.iter().cloned().collect();
    push_unlisted(&mut names, &mut listed, more);
    names
}

/// Appends each of `more` that `listed` (the names `names` holds) does not hold yet, in order,
/// and lists it.
fn push_unlisted(names: &mut Vec<String>, listed: &mut HashSet<String>, more: Vec<String>) {
    for name in more {
        if listed.insert(name.clone()) {
            names.push(name);
        }
    }
}

/// Object-shaped: `type: "object"`, or no type with `properties`/`required`.
pub(crate) fn object_shaped(v: &Value) -> bool {
    v.as_object().is_some_and(|m| match m.key("type") {
        Some(Value::String(t)) => t == "object",
        None => m.has("properties") || m.has("required"),
        _ => false,
    })
}

/// The keywords of `b` that uniting its enum into `a`'s ([`merge_property`]) does not keep:
/// every one but `enum` and `description` that `a` does not hold with the same value.
fn lost_in_enum_union<'b>(a: &Value, b: &'b Value) -> Vec<&'b str> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return Vec::new();
    };
    b.iter()
        .filter(|(k, v)| !matches!(k.as_str(), "enum" | "description") && a.key(k) != Some(*v))
        .map(|(k, _)| k.as_str())
        .collect()
}

/// Whether [`merge_property`] unites the enums of `a` and `b` (same `type`, both enums).
fn unites_enums(a: &Value, b: &Value) -> bool {
    a != b
        && a.key("enum").is_some_and(Value::is_array)
        && b.key("enum").is_some_and(Value::is_array)
        && a.key("type") == b.key("type")
}

/// One property schema from two (the reference's `mergePropertySchemas`): equal → one; both
/// enums of one type ([`unites_enums`]) → `a` with the union of values and `b`'s description
/// too; otherwise an `anyOf` of both. What else of `b` a union of enums drops is
/// [`lost_in_enum_union`], which the callers report.
///
/// `strings` holds the string values of `a`'s enum, made at the first union and kept by the
/// caller for the next one of the same property (a value looked for among all the others at
/// each of many unions was quadratic).
fn merge_property(a: Value, b: Value, strings: &mut Option<super::HeldStrings>) -> Value {
    if a == b {
        return a;
    }
    if !unites_enums(&a, &b) {
        return super::one_key("anyOf", Value::Array(vec![a, b]));
    }
    let (Value::Object(mut out), Value::Object(b)) = (a, b) else {
        unreachable!("both hold an enum")
    };
    // In its place among the keys.
    if let (Some(Value::Array(values)), Some(Value::Array(more))) =
        (out.key_mut("enum"), b.key("enum"))
    {
        let held = strings.get_or_insert_with(|| super::HeldStrings::of(values));
        for x in more {
            held.push(values, x.clone());
        }
    }
    // The other branch's description (where earlier rules spilled its constraints) stays on the
    // united enum, unless it says nothing new.
    if let Some(Value::String(d)) = b.key("description") {
        let known = out
            .key("description")
            .and_then(Value::as_str)
            .is_some_and(|mine| mine.contains(d.as_str()));
        if !d.is_empty() && !known {
            append_description(&mut out, d, "\n\n");
        }
    }
    Value::Object(out)
}

/// Merges, collapses or removes the combiners of Cloud Code Assist, bottom-up in one pass: when
/// a node is reached its branches are already collapsed, so no subtree is walked twice (the
/// reference's fixpoint re-walks and is exponential in nesting depth).
///
/// - `allOf` of objects: merged (properties united, `required` united); a change.
/// - `anyOf`/`oneOf` of objects: merged into one object, `required` the intersection; values
///   mixing branches become valid (`collapsed`).
/// - same-type branches: one branch (enums united); the others' keywords are lost (`collapsed`).
/// - mixed types: the first non-null branch's type (the structured one, ordered first); the
///   other types are no longer accepted (`collapsed`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CollapseCombiners;

/// [`CollapseCombiners`]' work at one node. `at` gives the node's position as text, asked for
/// only when the node is rewritten: a node whose branches stay (an untyped branch, for the gate
/// to refuse) costs no text, so that a walk of nested unions is not quadratic in their depth.
fn collapse(map: &mut Map<String, Value>, at: &dyn Fn() -> Pointer, report: &mut RuleReport) {
    // Bounded: each round removes one combiner keyword from this node.
    for _ in 0..8 {
        if let Some(Value::Array(all)) = map.key("allOf") {
            if all.iter().all(object_shaped) {
                let Some(Value::Array(all)) = map.take_key("allOf") else {
                    unreachable!()
                };
                let at = at();
                merge_objects(map, all, true, &at.child("allOf"), &at, report);
                continue;
            }
            return;
        }
        let key = if map.key("anyOf").is_some_and(Value::is_array) {
            "anyOf"
        } else if map.key("oneOf").is_some_and(Value::is_array) {
            "oneOf"
        } else {
            return;
        };
        let Some(Value::Array(branches)) = map.key(key) else {
            unreachable!()
        };
        if branches.is_empty() {
            return;
        }
        if branches.iter().all(object_shaped) {
            let Some(Value::Array(branches)) = map.shift_remove(key) else {
                unreachable!()
            };
            let at = at();
            let n = branches.len();
            // A union of one means its branch: every keyword of it is kept, as for `allOf`.
            merge_objects(map, branches, n == 1, &at.child(key), &at, report);
            if n > 1 {
                report.loss(at.child(key), key, LossKind::Collapsed, format!("{n} object branches merged into one object: a value mixing their fields is now accepted, and only properties required by every branch stay required"));
            }
            continue;
        }
        let types: Vec<Option<String>> = branches
            .iter()
            .map(|b| b.key("type").and_then(Value::as_str).map(str::to_owned))
            .collect();
        if types.iter().any(Option::is_none) {
            return; // an untyped branch: cannot collapse; the gate decides
        }
        let types: Vec<String> = types.into_iter().flatten().collect();
        let Some(Value::Array(branches)) = map.shift_remove(key) else {
            unreachable!()
        };
        let at = &at();
        let mut notes = Vec::new();
        // The branch the node's new keywords come from (the first, for enums united).
        let mut from = 0;
        let chosen = if types.iter().all(|t| *t == types[0]) {
            // Same type: enums united, or the broadest (first non-enum) branch.
            if branches.iter().all(|b| b.key("enum").is_some()) {
                // United into the first branch's keywords: what another branch said besides
                // its values and description is lost.
                let lost: Vec<(usize, Vec<&str>)> = branches
                    .iter()
                    .enumerate()
                    .skip(1)
                    .map(|(i, b)| (i, lost_in_enum_union(&branches[0], b)))
                    .filter(|(_, lost)| !lost.is_empty())
                    .collect();
                if !lost.is_empty() {
                    let what: Vec<String> = lost
                        .iter()
                        .map(|(i, keys)| format!("branch {i}'s `{}`", keys.join("`, `")))
                        .collect();
                    report.loss(at.child(key), key, LossKind::Collapsed, format!("{} `{}` enum branches united into one enum, every value kept; lost with the union: {}", branches.len(), types[0], what.join(", ")));
                }
                // One set of the enum's strings for every union of the fold.
                let mut strings = None;
                branches
                    .into_iter()
                    .reduce(|a, b| merge_property(a, b, &mut strings))
                    .map(|v| match v {
                        Value::Object(m) if !m.has("anyOf") => Value::Object(m),
                        other => other,
                    })
            } else {
                let pick = branches
                    .iter()
                    .position(|b| b.key("enum").is_none())
                    .unwrap_or(0);
                if branches.len() > 1 {
                    report.loss(at.child(key), key, LossKind::Collapsed, format!("{} `{}` branches collapsed into branch {pick}; the others' constraints are lost", branches.len(), types[0]));
                }
                notes = dropped_descriptions(&branches, &types, pick, true);
                from = pick;
                branches.into_iter().nth(pick)
            }
        } else {
            let pick = types.iter().position(|t| t != "null").unwrap_or(0);
            let dropped: Vec<&String> = types
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != pick)
                .map(|(_, t)| t)
                .collect();
            report.loss(
                at.child(key),
                key,
                LossKind::Collapsed,
                format!(
                    "mixed types collapsed to `{}`; values of type {} are no longer accepted",
                    types[pick],
                    dropped
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            notes = dropped_descriptions(&branches, &types, pick, false);
            from = pick;
            branches.into_iter().nth(pick)
        };
        if let Some(Value::Object(chosen)) = chosen {
            absorb(map, chosen, at, &at.child(key).index(from), true, report);
        }
        for (i, note) in notes {
            append_description(map, &note, "\n\n");
            // What was spilled in the dropped branch is in the node's description now.
            report.folded(at, at.child(key).index(i));
        }
    }
}

/// Notes for the descriptions of the branches a collapse drops (where earlier rules spilled those
/// branches' constraints) stay readable on the node, marked as no longer accepted, so that what a
/// report says is "in the description" is. Each note with the index of its branch.
pub(crate) fn dropped_descriptions(
    branches: &[Value],
    types: &[String],
    pick: usize,
    same_type: bool,
) -> Vec<(usize, String)> {
    let mut notes = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        if i == pick {
            continue;
        }
        // Every description in the dropped subtree: spilled constraints sit where they applied.
        let mut texts: Vec<&str> = Vec::new();
        let mut stack = vec![branch];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(d)) = m.key("description") {
                        if !d.is_empty() {
                            texts.push(d);
                        }
                    }
                    stack.extend(m.values().rev());
                }
                Value::Array(a) => stack.extend(a.iter().rev()),
                _ => {}
            }
        }
        if !texts.is_empty() {
            // "(another `T` form, no longer enforced: a; b)" or "(values of type `T`, no longer
            // accepted here: a; b)", written without the formatter.
            let (before, after) = if same_type {
                ("(another `", "` form, no longer enforced: ")
            } else {
                ("(values of type `", "`, no longer accepted here: ")
            };
            let texts_len: usize = texts.iter().map(|t| t.len() + 2).sum();
            let mut note =
                String::with_capacity(before.len() + types[i].len() + after.len() + texts_len);
            for part in [before, &types[i], after] {
                note.push_str(part);
            }
            for (k, text) in texts.iter().enumerate() {
                if k > 0 {
                    note.push_str("; ");
                }
                note.push_str(text);
            }
            note.push(')');
            notes.push((i, note));
        }
    }
    notes
}

/// Merges object branches into `map`: properties united (a name in several branches gets
/// `merge_property`), `required` united (`allOf`) or intersected (`anyOf`/`oneOf`).
pub(crate) fn merge_objects(
    map: &mut Map<String, Value>,
    branches: Vec<Value>,
    all_of: bool,
    branches_at: &Pointer,
    at: &Pointer,
    report: &mut RuleReport,
) {
    let mut props: Map<String, Value> = match map.take_key("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let parent_required: Vec<String> = strings(map.key("required"));
    let mut required: Option<Vec<String>> = None;
    // Under `allOf`: the names `required` lists.
    let mut listed: HashSet<String> = HashSet::new();
    // The branches that define each property: a property several define differently becomes
    // a union, which only exists in the output; what its collapse loses is named in each.
    let mut defined_by: HashMap<String, Vec<usize>> = HashMap::new();
    // A property defined again goes after the others, where its last definition stands: each
    // one's last definition (branch, place in it) is noted and the map put in that order once,
    // at the end (moving an entry at each definition shifts every entry after it: quadratic).
    let mut last_defined: HashMap<String, (usize, usize)> = HashMap::new();
    // Per property, the string values of its enum as united so far (see `merge_property`).
    let mut enum_strings: HashMap<String, Option<super::HeldStrings>> = HashMap::new();
    let mut defined_again = false;
    for (i, b) in branches.into_iter().enumerate() {
        let Value::Object(mut b) = b else { continue };
        if let Some(Value::Object(bp)) = b.take_key("properties") {
            for (place, (name, schema)) in bp.into_iter().enumerate() {
                defined_by.entry(name.clone()).or_default().push(i);
                last_defined.insert(name.clone(), (i, place));
                // Taken out of its slot, merged, and put back in it.
                let merged = match props.get_mut(&name).map(std::mem::take) {
                    Some(existing) => {
                        if unites_enums(&existing, &schema) {
                            let lost = lost_in_enum_union(&existing, &schema);
                            if !lost.is_empty() {
                                let keyword = branches_at.last_token().unwrap_or("allOf");
                                report.loss(
                                    branches_at.index(i).child("properties").child(&name),
                                    keyword,
                                    LossKind::Collapsed,
                                    format!("property `{name}` is also defined by an earlier branch, as an enum of the same type: the values were united, and this definition's `{}` no longer applies", lost.join("`, `")),
                                );
                            }
                        }
                        let united = existing == schema || unites_enums(&existing, &schema);
                        if !united {
                            // Both become branches of a union at the property: what is recorded
                            // in either is named there (the collapse of that union may fold a
                            // branch's descriptions into the property's).
                            let property = at.child("properties").child(&name);
                            let union = property.child("anyOf");
                            report.lifted(
                                union.index(0),
                                &property,
                                super::map_keys(Some(&existing)),
                                true,
                            );
                            report.lifted(
                                union.index(1),
                                branches_at.index(i).child("properties").child(&name),
                                super::map_keys(Some(&schema)),
                                true,
                            );
                        }
                        let strings = enum_strings.entry(name.clone()).or_default();
                        merge_property(existing, schema, strings)
                    }
                    None => schema,
                };
                match props.get_mut(&name) {
                    Some(slot) => {
                        *slot = merged;
                        defined_again = true;
                    }
                    None => {
                        props.insert(name, merged);
                    }
                }
            }
        }
        let br = strings(b.key("required"));
        required = Some(match required {
            None => {
                if all_of {
                    listed = br.iter().cloned().collect();
                }
                br
            }
            Some(mut acc) if all_of => {
                // The set of names listed is kept from branch to branch (made again for each,
                // an `allOf` of many branches was quadratic).
                push_unlisted(&mut acc, &mut listed, br);
                acc
            }
            Some(acc) => {
                let in_branch: HashSet<&str> = br.iter().map(String::as_str).collect();
                acc.into_iter()
                    .filter(|r| in_branch.contains(r.as_str()))
                    .collect()
            }
        });
        if all_of {
            let mut b = b;
            b.take_key("required");
            b.take_key("type");
            absorb(map, b, at, &branches_at.index(i), true, report);
        } else {
            if let Some(d) = b.key("description") {
                // Alternatives merged: each branch's description is kept (what a rule spilled
                // into it included), joined after the node's own.
                if let Some(joined) = super::joined_description(map.key("description"), Some(d)) {
                    map.insert("description".into(), joined);
                }
            }
            // The branch is gone: what was recorded in it is at the node (its properties among
            // the node's).
            report.lifted(at, branches_at.index(i), Vec::new(), true);
        }
    }
    if defined_again {
        // The node's own properties no branch defines first, in their order (a stable sort),
        // then the others in the order of their last definitions.
        let mut entries: Vec<(String, Value)> = std::mem::take(&mut props).into_iter().collect();
        entries.sort_by_key(|(name, _)| last_defined.get(name).map(|&(i, place)| (i, place)));
        props = entries.into_iter().collect();
    }
    // A merged property that became a union is collapsed in turn (its branches already are).
    let names: Vec<String> = props.keys().cloned().collect();
    for name in names {
        if let Some(Value::Object(p)) = props.get_mut(&name) {
            if p.has("anyOf") {
                let before = report.losses.len();
                collapse(p, &|| at.child("properties").child(&name), report);
                let sources = defined_by.get(&name).map_or(&[][..], Vec::as_slice);
                if report.losses.len() > before && sources.len() > 1 {
                    let keyword = branches_at.last_token().unwrap_or("allOf");
                    for i in sources {
                        report.loss(
                            branches_at.index(*i).child("properties").child(&name),
                            keyword,
                            LossKind::Collapsed,
                            format!("property `{name}` is defined by {} branches with different schemas; they were merged into one and what the others accepted or constrained is lost", sources.len()),
                        );
                    }
                }
            }
        }
    }
    let mut req = with_each_once(parent_required, required.unwrap_or_default());
    let keys: HashSet<&String> = props.keys().collect();
    req.retain(|r| keys.contains(r));
    map.insert("type".into(), json!("object"));
    map.insert("properties".into(), Value::Object(props));
    if req.is_empty() {
        map.take_key("required");
    } else {
        map.insert(
            "required".into(),
            Value::Array(req.into_iter().map(Value::String).collect()),
        );
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

impl Rule for CollapseCombiners {
    fn name(&self) -> &'static str {
        "collapse-combiners"
    }

    fn wanted(&self, held: &Held<'_>) -> bool {
        held.may_hold("anyOf") || held.may_hold("oneOf") || held.may_hold("allOf")
    }

    fn adds(&self, _: &Held<'_>, add: &mut dyn FnMut(&str)) -> bool {
        // What merged objects get (`merge_objects`), enums united, the union a property defined
        // twice becomes, and the notes of dropped branches in the description.
        super::adds_these(
            &[
                "type",
                "properties",
                "required",
                "description",
                "enum",
                "anyOf",
                // A node whose combinator is merged into it may be left untyped.
                crate::adapt::holds::UNTYPED,
            ],
            add,
        )
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        visit(schema, Order::Post, &mut |node, path| {
            let Value::Object(map) = node else { return };
            if ["anyOf", "oneOf", "allOf"].iter().any(|k| map.has(k)) {
                collapse(map, &|| path.pointer(), report);
            }
        });
    }
}

/// Seed 4.5: after normalization no type array, `type: "null"`, `nullable`, `anyOf`/`oneOf`/
/// `allOf` or `not` may remain; any of them makes the tool fall back.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResidualGate;

impl Rule for ResidualGate {
    fn name(&self) -> &'static str {
        "residual-gate"
    }

    /// A check: it reads the document and records at most a failure.
    fn reads_only(&self) -> bool {
        true
    }

    /// Only where something it refuses may remain: a type list (which a type array alone and
    /// a `["null"]` are), a `type: "null"`, or one of its keywords.
    fn wanted(&self, held: &Held<'_>) -> bool {
        use crate::adapt::holds::{TYPE_LIST, TYPE_NULL};
        held.may_hold_any(&[
            TYPE_LIST, TYPE_NULL, "nullable", "anyOf", "oneOf", "allOf", "not",
        ])
    }

    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        let walk = crate::walk::Walk::new(schema);
        for (i, (node, _)) in walk.nodes.iter().enumerate() {
            let Some(m) = node.as_object() else { continue };
            let residual = if m.key("type").is_some_and(Value::is_array) {
                Some("a type array".to_owned())
            } else if names_null_alone(m) {
                Some("`type: \"null\"`".to_owned())
            } else {
                ["nullable", "anyOf", "oneOf", "allOf", "not"]
                    .iter()
                    .find(|k| m.has(k))
                    .map(|k| format!("`{k}`"))
            };
            if let Some(what) = residual {
                report.fail(
                    crate::walk::pointer(&walk.steps(i)),
                    format!("{what} remains after normalization; Cloud Code Assist rejects it"),
                );
                return;
            }
        }
    }
}

/// The result must be a valid JSON Schema 2020-12 document (the `jsonschema` crate's bundled
/// meta-schema; nothing is fetched). Feature `validate`; without it the rule checks nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct MetaValidate;

impl Rule for MetaValidate {
    fn name(&self) -> &'static str {
        "meta-validate"
    }

    /// A check: it reads the document and records at most a failure.
    fn reads_only(&self) -> bool {
        true
    }

    #[cfg(feature = "validate")]
    fn apply(&mut self, schema: &mut Value, report: &mut RuleReport) {
        // The yes-or-no answer first (it builds no error); the first error only for a schema
        // that fails.
        // A document without `$schema` (remove-schema-uri runs before) is checked against
        // 2020-12's meta-schema read as one document (`meta.rs`), which accepts exactly what the
        // published meta-schema accepts.
        let valid = if schema.get("$schema").is_some() {
            jsonschema::meta::is_valid(schema)
        } else {
            super::meta::is_valid(schema)
        };
        if valid {
            return;
        }
        if let Err(e) = jsonschema::meta::validate(schema) {
            report.fail(
                e.instance_path().to_string(),
                format!("not a valid JSON Schema 2020-12 document: {e}"),
            );
        }
    }

    /// Without the `validate` feature there is no meta-schema to check against: the residual
    /// gate alone decides the fallback.
    #[cfg(not(feature = "validate"))]
    fn apply(&mut self, _schema: &mut Value, _report: &mut RuleReport) {}
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn nullable_properties_become_optional() {
        let (v, r) = run(
            &mut NullablePropertiesOptional,
            json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "object", "properties": {"x": {}}}, {"type": "null"}]},
            "c": {"type": "string", "nullable": true},
            "d": {"type": "string", "enum": ["x", null]},
            "e": {"type": "string"}
        }, "required": ["a", "b", "c", "d", "e"]}),
        );
        assert_eq!(v["required"], json!(["e"]));
        assert_eq!(v["properties"]["a"], json!({"type": "string"}));
        assert_eq!(
            v["properties"]["b"],
            json!({"type": "object", "properties": {"x": {}}})
        );
        assert_eq!(v["properties"]["c"], json!({"type": "string"}));
        assert_eq!(v["properties"]["d"]["enum"], json!(["x"]));
        assert_eq!(r.changes.len(), 4);
    }

    /// Past a few nullable properties the names made optional are found in a set: the other
    /// names stay, in their order, duplicates and names of no property included, and `required`
    /// keeps its place among the keys.
    #[test]
    fn many_nullable_properties_leave_the_other_names_in_order() {
        let mut props = serde_json::Map::new();
        for i in 0..20 {
            let ty = if i % 2 == 0 {
                json!(["string", "null"])
            } else {
                json!("string")
            };
            props.insert(format!("p{i}"), json!({ "type": ty }));
        }
        let names: Vec<String> = (0..20).rev().map(|i| format!("p{i}")).collect();
        let mut required: Vec<Value> = names.iter().map(|n| json!(n)).collect();
        required.extend([json!("p3"), json!("gone"), json!("p4")]);
        let (v, r) = run(
            &mut NullablePropertiesOptional,
            json!({"required": required, "type": "object", "properties": props}),
        );
        let odd: Vec<Value> = (0..20)
            .rev()
            .filter(|i| i % 2 == 1)
            .map(|i| json!(format!("p{i}")))
            .collect();
        let mut expected = odd;
        expected.extend([json!("p3"), json!("gone")]);
        assert_eq!(v["required"], Value::Array(expected));
        assert_eq!(
            v.as_object().unwrap().keys().next().map(String::as_str),
            Some("required")
        );
        assert_eq!(r.changes.len(), 10);
        assert_eq!(r.changes[0].pointer, "/properties/p0");
        // Not a list: left as it is.
        let (v, _) = run(
            &mut NullablePropertiesOptional,
            json!({"type": "object", "required": "p0", "properties": {"p0": {"type": ["string", "null"]}}}),
        );
        assert_eq!(v["required"], json!("p0"));
    }

    /// The descriptions of the branches a collapse drops stay on the node, each note naming
    /// the branch's type, and whether values of it are still accepted.
    #[test]
    fn dropped_branches_leave_their_descriptions_marked() {
        let (v, _) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {
                "same": {"anyOf": [
                    {"type": "string", "description": "kept"},
                    {"type": "string", "description": "an email", "properties": {"x": {"description": "deep"}}}
                ]},
                "other": {"anyOf": [
                    {"type": "string"},
                    {"type": "integer", "description": "a count"},
                    {"type": "boolean"}
                ]}
            }}),
        );
        assert_eq!(
            v["properties"]["same"]["description"],
            "kept\n\n(another `string` form, no longer enforced: an email; deep)"
        );
        assert_eq!(
            v["properties"]["other"]["description"],
            "(values of type `integer`, no longer accepted here: a count)"
        );
    }

    #[test]
    fn combiners_merge_and_collapse() {
        let (v, r) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {
                "objects": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"type": "string", "enum": ["a"]}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
                    {"type": "object", "properties": {"kind": {"type": "string", "enum": ["b"]}, "y": {"type": "string"}}, "required": ["kind"]}
                ]},
                "mixed": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
                "same": {"anyOf": [{"type": "string", "enum": ["A", "B"]}, {"type": "string", "enum": ["C"]}]},
                "all": {"allOf": [{"type": "object", "properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}}, "required": ["b"]}]}
            }}),
        );
        let p = &v["properties"];
        assert_eq!(
            p["objects"]["properties"]["kind"],
            json!({"type": "string", "enum": ["a", "b"]})
        );
        assert_eq!(p["objects"]["required"], json!(["kind"]));
        assert_eq!(
            p["mixed"],
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(
            p["same"],
            json!({"type": "string", "enum": ["A", "B", "C"]})
        );
        assert_eq!(p["all"]["required"], json!(["a", "b"]));
        assert!(
            r.losses
                .iter()
                .filter(|l| l.kind == LossKind::Collapsed)
                .count()
                >= 2
        );
    }

    /// A property defined again goes where its last definition stands; the node's own that no
    /// branch defines keep their order, first.
    #[test]
    fn merged_properties_follow_their_last_definition() {
        let s = |d: &str| json!({"type": "string", "description": d});
        let (v, _) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {"p": {
                "type": "object",
                "properties": {"a": s("a"), "b": s("b"), "c": s("c")},
                "allOf": [
                    {"type": "object", "properties": {"b": s("b"), "d": s("d")}},
                    {"type": "object", "properties": {"a": s("a"), "e": s("e"), "d": s("d")}}
                ]
            }}}),
        );
        let names: Vec<&str> = v["properties"]["p"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(names, ["c", "b", "a", "e", "d"]);
    }

    /// `allOf` unites the names required (each once, in the order first listed, the node's
    /// own first); `anyOf` keeps those every branch requires.
    #[test]
    fn required_names_are_united_or_intersected() {
        let o = |req: &[&str]| {
            let props: serde_json::Map<String, Value> = req
                .iter()
                .map(|n| (n.to_string(), json!({"type": "string"})))
                .collect();
            json!({"type": "object", "properties": props, "required": req})
        };
        let (v, _) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {"p": {
                "type": "object", "required": ["z", "c"], "properties": {"z": {"type": "string"}},
                "allOf": [o(&["a", "b", "a"]), o(&["b", "c"]), o(&["c", "d", "a"])]
            }, "q": {"anyOf": [o(&["a", "b", "c", "b"]), o(&["c", "b", "x"]), o(&["b", "c"])]}}}),
        );
        assert_eq!(
            v["properties"]["p"]["required"],
            json!(["z", "c", "a", "b", "d"])
        );
        assert_eq!(v["properties"]["q"]["required"], json!(["b", "c"]));
    }

    /// Many enum branches of one type become one enum: each value once, in the order first
    /// seen; and a property many object branches define as enums, likewise.
    #[test]
    fn many_enums_are_united_in_order() {
        let branches: Vec<Value> = (0..20)
            .map(|i| json!({"type": "string", "enum": [format!("v{}", i % 7), format!("w{i}")]}))
            .collect();
        let (v, _) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {"p": {"anyOf": branches}}}),
        );
        let mut expected: Vec<String> = Vec::new();
        for i in 0..20 {
            for x in [format!("v{}", i % 7), format!("w{i}")] {
                if !expected.contains(&x) {
                    expected.push(x);
                }
            }
        }
        assert_eq!(v["properties"]["p"]["enum"], json!(expected));
        let objects: Vec<Value> = (0..20)
            .map(|i| json!({"type": "object", "properties": {"k": {"type": "string", "enum": [format!("v{}", i % 7)]}}}))
            .collect();
        let (v, _) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {"q": {"oneOf": objects}}}),
        );
        let values: Vec<String> = (0..7).map(|i| format!("v{i}")).collect();
        assert_eq!(
            v["properties"]["q"]["properties"]["k"]["enum"],
            json!(values)
        );
    }

    #[test]
    fn a_union_of_one_object_keeps_every_keyword_of_its_branch() {
        let (v, r) = run(
            &mut CollapseCombiners,
            json!({"type": "object", "properties": {"p": {"anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                 "default": {"a": "x"}, "description": "the branch"}
            ]}}}),
        );
        assert_eq!(
            v["properties"]["p"],
            json!({"default": {"a": "x"}, "description": "the branch", "type": "object",
                   "properties": {"a": {"type": "string"}}, "required": ["a"]})
        );
        assert!(r.losses.is_empty(), "{:?}", r.losses);
    }

    /// The residual gate is wanted wherever it refuses: on each residue it names, and on every
    /// engine test document (most of which it never sees in Cloud Code Assist's list, where the
    /// rules before it leave no residue).
    #[test]
    fn the_residual_gate_is_wanted_wherever_it_refuses() {
        let mut docs = crate::adapt::holds::tests::documents();
        let residues = [
            json!({"type": ["string", "null"]}),
            json!({"type": ["null"]}),
            json!({"type": "null"}),
            json!({"type": "string", "nullable": true}),
            json!({"anyOf": [{"type": "string"}]}),
            json!({"oneOf": [{"type": "string"}]}),
            json!({"allOf": [{"type": "string"}]}),
            json!({"type": "string", "not": {"enum": ["x"]}}),
        ];
        for residue in &residues {
            docs.push(json!({"type": "object", "properties": {"p": residue}}));
        }
        let mut refused = 0;
        for doc in docs {
            let mut report = RuleReport::default();
            ResidualGate.apply(&mut doc.clone(), &mut report);
            if report.failure.is_some() {
                let held = crate::adapt::holds::Holds::of(&doc).held();
                assert!(ResidualGate.wanted(&held), "{doc}");
                refused += 1;
            }
        }
        assert!(refused > residues.len() + 100, "{refused}");
    }

    #[test]
    fn deep_nesting_is_one_pass() {
        // 30 levels of `anyOf [object, string]`: one pass (the reference's fixpoint re-walks each
        // level per ancestor; this would not finish if we did).
        let mut node = json!({"type": "string"});
        for _ in 0..30 {
            node = json!({"anyOf": [{"type": "object", "properties": {"x": node}}, {"type": "string"}]});
        }
        let mut v = json!({"type": "object", "properties": {"root": node}});
        let mut r = RuleReport::default();
        CollapseCombiners.apply(&mut v, &mut r);
        ResidualGate.apply(&mut v, &mut r);
        assert!(r.failure.is_none(), "{:?}", r.failure);
        assert_eq!(r.losses.len(), 30);
    }

    #[test]
    fn gate_and_meta_schema() {
        assert!(
            run(
                &mut ResidualGate,
                json!({"type": "object", "properties": {"a": {"type": "null"}}})
            )
            .1
            .failure
            .is_some()
        );
        assert!(
            run(
                &mut ResidualGate,
                json!({"type": "object", "properties": {"a": {"not": {}}}})
            )
            .1
            .failure
            .is_some()
        );
        assert!(
            run(
                &mut ResidualGate,
                json!({"type": "object", "properties": {"not": {"type": "string"}}})
            )
            .1
            .failure
            .is_none()
        );
        assert!(
            run(
                &mut MetaValidate,
                json!({"type": "object", "properties": {"a": {"type": "strnig"}}})
            )
            .1
            .failure
            .is_some()
        );
        assert!(
            run(
                &mut MetaValidate,
                json!({"type": "object", "properties": {"a": {"enum": "x"}}})
            )
            .1
            .failure
            .is_some()
        );
        assert!(
            run(
                &mut MetaValidate,
                json!({"type": "object", "properties": {"a": {"type": "string"}}})
            )
            .1
            .failure
            .is_none()
        );
    }
}
