//! Encodings ([`crate::adapt::AdaptSettings::with_encoding`]): a shape the target cannot hold
//! sent in one it can, and decoded back by [`crate::restore`] before the arguments are validated
//! against the original schema, so that every constraint the encoded form no longer carries is
//! still checked.
//!
//! - [`EncodeMaps`]: an open map (`additionalProperties` a schema, or `true`) becomes a list of
//!   `{"key", "value"}` objects, or the JSON text of an object when its values may be anything.
//!   An object that also declares properties keeps them and gets one added property for the
//!   others, named so that it is none of the declared ones: a pair's key then never stands beside
//!   a declared property of the same name, and the decoder refuses a pair that names one.
//! - [`EncodeAny`]: a property, item or definition that accepts any JSON value (`true`, `{}`)
//!   becomes a string holding JSON text.
//! - [`UnrollRecursion`]: recursion unrolled two levels, the rest sent as JSON text (Anthropic
//!   strict tool use takes no recursion).

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::words::said_as;
use super::{InlineRefs, append_description, json_text};
use crate::adapt::report::{Encoding, LossKind};
use crate::adapt::tree::{
    Body, Entry, Key, Keyword, NodeId, Origin, Report, Rule, Slot, Tree, WalkStep,
};

/// What the words say of a JSON-text place.
const ANY_VALUE: &str = "Any JSON value, written as JSON text.";
const AN_OBJECT: &str = "A JSON object, written as JSON text.";
const PAIRS: &str = "A map, written as a list of {\"key\", \"value\"} objects (each key once).";
const EXTRA_PAIRS: &str = "Properties beyond the declared ones, as a list of {\"key\", \"value\"} objects (each key once, none of the declared names).";
const EXTRA_TEXT: &str = "Properties beyond the declared ones, as the JSON text of an object (none of the declared names).";

/// Keywords a node keeps when it is encoded (annotations, read by the model).
const KEPT: &[Keyword] = &[Keyword::Description, Keyword::Title];

/// Open maps as key/value pairs or JSON text. `any: false` encodes only maps whose values have a
/// schema (for targets that take `additionalProperties: true` but drop a value schema).
#[derive(Clone, Copy, Debug)]
pub struct EncodeMaps {
    /// Also encode a map whose values may be anything (`additionalProperties: true` or `{}`), as
    /// JSON text.
    pub any: bool,
}

impl Rule for EncodeMaps {
    fn name(&self) -> &'static str {
        if self.any {
            "encode-maps"
        } else {
            "encode-typed-maps"
        }
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::AdditionalProperties) && !self.any {
            return;
        }
        let list = tree.breadth_first();
        let valued = value_places(tree, &list);
        let maps: Vec<(NodeId, Map)> = (list.iter().zip(&valued))
            .filter(|(_, valued)| **valued)
            .filter_map(|(r, _)| Map::of(tree, r.id, r.id == tree.root).map(|m| (r.id, m)))
            .filter(|(_, m)| self.any || m.values.is_some())
            .collect();
        if maps.is_empty() {
            return;
        }
        let (texts, arrays) = (blocked(tree, "string"), blocked(tree, "array"));
        let shared = shared_members(tree);
        for (id, map) in maps {
            if shared.contains(&id) {
                continue;
            }
            // A whole node encoded beside a union member of the same JSON type would have two
            // readings: left as it is (a strict target then fails open, reported).
            let whole = map.declared.is_empty() && !map.root;
            let kind_blocked = match map.values {
                Some(_) => arrays.contains(&id),
                None => texts.contains(&id),
            };
            if whole && kind_blocked {
                continue;
            }
            map.encode(tree, id, report);
        }
    }
}

/// An object node that is an open map, as [`EncodeMaps`] reads it.
struct Map {
    /// The values' schema; `None`: any value.
    values: Option<NodeId>,
    /// The node declares properties of its own.
    declared: Vec<String>,
    /// `type` lists `null` beside `object`.
    nullable: bool,
    /// The root, which stays an object: its map goes under an added property.
    root: bool,
}

impl Map {
    fn of(tree: &Tree, id: NodeId, root: bool) -> Option<Map> {
        let Body::Object(_) = tree.node(id).body else {
            return None;
        };
        let nullable = match tree.value(id, Keyword::Type)? {
            Value::String(t) if t == "object" => false,
            Value::Array(ts) => {
                let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                match names.as_slice() {
                    ["object"] => false,
                    ["object", "null"] | ["null", "object"] => true,
                    _ => return None,
                }
            }
            _ => return None,
        };
        // `patternProperties`, a combinator or a `$ref` beside the map: other forms decide what
        // the object is; not encoded.
        const BESIDE: &[Keyword] = &[
            Keyword::PatternProperties,
            Keyword::AnyOf,
            Keyword::OneOf,
            Keyword::AllOf,
            Keyword::Ref,
            Keyword::Enum,
            Keyword::Const,
            Keyword::Not,
            Keyword::If,
            Keyword::UnevaluatedProperties,
            Keyword::DependentSchemas,
        ];
        if BESIDE.iter().any(|k| tree.has(id, *k)) {
            return None;
        }
        let properties = tree.get(id, Keyword::Properties).map(|e| &e.value);
        let declared: Vec<String> = match properties {
            Some(Slot::Map(members)) => members.iter().map(|(n, _)| n.clone()).collect(),
            None => Vec::new(),
            Some(_) => return None,
        };
        let values = match tree
            .get(id, Keyword::AdditionalProperties)
            .map(|e| &e.value)
        {
            Some(Slot::Schema(v)) => match &tree.node(*v).body {
                Body::Bool(true) => None,
                Body::Bool(false) => return None,
                Body::Object(entries) if entries.iter().all(|e| is_annotation(&e.key)) => None,
                Body::Object(_) => Some(*v),
                Body::NotSchema(_) => return None,
            },
            // `{"type": "object"}` and nothing else: any object (not the root, which says
            // that of a tool without parameters; not `"properties": {}`, an empty struct's
            // form).
            None if properties.is_none() && !root => None,
            _ => return None,
        };
        Some(Map {
            values,
            declared,
            nullable,
            root,
        })
    }

    fn encode(self, tree: &mut Tree, id: NodeId, report: &mut Report) {
        let origin = tree.node(id).origin;
        // What the loss of the map's checks names: its `additionalProperties`, else the node.
        let keyword = (tree.get(id, Keyword::AdditionalProperties)).map_or(origin, |e| e.origin);
        if self.declared.is_empty() && !self.root {
            // The whole node is the map.
            let (kind, form, words) = match self.values {
                Some(_) => ("array", Encoding::Pairs, PAIRS),
                None => ("string", Encoding::JsonText, AN_OBJECT),
            };
            let pairs = self.values.map(|v| pairs_item(tree, id, v, report));
            strip_for_encoding(tree, id, self.values.is_some(), report);
            set_type(tree, id, kind, self.nullable);
            if let Some(item) = pairs {
                set_schema(tree, id, Keyword::Items, item, origin);
            }
            append_description(tree, id, words, "\n\n");
            let detail = format!("an open map {}", form.words());
            no_longer_enforced(report, keyword, id, &form);
            report.encoded(origin, id, form, detail);
            return;
        }
        // Declared properties stay; the others go under one added property.
        let name = extra_name(&self.declared);
        let added = tree.add(origin, Body::Object(Vec::new()));
        let (form, words) = match self.values {
            Some(values) => {
                let item = pairs_item(tree, id, values, report);
                set_type(tree, added, "array", false);
                set_schema(tree, added, Keyword::Items, item, origin);
                (
                    Encoding::ExtraPairs {
                        property: name.clone(),
                    },
                    EXTRA_PAIRS,
                )
            }
            None => {
                set_type(tree, added, "string", false);
                (
                    Encoding::ExtraJsonText {
                        property: name.clone(),
                    },
                    EXTRA_TEXT,
                )
            }
        };
        tree.set_value(added, Keyword::Description, Value::String(words.to_owned()));
        // The values' schema went into the pairs (already taken); any value's annotations
        // have no place in the text.
        if let Some(ap) = tree.take(id, Keyword::AdditionalProperties) {
            any_value_annotations_lost(tree, &ap, report);
        }
        for key in [Keyword::MinProperties, Keyword::MaxProperties] {
            if let Some(e) = tree.take(id, key) {
                let detail = format!(
                    "`{}: {}` counts the declared and the added properties together, which no schema can say; checked when the arguments are restored",
                    key.as_str(),
                    tree.slot_value(&e.value)
                );
                report.loss(e.origin, Some(id), key.as_str(), LossKind::Dropped, detail);
            }
        }
        match tree.slot_mut(id, Keyword::Properties) {
            Some(Slot::Map(members)) => members.push((name.clone(), added)),
            _ => set_map(tree, id, Keyword::Properties, vec![(name.clone(), added)]),
        }
        let detail = format!(
            "the properties beyond the declared ones {} under the added property `{name}`",
            form.words()
        );
        no_longer_enforced(report, keyword, added, &form);
        report.encoded(origin, added, form, detail);
    }
}

/// What the provider no longer checks of an encoded map (a `widened` loss): a key listed twice
/// among the pairs, or text that is not a JSON object. `restore` refuses both.
fn no_longer_enforced(report: &mut Report, origin: Origin, at: NodeId, form: &Encoding) {
    let detail = match form {
        Encoding::Pairs | Encoding::ExtraPairs { .. } => {
            "the provider does not stop a key being listed twice among the pairs; restore refuses a repeated key"
        }
        _ => {
            "the provider checks only that the text is a string, not that it holds a JSON object of the map's form; restore parses and checks it"
        }
    };
    report.loss(
        origin,
        Some(at),
        "additionalProperties",
        LossKind::Widened,
        detail,
    );
}

/// The annotations of an any-value `additionalProperties` schema (`{"title": "T"}`), each a
/// `dropped` loss: the map is JSON text, with no schema for its values to carry them.
fn any_value_annotations_lost(tree: &Tree, entry: &Entry, report: &mut Report) {
    let Slot::Schema(values) = entry.value else {
        return;
    };
    for e in tree.entries(values) {
        let value = tree.slot_value(&e.value);
        let detail = format!(
            "`{}: {}` of the map's values has no place once the map is JSON text",
            e.key.as_str(),
            json_text(&value)
        );
        report.loss(
            e.origin,
            None,
            e.key.as_str().to_owned(),
            LossKind::Dropped,
            detail,
        );
    }
}

/// Whether a key is an annotation that leaves a schema accepting any value.
fn is_annotation(key: &Key) -> bool {
    matches!(
        key,
        Key::Kw(
            Keyword::Description
                | Keyword::Title
                | Keyword::Default
                | Keyword::Examples
                | Keyword::Comment
                | Keyword::Deprecated
                | Keyword::ReadOnly
                | Keyword::WriteOnly
        )
    )
}

/// The added property's name: `additional_properties`, or with `_2`, `_3`, ... when an object
/// declares that name.
fn extra_name(declared: &[String]) -> String {
    let base = "additional_properties";
    let mut name = base.to_owned();
    let mut n = 2;
    while declared.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// `type` set to `kind` (with `null` when the map was nullable).
fn set_type(tree: &mut Tree, id: NodeId, kind: &str, nullable: bool) {
    let value = if nullable {
        json!([kind, "null"])
    } else {
        json!(kind)
    };
    tree.set_value(id, Keyword::Type, value);
}

fn set_schema(tree: &mut Tree, id: NodeId, key: Keyword, child: NodeId, origin: Origin) {
    tree.set(
        id,
        Entry {
            key: Key::Kw(key),
            value: Slot::Schema(child),
            origin,
        },
    );
}

fn set_map(tree: &mut Tree, id: NodeId, key: Keyword, members: Vec<(String, NodeId)>) {
    let origin = tree.node(id).origin;
    tree.set(
        id,
        Entry {
            key: Key::Kw(key),
            value: Slot::Map(members),
            origin,
        },
    );
}

/// The pair object `{"key": K, "value": V}`, both required: `K` a string with what
/// `propertyNames` said of the map's names, `V` the values' schema (moved, not copied).
fn pairs_item(tree: &mut Tree, map: NodeId, values: NodeId, report: &mut Report) -> NodeId {
    let origin = tree.node(map).origin;
    let key = match tree.take(map, Keyword::PropertyNames) {
        Some(Entry {
            value: Slot::Schema(names),
            ..
        }) if tree.is_object(names) => {
            if !tree.has(names, Keyword::Type) {
                tree.set_value(names, Keyword::Type, json!("string"));
            }
            let detail = "`propertyNames` now describes each pair's `key`";
            report.change(tree.node(names).origin, Some(names), detail);
            names
        }
        Some(other) => {
            let detail = format!(
                "`propertyNames: {}` has no place in the pairs' key schema; checked when the arguments are restored",
                tree.slot_value(&other.value)
            );
            report.loss(
                other.origin,
                Some(map),
                "propertyNames",
                LossKind::Dropped,
                detail,
            );
            let k = tree.add(origin, Body::Object(Vec::new()));
            tree.set_value(k, Keyword::Type, json!("string"));
            k
        }
        None => {
            let k = tree.add(origin, Body::Object(Vec::new()));
            tree.set_value(k, Keyword::Type, json!("string"));
            k
        }
    };
    tree.take(map, Keyword::AdditionalProperties);
    let item = tree.add(origin, Body::Object(Vec::new()));
    tree.set_value(item, Keyword::Type, json!("object"));
    set_map(
        tree,
        item,
        Keyword::Properties,
        vec![("key".to_owned(), key), ("value".to_owned(), values)],
    );
    tree.set_value(item, Keyword::Required, json!(["key", "value"]));
    // Not closed here: a strict target closes every object itself, and the decoder refuses a
    // pair with another member.
    item
}

/// Takes from a map node what an array (`pairs`) or a string cannot say: `minProperties` and
/// `maxProperties` become `minItems` and `maxItems` of the pairs (a change); `default`,
/// `examples` and every other keyword that is not an annotation are spilled or dropped, each a
/// loss (restore still checks them against the original schema).
fn strip_for_encoding(tree: &mut Tree, id: NodeId, pairs: bool, report: &mut Report) {
    let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
    let mut spilled = Vec::new();
    for entry in entries {
        match entry.key {
            Key::Kw(Keyword::Type) => tree.entries_mut(id).expect("an object").push(entry),
            // Any value (what the JSON text says; the widened loss names it).
            Key::Kw(Keyword::AdditionalProperties) => {
                any_value_annotations_lost(tree, &entry, report)
            }
            Key::Kw(k) if KEPT.contains(&k) => tree.entries_mut(id).expect("an object").push(entry),
            Key::Kw(Keyword::Properties | Keyword::Required)
                if tree
                    .slot_value(&entry.value)
                    .as_object()
                    .is_some_and(|m| m.is_empty())
                    || tree
                        .slot_value(&entry.value)
                        .as_array()
                        .is_some_and(|a| a.is_empty()) => {}
            Key::Kw(k @ (Keyword::MinProperties | Keyword::MaxProperties)) if pairs => {
                let to = if k == Keyword::MinProperties {
                    Keyword::MinItems
                } else {
                    Keyword::MaxItems
                };
                let detail = format!(
                    "`{}` counts the pairs as `{}` (each key once)",
                    k.as_str(),
                    to.as_str()
                );
                report.change(entry.origin, Some(id), detail);
                tree.entries_mut(id).expect("an object").push(Entry {
                    key: Key::Kw(to),
                    ..entry
                });
            }
            Key::Kw(
                k @ (Keyword::Default
                | Keyword::Examples
                | Keyword::MinProperties
                | Keyword::MaxProperties),
            ) => {
                let value = tree.slot_value(&entry.value);
                spilled.push((k.as_str().to_owned(), value, entry.origin));
            }
            key => {
                let value = tree.slot_value(&entry.value);
                let detail = format!(
                    "`{}: {}` has no place in the encoded form; checked when the arguments are restored",
                    key.as_str(),
                    json_text(&value)
                );
                report.loss(
                    entry.origin,
                    Some(id),
                    key.as_str().to_owned(),
                    LossKind::Dropped,
                    detail,
                );
            }
        }
    }
    for (key, value, origin) in spilled {
        let sentence = super::words::spill(tree, id, &[(key.clone(), value)]);
        let detail = format!(
            "the encoded form cannot hold it; checked when the arguments are restored{}",
            said_as(&sentence)
        );
        report.loss(origin, Some(id), key, LossKind::Spilled, detail);
    }
}

/// A property, item, tuple member or definition that accepts any JSON value (`true`, `{}`, or
/// annotations only) becomes a string holding JSON text.
#[derive(Clone, Copy, Debug, Default)]
pub struct EncodeAny;

impl Rule for EncodeAny {
    fn name(&self) -> &'static str {
        "encode-any"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let list = tree.breadth_first();
        let valued = value_places(tree, &list);
        let open: Vec<NodeId> = (list.iter().zip(&valued))
            .filter(|(_, valued)| **valued)
            .map(|(r, _)| r)
            .filter(|r| {
                matches!(
                    r.step,
                    Some(
                        WalkStep::Name("properties" | "$defs", _)
                            | WalkStep::Keyword("items")
                            | WalkStep::Index("prefixItems", _)
                    )
                )
            })
            .map(|r| r.id)
            .filter(|&id| match &tree.node(id).body {
                Body::Bool(b) => *b,
                Body::Object(entries) => entries.iter().all(|e| is_annotation(&e.key)),
                Body::NotSchema(_) => false,
            })
            .collect();
        if open.is_empty() {
            return;
        }
        let texts = blocked(tree, "string");
        let shared = shared_members(tree);
        let open: Vec<NodeId> = (open.into_iter())
            .filter(|id| !texts.contains(id) && !shared.contains(id))
            .collect();
        for id in open {
            let origin = tree.node(id).origin;
            if let Body::Bool(_) = tree.node(id).body {
                tree.node_mut(id).body = Body::Object(Vec::new());
            }
            // Annotations that are values (a default, examples) would be of the wrong type.
            for key in [Keyword::Default, Keyword::Examples] {
                if let Some(e) = tree.take(id, key) {
                    let value = tree.slot_value(&e.value);
                    let sentence =
                        super::words::spill(tree, id, &[(key.as_str().to_owned(), value)]);
                    let detail = format!("the encoded form cannot hold it{}", said_as(&sentence));
                    report.loss(e.origin, Some(id), key.as_str(), LossKind::Spilled, detail);
                }
            }
            tree.set_value(id, Keyword::Type, json!("string"));
            append_description(tree, id, ANY_VALUE, "\n\n");
            report.encoded(
                origin,
                id,
                Encoding::JsonText,
                "a place that accepts any JSON value encoded as JSON text",
            );
        }
    }
}

/// Recursion past what the target takes (Anthropic strict: none): every reference inlined
/// ([`InlineRefs`]), recursion unrolled two levels, and the place where it would go on sent as
/// JSON text. Without recursion, nothing changes (references the target takes stay).
#[derive(Clone, Copy, Debug, Default)]
pub struct UnrollRecursion;

impl Rule for UnrollRecursion {
    fn name(&self) -> &'static str {
        "unroll-recursion"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::Ref) || !super::recursion::has_cycle(tree) {
            return;
        }
        // A reference beside a union member that takes a string: its JSON text would have two
        // readings; left recursive (strict fails open, reported).
        let texts = blocked(tree, "string");
        if texts.iter().any(|id| tree.has(*id, Keyword::Ref)) {
            return;
        }
        let shared = shared_members(tree);
        if shared.iter().any(|id| tree.has(*id, Keyword::Ref)) {
            return;
        }
        // Nor one where the arguments' value is not the node's own (under `allOf`, `not`, ...).
        let list = tree.breadth_first();
        let valued = value_places(tree, &list);
        let elsewhere =
            (list.iter().zip(&valued)).any(|(r, valued)| !valued && tree.has(r.id, Keyword::Ref));
        if elsewhere {
            return;
        }
        InlineRefs {
            unroll: 2,
            cut_as_text: true,
        }
        .apply(tree, report);
    }
}

/// Per node of a breadth-first list, whether it describes a value the arguments hold, as itself:
/// reached from the root through properties, items, tuple members, map values, definitions and
/// `anyOf`/`oneOf` members only. Under `allOf` (every member holds), `not`, `if`/`then`/`else`,
/// `contains`, `propertyNames` or a dependent schema, an encoded form would change what the
/// node means there: not encoded. A definition is the arguments' own value only where every
/// reference to it is: one an `allOf` member refers to is not, nor is anything inside it.
fn value_places(tree: &Tree, list: &[crate::adapt::tree::Reached<'_>]) -> Vec<bool> {
    let mut out: Vec<bool> = Vec::with_capacity(list.len());
    for r in list {
        let step_ok = match r.step {
            None => true,
            Some(WalkStep::Name(kw, _)) => matches!(kw, "properties" | "$defs" | "definitions"),
            Some(WalkStep::Keyword(kw)) => matches!(kw, "items" | "additionalProperties"),
            Some(WalkStep::Index(kw, _)) => matches!(kw, "anyOf" | "oneOf" | "prefixItems"),
        };
        let parent = out.get(r.parent).copied().unwrap_or(true);
        out.push(step_ok && parent);
    }
    // Through references: what a non-value place refers to is not a value place either (each
    // node is marked once, so this stays linear).
    let index: HashMap<NodeId, usize> = (list.iter().enumerate()).map(|(i, r)| (r.id, i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); list.len()];
    for (i, r) in list.iter().enumerate() {
        if let Some(c) = children.get_mut(r.parent) {
            c.push(i);
        }
    }
    let mut stack: Vec<usize> = (0..list.len()).filter(|i| !out[*i]).collect();
    while let Some(i) = stack.pop() {
        let target = (tree.value(list[i].id, Keyword::Ref).and_then(Value::as_str))
            .and_then(|r| tree.resolve(r))
            .and_then(|t| index.get(&t).copied());
        for j in children[i].iter().copied().chain(target) {
            if out[j] {
                out[j] = false;
                stack.push(j);
            }
        }
    }
    out
}

/// The nodes that may not be encoded as a value of JSON type `kind` (`"string"`, `"array"`): a
/// member of a union or of a tuple (which strict modes flatten into a union), or the definition
/// such a member refers to, beside another member that takes values of that type (or says no
/// type). Encoded, a value of that type would have two readings.
fn blocked(tree: &Tree, kind: &str) -> HashSet<NodeId> {
    let mut out = HashSet::new();
    for (members, targets) in member_lists(tree) {
        for (i, target) in targets.iter().enumerate() {
            let beside = (targets.iter().enumerate())
                .any(|(j, other)| j != i && takes(tree, *other, kind, 0));
            if beside {
                out.insert(members[i]);
                out.insert(*target);
            }
        }
    }
    out
}

/// Every union's and tuple's members (items past a tuple join them: strict modes flatten a
/// tuple into a union), each with the node its references end at.
fn member_lists(tree: &Tree) -> Vec<(Vec<NodeId>, Vec<NodeId>)> {
    let mut out = Vec::new();
    for r in tree.breadth_first() {
        for key in [Keyword::AnyOf, Keyword::OneOf, Keyword::PrefixItems] {
            let Some(Slot::Schemas(members)) = tree.get(r.id, key).map(|e| &e.value) else {
                continue;
            };
            let mut members = members.clone();
            if key == Keyword::PrefixItems
                && let Some(Slot::Schema(rest)) = tree.get(r.id, Keyword::Items).map(|e| &e.value)
            {
                members.push(*rest);
            }
            let targets = members.iter().map(|m| resolved(tree, *m)).collect();
            out.push((members, targets));
        }
    }
    out
}

/// Every node inside a union or tuple member that shares a JSON type with another member (both
/// arrays, both objects, or one untyped): a value there may go through either member, so an
/// encoded place inside one of them would have two readings. Nothing inside is encoded.
fn shared_members(tree: &Tree) -> HashSet<NodeId> {
    let mut roots = Vec::new();
    for (_, targets) in member_lists(tree) {
        for (i, target) in targets.iter().enumerate() {
            let kinds = kinds_of(tree, *target);
            let shared = (targets.iter().enumerate())
                .any(|(j, other)| j != i && kinds.iter().any(|k| takes(tree, *other, k, 0)));
            if shared {
                roots.push(*target);
            }
        }
    }
    // Their subtrees, through references too (each node once: recursion ends).
    let mut out = HashSet::new();
    while let Some(id) = roots.pop() {
        if !out.insert(id) {
            continue;
        }
        roots.extend(tree.children(id));
        if let Some(r) = tree.value(id, Keyword::Ref).and_then(Value::as_str)
            && let Some(target) = tree.resolve(r)
        {
            roots.push(target);
        }
    }
    out
}

/// The JSON types a node takes, as far as its keywords say (untyped: every one).
fn kinds_of(tree: &Tree, id: NodeId) -> Vec<&'static str> {
    const ALL: [&str; 7] = [
        "object", "array", "string", "number", "integer", "boolean", "null",
    ];
    if let Body::Bool(_) = tree.node(id).body {
        return ALL.to_vec();
    }
    match tree.value(id, Keyword::Type) {
        Some(Value::String(t)) => ALL.iter().copied().filter(|k| k == t).collect(),
        Some(Value::Array(ts)) => ALL
            .iter()
            .copied()
            .filter(|k| ts.iter().any(|t| t == k))
            .collect(),
        _ if tree.has(id, Keyword::Properties) => vec!["object"],
        _ if tree.has(id, Keyword::Items) || tree.has(id, Keyword::PrefixItems) => vec!["array"],
        _ => ALL.to_vec(),
    }
}

/// The node a chain of local `$ref`s ends at (the node itself without one).
fn resolved(tree: &Tree, mut id: NodeId) -> NodeId {
    for _ in 0..16 {
        match tree.value(id, Keyword::Ref).and_then(Value::as_str) {
            Some(r) => match tree.resolve(r) {
                Some(target) => id = target,
                None => break,
            },
            None => break,
        }
    }
    id
}

/// Whether node `id` takes values of JSON type `kind`: by its `type`, by a union member's, or,
/// saying no type, yes.
fn takes(tree: &Tree, id: NodeId, kind: &str, depth: usize) -> bool {
    let body = &tree.node(id).body;
    if let Body::Bool(b) = body {
        return *b;
    }
    let of_kind = |v: &Value| super::value_type(v) == kind;
    match tree.value(id, Keyword::Type) {
        Some(Value::String(t)) => t == kind || (kind == "number" && t == "integer"),
        Some(Value::Array(ts)) => ts.iter().any(|t| t == kind),
        // A constant or a choice takes values of its own types.
        _ if tree.has(id, Keyword::Const) => tree.value(id, Keyword::Const).is_some_and(of_kind),
        _ if tree.has(id, Keyword::Enum) => match tree.value(id, Keyword::Enum) {
            Some(Value::Array(values)) => values.iter().any(of_kind),
            _ => true,
        },
        _ => {
            let members: Vec<NodeId> = [Keyword::AnyOf, Keyword::OneOf]
                .iter()
                .filter_map(|k| match tree.get(id, *k).map(|e| &e.value) {
                    Some(Slot::Schemas(ms)) => Some(ms.clone()),
                    _ => None,
                })
                .flatten()
                .collect();
            if members.is_empty() || depth > 8 {
                return true;
            }
            (members.iter()).any(|m| takes(tree, resolved(tree, *m), kind, depth + 1))
        }
    }
}

/// At a cut ([`InlineRefs::cut_as_text`]): node `id`, which referred to `reference`, becomes a
/// string of JSON text (its description kept), an encoded place.
pub(crate) fn cut_as_text(tree: &mut Tree, id: NodeId, reference: &str, report: &mut Report) {
    let origin = tree.node(id).origin;
    let entries = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
    for entry in entries {
        if matches!(entry.key, Key::Kw(k) if KEPT.contains(&k)) {
            tree.entries_mut(id).expect("an object").push(entry);
            continue;
        }
        let value = tree.slot_value(&entry.value);
        let detail = format!(
            "`{}: {}` beside a recursive reference has no place in its JSON text; checked when the arguments are restored",
            entry.key.as_str(),
            json_text(&value)
        );
        report.loss(
            entry.origin,
            Some(id),
            entry.key.as_str().to_owned(),
            LossKind::Dropped,
            detail,
        );
    }
    tree.set_value(id, Keyword::Type, json!("string"));
    let words = format!("A value of `{reference}` (recursive), written as JSON text.");
    append_description(tree, id, &words, "\n\n");
    let detail = format!("recursion through `{reference}` past two levels encoded as JSON text");
    let lost = format!(
        "values of `{reference}` below two levels are JSON text the provider does not check; restore checks them against the original schema"
    );
    report.loss(origin, Some(id), "$ref", LossKind::Widened, lost);
    report.encoded(origin, id, Encoding::JsonText, detail);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapt::rules::run;

    #[test]
    fn a_typed_map_becomes_pairs() {
        let input = json!({"type": "object", "properties": {"labels": {
            "type": "object", "description": "Labels.", "minProperties": 1,
            "propertyNames": {"pattern": "^[a-z]+$"},
            "additionalProperties": {"type": "integer"}}}});
        let (out, losses, changes, _) = run(&mut EncodeMaps { any: true }, input);
        assert_eq!(
            out["properties"]["labels"],
            json!({"type": "array", "description": format!("Labels.\n\n{PAIRS}"), "minItems": 1,
                "items": {"type": "object", "properties": {
                    "key": {"pattern": "^[a-z]+$", "type": "string"},
                    "value": {"type": "integer"}},
                    "required": ["key", "value"]}})
        );
        assert_eq!(losses.len(), 1, "{losses:?}");
        assert_eq!(losses[0].kind, LossKind::Widened);
        assert_eq!(changes.len(), 2, "{changes:?}");
    }

    #[test]
    fn an_any_map_becomes_json_text_and_declared_properties_stay() {
        let input = json!({"type": "object", "properties": {
            "filter": {"type": "object", "additionalProperties": true},
            "meta": {"type": "object", "properties": {"additional_properties": {"type": "string"}},
                "additionalProperties": {"type": "string"}}}});
        let (out, _, _, _) = run(&mut EncodeMaps { any: true }, input.clone());
        assert_eq!(
            out["properties"]["filter"],
            json!({"type": "string", "description": AN_OBJECT})
        );
        let meta = &out["properties"]["meta"];
        assert_eq!(meta.get("additionalProperties"), None);
        assert_eq!(
            meta["properties"]["additional_properties_2"]["items"]["properties"]["value"],
            json!({"type": "string"})
        );
        // Typed-only: the any-map stays.
        let (out, _, _, _) = run(&mut EncodeMaps { any: false }, input);
        assert_eq!(
            out["properties"]["filter"]["additionalProperties"],
            json!(true)
        );
    }

    #[test]
    fn any_value_becomes_json_text() {
        let input = json!({"type": "object", "properties": {"v": {}, "w": true,
            "x": {"description": "Anything.", "default": 3}}});
        let (out, losses, _, _) = run(&mut EncodeAny, input);
        assert_eq!(
            out["properties"]["v"],
            json!({"type": "string", "description": ANY_VALUE})
        );
        assert_eq!(out["properties"]["w"]["type"], "string");
        assert_eq!(
            out["properties"]["x"]["description"],
            format!("Anything.\n\nDefaults to 3.\n\n{ANY_VALUE}")
        );
        assert_eq!(losses.len(), 1);
    }
}
