//! A list of types split into one branch per type, for strict modes that take one type a node.

use serde_json::Value;

use crate::adapt::tree::{Body, Entry, Keyword, NodeId, Origin, Report, Rule, Slot, Tree};

/// `type: [A, B]` → `anyOf: [{type: A, …}, {type: B, …}]`, each branch keeping the keywords
/// that apply to its type (an `enum` its values of that type; a type none of whose values
/// fits is left out), the description kept on the union. One type left is the node itself. A
/// change. With `keep_nullable_scalar`, `type: [T, "null"]` of one plain scalar type stays (the
/// form OpenAI documents for optional fields, and the one close-objects writes).
#[derive(Clone, Copy, Debug)]
pub struct SplitTypeArrays {
    /// Leave `type: [T, "null"]` of one plain scalar type as it is.
    pub keep_nullable_scalar: bool,
}

impl SplitTypeArrays {
    /// OpenAI strict: the nullable scalar form stays.
    pub const OPENAI: SplitTypeArrays = SplitTypeArrays {
        keep_nullable_scalar: true,
    };
    /// Every list of types split.
    pub const ALL: SplitTypeArrays = SplitTypeArrays {
        keep_nullable_scalar: false,
    };
}

impl Rule for SplitTypeArrays {
    fn name(&self) -> &'static str {
        "split-type-arrays"
    }

    fn apply(&mut self, tree: &mut Tree, report: &mut Report) {
        let listed =
            |e: &Entry| e.key == Keyword::Type && matches!(e.value, Slot::Value(Value::Array(_)));
        if !tree.any_entry(listed) {
            return;
        }
        tree.walk(|tree, id| {
            // A list of one type is that type: the node keeps every keyword (a split would keep
            // only those of the type, and drop the rest without a word).
            if let Some(Value::Array(types)) = tree.value(id, Keyword::Type) {
                if let [only] = types.as_slice() {
                    let only = only.clone();
                    let detail = format!("`type: [{only}]` → `type: {only}`");
                    let at = tree.get(id, Keyword::Type).map(|e| e.origin);
                    tree.set_value(id, Keyword::Type, only);
                    if let Some(at) = at {
                        report.change(at, Some(id), detail);
                    }
                    return;
                }
            }
            let kept = self.keep_nullable_scalar && super::objects::nullable_scalar(tree, id);
            if tree.entries(id).iter().any(listed) && !kept {
                split(tree, id, report);
            }
        });
    }
}

/// Whether the node's `enum` (if any) has a value of type `t`.
fn has_branch(base: &[Entry], t: &str) -> bool {
    match base
        .iter()
        .find(|e| e.key == Keyword::Enum)
        .map(|e| &e.value)
    {
        Some(Slot::Value(Value::Array(values))) => values.iter().any(|x| fits(t, x)),
        _ => true,
    }
}

/// The branch of type `t`: the entries of `base` that apply to it (an `enum` keeps its values
/// of that type), then `type`. An entry goes to the first branch it applies to as it is (its
/// subschemas, and what was recorded of them, are written there); a later branch gets copies
/// (new nodes, the same origins).
fn branch(
    tree: &mut Tree,
    base: &[Entry],
    given: &mut [bool],
    t: &str,
    type_origin: Origin,
) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(base.len() + 1);
    for (entry, given) in base.iter().zip(given.iter_mut()) {
        if of_another_type(t, entry.key.as_str()) {
            continue;
        }
        let mut entry = entry.clone();
        let copy = std::mem::replace(given, true);
        match &mut entry.value {
            Slot::Value(Value::Array(values)) if entry.key == Keyword::Enum => {
                values.retain(|x| fits(t, x));
            }
            Slot::Schema(child) if copy => *child = tree.copy(*child),
            Slot::Schemas(ids) if copy => ids.iter_mut().for_each(|c| *c = tree.copy(*c)),
            Slot::Map(members) if copy => members.iter_mut().for_each(|(_, c)| *c = tree.copy(*c)),
            _ => {}
        }
        entries.push(entry);
    }
    entries.push(Entry {
        key: Keyword::Type.into(),
        value: Slot::Value(t.into()),
        origin: type_origin,
    });
    entries
}

fn split(tree: &mut Tree, id: NodeId, report: &mut Report) {
    let origin = tree.node(id).origin;
    let all = tree.entries_mut(id).map(std::mem::take).unwrap_or_default();
    let (mut listed, mut description, mut base) = (None, None, Vec::with_capacity(all.len()));
    for entry in all {
        if entry.key == Keyword::Type {
            listed = Some(entry);
        } else if entry.key == Keyword::Description {
            description = Some(entry);
        } else {
            base.push(entry);
        }
    }
    let Some(Entry {
        value: Slot::Value(Value::Array(items)),
        origin: type_origin,
        ..
    }) = listed
    else {
        unreachable!("checked by the rule")
    };
    let types: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
    let (detail, count) = (split_detail(&types), types.len());
    let mut given = vec![false; base.len()];
    let mut variants: Vec<Vec<Entry>> = Vec::with_capacity(count);
    for name in &types {
        if has_branch(&base, name) {
            variants.push(branch(tree, &base, &mut given, name, type_origin));
        }
    }
    let with_description = |mut entries: Vec<Entry>| {
        entries.extend(description.clone());
        entries
    };
    let entries = match variants.len() {
        0 => with_description(base),
        1 => with_description(variants.remove(0)),
        _ => {
            let branches = (variants.into_iter())
                .map(|entries| tree.add(origin, Body::Object(entries)))
                .collect();
            let mut wrapper = vec![Entry {
                key: Keyword::AnyOf.into(),
                value: Slot::Schemas(branches),
                origin,
            }];
            wrapper.extend(description.clone());
            wrapper
        }
    };
    *tree.entries_mut(id).expect("an object") = entries;
    report.change(origin, Some(id), detail);
}

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

pub(crate) fn fits(t: &str, v: &Value) -> bool {
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

/// "`type: [\"a\", \"b\"]` → one branch per type": the list as Rust's `Debug` writes it,
/// without the formatter where no name needs escaping (type names never do).
pub(crate) fn split_detail(types: &[&str]) -> String {
    let plain = |t: &&str| {
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
