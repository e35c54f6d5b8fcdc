//! What llama.cpp's converter from JSON Schema to a GBNF grammar reads
//! (`common/json-schema-to-grammar.cpp`, `common_schema_converter::visit`, read at commit
//! 011c6c3c305634c65886cf7f32805907f667590c; the grammar parser's limits in
//! `src/llama-grammar.cpp` at 04332939dd7adc7edbff9dbb4e25efdfae1c7668).
//!
//! The converter takes one reading per node, the first that applies, in this order: `$ref`;
//! `oneOf`/`anyOf`; a type list (one copy of the node per type); `const`; `enum`; an object with
//! `properties` or a non-`true` `additionalProperties` (`properties`, `required`,
//! `additionalProperties`); `allOf` (only its members' `properties`, `required` and `enum`); an
//! array with `items` or `prefixItems` (`minItems`/`maxItems` beside a single `items`); a string
//! `pattern`; `format` `uuid`, `date`, `time`, `date-time`; `minLength`/`maxLength` under
//! `type: "string"`; integer bounds under `type: "integer"`; then the bare type. Every other
//! keyword of the node is skipped without a word, so the rules here move what a node says beside
//! a union into its branches, and spill (or drop) the rest, each with a loss.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::keywords::Strip;
use super::{HUMAN_READABLE, keep_none};
use crate::adapt::report::LossKind;
use crate::adapt::tree::{Body, Entry, Key, Keyword, NodeId, Report, Rule, Slot, Tree};

/// The grammar parser's `MAX_REPETITION_THRESHOLD`: a bounded repetition `{m,n}` of `n` (times
/// the rules repeated) at 2000 or more is refused ("number of rules that are going to be
/// repeated ... exceeds sane defaults"), a minimum above it too, and a maximum above it is
/// silently unbounded.
pub const LLAMA_CPP_REPETITIONS: u64 = 2000;

/// `minItems`/`maxItems` become `item ("," space item){m-1,n-1}`: the repeated group can count
/// as up to three rules (the group and the names first seen in it), so an item count is kept only
/// below a third of the threshold.
pub const LLAMA_CPP_ITEMS: u64 = LLAMA_CPP_REPETITIONS / 3;

/// Keywords that assert something of a value (the rest annotate, or hold definitions).
pub(super) const ASSERTIONS: &[Keyword] = &[
    Keyword::Ref,
    Keyword::DynamicRef,
    Keyword::Type,
    Keyword::Enum,
    Keyword::Const,
    Keyword::Properties,
    Keyword::PatternProperties,
    Keyword::AdditionalProperties,
    Keyword::PropertyNames,
    Keyword::UnevaluatedProperties,
    Keyword::Required,
    Keyword::Items,
    Keyword::PrefixItems,
    Keyword::AdditionalItems,
    Keyword::UnevaluatedItems,
    Keyword::Contains,
    Keyword::MinContains,
    Keyword::MaxContains,
    Keyword::AllOf,
    Keyword::AnyOf,
    Keyword::OneOf,
    Keyword::Not,
    Keyword::If,
    Keyword::Then,
    Keyword::Else,
    Keyword::DependentSchemas,
    Keyword::DependentRequired,
    Keyword::Dependencies,
    Keyword::Format,
    Keyword::Pattern,
    Keyword::MinLength,
    Keyword::MaxLength,
    Keyword::Minimum,
    Keyword::Maximum,
    Keyword::ExclusiveMinimum,
    Keyword::ExclusiveMaximum,
    Keyword::MultipleOf,
    Keyword::MinItems,
    Keyword::MaxItems,
    Keyword::UniqueItems,
    Keyword::MinProperties,
    Keyword::MaxProperties,
    Keyword::Nullable,
];

/// Every JSON type, for a node that accepts any value.
const EVERY_TYPE: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// What llama.cpp's converter reads at node `id` (read with `ty` as its type when given: one
/// member of a type list), among its assertion keywords.
fn reads(tree: &Tree, id: NodeId, ty: Option<&str>) -> HashSet<Keyword> {
    let has = |k: Keyword| tree.has(id, k);
    let own_type = tree.value(id, Keyword::Type);
    let ty: Option<&str> = match ty {
        Some(t) => Some(t),
        None => own_type.and_then(Value::as_str),
    };
    let mut read: HashSet<Keyword> = HashSet::new();
    if has(Keyword::Ref) {
        read.insert(Keyword::Ref);
        return read;
    }
    for k in [Keyword::OneOf, Keyword::AnyOf] {
        if let Some(Slot::Schemas(branches)) = tree.get(id, k).map(|e| &e.value) {
            read.insert(k);
            // A type every branch states too holds without being read here.
            let implied = own_type.is_some_and(|t| {
                let outer = type_names(t);
                (branches.iter()).all(|b| {
                    effective(tree, *b, 8)
                        .is_some_and(|e| e.iter().all(|n| outer.contains(&n.as_str())))
                })
            });
            if implied {
                read.insert(Keyword::Type);
            }
            return read;
        }
    }
    if ty.is_none() && matches!(own_type, Some(Value::Array(_))) {
        let types: Vec<String> = (own_type.and_then(Value::as_array).into_iter().flatten())
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        read.insert(Keyword::Type);
        for t in &types {
            read.extend(reads(tree, id, Some(t)));
        }
        return read;
    }
    read.insert(Keyword::Type);
    for k in [Keyword::Const, Keyword::Enum] {
        if has(k) {
            // The type beside the values is what the values say (kept as a statement).
            return [k, Keyword::Type].into();
        }
    }
    let is = |t: &str| ty.is_none_or(|ty| ty == t);
    let open_true = matches!(
        tree.get(id, Keyword::AdditionalProperties).map(|e| &e.value),
        Some(Slot::Schema(n)) if matches!(tree.node(*n).body, Body::Bool(true))
    );
    if is("object")
        && (has(Keyword::Properties) || (has(Keyword::AdditionalProperties) && !open_true))
    {
        read.extend([
            Keyword::Properties,
            Keyword::Required,
            Keyword::AdditionalProperties,
        ]);
        return read;
    }
    // `allOf` is read only in part (members' properties, required and enum): never counted.
    if is("array") && (has(Keyword::Items) || has(Keyword::PrefixItems)) {
        let items_schema = matches!(
            tree.get(id, Keyword::Items).map(|e| &e.value),
            Some(Slot::Schema(n)) if tree.is_object(*n)
        );
        if items_schema {
            read.insert(Keyword::Items);
            for k in [Keyword::MinItems, Keyword::MaxItems] {
                if count(tree, id, k).is_some_and(|n| n < LLAMA_CPP_ITEMS) {
                    read.insert(k);
                }
            }
        } else if !has(Keyword::Items) {
            read.insert(Keyword::PrefixItems);
        }
        return read;
    }
    if is("string") && has(Keyword::Pattern) {
        read.insert(Keyword::Pattern);
        return read;
    }
    let format = tree.value(id, Keyword::Format).and_then(Value::as_str);
    if is("string")
        && format.is_some_and(|f| {
            matches!(f, "date" | "time" | "date-time")
                || f.strip_prefix("uuid").is_some_and(|v| {
                    v.is_empty()
                        || (v.len() == 1 && ('1'..='5').contains(&v.chars().next().unwrap_or('x')))
                })
        })
    {
        read.insert(Keyword::Format);
        return read;
    }
    if ty == Some("string") && (has(Keyword::MinLength) || has(Keyword::MaxLength)) {
        for k in [Keyword::MinLength, Keyword::MaxLength] {
            if count(tree, id, k).is_some_and(|n| n < LLAMA_CPP_REPETITIONS) {
                read.insert(k);
            }
        }
        return read;
    }
    if ty == Some("integer") {
        let integer = |k: Keyword| (tree.value(id, k)).is_some_and(|v| v.as_i64().is_some());
        if integer(Keyword::Minimum) {
            read.insert(Keyword::Minimum);
        } else if integer(Keyword::ExclusiveMinimum) {
            read.insert(Keyword::ExclusiveMinimum);
        }
        if integer(Keyword::Maximum) {
            read.insert(Keyword::Maximum);
        } else if integer(Keyword::ExclusiveMaximum) {
            read.insert(Keyword::ExclusiveMaximum);
        }
    }
    read
}

/// A non-negative integer keyword's value.
pub(super) fn count(tree: &Tree, id: NodeId, k: Keyword) -> Option<u64> {
    let v = tree.value(id, k)?;
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    })
}

/// Whether `key` is over the grammar's repetition limit at node `id` (the reason it is not read,
/// rather than the converter skipping it).
fn over_limit(tree: &Tree, id: NodeId, key: &Key) -> bool {
    match key {
        Key::Kw(k @ (Keyword::MinLength | Keyword::MaxLength)) => {
            count(tree, id, *k).is_some_and(|n| n >= LLAMA_CPP_REPETITIONS)
        }
        Key::Kw(k @ (Keyword::MinItems | Keyword::MaxItems)) => {
            count(tree, id, *k).is_some_and(|n| n >= LLAMA_CPP_ITEMS)
        }
        _ => false,
    }
}

/// Keywords beside an `anyOf` (which llama.cpp reads alone) moved into each branch, where they
/// hold the same (`A and (B or C)` is `(A and B) or (A and C)`); a keyword a branch already has
/// with another value stays, and is then spilled by [`LlamaCppReads`]. A change per node.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiblingsIntoBranches;

impl Rule for SiblingsIntoBranches {
    fn name(&self) -> &'static str {
        "siblings-into-branches"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        if !tree.holds(Keyword::AnyOf) {
            return;
        }
        let root = tree.root;
        // Copies made, in nodes, at most as many as the input has: nested unions with siblings
        // would otherwise double the schema at every level. Past it, a sibling that holds
        // subschemas stays, and is spilled.
        let mut budget = tree.nodes.len();
        let mut sizes: HashMap<NodeId, usize> = HashMap::new();
        tree.walk(|tree, id| {
            let Some(Slot::Schemas(branches)) = tree.get(id, Keyword::AnyOf).map(|e| &e.value)
            else {
                return;
            };
            let branches = branches.clone();
            if branches.iter().any(|b| !tree.is_object(*b)) {
                return;
            }
            let siblings: Vec<Keyword> = (tree.entries(id).iter())
                .filter_map(|e| match e.key {
                    Key::Kw(k) if k != Keyword::AnyOf && ASSERTIONS.contains(&k) => Some(k),
                    _ => None,
                })
                .collect();
            let mut moved = Vec::new();
            // The node's `type` narrows each branch's (both hold). A branch it excludes
            // entirely can match nothing: at the root (whose `type: "object"` stays) it goes,
            // a loss; elsewhere the `type` stays beside the union, to be spilled.
            if let Some(t) = tree.value(id, Keyword::Type).cloned() {
                if narrow(tree, id, &t, id == root, report, 8) {
                    if id != root {
                        tree.take(id, Keyword::Type);
                    }
                    moved.push("type");
                }
            }
            let branches = (tree.get(id, Keyword::AnyOf).map(|e| &e.value))
                .and_then(|v| match v {
                    Slot::Schemas(list) => Some(list.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            // No branch left (the root's union could match nothing): the keywords stay.
            let siblings = if branches.is_empty() { Vec::new() } else { siblings };
            for k in siblings.into_iter().filter(|k| *k != Keyword::Type) {
                let Some(entry) = tree.get(id, k).cloned() else {
                    continue;
                };
                let fits = branches.iter().all(|b| match tree.get(*b, k) {
                    None => true,
                    Some(own) => tree.same_slot(&own.value, &entry.value) || k == Keyword::Required,
                });
                let copied = match &entry.value {
                    Slot::Value(_) => Some(0),
                    slot => Some(slot_size(tree, slot, &mut sizes) * branches.len()),
                };
                match copied {
                    Some(n) if fits && n <= budget => budget -= n,
                    _ => continue,
                }
                tree.take(id, k);
                for b in &branches {
                    match (k, tree.get(*b, k).map(|e| e.value.clone())) {
                        (Keyword::Required, Some(Slot::Value(Value::Array(mut own)))) => {
                            let more = entry.value.as_value().and_then(Value::as_array).cloned();
                            crate::adapt::rules::push_each_once(&mut own, more.unwrap_or_default());
                            tree.set_value(*b, Keyword::Required, Value::Array(own));
                        }
                        (_, Some(_)) => {}
                        (_, None) => {
                            let value = copy_slot(tree, &entry.value);
                            tree.set(
                                *b,
                                Entry {
                                    key: entry.key.clone(),
                                    value,
                                    origin: entry.origin,
                                },
                            );
                        }
                    }
                }
                moved.push(k.as_str());
            }
            if !moved.is_empty() {
                let origin = tree.node(id).origin;
                report.change(
                    origin,
                    Some(id),
                    format!(
                        "`{}` beside `anyOf` moved into each branch (the grammar converter reads only the union at this node)",
                        moved.join("`, `")
                    ),
                );
            }
        });
    }
}

/// The JSON types a `type` value names (`number` also names `integer`).
pub(super) fn type_names(t: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = match t {
        Value::String(s) => vec![s.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if names.contains(&"number") && !names.contains(&"integer") {
        names.push("integer");
    }
    names
}

/// The types a node without `type` can take through its `anyOf` members (`None`: any, or not
/// known within `depth` levels).
pub(super) fn effective(tree: &Tree, id: NodeId, depth: usize) -> Option<Vec<String>> {
    if depth == 0 {
        return None;
    }
    if let Some(t) = tree.value(id, Keyword::Type) {
        return Some(type_names(t).into_iter().map(str::to_owned).collect());
    }
    let Some(Slot::Schemas(members)) = tree.get(id, Keyword::AnyOf).map(|e| &e.value) else {
        return None;
    };
    let mut all = Vec::new();
    for m in members {
        all.extend(effective(tree, *m, depth - 1)?);
    }
    Some(all)
}

/// Whether every type `branch` names is one `node` names.
fn within(branch: Option<&Value>, node: &Value) -> bool {
    let outer = type_names(node);
    branch.is_some_and(|b| type_names(b).iter().all(|t| outer.contains(t)))
}

/// The types both name, in `branch`'s order (`integer` for `number` against `integer`).
fn intersection<'a>(branch: &'a Value, node: &'a Value) -> Vec<&'a str> {
    let outer = type_names(node);
    let mut both: Vec<&str> = Vec::new();
    for t in type_names(branch) {
        if outer.contains(&t) && !both.contains(&t) {
            both.push(t);
        }
    }
    // `number` and `integer` both kept mean `number`.
    if both.contains(&"number") {
        both.retain(|t| *t != "integer");
    }
    both
}

/// How many nodes a slot holds. Each node's count is kept in `sizes` once made (a walk from
/// the root counts each subtree once; the nodes below one being moved are not yet changed when it
/// is, as the walk visits parents first).
fn slot_size(tree: &Tree, slot: &Slot, sizes: &mut HashMap<NodeId, usize>) -> usize {
    let tops: Vec<NodeId> = match slot {
        Slot::Schema(n) => vec![*n],
        Slot::Schemas(list) => list.clone(),
        Slot::Map(map) => map.iter().map(|(_, n)| *n).collect(),
        Slot::Value(_) => Vec::new(),
    };
    tops.into_iter().map(|n| node_size(tree, n, sizes)).sum()
}

/// The node count of the subtree at `id`, counted children first without recursion.
fn node_size(tree: &Tree, id: NodeId, sizes: &mut HashMap<NodeId, usize>) -> usize {
    let mut work = vec![(id, false)];
    while let Some((n, children_done)) = work.pop() {
        if sizes.contains_key(&n) {
            continue;
        }
        if children_done {
            let total = 1 + tree
                .children(n)
                .map(|c| sizes.get(&c).copied().unwrap_or(1))
                .sum::<usize>();
            sizes.insert(n, total);
        } else {
            work.push((n, true));
            work.extend(
                tree.children(n)
                    .filter(|c| !sizes.contains_key(c))
                    .map(|c| (c, false)),
            );
        }
    }
    sizes.get(&id).copied().unwrap_or(1)
}

/// Narrows the type of each branch of `id`'s `anyOf` to `t` (both hold); whether it did. A
/// branch `t` excludes could match nothing: with `prune` (the root) it is removed, a loss, and a
/// branch that is an untyped union is narrowed member by member; without, nothing changes.
fn narrow(
    tree: &mut Tree,
    id: NodeId,
    t: &Value,
    prune: bool,
    report: &mut Report,
    depth: usize,
) -> bool {
    let Some(Slot::Schemas(branches)) = tree.get(id, Keyword::AnyOf).map(|e| &e.value) else {
        return false;
    };
    let branches = branches.clone();
    let names = type_names(t);
    let disjoint = |e: &[String]| e.iter().all(|n| !names.contains(&n.as_str()));
    let narrowed: Vec<Option<Value>> = (branches.iter())
        .map(|b| match tree.value(*b, Keyword::Type) {
            None if effective(tree, *b, 8).is_some_and(|e| disjoint(&e)) => None,
            None => Some(Value::Null),
            Some(own) if within(Some(own), t) => Some(own.clone()),
            Some(own) => match intersection(own, t).as_slice() {
                [] => None,
                [one] => Some(json!(one)),
                many => Some(json!(many)),
            },
        })
        .collect();
    if !prune && narrowed.iter().any(Option::is_none) {
        return false;
    }
    let mut kept = Vec::new();
    for (i, (b, ty)) in branches.iter().zip(narrowed).enumerate() {
        match ty {
            None => {
                let origin = tree.node(*b).origin;
                report.loss(
                    origin,
                    Some(id),
                    "anyOf",
                    LossKind::Dropped,
                    format!("branch {i} removed: no value of its type is an object, as the root must be, so it could match nothing"),
                );
                continue;
            }
            // An untyped branch: typed by the node's type, or (a union, at the root) narrowed
            // member by member.
            Some(Value::Null) => {
                let union = tree.has(*b, Keyword::AnyOf) && depth > 0;
                if !(prune && union && narrow(tree, *b, t, true, report, depth - 1)) {
                    tree.set_value(*b, Keyword::Type, t.clone());
                }
            }
            Some(ty) => {
                if tree.value(*b, Keyword::Type) != Some(&ty) {
                    tree.set_value(*b, Keyword::Type, ty);
                }
            }
        }
        kept.push(*b);
    }
    if kept.is_empty() {
        // Nothing could match: the union goes with its branches (each a loss).
        tree.take(id, Keyword::AnyOf);
    } else if kept.len() != branches.len() {
        if let Some(Slot::Schemas(list)) = tree.slot_mut(id, Keyword::AnyOf) {
            *list = kept;
        }
    }
    true
}

/// A copy of a slot, its subschemas copied.
fn copy_slot(tree: &mut Tree, slot: &Slot) -> Slot {
    match slot {
        Slot::Schema(n) => Slot::Schema(tree.copy(*n)),
        Slot::Schemas(list) => Slot::Schemas(list.iter().map(|n| tree.copy(*n)).collect()),
        Slot::Map(map) => Slot::Map(
            map.iter()
                .map(|(name, n)| (name.clone(), tree.copy(*n)))
                .collect(),
        ),
        Slot::Value(v) => Slot::Value(v.clone()),
    }
}

/// Every assertion keyword llama.cpp's converter would skip at a node spilled into the
/// description (or dropped), each with a loss; so are lengths and counts past the grammar's
/// repetition limit. A node left empty (`{}`, which the converter reads as "any object") gets
/// every type (a change), and an object whose `additionalProperties` is absent, which the
/// grammar closes, is written closed (`additionalProperties: false`), a `closed` loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct LlamaCppReads;

impl Rule for LlamaCppReads {
    fn name(&self) -> &'static str {
        "llama-cpp-reads"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let root = tree.root;
        tree.walk(|tree, id| {
            if !tree.is_object(id) {
                return;
            }
            let read = reads(tree, id, None);
            let unread = |k: &Key| matches!(k, Key::Kw(k) if ASSERTIONS.contains(k) && !read.contains(k));
            let limited: Vec<Key> = (tree.entries(id).iter())
                .filter(|e| unread(&e.key) && over_limit(tree, id, &e.key))
                .map(|e| e.key.clone())
                .collect();
            if !limited.is_empty() {
                Strip {
                    removed: &|k| limited.contains(k),
                    spill: HUMAN_READABLE,
                    why: "llama.cpp's grammar refuses a repetition of 2000 or more, and leaves one above unbounded",
                    keep: keep_none,
                    also_keep: &[],
                }
                .node(tree, id, report);
            }
            Strip {
                removed: &|k| unread(k) && !limited.contains(k),
                spill: HUMAN_READABLE,
                why: "llama.cpp's grammar skips it here",
                keep: keep_none,
                also_keep: &[],
            }
            .node(tree, id, report);
            if id != root && tree.entries(id).is_empty() {
                tree.set_value(id, Keyword::Type, json!(EVERY_TYPE));
                let origin = tree.node(id).origin;
                report.change(
                    origin,
                    Some(id),
                    "an empty schema given every type (llama.cpp reads `{}` as any object)",
                );
            }
            let closes = tree.has(id, Keyword::Properties)
                && !tree.has(id, Keyword::AdditionalProperties)
                && read.contains(&Keyword::Properties);
            if closes {
                tree.set_value(id, Keyword::AdditionalProperties, Value::Bool(false));
                let origin = tree.node(id).origin;
                report.loss(
                    origin,
                    Some(id),
                    "additionalProperties",
                    LossKind::Closed,
                    "llama.cpp's grammar closes an object without `additionalProperties`: properties beyond the declared ones, which the schema allows, can no longer be sent",
                );
            }
        });
    }
}

/// ECMA-262's `\s`, as a class body GBNF takes (its escapes: `\t \n \r \xNN \uNNNN`).
const SPACE_CLASS: &str =
    r"\t\n\x0B\x0C\r \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";

/// Any character, in a form the converter writes (its `.` takes all but `\n` and `\r`).
const ANY_CHAR: &str = r"(?:.|[\n\r\u2028\u2029])";

/// `pattern` rewritten into the form llama.cpp's converter takes, with the same meaning:
/// anchored at both ends (the converter requires `^…$` and matches the whole string: an
/// unanchored end gets "any characters"), `\d`, `\w`, `\s` (and `\D`, `\W`, `\S` outside a
/// class) written as classes and `\/` as `/` (the grammar parser knows only the escapes `x u U t
/// r n \ " [ ] -`). `Err` says why it cannot be: lookaround and named groups (skipped by the
/// converter with only a warning), back-references, `\b`, `\p{..}`, an anchor inside the
/// pattern, a `{` that is not a quantifier, a repetition past the grammar's limit.
pub(crate) fn llama_pattern(pattern: &str) -> Result<String, &'static str> {
    anchored_pattern(pattern, Some(LLAMA_CPP_ITEMS), None)
}

/// [`llama_pattern`]'s rewrite, with the engine's largest repetition count (`None`: no limit)
/// and, for an engine whose `.` takes every character (xgrammar), what ECMA-262's `.` is written
/// as there (`dot`); xgrammar's regex converter takes the same form.
pub(crate) fn anchored_pattern(
    pattern: &str,
    limit: Option<u64>,
    dot: Option<&str>,
) -> Result<String, &'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let start = chars.first() == Some(&'^');
    let mut end_at = chars.len();
    let escaped_end = |n: usize| {
        let mut k = 0;
        while n > k && chars[n - 1 - k] == '\\' {
            k += 1;
        }
        k % 2 == 1
    };
    let end = chars.len() > usize::from(start)
        && chars.last() == Some(&'$')
        && !escaped_end(chars.len() - 1);
    if end {
        end_at -= 1;
    }
    let body = &chars[usize::from(start)..end_at];
    let mut out = String::new();
    let mut in_class = false;
    let mut class_start = false;
    let mut depth = 0usize;
    let mut top_alternation = false;
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c == '\\' {
            let Some(&n) = body.get(i + 1) else {
                return Err("it ends in a lone backslash");
            };
            i += 2;
            let class = match n {
                'd' => Some("0-9"),
                'w' => Some("a-zA-Z0-9_"),
                's' => Some(SPACE_CLASS),
                _ => None,
            };
            if let Some(class) = class {
                if in_class {
                    out.push_str(class);
                } else {
                    out.push('[');
                    out.push_str(class);
                    out.push(']');
                }
                class_start = false;
                continue;
            }
            let negated = match n {
                'D' => Some("0-9"),
                'W' => Some("a-zA-Z0-9_"),
                'S' => Some(SPACE_CLASS),
                _ => None,
            };
            if let Some(class) = negated {
                if in_class {
                    return Err("a negated class escape (`\\D`, `\\W`, `\\S`) inside a class");
                }
                out.push_str("[^");
                out.push_str(class);
                out.push(']');
                continue;
            }
            match n {
                't' | 'n' | 'r' | '\\' | '"' | '[' | ']' | '-' => {
                    out.push('\\');
                    out.push(n);
                }
                'x' | 'u' => {
                    let len = if n == 'x' { 2 } else { 4 };
                    let hex: String = body.iter().skip(i).take(len).collect();
                    if hex.len() != len || !hex.chars().all(|h| h.is_ascii_hexdigit()) {
                        return Err("a `\\x` or `\\u` escape without its hex digits");
                    }
                    out.push('\\');
                    out.push(n);
                    out.push_str(&hex);
                    i += len;
                }
                '^' | '$' | '.' | '(' | ')' | '|' | '{' | '}' | '*' | '+' | '?' => {
                    if in_class {
                        if n == '^' && class_start {
                            return Err("an escaped `^` first in a class");
                        }
                        out.push(n);
                    } else {
                        out.push('\\');
                        out.push(n);
                    }
                }
                '/' => out.push('/'),
                _ => {
                    return Err(
                        "an escape the grammar cannot take (`\\b`, a back-reference, `\\p{..}`, ...)",
                    );
                }
            }
            class_start = false;
            continue;
        }
        if in_class {
            if c == ']' && !class_start {
                in_class = false;
            }
            class_start = class_start && c == '^';
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                class_start = true;
                out.push(c);
            }
            '(' => {
                if body.get(i + 1) == Some(&'?') && body.get(i + 2) != Some(&':') {
                    return Err(
                        "lookaround or a named group (the converter skips it, with only a warning)",
                    );
                }
                depth += 1;
                out.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                out.push(c);
            }
            '|' => {
                top_alternation |= depth == 0;
                out.push(c);
            }
            '^' | '$' => return Err("an anchor inside the pattern"),
            '.' if dot.is_some() => out.push_str(dot.unwrap_or(".")),
            '{' => {
                let close = (body[i..].iter()).position(|&x| x == '}').map(|p| i + p);
                let Some(close) = close else {
                    return Err("a `{` that is not a quantifier");
                };
                let inner: String = body[i + 1..close].iter().collect();
                let mut numbers = inner.splitn(2, ',');
                let first = numbers.next().unwrap_or("");
                let second = numbers.next();
                let valid = |t: &str| t.chars().all(|d| d.is_ascii_digit());
                if first.is_empty() || !valid(first) || second.is_some_and(|t| !valid(t)) {
                    return Err("a `{` that is not a quantifier");
                }
                let too_many = |t: &str| {
                    t.parse::<u64>()
                        .map_or(true, |n| limit.is_some_and(|l| n >= l))
                };
                if too_many(first) || second.is_some_and(|t| !t.is_empty() && too_many(t)) {
                    return Err("a repetition past the grammar's limit");
                }
                out.extend(&body[i..=close]);
                i = close + 1;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    if in_class {
        return Err("an unclosed class");
    }
    if top_alternation && (start != end) {
        return Err("an alternation anchored at one end only");
    }
    if top_alternation && start && end {
        // `^a|b$` is "starts with a, or ends with b": not one whole-string match.
        return Err("an alternation whose anchors belong to its first and last branches");
    }
    let any = match dot {
        Some(d) => format!(r"(?:{d}|[\n\r\u2028\u2029])"),
        None => ANY_CHAR.to_owned(),
    };
    let (open, close) = if start && end {
        (String::new(), String::new())
    } else {
        (
            if start {
                "(?:".to_owned()
            } else {
                format!("{any}*(?:")
            },
            if end {
                ")".to_owned()
            } else {
                format!("){any}*")
            },
        )
    };
    Ok(format!("^{open}{out}{close}$"))
}

/// Every `pattern` in the form llama.cpp's converter takes (`llama_pattern`): a rewrite with
/// the same meaning is a change; one that cannot be rewritten is spilled into the description,
/// a loss (the converter would refuse the whole request, or skip part of it).
#[derive(Clone, Copy, Debug, Default)]
pub struct LlamaCppPatterns;

impl Rule for LlamaCppPatterns {
    fn name(&self) -> &'static str {
        "llama-cpp-patterns"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        rewrite_patterns(
            tree,
            report,
            llama_pattern,
            "in the form llama.cpp's converter takes (anchored at both ends, no `\\d`/`\\w`/`\\s` escapes)",
            "llama.cpp's converter cannot take it",
        );
    }
}

/// Every `pattern` rewritten by `rewrite` (a change, saying it means the same `how`), or spilled
/// where it cannot be (a loss, `refused` and the reason): the grammar engines' pattern rules.
pub(super) fn rewrite_patterns(
    tree: &mut Tree,
    report: &mut Report,
    rewrite: impl Fn(&str) -> Result<String, &'static str>,
    how: &str,
    refused: &str,
) {
    if !tree.holds(Keyword::Pattern) {
        return;
    }
    tree.walk(|tree, id| {
        let Some(pattern) = tree.value(id, Keyword::Pattern).and_then(Value::as_str) else {
            return;
        };
        match rewrite(pattern) {
            Ok(p) if p == pattern => {}
            Ok(p) => {
                let origin =
                    (tree.get(id, Keyword::Pattern)).map_or(tree.node(id).origin, |e| e.origin);
                let detail = format!(
                    "`pattern: {}` written as `{}`, which means the same {how}",
                    json!(pattern),
                    json!(p)
                );
                tree.set_value(id, Keyword::Pattern, Value::String(p));
                report.change(origin, Some(id), detail);
            }
            Err(why) => {
                let why = format!("{refused}: {why}");
                Strip {
                    removed: &|k| *k == Key::Kw(Keyword::Pattern),
                    spill: HUMAN_READABLE,
                    why: &why,
                    keep: keep_none,
                    also_keep: &[],
                }
                .node(tree, id, report);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapt::rules::apply;

    fn run(rule: impl Rule + 'static, schema: Value) -> crate::adapt::rules::Applied {
        apply(&mut [Box::new(rule) as Box<dyn Rule>], &schema)
    }

    #[test]
    fn a_keyword_the_converter_skips_is_spilled() {
        let out = run(
            LlamaCppReads,
            json!({"type": "object", "properties": {"n": {"type": "number", "minimum": 1}}, "additionalProperties": false}),
        );
        assert_eq!(
            out.schema["properties"]["n"],
            json!({"type": "number", "description": "At least 1."})
        );
        assert!(
            out.losses
                .iter()
                .any(|l| l.keyword == "minimum" && l.kind == LossKind::Spilled)
        );
    }

    #[test]
    fn integer_bounds_and_short_lengths_are_kept() {
        let schema = json!({"type": "object", "properties": {
            "i": {"type": "integer", "minimum": 1, "maximum": 9},
            "s": {"type": "string", "maxLength": 20}
        }, "additionalProperties": false});
        let out = run(LlamaCppReads, schema.clone());
        assert_eq!(out.schema, schema);
        assert!(out.losses.is_empty());
    }

    #[test]
    fn a_length_past_the_repetition_limit_is_spilled() {
        let out = run(
            LlamaCppReads,
            json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 5000}}, "additionalProperties": false}),
        );
        assert_eq!(out.schema["properties"]["s"]["type"], "string");
        assert!(out.schema["properties"]["s"].get("maxLength").is_none());
        let loss = out
            .losses
            .iter()
            .find(|l| l.keyword == "maxLength")
            .unwrap();
        assert!(loss.detail.contains("2000"), "{}", loss.detail);
    }

    #[test]
    fn an_empty_schema_gets_every_type_and_an_open_object_is_reported_closed() {
        let out = run(
            LlamaCppReads,
            json!({"type": "object", "properties": {"any": {}}}),
        );
        assert_eq!(out.schema["properties"]["any"]["type"], json!(EVERY_TYPE));
        assert_eq!(out.schema["additionalProperties"], false);
        assert!(
            out.losses
                .iter()
                .any(|l| l.keyword == "additionalProperties"
                    && l.kind == LossKind::Closed
                    && l.pointer.as_str() == "")
        );
    }

    #[test]
    fn siblings_of_a_union_move_into_its_branches() {
        let out = run(
            SiblingsIntoBranches,
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                   "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        );
        let branches = out.schema["anyOf"].as_array().unwrap();
        for (b, name) in branches.iter().zip(["a", "b"]) {
            assert_eq!(b["type"], "object");
            assert_eq!(b["required"], json!([name]));
            assert_eq!(b["properties"]["a"], json!({"type": "string"}));
        }
        assert!(out.schema.get("properties").is_none());
    }
    #[test]
    fn patterns_are_anchored_and_their_escapes_written_as_classes() {
        assert_eq!(
            llama_pattern(r"^\d{3}-\w+$").unwrap(),
            r"^[0-9]{3}-[a-zA-Z0-9_]+$"
        );
        assert_eq!(llama_pattern(r"^[\d_]+$").unwrap(), r"^[0-9_]+$");
        assert_eq!(
            llama_pattern(r"^https?://").unwrap(),
            format!(r"^(?:https?://){ANY_CHAR}*$")
        );
        assert_eq!(
            llama_pattern("[a-z]+").unwrap(),
            format!("^{ANY_CHAR}*(?:[a-z]+){ANY_CHAR}*$")
        );
        assert!(llama_pattern(r"^(?=.*\d).+$").is_err());
        assert!(llama_pattern(r"^(a)\1$").is_err());
        assert!(llama_pattern(r"^a|b$").is_err());
        assert!(llama_pattern(r"^a{1,5000}$").is_err());
        // The rewrite means the same to a JSON Schema validator.
        for (p, yes, no) in [
            (r"[a-z]+", "X abc Y", "XYZ"),
            (r"^\d{3}$", "123", "12a"),
            (r"^https?://", "https://x\ny", "ftp://x"),
        ] {
            let rewritten = llama_pattern(p).unwrap();
            for (text, expected) in [(yes, true), (no, false)] {
                let re = regress::Regex::new(&rewritten).unwrap();
                assert_eq!(re.find(text).is_some(), expected, "{rewritten} on {text:?}");
            }
        }
    }

    #[test]
    fn a_pattern_the_converter_cannot_take_is_spilled() {
        let out = run(
            LlamaCppPatterns,
            json!({"type": "object", "properties": {"p": {"type": "string", "pattern": r"^(?!x).*$"}}}),
        );
        assert!(out.schema["properties"]["p"].get("pattern").is_none());
        let loss = out.losses.iter().find(|l| l.keyword == "pattern").unwrap();
        assert_eq!(loss.kind, LossKind::Spilled);
        assert!(loss.detail.contains("lookaround"), "{}", loss.detail);
    }
}
